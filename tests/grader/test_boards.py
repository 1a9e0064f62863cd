"""Boards from the ledger: inputs, the canonical snapshot, the static page in a real headless browser, the CLI."""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from evidence import Verdict
from grader.boards import build_snapshot, canonical_json, load_inputs, render_page, write_board
from grader.cli import cli
from grader.stats import Price
from ledger import Ledger, ModelFacts, TaskFacts, correct_result, record_attempt
from ledger._models import SuiteRow
from ledger._store import now
from tests import synthetic
from tests._ci import missing_dependency

MODELS = [ModelFacts("acme", "alpha", "1"), ModelFacts("acme", "beta", "2", "high"), ModelFacts("zeta", "gamma", "3")]
LABELS = ["acme/alpha@1", "acme/beta@2 [high]", "zeta/gamma@3"]
HELDOUT_SUITE = "secret"


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def task(j: int) -> TaskFacts:
    suite = HELDOUT_SUITE if j >= 4 else "public"
    return TaskFacts(task_id=f"{suite}/task-{j}", task_hash=sha(f"task {j}"), battery_hash=sha(f"battery {j}"),
                     category=("motion", "ui")[j % 2], difficulty=("easy", "hard")[j // 2 % 2],
                     capabilities=("input",), api_version="1")


def verdict(facts: TaskFacts, i: int, j: int, r: int) -> Verdict:
    passed = (i + j + r) % (i + 2) != 0
    failed = None if passed else ("L0", "L1", "L2")[(i + j + r) % 3]
    requirements = [] if failed in ("L0",) else [
        ("moves", "completeness", ["input"], passed), ("polish", "richness", ["ui"], (j + r) % 2 == 0)]
    return synthetic.verdict(facts.task_hash, facts.battery_hash, f"evidence {i} {j} {r}", passed,
                             requirements=requirements, failed_at=failed, task_id=facts.task_id)


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    store = Ledger(f"sqlite:///{tmp_path / 'board.db'}")
    with store.appending() as session:
        store.append(session, SuiteRow(name=HELDOUT_SUITE, version="1", visibility="held-out",
                                       dataset_hash=sha("secret suite"), created_at=now()))
    for i, model in enumerate(MODELS):
        for j in range(6):
            facts = task(j)
            for r in range(3):
                tokens = (1000 * (j + 1), 100 * (r + 1)) if i == 0 else (None, None)
                record_attempt(store, facts, verdict(facts, i, j, r), {"agent": 10.0 + i + j / 4, "total": 0.5},
                               None, driver="synthetic", repetition=r, model=model, tokens=tokens)
    for j in range(2):  # a baseline driver without a model row, as `grader run` records
        facts = task(j)
        record_attempt(store, facts, verdict(facts, 0, j, 0), {"total": 0.25}, None, driver="oracle")
    return store


def snapshot_text(store: Ledger) -> str:
    return canonical_json(build_snapshot(load_inputs(store)))


def test_inputs_and_boards(ledger: Ledger) -> None:
    inputs = load_inputs(ledger)
    assert len(inputs.attempts) == 3 * 6 * 3 + 2
    assert sorted({a.record.model for a in inputs.attempts}) == sorted([*LABELS, "oracle"])
    assert [t.heldout for t in inputs.tasks].count(True) == 2
    snap = build_snapshot(inputs)
    overall = snap["boards"]["overall"]
    assert sorted(m["model"] for m in overall["models"]) == LABELS
    assert [r["model"] for r in overall["refused"]] == ["oracle"]  # it has no attempt on two public tasks
    assert {"category:motion", "category:ui", "difficulty:easy", "difficulty:hard"} <= set(snap["boards"])
    assert {"layer:completeness", "layer:richness", "capability:input"} <= set(snap["capability_resolution"])
    for m in overall["models"]:
        assert m["ci"][0] <= m["score"] <= m["ci"][1] and m["rank_range"][0] <= m["rank"] <= m["rank_range"][1]
        assert m["attempts"] == 12 and m["time_per_task_seconds"] is not None
    cost = {m["model"]: m["cost_per_task_usd"] for m in overall["models"]}
    assert cost["acme/beta@2 [high]"] == "N/A" and cost["acme/alpha@1"] == "N/A"  # no list price given
    priced = build_snapshot(inputs, prices={"acme/alpha@1": Price(1.0, 2.0)})["boards"]["overall"]["models"]
    assert {m["model"]: m["cost_per_task_usd"] for m in priced}["acme/alpha@1"] == pytest.approx(0.0029)
    assert snap["statistics"]["numpy"] and snap["statistics"]["algorithm"] and "scipy" not in snap["statistics"]


def test_snapshot_byte_identical(ledger: Ledger) -> None:
    first, second = snapshot_text(ledger), snapshot_text(ledger)
    assert first == second
    assert render_page(json.loads(first)) == render_page(json.loads(second))


def test_heldout_reveals_no_task(ledger: Ledger) -> None:
    snap = build_snapshot(load_inputs(ledger))
    text = canonical_json(snap)
    held = snap["heldout"]
    assert held is not None and set(held) == {"models", "refused"}
    assert sorted(m["model"] for m in held["models"]) == LABELS
    for row in held["models"]:   # scores, CIs and ranks: no counts of tasks, attempts or passes, no time or cost
        assert set(row) == {"model", "score", "score_exact", "ci", "ci_method", "rank", "rank_range"}, set(row)
    # counts are over public tasks only: 3 models x 4 public tasks x 3 repetitions, and the oracle's 2
    assert snap["summary"]["counted_attempts"] == 3 * 4 * 3 + 2 and snap["summary"]["heldout"] is True
    assert set(snap["funnel"]) == {"stages", "public"}
    for j in (4, 5):
        assert task(j).task_hash not in text and task(j).task_id not in text
    page = render_page(snap)
    assert task(4).task_hash not in page and "secret/task" not in page


def test_funnel_shares_add_up(ledger: Ledger) -> None:
    funnel = build_snapshot(load_inputs(ledger))["funnel"]
    for which in ("public",):
        assert funnel[which]
        for row in funnel[which].values():
            assert sum(row["counts"].values()) == row["attempts"]
            assert math.isclose(math.fsum(row["shares"].values()), 1.0, abs_tol=1e-12)
    assert set(funnel["public"]["*all*"]["counts"]) == {"L0", "L1", "L2", "passed"}


def test_correction_changes_effective_pass(ledger: Ledger) -> None:
    before = load_inputs(ledger)
    failed = next(a for a in before.attempts if a.record.model == LABELS[0] and not a.record.effective_passed
                  and a.task_id.startswith("public/"))
    snap_before = build_snapshot(before)
    correct_result(ledger, failed.result_hash, passed=True, reason="battery bug", author="tester")
    after = load_inputs(ledger)
    again = next(a for a in after.attempts if a.result_hash == failed.result_hash)
    assert again.record.effective_passed and again.corrected and after.inputs_digest != before.inputs_digest
    snap_after = build_snapshot(after)
    column = [t["task_hash"] for t in snap_after["pass_matrix"]["tasks"]].index(failed.record.task_hash)
    passes_before = snap_before["pass_matrix"]["cells"][LABELS[0]][column][0]
    assert snap_after["pass_matrix"]["cells"][LABELS[0]][column][0] == passes_before + 1
    # a later correction wins
    correct_result(ledger, failed.result_hash, passed=False, reason="regraded", author="tester")
    latest = next(a for a in load_inputs(ledger).attempts if a.result_hash == failed.result_hash)
    assert not latest.record.effective_passed


def test_cli_board(ledger: Ledger, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from grader.cli._common import console

    monkeypatch.setattr(console, "width", 200)
    out = tmp_path / "site"
    runner = CliRunner()
    result = runner.invoke(cli, ["board", "--database", ledger.url, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "acme/alpha@1" in result.output and "rank" in result.output
    assert (out / "snapshot.json").read_text() == snapshot_text(ledger)
    as_json = runner.invoke(cli, ["board", "--database", ledger.url, "--json"])
    assert as_json.exit_code == 0 and as_json.output == snapshot_text(ledger)
    missing = runner.invoke(cli, ["board", "--database", ledger.url, "--edition", "99"])
    assert missing.exit_code == 2 and "no edition 99" in missing.output


def _chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        missing_dependency("chromium is not installed (apt-get install chromium)")
    return found


def _browse(chromium: str, page: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    args = [chromium, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
            "--disable-dev-shm-usage", f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr",
            "--v=0", "--virtual-time-budget=5000", *extra, page.as_uri()]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


def _console_errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "CONSOLE" in line or "Uncaught" in line]


def test_page_in_headless_chromium(ledger: Ledger, tmp_path: Path) -> None:
    chromium = _chromium()
    _, page = write_board(build_snapshot(load_inputs(ledger)), tmp_path / "site")
    dom = _browse(chromium, page, tmp_path, "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-rendered="yes"' in dom.stdout, dom.stderr[-2000:]
    for label in [*LABELS, "oracle"]:
        assert label in dom.stdout
    assert "public/task-0" in dom.stdout and "<svg" in dom.stdout
    assert "Pairwise differences" in dom.stdout and ("ahead" in dom.stdout or "not resolved" in dom.stdout)
    assert _console_errors(dom.stderr) == []
    shot = Path(os.environ.get("GRADER_SCREENSHOT_DIR", tmp_path)) / "board.png"
    taken = _browse(chromium, page, tmp_path, f"--screenshot={shot}", "--window-size=1280,2000")
    assert taken.returncode == 0, taken.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert _console_errors(taken.stderr) == []


def test_console_error_capture_works(tmp_path: Path) -> None:
    """The console check above would see a script error: a page that throws is reported."""
    chromium = _chromium()
    page = tmp_path / "broken.html"
    page.write_text("<!DOCTYPE html><html><body><script>throw new Error('board-broken');</script></body></html>")
    result = _browse(chromium, page, tmp_path, "--dump-dom")
    assert any("board-broken" in line for line in _console_errors(result.stderr)), result.stderr[-2000:]


def test_cli_board_prices(ledger: Ledger, tmp_path: Path) -> None:
    table = tmp_path / "prices.toml"
    table.write_text('[models."acme/alpha@1"]\ninput_per_mtok = 1.0\noutput_per_mtok = 2\n'
                     'source = "list page"\nas_of = "2026-11-30"\n')
    runner = CliRunner()
    result = runner.invoke(cli, ["board", "--database", ledger.url, "--json", "--prices", str(table)])
    assert result.exit_code == 0, result.output
    snap = json.loads(result.output)
    assert snap["prices"] == {"acme/alpha@1": {"input_per_mtok": 1.0, "output_per_mtok": 2.0,
                                               "source": "list page", "as_of": "2026-11-30"}}
    cost = {m["model"]: m["cost_per_task_usd"] for m in snap["boards"]["overall"]["models"]}
    assert cost["acme/alpha@1"] == pytest.approx(0.0029) and cost["acme/beta@2 [high]"] == "N/A"
    assert json.loads(snapshot_text(ledger))["prices"] == {}


@pytest.mark.parametrize(("text", "message"), [
    ('[models."a"]\ninput_per_mtok = -1\noutput_per_mtok = 1\n', 'models."a".input_per_mtok: must be a finite'),
    ('[models."a"]\ninput_per_mtok = 1\n', 'models."a".output_per_mtok: missing'),
    ('[models."a"]\ninput_per_mtok = "3"\noutput_per_mtok = 1\n', 'must be a number'),
    ('[models."a"]\ninput_per_mtok = 1\noutput_per_mtok = 1\ncurrency = "EUR"\n', "unknown field(s) currency"),
    ('[prices]\n', "unknown key(s) prices"),
    ("[models\n", "not valid TOML"),
])
def test_cli_board_bad_prices(ledger: Ledger, tmp_path: Path, text: str, message: str) -> None:
    table = tmp_path / "prices.toml"
    table.write_text(text)
    result = CliRunner().invoke(cli, ["board", "--database", ledger.url, "--prices", str(table)])
    assert result.exit_code == 2 and str(table) in result.output and message in result.output
