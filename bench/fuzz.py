"""Fuzz the engine's newest surfaces with hostile game Lua for a while and print what breaks.

    python bench/fuzz.py [--seconds N | --programs N] [--seed S] [--jobs J] [--kinds crash,timeout,...]
                         [--no-minimize] [--determinism K] [--show-programs DIR]

Programs come from tests/engine/fuzz_surfaces.py (seeds S, S+1, ...), each run in a fresh engine subprocess.
Prints programs/s, then every distinct finding (kind, signature, first seed, how many programs showed it) with a
minimal reproducer: the seed and the steps that still show it (written out under --show-programs).  With
--determinism K, the first K programs are run a second time and their evidence digests compared.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import click

if __package__ in (None, ""):  # run as a script: make the repository's packages importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.engine.fuzz_surfaces import (
    Finding,
    Program,
    evidence_digest,
    findings,
    generate,
    minimize,
    run_program,
)

SEVERE = ("crash", "timeout", "engine_error", "leak", "sandbox")
ALL_KINDS = (*SEVERE, "internal", "misplaced")


@dataclass
class Seen:
    finding: Finding
    seeds: list[int] = field(default_factory=list)


def _run(seed: int) -> tuple[int, Program, dict]:
    program = generate(seed)
    return seed, program, run_program(program)


@click.command(help=__doc__.split("\n\n")[0])
@click.option("--seconds", type=float, default=None, help="stop starting programs after this many wall seconds")
@click.option("--programs", type=int, default=None, help="run this many programs (default 200 without --seconds)")
@click.option("--seed", type=int, default=0, show_default=True, help="the first program's seed")
@click.option("--jobs", type=int, default=2, show_default=True, help="programs run at the same time")
@click.option("--kinds", default=",".join((*SEVERE, "internal")), show_default=True,
              help="finding kinds to report (of: " + ", ".join(ALL_KINDS) + ")")
@click.option("--no-minimize", is_flag=True, help="report the first program as it is")
@click.option("--determinism", type=int, default=0, help="re-run the first K programs and compare digests")
@click.option("--show-programs", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="write each reproducer's game folder here")
def main(seconds: float | None, programs: int | None, seed: int, jobs: int, kinds: str, no_minimize: bool,
         determinism: int, show_programs: Path | None) -> None:
    wanted = {k.strip() for k in kinds.split(",") if k.strip()}
    if programs is None and seconds is None:
        programs = 200
    start = time.monotonic()
    seen: dict[str, Seen] = {}
    first: dict[str, Program] = {}
    outcomes: dict[str, int] = {}
    digests: dict[int, str] = {}
    count = 0
    next_seed = seed

    def more() -> bool:
        if programs is not None and next_seed - seed >= programs:
            return False
        return seconds is None or time.monotonic() - start < seconds

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        pending = []
        while more() or pending:
            while more() and len(pending) < jobs * 2:
                pending.append(pool.submit(_run, next_seed))
                next_seed += 1
            done, pending = pending[0], pending[1:]
            s, program, report = done.result()
            count += 1
            outcomes[str(report.get("outcome"))] = outcomes.get(str(report.get("outcome")), 0) + 1
            if s - seed < determinism:
                digests[s] = evidence_digest(report)
            for f in findings(report):
                if f.kind not in wanted:
                    continue
                key = f"{f.kind}:{f.signature}"
                if key not in seen:
                    seen[key] = Seen(f)
                    first[key] = program
                    click.echo(f"[{time.monotonic() - start:6.1f}s] new {f.kind}: {f.signature} (seed {s})",
                               err=True)
                seen[key].seeds.append(s)
    elapsed = time.monotonic() - start
    click.echo(f"{count} programs in {elapsed:.1f} s: {count / elapsed:.2f} programs/s on {jobs} jobs")
    click.echo("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    if determinism:
        mismatched = []
        for s, digest in sorted(digests.items()):
            again = evidence_digest(run_program(generate(s)))
            if again != digest:
                mismatched.append(s)
        click.echo(f"determinism: {len(digests) - len(mismatched)}/{len(digests)} programs gave identical evidence"
                   + (f"; differing seeds: {mismatched}" if mismatched else ""))
    order = sorted(seen, key=lambda k: (ALL_KINDS.index(seen[k].finding.kind), k))
    click.echo(f"{len(order)} distinct findings")
    for key in order:
        item = seen[key]
        f = item.finding
        more = f" ... (+{len(item.seeds) - 10})" if len(item.seeds) > 10 else ""
        click.echo(f"\n== {f.kind}: {f.signature}  ({len(item.seeds)} programs, seeds "
                   f"{', '.join(map(str, item.seeds[:10]))}{more})")
        click.echo("   " + f.detail.strip().splitlines()[0][:300] if f.detail.strip() else "")
        program = first[key]
        if not no_minimize and f.kind in (*SEVERE, "internal"):
            program = minimize(program, f)
        click.echo(f"   reproducer: seed {program.seed}, {len(program.steps)} step(s)")
        for step in program.steps:
            code = step.code if len(step.code) < 600 else step.code[:600] + " ..."
            click.echo(f"   -- frame {step.frame}{' raw' if step.raw else ''} ({step.label})\n   "
                       + code.replace("\n", "\n   "))
        if show_programs is not None:
            program.write(show_programs / f"{f.kind}-{item.seeds[0]}-{len(order)}-{order.index(key):03d}")


if __name__ == "__main__":
    main()
