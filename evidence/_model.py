"""The evidence model: what a grade found, typed, with versioned JSON.

One module, standard library only, shared by `engine` (its run report crosses the subprocess boundary as an
`EngineReport`), `ledger` (attempt outcomes, recorded verdicts) and `grader` (levels, verdicts, boards).

JSON layout of a verdict (`Verdict.to_json`), schema 2; schema 1 is the same without `grader`,
`settings_hash` and `engine.build`, and `Verdict.from_json` reads both:

    schema_version, task_id, task_hash, battery_hash, deliverable_hash,
    engine {name, version, build, api_version}, grader {version, build}, settings_hash,
    levels {L0 {passed, checks[{name, passed, detail}]},
            L1 {passed, linter {name, version} | null, diagnostics[{file, line, column, code, severity, source,
                message}], skipped?},
            L2 {passed, outcome, frames, sim_seconds, requirements[{id, layer, capabilities, passed,
                description}], checks[{requirement, capabilities, layer, name, passed, expected, actual, frame,
                message}], errors[{message, frame, phase, traceback}], missing_api[], platform{...}}},
    passed, first_failed_level, evidence_digest

`evidence_digest` is the SHA-256 of the canonical JSON of everything else; `to_json(from_json(x)) == x` for every
verdict the grader has written, so recorded digests verify after a round trip.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeAlias

JsonValue: TypeAlias = bool | int | float | str | list[Any] | dict[str, Any] | None

VERDICT_SCHEMA = 2
# A held-out task's id outside its suite's folder: `held-out/<first 16 hex digits of its task_hash>`, in verdicts
# and in the ledger (the suite's own name never leaves its folder); no suite may take this name.
HELD_OUT_PREFIX = "held-out"
REPORT_SCHEMA = 1


class EvidenceError(ValueError):
    """JSON that is not evidence of a known schema; the message names the field."""


# --- canonical JSON -------------------------------------------------------------------------------------------

def _canonical(value: Any) -> Any:
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, dict):
        return {str(k): _canonical(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(v) for v in value]
    return value


def canonical_json(value: Any) -> str:
    """Sorted keys, no whitespace, UTF-8 text, floats as Python's shortest round-trip repr (IEEE-exact)."""
    return json.dumps(_canonical(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def digest(value: Any) -> str:
    """SHA-256 (hex) of the canonical JSON of `value`."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


def parsed_digest(value: Any) -> str:
    """`digest(value)` for a value `json.loads` made, at the JSON encoder's speed: such a value's keys are all
    strings, so the encoder's sorted output is the canonical text unless a float is NaN or infinite, which only
    the canonical form spells out (it falls back to it then)."""
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except ValueError:
        text = canonical_json(value)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# --- vocabularies ---------------------------------------------------------------------------------------------

class AttemptOutcome(StrEnum):
    """How an attempt's agent phase ended.  The first three say something about the model and are counted;
    the others are failures of our infrastructure (or a hang we cannot attribute): retried, never counted."""

    COMPLETED = "completed"
    AGENT_ERROR = "agent_error"
    AGENT_TIMEOUT = "agent_timeout"
    INFRA_TIMEOUT = "infra_timeout"
    INFRA_ERROR = "infra_error"
    HUNG = "hung"

    @property
    def counted(self) -> bool:
        return self in (AttemptOutcome.COMPLETED, AttemptOutcome.AGENT_ERROR, AttemptOutcome.AGENT_TIMEOUT)


class EngineOutcome(StrEnum):
    """How an engine run ended.  `not_run` and `crash` are L2's own: the engine was not started (the deliverable
    reaches outside its folder, or the request was refused) or its worker died without a report."""

    CLEAN = "clean"
    LUA_ERROR = "lua_error"
    MISSING_API = "missing_api"
    BUDGET = "budget"
    MEMORY = "memory"
    TIMEOUT = "timeout"
    NOT_RUN = "not_run"
    CRASH = "crash"

    @property
    def hit_limit(self) -> bool:
        return self in (EngineOutcome.BUDGET, EngineOutcome.MEMORY, EngineOutcome.TIMEOUT)


class Layer(StrEnum):
    """What a requirement checks: what the prompt states, or what a careful implementation gets right unasked."""

    COMPLETENESS = "completeness"
    RICHNESS = "richness"


class Level(StrEnum):
    L0 = "L0"
    L1 = "L1"
    L2 = "L2"


# --- reading helpers ------------------------------------------------------------------------------------------

def _get(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str, default: Any = ...) -> Any:
    if not isinstance(data, Mapping):
        raise EvidenceError(f"{where}: expected an object, got {type(data).__name__}")
    if key not in data:
        if default is ...:
            raise EvidenceError(f"{where}.{key}: missing")
        return default
    value = data[key]
    if value is None and default is None:
        return None
    if not isinstance(value, kind) or (isinstance(value, bool) and kind in (int, float, (int, float))):
        raise EvidenceError(f"{where}.{key}: expected {kind}, got {type(value).__name__}")
    return value


def _list(data: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = _get(data, key, list, where, [])
    return list(value)


def _strs(values: Sequence[Any], where: str) -> tuple[str, ...]:
    if not all(isinstance(v, str) for v in values):
        raise EvidenceError(f"{where}: expected strings")
    return tuple(values)


# --- checks and requirements ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Check:
    """One assertion of a battery: what was expected, what was found, and in which frame."""

    name: str
    passed: bool
    expected: JsonValue = None
    actual: JsonValue = None
    frame: int | None = None
    message: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "expected": self.expected, "actual": self.actual,
                "frame": self.frame, "message": self.message}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "check") -> Check:
        # verdicts hold thousands of checks: a well-formed one is taken as it is, anything else is read field by
        # field, with the error naming the field
        if type(data) is dict:
            name, passed, frame, message = data.get("name"), data.get("passed"), data.get("frame"), data.get("message")
            if (type(name) is str and type(passed) is bool and (frame is None or type(frame) is int)
                    and (message is None or type(message) is str)):
                return cls(name, passed, data.get("expected"), data.get("actual"), frame, message)
        return cls(name=str(_get(data, "name", str, where)), passed=bool(_get(data, "passed", bool, where)),
                   expected=data.get("expected"), actual=data.get("actual"),
                   frame=_get(data, "frame", int, where, None), message=_get(data, "message", str, where, None))


@dataclass(frozen=True)
class RequirementResult:
    """A requirement of the battery and its checks; it passes only if it has checks and all of them pass."""

    id: str
    layer: Layer
    capabilities: tuple[str, ...] = ()
    passed: bool = False
    description: str = ""
    checks: tuple[Check, ...] = ()

    def to_json(self) -> dict[str, Any]:
        """As the engine reports it (checks inside)."""
        return {"id": self.id, "layer": self.layer.value, "capabilities": list(self.capabilities),
                "passed": self.passed, "description": self.description, "checks": [c.to_json() for c in self.checks]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "requirement") -> RequirementResult:
        rid = data.get("id", data.get("name"))   # the earliest synthetic ledgers named requirements `name`
        if not isinstance(rid, str):
            raise EvidenceError(f"{where}.id: missing")
        raw_layer = _get(data, "layer", str, where, Layer.COMPLETENESS.value)
        try:
            layer = Layer(raw_layer)
        except ValueError:
            raise EvidenceError(f"{where}.layer: {raw_layer!r} is not completeness or richness") from None
        return cls(id=rid, layer=layer, capabilities=_strs(_list(data, "capabilities", where), where),
                   passed=bool(_get(data, "passed", bool, where, False)),
                   description=str(_get(data, "description", str, where, "")),
                   checks=tuple(Check.from_json(c, f"{where}.checks") for c in _list(data, "checks", where)))


@dataclass(frozen=True)
class ErrorRecord:
    """A Lua error, a limit, or a setup failure of a run: the message, the frame, the phase, the traceback."""

    message: str
    frame: int | None = None
    phase: str | None = None
    traceback: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"message": self.message, "frame": self.frame, "phase": self.phase, "traceback": self.traceback}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "error") -> ErrorRecord:
        return cls(message=str(_get(data, "message", str, where, "")), frame=_get(data, "frame", int, where, None),
                   phase=_get(data, "phase", str, where, None),
                   traceback=str(_get(data, "traceback", str, where, "") or ""))


# --- the engine's report --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class EngineReport:
    """What one engine run did.  Built by the engine's worker, sent as JSON to the caller, read back as this."""

    outcome: EngineOutcome
    frames: int | None = None
    sim_seconds: float | None = None
    errors: tuple[ErrorRecord, ...] = ()
    log: tuple[dict[str, Any], ...] = ()
    missing_api: tuple[str, ...] = ()
    exit_requested: bool = False
    platform: dict[str, Any] = field(default_factory=lambda: {"calls": [], "dropped": 0})
    requirements: tuple[RequirementResult, ...] = ()
    scene: list[Any] | None = None     # the scene dump, when asked for (`python -m engine run --dump`)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema_version": REPORT_SCHEMA, "outcome": self.outcome.value, "frames": self.frames,
            "sim_seconds": self.sim_seconds, "errors": [e.to_json() for e in self.errors], "log": list(self.log),
            "missing_api": list(self.missing_api), "exit_requested": self.exit_requested,
            "platform": self.platform, "requirements": [r.to_json() for r in self.requirements]}
        if self.scene is not None:
            out["scene"] = self.scene
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EngineReport:
        where = "report"
        version = _get(data, "schema_version", int, where, REPORT_SCHEMA)
        if version != REPORT_SCHEMA:
            raise EvidenceError(f"{where}.schema_version: {version} is not {REPORT_SCHEMA}")
        try:
            outcome = EngineOutcome(_get(data, "outcome", str, where))
        except ValueError:
            raise EvidenceError(f"{where}.outcome: unknown outcome {data.get('outcome')!r}") from None
        return cls(
            outcome=outcome, frames=_get(data, "frames", int, where, None),
            sim_seconds=_get(data, "sim_seconds", (int, float), where, None),
            errors=tuple(ErrorRecord.from_json(e, f"{where}.errors") for e in _list(data, "errors", where)),
            log=tuple(_list(data, "log", where)),
            missing_api=_strs(_list(data, "missing_api", where), f"{where}.missing_api"),
            exit_requested=bool(_get(data, "exit_requested", bool, where, False)),
            platform=dict(_get(data, "platform", dict, where, {"calls": [], "dropped": 0})),
            requirements=tuple(RequirementResult.from_json(r, f"{where}.requirements")
                               for r in _list(data, "requirements", where)),
            scene=_get(data, "scene", list, where, None))

    def evidence(self) -> dict[str, Any]:
        """The part of the report that is evidence (everything but the scene dump), as JSON."""
        out = self.to_json()
        out.pop("scene", None)
        out.pop("schema_version", None)
        return out


# --- levels ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class L0Check:
    name: str
    passed: bool
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "detail": self.detail}


@dataclass(frozen=True)
class L0Result:
    passed: bool
    checks: tuple[L0Check, ...] = ()

    def check(self, name: str) -> L0Check | None:
        return next((c for c in self.checks if c.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "checks": [c.to_json() for c in self.checks]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "levels.L0") -> L0Result:
        checks = tuple(L0Check(str(_get(c, "name", str, f"{where}.checks")),
                               bool(_get(c, "passed", bool, f"{where}.checks")),
                               str(_get(c, "detail", str, f"{where}.checks", "")))
                       for c in _list(data, "checks", where))
        return cls(passed=bool(_get(data, "passed", bool, where, False)), checks=checks)


@dataclass(frozen=True)
class Linter:
    """The linter's name and version, as recorded in the evidence."""

    name: str
    version: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "version": self.version}


SEVERITIES = ("error", "warning", "information", "hint")


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding.  `file` is relative to the deliverable (POSIX separators); `line` and `column` count from 1,
    `column` 0 when the source gives only a line.  `source` is `emmylua_ls` or `lua54` (the reference compiler).
    Fields are in sort order: diagnostics sort by file, position, then the rest."""

    file: str
    line: int
    column: int
    code: str
    severity: str
    source: str
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "column": self.column, "code": self.code,
                "severity": self.severity, "source": self.source, "message": self.message}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "diagnostic") -> Diagnostic:
        return cls(str(_get(data, "file", str, where)), int(_get(data, "line", int, where)),
                   int(_get(data, "column", int, where, 0)), str(_get(data, "code", str, where, "")),
                   str(_get(data, "severity", str, where)), str(_get(data, "source", str, where, "")),
                   str(_get(data, "message", str, where, "")))


@dataclass(frozen=True)
class L1Result:
    """`passed` is True when no diagnostic has error severity; `skipped` says why L1 did not run."""

    passed: bool
    linter: Linter | None
    diagnostics: tuple[Diagnostic, ...] = ()
    skipped: str | None = None

    @classmethod
    def from_diagnostics(cls, linter: Linter, diagnostics: Sequence[Diagnostic]) -> L1Result:
        ordered = tuple(sorted(set(diagnostics)))
        return cls(passed=not any(d.severity == "error" for d in ordered), linter=linter, diagnostics=ordered)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"passed": self.passed, "linter": self.linter.to_json() if self.linter else None,
                               "diagnostics": [d.to_json() for d in self.diagnostics]}
        if self.skipped is not None:
            out["skipped"] = self.skipped
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "levels.L1") -> L1Result:
        linter = _get(data, "linter", dict, where, None)
        return cls(passed=bool(_get(data, "passed", bool, where, False)),
                   linter=Linter(str(linter.get("name", "")), str(linter.get("version", ""))) if linter else None,
                   diagnostics=tuple(Diagnostic.from_json(d, f"{where}.diagnostics")
                                     for d in _list(data, "diagnostics", where)),
                   skipped=_get(data, "skipped", str, where, None))


@dataclass(frozen=True)
class L2Result:
    """The battery's verdict on a run: L2 passes when no limit was hit and every completeness requirement
    passed."""

    passed: bool
    outcome: EngineOutcome
    requirements: tuple[RequirementResult, ...] = ()
    frames: int | None = None
    sim_seconds: float | None = None
    errors: tuple[ErrorRecord, ...] = ()
    missing_api: tuple[str, ...] = ()
    # the platform-service call log (docs/platform.md); None only in schema-1 verdicts of runs that never started
    platform: dict[str, Any] | None = field(default_factory=lambda: {"calls": [], "dropped": 0})

    def checks(self) -> list[tuple[RequirementResult, Check]]:
        return [(r, c) for r in self.requirements for c in r.checks]

    def to_json(self) -> dict[str, Any]:
        return {
            "passed": self.passed, "outcome": self.outcome.value, "frames": self.frames,
            "sim_seconds": self.sim_seconds,
            "requirements": [{"id": r.id, "layer": r.layer.value, "capabilities": list(r.capabilities),
                              "passed": r.passed, "description": r.description} for r in self.requirements],
            "checks": [{"requirement": r.id, "capabilities": list(r.capabilities), "layer": r.layer.value,
                        **c.to_json()} for r, c in self.checks()],
            "errors": [e.to_json() for e in self.errors], "missing_api": list(self.missing_api),
        } | ({} if self.platform is None else {"platform": self.platform})

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "levels.L2") -> L2Result:
        checks: dict[str, list[Check]] = {}
        for c in _list(data, "checks", where):
            checks.setdefault(str(_get(c, "requirement", str, f"{where}.checks")), []).append(
                Check.from_json(c, f"{where}.checks"))
        requirements = tuple(replace(RequirementResult.from_json(r, f"{where}.requirements"),
                                     checks=tuple(checks.get(str(r.get("id", r.get("name"))), ())))
                             for r in _list(data, "requirements", where))
        raw = _get(data, "outcome", str, where, EngineOutcome.NOT_RUN.value)
        try:
            outcome = EngineOutcome(raw)
        except ValueError:
            raise EvidenceError(f"{where}.outcome: unknown outcome {raw!r}") from None
        return cls(passed=bool(_get(data, "passed", bool, where, False)), outcome=outcome, requirements=requirements,
                   frames=_get(data, "frames", int, where, None),
                   sim_seconds=_get(data, "sim_seconds", (int, float), where, None),
                   errors=tuple(ErrorRecord.from_json(e, f"{where}.errors") for e in _list(data, "errors", where)),
                   missing_api=_strs(_list(data, "missing_api", where), f"{where}.missing_api"),
                   platform=_get(data, "platform", dict, where, None))


# --- the verdict ----------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class EngineInfo:
    """The engine that produced the evidence: `build` is the digest of everything that determines its
    behaviour (schema 2; None in schema-1 verdicts)."""

    name: str
    version: str
    api_version: str
    build: str | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"name": self.name, "version": self.version, "api_version": self.api_version}
        if self.build is not None:
            out["build"] = self.build
        return out


@dataclass(frozen=True)
class GraderInfo:
    version: str
    build: str

    def to_json(self) -> dict[str, str]:
        return {"version": self.version, "build": self.build}


@dataclass(frozen=True)
class Levels:
    L0: L0Result
    L1: L1Result
    L2: L2Result

    def first_failed(self) -> Level | None:
        for level in Level:
            if not getattr(self, level.value).passed:
                return level
        return None


@dataclass(frozen=True)
class Verdict:
    """What a grade found.  Build one with `Verdict.build` (which computes the funnel and the digest)."""

    task_id: str
    task_hash: str
    battery_hash: str
    deliverable_hash: str
    engine: EngineInfo
    levels: Levels
    passed: bool
    first_failed_level: Level | None
    evidence_digest: str
    grader: GraderInfo | None = None
    settings_hash: str | None = None
    schema_version: int = VERDICT_SCHEMA
    params: dict[str, Any] | None = None   # a parameterised task's values (battery/params.toml); None: it has none

    @classmethod
    def build(cls, *, task_id: str, task_hash: str, battery_hash: str, deliverable_hash: str, engine: EngineInfo,
              grader: GraderInfo, settings_hash: str, levels: Levels,
              params: dict[str, Any] | None = None) -> Verdict:
        unsigned = cls(task_id=task_id, task_hash=task_hash, battery_hash=battery_hash,
                       deliverable_hash=deliverable_hash, engine=engine, levels=levels,
                       passed=bool(levels.L0.passed and levels.L2.passed), first_failed_level=levels.first_failed(),
                       evidence_digest="", grader=grader, settings_hash=settings_hash, params=params)
        return replace(unsigned, evidence_digest=digest(unsigned._body()))

    def _body(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema_version": self.schema_version, "task_id": self.task_id, "task_hash": self.task_hash,
            "battery_hash": self.battery_hash, "deliverable_hash": self.deliverable_hash,
            "engine": self.engine.to_json(),
            "levels": {"L0": self.levels.L0.to_json(), "L1": self.levels.L1.to_json(),
                       "L2": self.levels.L2.to_json()},
            "passed": self.passed,
            "first_failed_level": self.first_failed_level.value if self.first_failed_level else None,
        }
        if self.schema_version >= 2:
            out["grader"] = self.grader.to_json() if self.grader else None
            out["settings_hash"] = self.settings_hash
            if self.params is not None:   # only a parameterised task's verdict has the key
                out["params"] = self.params
        return out

    def to_json(self) -> dict[str, Any]:
        return self._body() | {"evidence_digest": self.evidence_digest}

    def canonical(self) -> str:
        return canonical_json(self.to_json())

    def digest_ok(self, *, read_from_json: bool = False) -> bool:
        """True when the evidence digest matches the content.  `read_from_json`: the verdict was made by
        `from_json`, so every key in it is a string (its own fields' and the parsed values') and the digest is
        taken at the JSON encoder's speed (`parsed_digest`)."""
        return (parsed_digest if read_from_json else digest)(self._body()) == self.evidence_digest

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> Verdict:
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise EvidenceError(f"verdict: not JSON ({exc})") from None
        where = "verdict"
        if not isinstance(data, Mapping):
            raise EvidenceError(f"{where}: expected an object")
        version = _get(data, "schema_version", int, where, 1)
        if version not in (1, 2):
            raise EvidenceError(f"{where}.schema_version: {version} is not 1 or 2")
        engine = _get(data, "engine", dict, where, {})
        levels = _get(data, "levels", dict, where, {})
        first = _get(data, "first_failed_level", str, where, None)
        grader = _get(data, "grader", dict, where, None) if version >= 2 else None
        return cls(
            schema_version=version, task_id=str(_get(data, "task_id", str, where, "")),
            task_hash=str(_get(data, "task_hash", str, where)),
            battery_hash=str(_get(data, "battery_hash", str, where)),
            deliverable_hash=str(_get(data, "deliverable_hash", str, where, "")),
            engine=EngineInfo(str(engine.get("name", "")), str(engine.get("version", "")),
                              str(engine.get("api_version", "")), engine.get("build")),
            levels=Levels(L0Result.from_json(levels.get("L0", {})), L1Result.from_json(levels.get("L1", {})),
                          L2Result.from_json(levels.get("L2", {}))),
            passed=bool(_get(data, "passed", bool, where)),
            first_failed_level=Level(first) if first else None,
            evidence_digest=str(_get(data, "evidence_digest", str, where)),
            grader=GraderInfo(str(grader.get("version", "")), str(grader.get("build", ""))) if grader else None,
            settings_hash=_get(data, "settings_hash", str, where, None) if version >= 2 else None,
            params=_get(data, "params", dict, where, None) if version >= 2 else None,
        )
