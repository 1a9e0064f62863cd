"""Planned editions from the command line: plan (models.toml validated field by field), run with worker
processes (resumable, each planned attempt recorded once), show, publish (identical bytes, then frozen); and the
crash test: the runner SIGKILLed at random points, re-run, every planned attempt recorded exactly once."""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner
from sqlalchemy import text

from grader.cli import cli
from ledger import Ledger
from tests.ledger.conftest import pg_server, pg_url  # noqa: F401  (the ledger tests' PostgreSQL fixtures)
from tests.ledger.helpers import raw

ROOT = Path(__file__).resolve().parents[2]
BASELINES = ("--baseline", "oracle", "--baseline", "nop")   # the plans here: two models, one passing, one not


def invoke(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def grader(*args: str, cwd: Path) -> subprocess.Popen[str]:
    """`grader ARGS` as its own process (and process group), from this checkout."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "grader", *args], cwd=cwd, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)


def finished(*args: str, cwd: Path, timeout: float = 120) -> tuple[int, str, str]:
    proc = grader(*args, cwd=cwd)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


@pytest.fixture
def tiny_suite(make_task: Callable[..., Path]) -> Path:
    """Three tiny tasks (a Box at x = 3): an oracle passes each, nop fails each."""
    for name in ("alpha", "beta", "gamma"):
        root = make_task(name)
    return root.parent


def counted_per_item(url: str, edition_id: int) -> list[int]:
    """For each planned attempt, how many counted attempts the ledger holds for it (by model, task, rep)."""
    with raw(url) as conn:
        return [row[0] for row in conn.execute(text(
            "SELECT (SELECT count(*) FROM attempts a WHERE a.edition_id = p.edition_id AND a.driver = p.driver "
            "AND a.task_hash = p.task_hash AND a.repetition = p.repetition "
            "AND a.outcome IN ('completed', 'agent_error', 'agent_timeout')) "
            "FROM plan_items p WHERE p.edition_id = :e ORDER BY p.id"), {"e": edition_id})]


def test_plan_run_resume_show_and_publish(tmp_path: Path, tiny_suite: Path) -> None:
    db = f"sqlite:///{tmp_path / 'l.db'}"
    code, out = invoke("edition", "plan", "nightly", *BASELINES, "--suite", str(tiny_suite), "--reps", "2",
                       "--database", db, "--json")
    assert code == 0, out
    planned = json.loads(out)
    assert (planned["models"], planned["tasks"], planned["attempts"]) == (["oracle", "nop"], 3, 12)
    code, out, err = finished("edition", "run", "nightly", "--workers", "2", "--database", db, "--json",
                              cwd=tmp_path)
    assert code == 0, err
    summary = json.loads(out)
    assert (summary["recorded"], summary["missing"], summary["this_run"]["attempts"]) == (12, 0, 12)
    assert summary["models"]["oracle"]["pass_rate"] == 1.0 and summary["models"]["nop"]["pass_rate"] == 0.0
    assert "oracle" in err and "eta" in err   # the progress went to stderr
    # re-running does only what is missing: nothing
    code, out, _ = finished("edition", "run", "nightly", "--database", db, "--json", cwd=tmp_path)
    assert code == 0 and json.loads(out)["this_run"]["attempts"] == 0
    assert counted_per_item(db, planned["id"]) == [1] * 12
    # a planned edition is recorded by its runner: `grader attempt --edition` says so before any work
    code, out = invoke("attempt", str(tiny_suite / "alpha"), "--agent", "oracle", "--edition", "nightly",
                       "--database", db, "--runs-dir", str(tmp_path / "other-runs"))
    assert code == 2 and "is planned: its attempts are recorded by `grader edition run nightly`" in out
    assert not (tmp_path / "other-runs").exists()
    code, out = invoke("edition", "show", "nightly", "--database", db, "--json")
    shown = json.loads(out)
    assert (shown["planned"], shown["recorded"], shown["published_at"]) == (12, 12, None)
    assert shown["plan"]["repetitions"] == 2 and shown["queue"] == {"done": 12}

    site = tmp_path / "site"
    code, out = invoke("edition", "publish", "nightly", "--out", str(site), "--database", db, "--json")
    assert code == 0, out
    first = {p.relative_to(site): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}
    assert set(first) == {Path("index.html"), Path("nightly/snapshot.json"), Path("nightly/index.html")}
    assert b'href="nightly/index.html"' in first[Path("index.html")]
    code, again = invoke("edition", "publish", "nightly", "--out", str(site), "--database", db, "--json")
    assert code == 0 and json.loads(again)["published_at"] == json.loads(out)["published_at"]
    assert {p.relative_to(site): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()} == first
    snapshot = json.loads(first[Path("nightly/snapshot.json")])
    assert snapshot["edition"]["name"] == "nightly" and snapshot["summary"]["counted_attempts"] == 12
    # frozen: the runner refuses, and so does the ledger for anyone recording under it
    code, _, err = finished("edition", "run", "nightly", "--database", db, cwd=tmp_path)
    assert code == 2 and "it is frozen" in err and "Traceback" not in err
    code, out = invoke("run", "--suite", "public", "--agent", "oracle", "--edition", "nightly", "--database", db,
                       "--runs-dir", str(tmp_path / "frozen-runs"))
    assert code == 2 and "it is frozen" in out and not (tmp_path / "frozen-runs").exists()   # before any work
    # a second edition joins the archive, listed in order of publication
    assert invoke("edition", "plan", "second", "--suite", str(tiny_suite), "--baseline", "oracle", "--database",
                  db)[0] == 0
    code, _, err = finished("edition", "run", "second", "--database", db, cwd=tmp_path)
    assert code == 0, err
    code, out = invoke("edition", "publish", "second", "--out", str(site), "--database", db)
    assert code == 0, out
    page = (site / "index.html").read_text()
    assert page.index("nightly/index.html") < page.index("second/index.html")
    assert (site / "nightly" / "snapshot.json").read_bytes() == first[Path("nightly/snapshot.json")]
    code, out = invoke("ledger", "verify", "--database", db)
    assert code == 0, out


def test_two_workers_share_an_edition_on_postgresql(tmp_path: Path, tiny_suite: Path,
                                                    pg_url: str) -> None:  # noqa: F811 (the fixture)
    """The same run on PostgreSQL, where leasing locks the queue table rather than the whole database: killed
    twice, then finished by two runners at once."""
    code, out = invoke("edition", "plan", "pg", *BASELINES, "--suite", str(tiny_suite), "--reps", "2",
                       "--database", pg_url, "--json")
    assert code == 0, out
    edition_id = json.loads(out)["id"]
    for delay in (1.5, 3.0):
        proc = grader("edition", "run", "pg", "--workers", "2", "--database", pg_url, cwd=tmp_path)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
    # two runners at once (two machines, say) share what is left: each planned attempt is leased to one
    both = [grader("edition", "run", "pg", "--database", pg_url, "--json", cwd=tmp_path) for _ in range(2)]
    results = [proc.communicate(timeout=120) for proc in both]
    assert [proc.returncode for proc in both] == [0, 0], results
    summaries = [json.loads(out) for out, _ in results]
    assert [s["recorded"] for s in summaries] == [12, 12]
    assert sum(s["this_run"]["attempts"] for s in summaries) == 12 - min(s["recorded_before"] for s in summaries)
    assert counted_per_item(pg_url, edition_id) == [1] * 12
    code, out = invoke("ledger", "verify", "--database", pg_url)
    assert code == 0, out


def test_publishing_an_incomplete_edition_is_refused(tmp_path: Path, tiny_suite: Path) -> None:
    db = f"sqlite:///{tmp_path / 'l.db'}"
    assert invoke("edition", "plan", "n", *BASELINES, "--suite", str(tiny_suite), "--database", db)[0] == 0
    code, out = invoke("edition", "publish", "n", "--out", str(tmp_path / "site"), "--database", db)
    assert code == 2 and out == ("Error: edition 'n': 6 planned attempts are not recorded yet (run `grader edition "
                                 "run n`): not published\n")
    assert not (tmp_path / "site").exists()


def test_several_suites_make_one_dataset(tmp_path: Path, tiny_suite: Path) -> None:
    from grader.edition_run import RunOptions, prepare
    from grader.editions import resolve_suite

    db = f"sqlite:///{tmp_path / 'l.db'}"
    code, out = invoke("edition", "plan", "two", "--suite", "public", "--suite", str(tiny_suite), "--baseline",
                       "oracle", "--database", db, "--json")
    assert code == 0, out
    planned = json.loads(out)
    n = len(resolve_suite("public")[0].tasks) + 3   # the public suite's tasks and the tiny suite's three
    assert (planned["suites"], planned["tasks"], planned["attempts"]) == (["public", "suite"], n, n)
    alone = {json.loads(invoke("edition", "plan", f"one-{n}", *BASELINES, "--suite", s, "--database", db, "--json")[1])
             ["dataset_hash"] for n, s in enumerate(("public", str(tiny_suite)))}
    assert len(alone) == 2 and planned["dataset_hash"] not in alone
    work = prepare(Ledger(db), "two", RunOptions())   # every pin holds against the suites as they are
    assert sorted(t.qualified_id for t in work.tasks.values()) == sorted(
        t.qualified_id for s in ("public", str(tiny_suite)) for t in resolve_suite(s)[0].tasks)
    code, out = invoke("edition", "plan", "twice", "--suite", "public", "--suite", "public", "--database", db)
    assert code == 2 and out == "Error: --suite: suite 'public' given twice\n"


BATTERY_CHANGED = """
harness.start()
harness.run(0.25)
local box = harness.find("Box")
requirement("R1", function(check)
  check.truthy("a node named Box exists", box)
end)
"""

MODEL = """[models.alpha]
provider = "acme"
model = "alpha"
version = "2026-01-15"
driver = "oracle"
concurrency = 2

[models.alpha.reasoning]
mode = "high"
budget_tokens = 8000

[models.alpha.prices]
input_per_mtok = 3.0
output_per_mtok = 15.0
source = "https://acme.example/pricing"
"""


def test_models_toml_drives_the_plan_and_the_prices(tmp_path: Path, tiny_suite: Path,
                                                    make_task: Callable[..., Path]) -> None:
    db = f"sqlite:///{tmp_path / 'l.db'}"
    models = tmp_path / "models.toml"
    models.write_text(MODEL)
    code, out = invoke("edition", "plan", "m", "--suite", str(tiny_suite), "--models", str(models), "--baseline",
                       "nop", "--database", db, "--json")
    assert code == 0, out
    assert json.loads(out)["models"] == ["acme/alpha@2026-01-15 [high]", "nop"]
    code, _, err = finished("edition", "run", "m", "--workers", "2", "--database", db, cwd=tmp_path)
    assert code == 0, err
    code, out = invoke("edition", "publish", "m", "--out", str(tmp_path / "site"), "--database", db, "--json")
    assert code == 0, out
    snapshot = json.loads((tmp_path / "site" / "m" / "snapshot.json").read_text())
    assert snapshot["prices"]["acme/alpha@2026-01-15 [high]"]["input_per_mtok"] == 3.0
    overall = {r["model"]: r for r in snapshot["boards"]["overall"]["models"]}
    assert overall["acme/alpha@2026-01-15 [high]"]["score"] == 1.0 and overall["nop"]["score"] == 0.0
    # edition diff: the same edition against itself, then against one of a changed suite
    code, out = invoke("edition", "diff", "m", "m", "--database", db, "--json")
    same = json.loads(out)
    assert code == 0 and [(r["model"], r["delta"], r["cis_overlap"]) for r in same["scores"]] == [
        ("acme/alpha@2026-01-15 [high]", 0.0, True), ("nop", 0.0, True)]
    (tiny_suite / "beta" / "battery" / "main.lua").write_text(BATTERY_CHANGED)
    make_task("delta")
    assert invoke("edition", "plan", "m2", *BASELINES, "--suite", str(tiny_suite), "--database", db)[0] == 0
    code, out = invoke("edition", "diff", "m", "m2", "--database", db, "--json")
    changed = json.loads(out)
    assert (changed["tasks_added"], changed["tasks_removed"], changed["tasks_changed"]) == (
        ["suite/delta"], [], ["suite/beta"])
    assert changed["models_removed"] == ["acme/alpha@2026-01-15 [high]", "nop"] and changed["scores"] == []


@pytest.mark.parametrize(("edit", "message"), [
    (lambda s: s.replace('version = "2026-01-15"', 'version = "latest"'),
     "models.alpha.version: 'latest' is not a pinned version"),
    (lambda s: s.replace('driver = "oracle"', 'driver = "gpt"'),
     "models.alpha.driver: unknown agent driver 'gpt' (known: command, loop, nop, oracle, replay, scripted)"),
    (lambda s: s.replace('driver = "oracle"', 'driver = "command:missing.toml"'),
     "models.alpha.driver: missing.toml: no such agent file"),
    (lambda s: s.replace("concurrency = 2", "concurrency = 0"),
     "models.alpha.concurrency: must be an integer from 1 to 256, got 0"),
    (lambda s: s.replace("input_per_mtok = 3.0", "input_per_mtok = -1"),
     "models.alpha.prices.input_per_mtok: must be a number of USD per million tokens >= 0, got -1"),
    (lambda s: s.replace("output_per_mtok = 15.0\n", ""), "models.alpha.prices.output_per_mtok: missing"),
    (lambda s: s.replace('model = "alpha"\n', ""), "models.alpha.model: missing"),
    (lambda s: s.replace("budget_tokens", "budget"), "models.alpha.reasoning: unknown field(s) budget"),
    (lambda s: s + "\n[models.beta]\nprovider = 1\n", "models.beta.provider: must be a non-empty string"),
    (lambda s: s + '[models.again]\nprovider = "acme"\nmodel = "alpha"\nversion = "2026-01-15"\ndriver = "nop"\n'
     '[models.again.reasoning]\nmode = "high"\n[models.again.prices]\ninput_per_mtok = 1\noutput_per_mtok = 1\n',
     "models.again: the same model as models.alpha (acme/alpha@2026-01-15 [high])"),
    (lambda s: "[models\n", "not valid TOML"),
])
def test_a_bad_models_toml_is_one_line_naming_the_field(tmp_path: Path, edit: Callable[[str], str],
                                                        message: str) -> None:
    models = tmp_path / "models.toml"
    models.write_text(edit(MODEL))
    code, out = invoke("edition", "plan", "bad", "--models", str(models), "--database",
                       f"sqlite:///{tmp_path / 'l.db'}")
    assert code == 2 and out.startswith(f"Error: {models}: ") and message in out and out.count("\n") == 1, out
    with Ledger(f"sqlite:///{tmp_path / 'l.db'}").session() as session:   # nothing half-written
        assert session.execute(text("SELECT count(*) FROM editions")).scalar() == 0


KILLS = 20
REPS = 6   # tiny suite: 3 tasks x 2 models x 6 reps, more planned attempts than kills: most land mid-run


def claims(url: str) -> int:
    with raw(url) as conn:
        return int(conn.execute(text("SELECT count(*) FROM plan_claims")).scalar() or 0)


def test_the_runner_killed_at_random_points_records_every_planned_attempt_once(tmp_path: Path,
                                                                               tiny_suite: Path) -> None:
    """SIGKILL the runner (and its workers: its whole process group) KILLS times, then let it finish: every
    planned attempt has exactly one counted attempt, and the audit chain verifies.  Each kill comes at a random
    point: after 0 or 1 more attempt is recorded, plus up to a fifth of a second (starting up, attempting,
    grading, recording, finishing a lease)."""
    db = f"sqlite:///{tmp_path / 'l.db'}"
    code, out = invoke("edition", "plan", "crashy", *BASELINES, "--suite", str(tiny_suite), "--reps", str(REPS),
                       "--database", db, "--json")
    assert code == 0, out
    edition_id, planned = json.loads(out)["id"], json.loads(out)["attempts"]
    rng = random.Random(17)
    progress = []
    for _ in range(KILLS):
        target = claims(db) + rng.choice((0, 1))
        proc = grader("edition", "run", "crashy", "--workers", "2", "--database", db, cwd=tmp_path)
        deadline = time.monotonic() + 30
        while claims(db) < target and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(rng.uniform(0, 0.2))
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        progress.append(claims(db))
        assert max(counted_per_item(db, edition_id)) <= 1
    code, out, err = finished("edition", "run", "crashy", "--workers", "2", "--database", db, "--json",
                              cwd=tmp_path)
    assert code == 0, err
    assert counted_per_item(db, edition_id) == [1] * planned
    assert json.loads(out)["recorded"] == planned
    print(f"claims after each kill: {progress}")
    assert sum(0 < p < planned for p in progress) >= KILLS // 2, progress   # most kills landed mid-run
    code, out = invoke("ledger", "verify", "--database", db)
    assert code == 0, out


def test_infra_failures_are_retried_to_their_limit_never_counted_and_tried_again_by_the_next_run(
        tmp_path: Path, tiny_suite: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first three sandbox fills fail (injected around grader.lifecycle.fill_workspace, counted in a file so
    the forked workers share the count): with one retry, the first planned attempt (oracle) fails twice and is
    left `failed`, the second (nop) goes through on its retry; the next run completes the first.  nop's failing verdicts
    are agent outcomes: each is attempted once, never again."""
    import grader.lifecycle
    from evidence import AttemptOutcome
    from grader.edition_run import RunOptions, run_edition
    from grader.lifecycle import SandboxInfraError

    counter = tmp_path / "fills"
    counter.write_text("0")
    real = grader.lifecycle.fill_workspace

    def fill(task: object, paths: object, agent: object, attempt_id: str, repetition: int = 0) -> object:
        n = int(counter.read_text()) + 1
        counter.write_text(str(n))
        if n <= 3:
            raise SandboxInfraError("sandbox infra_error: injected", AttemptOutcome.INFRA_ERROR, None, 0.5)
        return real(task, paths, agent, attempt_id, repetition)   # type: ignore[arg-type]

    # this process grades first, so its warm L1 server and engine zygote exist when the workers fork from it:
    # they must start their own (a worker using its parent's would wait forever for answers)
    from grader.pipeline import grade
    from grader.tasks import load_task

    task = load_task(tiny_suite / "alpha", "suite")
    assert grade(task, task.paths.oracle).verdict.passed
    monkeypatch.setattr(grader.lifecycle, "fill_workspace", fill)
    db = f"sqlite:///{tmp_path / 'l.db'}"
    assert invoke("edition", "plan", "flaky", *BASELINES, "--suite", str(tiny_suite), "--database", db)[0] == 0
    options = RunOptions(workers=1, infra_retries=1, runs_dir=tmp_path / "runs")
    first = run_edition(db, "flaky", options)
    assert (first.recorded, first.missing) == (5, 1)
    assert first.after["oracle"].outcomes == {"completed": 2, "infra failures": 2}
    assert first.after["nop"].outcomes == {"completed": 3, "infra failures": 1}
    second = run_edition(db, "flaky", options)
    assert (second.recorded, second.missing, len([e for e in second.events if "outcome" in e])) == (6, 0, 1)
    with raw(db) as conn:
        outcomes = dict(conn.execute(text("SELECT outcome, count(*) FROM attempts GROUP BY outcome")).all())
    assert outcomes == {"completed": 6, "infra_error": 3}
    assert counted_per_item(db, second.edition_id) == [1] * 6


def test_planning_again_is_a_no_op_and_a_different_plan_is_refused(tmp_path: Path, tiny_suite: Path) -> None:
    """A nightly script that died plans again before it runs: the same plan is found, not appended twice."""
    db = f"sqlite:///{tmp_path / 'l.db'}"
    first = json.loads(invoke("edition", "plan", "again", "--suite", str(tiny_suite), "--database", db, "--json")[1])
    assert first["existing"] is False
    code, out = invoke("edition", "plan", "again", "--suite", str(tiny_suite), "--database", db, "--json")
    assert code == 0 and json.loads(out)["existing"] is True and json.loads(out)["id"] == first["id"]
    code, out = invoke("edition", "plan", "again", "--suite", str(tiny_suite), "--database", db)
    assert code == 0 and "this plan already (15 planned attempts): nothing appended" in " ".join(out.split())
    code, out = invoke("edition", "plan", "again", "--suite", str(tiny_suite), "--reps", "2", "--database", db)
    assert (code, out) == (2, "Error: edition 'again' exists already with another plan: repetitions 1 recorded, 2 "
                              "here (editions are never changed: pick a new name)\n")
    code, out = invoke("edition", "plan", "again", *BASELINES, "--suite", str(tiny_suite), "--database", db)
    assert code == 2 and "models oracle, nop, scripted:steady, scripted:erratic, scripted:careless recorded, " \
                         "oracle, nop here" in out
    with raw(db) as conn:
        assert conn.execute(text("SELECT count(*) FROM editions")).scalar() == 1
        assert conn.execute(text("SELECT count(*) FROM plan_items")).scalar() == 15


def test_the_scripted_baselines_hand_in_the_oracle_or_a_wrong_solution_drawn_per_attempt() -> None:
    """The built-in imperfect agents: each attempt is the oracle or one of the task's wrong-* solutions, the same
    on every run, and the profiles solve at different rates (over the public suite's tasks x 40 repetitions)."""
    from grader.drivers import DriverError, resolve_driver
    from grader.tasks import load_suite, solution_folder, wrong_solution_names

    tasks = load_suite(ROOT / "batteries" / "public").tasks
    rates = {}
    for profile in ("steady", "erratic", "careless"):
        driver, arg = resolve_driver(f"scripted:{profile}")
        picks = [driver.stage(task, arg, rep) for task in tasks for rep in range(40)]
        assert picks == [driver.stage(task, arg, rep) for task in tasks for rep in range(40)]
        wrong = {solution_folder(task, name) for task in tasks for name in wrong_solution_names(task)}
        assert set(picks) <= wrong | {solution_folder(task, "oracle") for task in tasks}
        assert len(set(picks) & wrong) > 4, "several wrong solutions, failing different requirements"
        rates[profile] = sum(p.name == "oracle" for p in picks) / len(picks)
    assert 0.6 < rates["steady"] < 0.9 and 0.3 < rates["erratic"] < 0.6 and 0.05 < rates["careless"] < 0.35
    with pytest.raises(DriverError, match=r"scripted:perfect: unknown PROFILE 'perfect' \(known: steady, erratic"):
        resolve_driver("scripted:perfect")


def test_a_published_held_out_suite_reveals_nothing_but_its_scores(tmp_path: Path, make_task: Callable[..., Path]
                                                                   ) -> None:
    """A held-out suite is planned, run and recorded like any other; what `edition publish` writes holds none of
    its tasks' ids, names, prompt lines, task hashes or battery hashes, and its board has scores, CIs and ranks."""
    from engine import API_VERSION
    from grader.tasks import battery_hash, load_suite, task_hash

    public = make_task("alpha").parent
    secret = tmp_path / "vault"
    prompts = {"obsidian": "Raise the obsidian lighthouse beacon at x = 3.\nIt hums in the key of F sharp.\n",
               "quillon": "Forge a quillon dagger node named Box at x = 3.\nThe pommel glows ultramarine.\n"}
    for name, prompt in prompts.items():
        made = make_task(name)
        shutil.move(made, secret / name)   # out of the public suite's folder, where make_task makes it
        (secret / name / "prompt.md").write_text(prompt)
    (secret / "suite.toml").write_text('name = "vault"\nversion = "1.0.0"\nvisibility = "held-out"\n')
    held = load_suite(secret).tasks
    needles = {t.qualified_id for t in held} | {t.id for t in held} | {task_hash(t) for t in held} \
        | {battery_hash(t, API_VERSION) for t in held} | {"vault"} \
        | {line.strip() for p in prompts.values() for line in p.splitlines() if line.strip()}
    db = f"sqlite:///{tmp_path / 'l.db'}"
    assert invoke("edition", "plan", "sealed", "--suite", str(public), "--suite", str(secret), "--reps", "2",
                  "--database", db)[0] == 0
    code, out, err = finished("edition", "run", "sealed", "--workers", "2", "--database", db, "--json", cwd=tmp_path)
    assert code == 0, err
    assert json.loads(out)["recorded"] == 5 * 3 * 2   # the built-in agents x 3 tasks x 2 repetitions
    site = tmp_path / "site"
    code, out = invoke("edition", "publish", "sealed", "--out", str(site), "--database", db, "--json")
    assert code == 0, out
    published = [p for p in sorted(site.rglob("*")) if p.is_file()]
    assert len(published) >= 3   # the archive index, and the edition's snapshot.json and index.html
    for path in published:
        content = path.read_bytes().decode("utf-8")
        found = sorted(n for n in needles if n in content)
        assert found == [], f"{path.relative_to(site)} reveals the held-out suite: {found}"
    snapshot = json.loads((site / "sealed" / "snapshot.json").read_text())
    board = snapshot["heldout"]
    assert set(board) == {"models", "refused"} and snapshot["summary"]["public_tasks"] == 1
    rows = {m["model"]: m for m in board["models"]}
    assert rows["oracle"]["score"] == 1.0 and rows["nop"]["score"] == 0.0 and len(rows) == 5
    for row in rows.values():
        assert row["ci"][0] <= row["score"] <= row["ci"][1] and row["rank_range"][0] <= row["rank"]
        assert set(row) == {"model", "score", "score_exact", "ci", "ci_method", "rank", "rank_range"}, set(row)
    # the ledger knows the held-out tasks by their hashes only, and so does what the run printed
    with raw(db) as conn:
        ids = {row[0] for row in conn.execute(text("SELECT task_id FROM tasks")).all()}
    assert ids == {"suite/alpha"} | {f"held-out/{task_hash(t)[:16]}" for t in held}
    names = {t.id for t in held} | {f"vault/{t.id}" for t in held} \
        | {line.strip() for p in prompts.values() for line in p.splitlines() if line.strip()}
    assert [n for n in names if n in err] == [] and "held-out/" in err
