"""Differential fidelity: run a reference scenario in this engine and compare its trace with Urho3D's.

A scenario (tests/reference/urho3d/lua/scenarios/NAME.lua) is run by the recorder (lua/recorder.lua) in Urho3D
itself, headless, and the trace it wrote is stored (traces/NAME.jsonl or .jsonl.gz). Here the same recorder runs
the same scenario in this engine for the same number of frames, and the two traces are compared:

* structure exactly: the frames, the event sequence of each frame (names and non-float data), the traced value
  names and non-float values, and every recorded node's id, name, parent, enabled state and components;
* floats within tolerances per quantity and per domain (tolerances.toml; docs/fidelity.md says why);
* a scenario may widen a tolerance or accept a difference in named traced values, each with its reason
  (tolerances.toml): accepted differences are reported beside the result, never hidden.

A run of this engine that reports missing API is not compared: it is "not implemented" with the API it missed,
so it starts being compared as soon as the engine implements that API.
"""

from __future__ import annotations

import gzip
import json
import math
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._engine import Engine
from ._errors import BadInputError

RECORDER_ENTRY = "recorder.lua"
QUANTITIES = ("position", "rotation", "scale", "value", "event")
# Log lines by which this engine admits a stubbed feature (declared, callable, but doing nothing headless).
STUB_MARKERS = ("is not supported headless",)


class Status:
    """How a scenario came out."""

    AGREE = "agree"
    DISAGREE = "disagree"
    NOT_IMPLEMENTED = "not_implemented"


@dataclass(frozen=True)
class Tolerances:
    """Largest absolute deviation allowed per quantity (rotation: per quaternion component)."""

    position: float
    rotation: float
    scale: float
    value: float
    event: float

    def of(self, quantity: str) -> float:
        return float(getattr(self, quantity))


@dataclass(frozen=True)
class Override:
    """A scenario's own tolerances and accepted differences, with the reason (docs/fidelity.md has the sizes)."""

    tolerances: dict[str, float]
    accept: tuple[str, ...]
    reason: str


@dataclass(frozen=True)
class ToleranceTable:
    """tolerances.toml: one row per domain, and per-scenario overrides that must say why."""

    domains: dict[str, Tolerances]
    overrides: dict[str, Override]

    def for_scenario(self, name: str, domain: str) -> Tolerances:
        if domain not in self.domains:
            raise BadInputError(f"tolerances: no row for domain {domain!r} (scenario {name})")
        base = self.domains[domain]
        values = self.overrides[name].tolerances if name in self.overrides else {}
        return Tolerances(**{q: float(values.get(q, base.of(q))) for q in QUANTITIES})

    def accepted(self, name: str) -> tuple[str, ...]:
        """Traced values of scenario `name` whose differences are accepted (reported, not failed)."""
        return self.overrides[name].accept if name in self.overrides else ()


def load_tolerances(path: Path) -> ToleranceTable:
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    domains = {}
    for name, row in data.get("domain", {}).items():
        missing = [q for q in QUANTITIES if q not in row]
        if missing:
            raise BadInputError(f"{path}: domain {name} lacks {', '.join(missing)}")
        domains[name] = Tolerances(**{q: float(row[q]) for q in QUANTITIES})
    overrides = {}
    for name, row in data.get("scenario", {}).items():
        reason = str(row.get("reason", "")).strip()
        if not reason:
            raise BadInputError(f"{path}: the override for scenario {name} must give a reason")
        unknown = sorted(set(row) - {*QUANTITIES, "reason", "accept"})
        if unknown:
            raise BadInputError(f"{path}: scenario {name}: unknown key(s) {', '.join(unknown)}")
        overrides[name] = Override({q: float(row[q]) for q in QUANTITIES if q in row},
                                   tuple(str(v) for v in row.get("accept", ())), reason)
    return ToleranceTable(domains, overrides)


# ------------------------------------------------------------------------------------------------------------
# traces
# ------------------------------------------------------------------------------------------------------------
@dataclass
class Trace:
    """A parsed trace: its header and one dict per frame ({"f", "ev", "val", "nodes"?})."""

    header: dict[str, Any]
    frames: list[dict[str, Any]]

    @property
    def scenario(self) -> str:
        return str(self.header.get("scenario"))

    @property
    def domain(self) -> str:
        return str(self.header.get("domain", "math"))

    @property
    def errors(self) -> list[tuple[int, dict[str, Any]]]:
        return [(f["f"], ev[1]) for f in self.frames for ev in f["ev"] if ev[0] == "error"]


def parse_trace(lines: list[str]) -> Trace:
    rows = [json.loads(line) for line in lines if line.strip()]
    if not rows or "recorder" not in rows[0]:
        raise BadInputError("trace: the first line is not a recorder header")
    return Trace(rows[0], rows[1:])


def read_trace(path: Path) -> Trace:
    raw = Path(path).read_bytes()
    if path.name.endswith(".gz"):
        raw = gzip.decompress(raw)
    return parse_trace(raw.decode("utf-8").splitlines())


def trace_files(traces_dir: Path) -> dict[str, Path]:
    """Scenario name -> its trace file (NAME.jsonl or NAME.jsonl.gz)."""
    out: dict[str, Path] = {}
    for path in sorted(Path(traces_dir).iterdir()):
        for suffix in (".jsonl.gz", ".jsonl"):
            if path.name.endswith(suffix):
                out[path.name[: -len(suffix)]] = path
    return out


# ------------------------------------------------------------------------------------------------------------
# running a scenario here
# ------------------------------------------------------------------------------------------------------------
@dataclass
class Run:
    """This engine's trace of a scenario, and what the engine reported."""

    trace: Trace | None
    missing_api: list[str]
    stubs: list[str]
    errors: list[str]


def run_scenario(lua_dir: Path, name: str, frames: int) -> Run:
    """Run scenario `name` with the recorder for `frames` frames in a fresh engine."""
    engine = Engine(Path(lua_dir), entry=RECORDER_ENTRY)
    with engine.unmetered():
        engine.game_env["RECORDER_CONFIG"] = engine.runtime.table_from({"scenario": name})
    engine.start()
    engine.run_frames(frames)
    report = engine.report()
    lines_table = engine.game_env["RECORDER_LINES"]
    lines = [str(lines_table[i]) for i in range(1, len(lines_table) + 1)] if lines_table is not None else []
    stubs = sorted({e["message"] for e in report.log if any(m in str(e.get("message")) for m in STUB_MARKERS)})
    errors = [str(e.get("message")) for e in report.errors]
    trace = parse_trace(lines) if lines else None
    return Run(trace, list(report.missing_api), stubs, errors)


# ------------------------------------------------------------------------------------------------------------
# comparing
# ------------------------------------------------------------------------------------------------------------
@dataclass
class Agreement:
    """How this engine's trace of one scenario compares with Urho3D's."""

    scenario: str
    domain: str
    status: str
    frames_compared: int = 0
    frames_recorded: int = 0
    deviation: dict[str, float] = field(default_factory=lambda: dict.fromkeys(QUANTITIES, 0.0))
    first_divergence: int | None = None
    problems: list[str] = field(default_factory=list)
    not_implemented: list[str] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)

    @property
    def agrees(self) -> bool:
        return self.status == Status.AGREE

    def summary(self) -> str:
        if self.status == Status.NOT_IMPLEMENTED:
            return "not implemented: " + ", ".join(self.not_implemented)
        devs = ", ".join(f"{q} {self.deviation[q]:.2g}" for q in QUANTITIES)
        head = f"{self.status}: {self.frames_compared}/{self.frames_recorded} frames; largest deviation {devs}"
        if self.first_divergence is not None:
            head += f"; first divergence at frame {self.first_divergence}"
        if self.accepted:
            head += f"; {len(self.accepted)} accepted difference(s)"
        return head + "".join(f"\n  {p}" for p in self.problems[:12])


# Urho3D orders the two bodies of a 3D collision pair by their C++ addresses (PhysicsWorld::SendCollisionEvents),
# which no other process reproduces; this engine puts the body created first as A (docs/physics.md).  Which one is A
# is not compared: the pair is, and the rest of the data with it.
_UNORDERED_PAIRS = {"PhysicsCollisionStart", "PhysicsCollision", "PhysicsCollisionEnd"}


def _pair_as_in(name: str, ref: dict[str, Any], ours: dict[str, Any]) -> dict[str, Any]:
    """`ours` with A and B swapped when that is how Urho3D's address order put the same pair."""
    if name not in _UNORDERED_PAIRS or ours.get("NodeA") == ref.get("NodeA"):
        return ours
    if ours.get("NodeA") != ref.get("NodeB") or ours.get("NodeB") != ref.get("NodeA"):
        return ours
    swapped = dict(ours)
    for a, b in (("NodeA", "NodeB"), ("BodyA", "BodyB")):
        if a in ours and b in ours:
            swapped[a], swapped[b] = ours[b], ours[a]
    return swapped


class _Comparer:
    """Walks two traces side by side, noting deviations and problems with the frame they occur in."""

    MAX_PROBLEMS = 40

    def __init__(self, tolerances: Tolerances, accept: tuple[str, ...] = ()) -> None:
        self.tol = tolerances
        self.accept = set(accept)
        self.deviation = dict.fromkeys(QUANTITIES, 0.0)
        self.problems: list[str] = []
        self.accepted: list[str] = []
        self.first: int | None = None
        self.frame = 0

    def problem(self, text: str) -> None:
        if self.first is None:
            self.first = self.frame
        if len(self.problems) < self.MAX_PROBLEMS:
            self.problems.append(f"frame {self.frame}: {text}")

    def number(self, quantity: str, what: str, ref: Any, ours: Any) -> None:
        if isinstance(ref, str) or isinstance(ours, str):   # "nan", "inf", "-inf"
            if ref != ours:
                self.problem(f"{what}: {ours} here, {ref} in Urho3D")
            return
        dev = abs(float(ours) - float(ref))
        if math.isnan(dev):
            dev = math.inf
        self.deviation[quantity] = max(self.deviation[quantity], dev)
        limit = self.tol.of(quantity)
        if dev > limit:
            self.problem(f"{what}: {ours} here, {ref} in Urho3D (off by {dev:.3g}, tolerance {limit:g})")

    def value(self, quantity: str, what: str, ref: Any, ours: Any) -> None:
        """Any JSON value: floats within tolerance, everything else exactly."""
        if isinstance(ref, list) and isinstance(ours, list):
            if len(ref) != len(ours):
                self.problem(f"{what}: {len(ours)} items here, {len(ref)} in Urho3D")
                return
            for i, (a, b) in enumerate(zip(ref, ours, strict=True)):
                self.value(quantity, f"{what}[{i}]", a, b)
            return
        if _is_number(ref) and _is_number(ours):
            self.number(quantity, what, ref, ours)
            return
        if ref != ours:
            self.problem(f"{what}: {json.dumps(ours)} here, {json.dumps(ref)} in Urho3D")

    def events(self, ref: list[Any], ours: list[Any]) -> None:
        names_ref, names_ours = [e[0] for e in ref], [e[0] for e in ours]
        if names_ref != names_ours:
            self.problem(f"events {_short(names_ours)} here, {_short(names_ref)} in Urho3D")
            return
        for (name, data_ref), (_, data_ours) in zip(ref, ours, strict=True):
            if name == "error":
                continue   # messages name files and lines differently; that an error happened is compared above
            if sorted(data_ref) != sorted(data_ours):
                self.problem(f"{name} data keys {sorted(data_ours)} here, {sorted(data_ref)} in Urho3D")
                continue
            data_ours = _pair_as_in(name, data_ref, data_ours)
            for key in sorted(data_ref):
                self.value("event", f"{name}.{key}", data_ref[key], data_ours[key])

    def values(self, ref: list[Any], ours: list[Any]) -> None:
        names_ref, names_ours = [v[0] for v in ref], [v[0] for v in ours]
        if names_ref != names_ours:
            self.problem(f"traced values {_short(names_ours)} here, {_short(names_ref)} in Urho3D")
            return
        for (name, a), (_, b) in zip(ref, ours, strict=True):
            if name in self.accept:
                # compared like any value, but a difference is listed as accepted instead of failing
                first, problems, deviation = self.first, self.problems, dict(self.deviation)
                self.problems = []
                self.value("value", name, a, b)
                self.accepted += self.problems
                self.first, self.problems, self.deviation = first, problems, deviation
                continue
            self.value("value", name, a, b)

    def nodes(self, ref: list[Any] | None, ours: list[Any] | None) -> None:
        if ref is None or ours is None:
            if ref != ours:
                self.problem("no scene_ here" if ours is None else "no scene_ in Urho3D")
            return
        key_ref = [_node_structure(n) for n in ref]
        key_ours = [_node_structure(n) for n in ours]
        if key_ref != key_ours:
            for a, b in zip(key_ref, key_ours, strict=False):
                if a != b:
                    self.problem(f"node {_fmt_node(b)} here, {_fmt_node(a)} in Urho3D")
                    break
            else:
                self.problem(f"{len(ours)} nodes here, {len(ref)} in Urho3D")
            return
        for a, b in zip(ref, ours, strict=True):
            label = f"{a[1] or '(scene)'}#{a[0]}"
            for i, (qa, qb) in enumerate(zip(a[4], b[4], strict=True)):
                self.number("position", f"{label} position[{i}]", qa, qb)
            # q and -q are the same rotation: a node's is compared with the sign that matches best (an angle of
            # 190 degrees and one of -170 give opposite quaternions for one orientation)
            qb_list = b[5]
            if _all_numbers(a[5]) and _all_numbers(qb_list):
                same = max(abs(x - y) for x, y in zip(a[5], qb_list, strict=True))
                flipped = max(abs(x + y) for x, y in zip(a[5], qb_list, strict=True))
                if flipped < same:
                    qb_list = [-y for y in qb_list]
            for i, (qa, qb) in enumerate(zip(a[5], qb_list, strict=True)):
                self.number("rotation", f"{label} rotation[{'wxyz'[i]}]", qa, qb)
            for i, (qa, qb) in enumerate(zip(a[6], b[6], strict=True)):
                self.number("scale", f"{label} scale[{i}]", qa, qb)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _all_numbers(values: list[Any]) -> bool:
    return all(_is_number(v) for v in values)


def _node_structure(n: list[Any]) -> tuple[Any, ...]:
    # id, name, parent id, enabled, component types, number of components
    return (n[0], n[1], n[2], n[3], tuple(n[7]), n[8])


def _fmt_node(key: tuple[Any, ...] | None) -> str:
    if key is None:
        return "(none)"
    nid, name, parent, enabled, comps, ncomp = key
    state = "" if enabled else " disabled"
    return f"{name or '(scene)'}#{nid} under #{parent}{state} with {list(comps)} ({ncomp} components)"


def _short(items: list[Any], limit: int = 8) -> str:
    if len(items) <= limit:
        return str(items)
    return str(items[:limit])[:-1] + f", … +{len(items) - limit}]"


def compare(reference: Trace, ours: Trace, tolerances: Tolerances, accept: tuple[str, ...] = ()) -> Agreement:
    """Compare this engine's trace with the reference; see the module docstring for the rules.

    Differences in the traced values named in `accept` are listed in Agreement.accepted and do not fail.
    """
    cmp = _Comparer(tolerances, accept)
    result = Agreement(reference.scenario, reference.domain, Status.AGREE, frames_recorded=len(reference.frames))
    for key in ("scenario", "frames", "recorder"):
        if reference.header.get(key) != ours.header.get(key):
            cmp.problem(f"header {key}: {ours.header.get(key)!r} here, {reference.header.get(key)!r} in Urho3D")
    compared = 0
    for ref_frame, our_frame in zip(reference.frames, ours.frames, strict=False):
        cmp.frame = ref_frame["f"]
        if our_frame["f"] != ref_frame["f"]:
            cmp.problem(f"frame numbered {our_frame['f']} here")
            break
        cmp.events(ref_frame["ev"], our_frame["ev"])
        cmp.values(ref_frame["val"], our_frame["val"])
        if ("nodes" in ref_frame) != ("nodes" in our_frame):
            cmp.problem("a node snapshot in one trace only")
        elif "nodes" in ref_frame:
            cmp.nodes(ref_frame["nodes"], our_frame["nodes"])
        compared += 1
    if len(ours.frames) != len(reference.frames):
        cmp.frame = min(len(ours.frames), len(reference.frames))
        cmp.problem(f"{len(ours.frames)} frame lines here, {len(reference.frames)} in Urho3D")
    result.frames_compared = compared
    result.deviation = cmp.deviation
    result.problems = cmp.problems
    result.accepted = cmp.accepted
    result.first_divergence = cmp.first
    if cmp.problems:
        result.status = Status.DISAGREE
    return result


def check_scenario(lua_dir: Path, reference: Trace, table: ToleranceTable) -> Agreement:
    """Run the reference's scenario here and compare; missing API or stubs make it "not implemented"."""
    frames = int(reference.header.get("frames") or 0)
    run = run_scenario(lua_dir, reference.scenario, frames)
    if run.missing_api or run.stubs:
        return Agreement(reference.scenario, reference.domain, Status.NOT_IMPLEMENTED,
                         frames_recorded=len(reference.frames), not_implemented=[*run.missing_api, *run.stubs])
    if run.trace is None:
        return Agreement(reference.scenario, reference.domain, Status.DISAGREE, frames_recorded=len(reference.frames),
                         first_divergence=0, problems=["the recorder wrote nothing here: " + "; ".join(run.errors)])
    result = compare(reference, run.trace, table.for_scenario(reference.scenario, reference.domain),
                     table.accepted(reference.scenario))
    for message in run.errors:
        result.status = Status.DISAGREE
        result.problems.append(f"engine error: {message}")
    return result


def check_all(lua_dir: Path, traces_dir: Path, tolerances_path: Path) -> Iterator[Agreement]:
    table = load_tolerances(tolerances_path)
    for _name, path in trace_files(traces_dir).items():
        yield check_scenario(lua_dir, read_trace(path), table)
