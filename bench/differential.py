"""Differential fidelity: how closely this engine follows Urho3D on every recorded reference scenario.

    python bench/differential.py [--json] [SCENARIO ...]

For each trace under tests/reference/urho3d/traces/ (recorded in Urho3D itself; docs/fidelity.md), runs the
scenario here and prints its agreement: frames compared, the largest deviation per quantity (position, rotation,
scale, traced values, event data), the first frame of divergence, or the API this engine does not implement
yet; differences that tolerances.toml accepts for a scenario are named. Ends with the total: scenarios agreeing /
recorded.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import click

if __package__ in (None, ""):  # run as a script: make the repository's packages importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.differential import QUANTITIES, Status, check_scenario, load_tolerances, read_trace, trace_files

REFERENCE = Path(__file__).resolve().parent.parent / "tests" / "reference" / "urho3d"


@click.command(help=__doc__.split("\n\n")[0])
@click.argument("scenarios", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="one JSON object per scenario per line, then the totals")
def main(scenarios: tuple[str, ...], as_json: bool) -> None:
    traces = trace_files(REFERENCE / "traces")
    unknown = sorted(set(scenarios) - set(traces))
    if unknown:
        click.echo(f"Error: no trace for {', '.join(unknown)} (recorded: {', '.join(sorted(traces))})", err=True)
        sys.exit(2)
    table = load_tolerances(REFERENCE / "tolerances.toml")
    names = list(scenarios) or sorted(traces)
    counts = dict.fromkeys((Status.AGREE, Status.DISAGREE, Status.NOT_IMPLEMENTED), 0)
    start = time.monotonic()
    if not as_json:
        head = "".join(f"{q:>10}" for q in QUANTITIES)
        click.echo(f"{'scenario':<24}{'domain':<11}{'status':<16}{'frames':>9}{head}  first divergence")
    for name in names:
        result = check_scenario(REFERENCE / "lua", read_trace(traces[name]), table)
        counts[result.status] += 1
        if as_json:
            click.echo(json.dumps({"scenario": name, "domain": result.domain, "status": result.status,
                                   "frames_compared": result.frames_compared,
                                   "frames_recorded": result.frames_recorded, "deviation": result.deviation,
                                   "first_divergence": result.first_divergence, "problems": result.problems[:5],
                                   "not_implemented": result.not_implemented, "accepted": result.accepted[:5]},
                                  sort_keys=True))
            continue
        if result.status == Status.NOT_IMPLEMENTED:
            click.echo(f"{name:<24}{result.domain:<11}{'not implemented':<16}{'':>9}"
                       + "".join(f"{'-':>10}" for _ in QUANTITIES) + "  " + ", ".join(result.not_implemented))
            continue
        frames = f"{result.frames_compared}/{result.frames_recorded}"
        devs = "".join(f"{result.deviation[q]:>10.2g}" for q in QUANTITIES)
        first = "" if result.first_divergence is None else result.problems[0]
        if result.accepted and not first:
            first = f"{len(result.accepted)} accepted difference(s), e.g. {result.accepted[0]}"
        click.echo(f"{name:<24}{result.domain:<11}{result.status:<16}{frames:>9}{devs}  {first[:160]}")
    total = {"agreeing": counts[Status.AGREE], "recorded": len(names), "disagreeing": counts[Status.DISAGREE],
             "not_implemented": counts[Status.NOT_IMPLEMENTED], "wall_seconds": round(time.monotonic() - start, 1)}
    if as_json:
        click.echo(json.dumps({"total": total}, sort_keys=True))
    else:
        click.echo(f"\nagreeing / recorded: {total['agreeing']} / {total['recorded']}  "
                   f"(disagreeing {total['disagreeing']}, not implemented {total['not_implemented']}; "
                   f"{total['wall_seconds']} s)")
    sys.exit(0 if counts[Status.DISAGREE] == 0 else 1)


if __name__ == "__main__":
    main()
