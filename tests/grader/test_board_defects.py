"""Boards: corrections reach requirement-level boards, an edition's board has exactly its dataset's tasks, and
attempts excluded as infrastructure failures are counted on every board (issue 11, defects 2-4)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from evidence import AttemptOutcome, Verdict
from grader.boards import build_snapshot, load_inputs
from grader.cli import cli
from grader.stats import Requirement, effective_requirements
from ledger import (
    Ledger,
    LedgerError,
    ModelFacts,
    Pins,
    SuiteFacts,
    TaskFacts,
    create_edition,
    record_attempt,
    record_infra_attempt,
)
from tests import synthetic

ALPHA, BETA = ModelFacts("acme", "alpha", "1"), ModelFacts("acme", "beta", "1")
MANIFEST = ({"id": "R1", "layer": "completeness", "capabilities": ["input"], "description": ""},
            {"id": "R2", "layer": "completeness", "capabilities": ["scene"], "description": ""},
            {"id": "R3", "layer": "richness", "capabilities": ["input"], "description": ""})


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def task(j: int) -> TaskFacts:
    return TaskFacts(task_id=f"public/task-{j}", task_hash=sha(f"task {j}"), battery_hash=sha(f"battery {j}"),
                     category="motion", difficulty="easy", capabilities=("input",), api_version="1",
                     requirements=MANIFEST)


def verdict(facts: TaskFacts, tag: str, outcomes: dict[str, bool]) -> Verdict:
    return synthetic.verdict(facts.task_hash, facts.battery_hash, tag, outcomes["R1"] and outcomes["R2"],
                             requirements=[(r["id"], r["layer"], r["capabilities"], outcomes[r["id"]])
                                           for r in MANIFEST], task_id=facts.task_id)


def record(ledger: Ledger, j: int, model: ModelFacts, tag: str, edition_id: int | None = None,
           **outcomes: bool) -> str:
    facts = task(j)
    return record_attempt(ledger, facts, verdict(facts, tag, {"R1": True, "R2": True, "R3": True} | outcomes),
                          {"total": 1.0}, None, driver="synthetic", model=model, edition_id=edition_id)


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    return Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")


def cap_rate(snapshot: dict[str, Any], board: str, model: str = "acme/alpha@1") -> float:
    rows = {m["model"]: m for m in snapshot["capability_resolution"][board]["models"]}
    return rows[model]["passes"] / rows[model]["attempts"]


# --- defect 2: corrections reach the requirement-level boards --------------------------------------------------

def test_the_effective_requirement_rule() -> None:
    manifest = tuple(Requirement(r["id"], r["layer"], tuple(r["capabilities"])) for r in MANIFEST)
    everything = {"R1": True, "R2": True, "R3": True}
    assert effective_requirements(everything, manifest) == {"R1", "R2", "R3"}
    # a correction to fail that names nothing: one completeness requirement failed, we do not know which
    assert effective_requirements(everything, manifest, corrected_passed=False) == {"R3"}
    # ... naming one: only that one
    assert effective_requirements(everything, manifest, corrected_passed=False, named={"R2": False}) == {"R1", "R3"}
    # a correction to pass: every completeness requirement passed; richness stays as recorded or named
    assert effective_requirements({"R1": False, "R2": True, "R3": False}, manifest,
                                  corrected_passed=True) == {"R1", "R2"}
    assert effective_requirements({"R1": False}, manifest, corrected_passed=True, named={"R3": True}) == \
        {"R1", "R2", "R3"}
    # a requirement the verdict does not list failed
    assert effective_requirements({}, manifest) == frozenset()


def test_a_correction_to_fail_leaves_no_requirement_board_claiming_a_pass(ledger: Ledger) -> None:
    result = record(ledger, 0, ALPHA, "a")
    before = build_snapshot(load_inputs(ledger))
    assert cap_rate(before, "layer:completeness") == 1.0 and cap_rate(before, "capability:input") == 1.0
    runner = CliRunner()
    out = runner.invoke(cli, ["ledger", "correct", result, "--passed", "false", "--reason", "battery bug",
                              "--author", "auditor", "--database", ledger.url])
    assert out.exit_code == 0, out.output
    after = build_snapshot(load_inputs(ledger))
    assert after["boards"]["overall"]["models"][0]["passes"] == 0
    assert cap_rate(after, "layer:completeness") == 0.0          # was 1.0 before the fix: the raw verdict
    assert cap_rate(after, "capability:scene") == 0.0
    assert cap_rate(after, "layer:richness") == 1.0              # the correction says nothing of richness
    assert cap_rate(after, "capability:input") == 0.5            # R1 (not credited) and R3 (richness, kept)


def test_a_correction_can_name_the_requirements_it_changes(ledger: Ledger) -> None:
    result = record(ledger, 0, ALPHA, "a")
    runner = CliRunner()
    out = runner.invoke(cli, ["ledger", "correct", result, "--passed", "false", "--requirement", "R2=fail",
                              "--reason", "R2 checked the wrong node", "--author", "auditor",
                              "--database", ledger.url, "--json"])
    assert out.exit_code == 0, out.output
    snap = build_snapshot(load_inputs(ledger))
    assert cap_rate(snap, "capability:scene") == 0.0 and cap_rate(snap, "layer:completeness") == 0.5
    assert cap_rate(snap, "capability:input") == 1.0
    failed = record(ledger, 1, ALPHA, "b", R1=False, R3=False)
    out = runner.invoke(cli, ["ledger", "correct", failed, "--passed", "true", "--reason", "R1 flaky",
                              "--author", "auditor", "--database", ledger.url])
    assert out.exit_code == 0, out.output
    snap = build_snapshot(load_inputs(ledger))
    rows = {m["model"]: m for m in snap["capability_resolution"]["layer:completeness"]["models"]}
    assert (rows["acme/alpha@1"]["passes"], rows["acme/alpha@1"]["attempts"]) == (3, 4)  # R1 of task 1 now credited


@pytest.mark.parametrize(("args", "message"), [
    (["--passed", "false", "--requirement", "R9=fail"], "--requirement R9: not a requirement of result"),
    (["--passed", "true", "--requirement", "R1=fail"], "--requirement R1=fail contradicts --passed true"),
    (["--passed", "false", "--requirement", "R1"], "'R1': expected ID=pass or ID=fail"),
])
def test_a_bad_named_requirement_is_refused(ledger: Ledger, args: list[str], message: str) -> None:
    result = record(ledger, 0, ALPHA, "a")
    out = CliRunner().invoke(cli, ["ledger", "correct", result, *args, "--reason", "r", "--author", "a",
                                   "--database", ledger.url])
    assert out.exit_code == 2 and message in out.output, out.output
    assert build_snapshot(load_inputs(ledger))["summary"]["corrected_results"] == 0


# --- defect 3: an edition's board has exactly its dataset's tasks ----------------------------------------------

def pins() -> Pins:
    return Pins(synthetic.ENGINE.build or "", synthetic.GRADER.build, "0" * 64, sha("dataset"))


def edition(ledger: Ledger, tasks: int = 3) -> int:
    return create_edition(ledger, "nightly", SuiteFacts("public", "1.0.0", "public", sha("dataset")),
                          pins(), 7, tasks=[task(j) for j in range(tasks)])


def test_a_task_nobody_attempted_stays_on_the_board(ledger: Ledger) -> None:
    edition_id = edition(ledger)
    for j in (0, 1):
        record(ledger, j, ALPHA, f"alpha {j}", edition_id)
        record(ledger, j, BETA, f"beta {j}", edition_id)
    snap = build_snapshot(load_inputs(ledger, edition_id))
    overall = snap["boards"]["overall"]
    assert overall["tasks"] == 3 and snap["summary"]["tasks_from"] == "dataset"
    assert overall["models"] == []                           # both are missing task-2: neither is ranked
    assert [r["model"] for r in overall["refused"]] == ["acme/alpha@1", "acme/beta@1"]
    assert all("no counted attempt on 1 of 3 tasks" in r["reason"] for r in overall["refused"])
    assert all(b["tasks"] == 3 for b in snap["capability_resolution"].values() if b["key"].startswith("layer:"))
    assert len(snap["pass_matrix"]["tasks"]) == 3
    record(ledger, 2, ALPHA, "alpha 2", edition_id)
    ranked = build_snapshot(load_inputs(ledger, edition_id))["boards"]["overall"]
    assert [m["model"] for m in ranked["models"]] == ["acme/alpha@1"]


def test_without_an_edition_the_tasks_are_those_with_attempts(ledger: Ledger) -> None:
    record(ledger, 0, ALPHA, "a")
    snap = build_snapshot(load_inputs(ledger))
    assert snap["boards"]["overall"]["tasks"] == 1 and snap["summary"]["tasks_from"] == "results"


def test_an_edition_records_its_dataset_once(ledger: Ledger) -> None:
    first = edition(ledger)
    again = create_edition(ledger, "nightly-2", SuiteFacts("public", "1.0.0", "public", sha("dataset")), pins(),
                           8, tasks=[task(j) for j in range(3)])
    assert first != again and ledger.verify()[0]
    with pytest.raises(LedgerError, match="exists already"):
        edition(ledger)


# --- defect 4: attempts excluded as infrastructure failures are counted ----------------------------------------

def test_infra_failures_are_counted_apart_on_every_board(ledger: Ledger) -> None:
    edition_id = edition(ledger, tasks=2)
    for j in (0, 1):
        record(ledger, j, ALPHA, f"alpha {j}", edition_id)
        record(ledger, j, BETA, f"beta {j}", edition_id)
    for outcome in (AttemptOutcome.INFRA_ERROR, AttemptOutcome.HUNG):
        record_infra_attempt(ledger, task(0), outcome, {"agent": 3.0}, "synthetic", model=ALPHA,
                             edition_id=edition_id)
    record_infra_attempt(ledger, task(1), AttemptOutcome.INFRA_TIMEOUT, {}, "synthetic", model=BETA,
                         edition_id=edition_id)
    snap = build_snapshot(load_inputs(ledger, edition_id))
    rows = {m["model"]: m for m in snap["boards"]["overall"]["models"]}
    assert (rows["acme/alpha@1"]["excluded_attempts"], rows["acme/alpha@1"]["attempts"]) == (2, 2)
    assert (rows["acme/beta@1"]["excluded_attempts"], rows["acme/beta@1"]["attempts"]) == (1, 2)
    assert snap["summary"]["excluded_attempts"] == 3 and snap["summary"]["results"] == 4
    for board in snap["capability_resolution"].values():
        assert {m["model"]: m["excluded_attempts"] for m in board["models"]} == {"acme/alpha@1": 2,
                                                                                 "acme/beta@1": 1}
