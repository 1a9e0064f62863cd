"""The evidence model: every verdict the grader has written loads, verifies and round-trips byte for byte; new
verdicts carry their pins; malformed evidence is refused with the field named."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from evidence import (
    AttemptOutcome,
    EngineOutcome,
    EngineReport,
    EvidenceError,
    Layer,
    Level,
    Verdict,
    canonical_json,
    digest,
    parsed_digest,
)
from tests import synthetic

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def schema_1_verdicts() -> list[tuple[str, dict]]:
    lines = (FIXTURES / "verdicts_v1.jsonl").read_text().splitlines()[1:]   # the first line is a comment
    return [(d["label"], d["verdict"]) for d in map(json.loads, lines)]


@pytest.mark.parametrize(("label", "data"), schema_1_verdicts(), ids=[label for label, _ in schema_1_verdicts()])
def test_every_schema_1_verdict_loads_verifies_and_round_trips(label: str, data: dict) -> None:
    verdict = Verdict.from_json(data)
    assert verdict.schema_version == 1 and verdict.grader is None and verdict.settings_hash is None
    assert verdict.digest_ok() and verdict.digest_ok(read_from_json=True)
    assert verdict.to_json() == data
    assert canonical_json(verdict.to_json()) == canonical_json(data)
    assert verdict.first_failed_level == (Level(data["first_failed_level"]) if data["first_failed_level"] else None)


def test_schema_1_shapes_are_all_covered() -> None:
    verdicts = {label: Verdict.from_json(d) for label, d in schema_1_verdicts()}
    outcomes = {v.levels.L2.outcome for v in verdicts.values()}
    assert {EngineOutcome.CLEAN, EngineOutcome.NOT_RUN, EngineOutcome.LUA_ERROR, EngineOutcome.BUDGET} <= outcomes
    assert any(v.levels.L1.skipped for v in verdicts.values())
    assert any(v.levels.L2.platform is None for v in verdicts.values())  # a not-run L2 of schema 1 had none
    oracle = verdicts["oracle passes"]
    assert oracle.passed and all(r.checks for r in oracle.levels.L2.requirements)


def test_a_new_verdict_carries_its_pins_and_round_trips() -> None:
    verdict = synthetic.verdict("a" * 64, "b" * 64, "x", False, requirements=[("R1", "completeness", ["ui"], False)])
    data = verdict.to_json()
    assert data["schema_version"] == 2 and data["grader"] == {"version": "0", "build": "f" * 64}
    assert data["engine"]["build"] == "e" * 64 and data["settings_hash"] == "0" * 64
    again = Verdict.from_json(json.loads(canonical_json(data)))
    assert again == verdict and again.digest_ok()


def test_a_changed_verdict_no_longer_matches_its_digest() -> None:
    verdict = synthetic.verdict("a" * 64, "b" * 64, "x", True)
    for changed in (dataclasses.replace(verdict, passed=False), dataclasses.replace(verdict, settings_hash="1" * 64)):
        assert not changed.digest_ok() and not changed.digest_ok(read_from_json=True)


@pytest.mark.parametrize("value", [
    {"b": [1, 2.5, None, True], "a": {"z": "é", "y": -0.0}},
    {"x": float("nan"), "y": [float("inf"), float("-inf")]},   # spelled out by the canonical form only
    {"deep": [[{"k": 1e300}, {"k": 5e-324}]], "text": "</script>\u2028"},
])
def test_the_fast_digest_of_parsed_json_is_the_canonical_digest(value: dict) -> None:
    parsed = json.loads(json.dumps(value))
    assert parsed_digest(parsed) == digest(parsed)


@pytest.mark.parametrize(("change", "message"), [
    ({"schema_version": 7}, "verdict.schema_version: 7 is not 1 or 2"),
    ({"passed": "yes"}, "verdict.passed: expected"),
    ({"task_hash": None}, "verdict.task_hash: expected"),
    ({"levels": {"L2": {"outcome": "exploded"}}}, "levels.L2.outcome: unknown outcome 'exploded'"),
    ({"levels": {"L2": {"requirements": [{"id": "R1", "layer": "polish"}]}}}, "'polish' is not completeness"),
])
def test_malformed_evidence_is_refused_with_the_field_named(change: dict, message: str) -> None:
    data = synthetic.verdict("a" * 64, "b" * 64, "x", True).to_json() | change
    with pytest.raises(EvidenceError, match=re.escape(message)):
        Verdict.from_json(data)


def test_the_engine_report_crosses_as_json_and_back() -> None:
    report = EngineReport.from_json({
        "outcome": "lua_error", "frames": 12, "sim_seconds": 0.2,
        "errors": [{"message": "boom", "frame": 3, "phase": "update", "traceback": "tb"}],
        "log": [{"frame": 1, "level": "INFO", "message": "hi"}], "missing_api": [], "exit_requested": False,
        "platform": {"calls": [], "dropped": 0},
        "requirements": [{"id": "R1", "layer": "richness", "capabilities": ["ui"], "passed": False,
                          "description": "", "checks": [{"name": "c", "passed": False, "expected": 1,
                                                          "actual": 2, "frame": 12, "message": None}]}]})
    assert report.outcome is EngineOutcome.LUA_ERROR and report.requirements[0].layer is Layer.RICHNESS
    assert EngineReport.from_json(report.to_json()) == report
    with pytest.raises(EvidenceError, match=r"report\.outcome: unknown outcome"):
        EngineReport.from_json({"outcome": "melted"})


def test_one_vocabulary_of_attempt_outcomes() -> None:
    assert [o.value for o in AttemptOutcome if o.counted] == ["completed", "agent_error", "agent_timeout"]
    assert [o.value for o in AttemptOutcome if not o.counted] == ["infra_timeout", "infra_error", "hung"]
