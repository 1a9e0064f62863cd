"""The CLI as a maintainer meets it (docs/cli.md): one error contract (0 ok, 1 failed, 2 bad input or configuration,
3 infrastructure; one line on stderr, never a traceback), the right ledger (never created by a command that only
reads; always named), output a nightly run can live with."""

from __future__ import annotations

import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.tasks import find_task, load_suite, solution_folder

ROOT = Path(__file__).resolve().parents[2]
ORACLE = solution_folder(find_task("public/coin-collector"), "oracle")   # rendered with its parameters


def grader(cwd: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, "COLUMNS": "80", **(env or {})}, check=False, timeout=600)


def one_line_error(proc: subprocess.CompletedProcess[str], code: int, text: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert proc.stderr.startswith("Error: ") and text in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("broken")
    good = root / "good.db"
    con = sqlite3.connect(good)
    con.executescript((ROOT / "tests/ledger/fixtures/ledger_v1.sql").read_text())
    con.close()
    data = good.read_bytes()
    files = {"garbage": b"this is no database " * 200, "truncated": data[: len(data) // 2],
             "malformed": data[:100] + b"\xff" * 200 + data[300:]}
    out = {}
    for name, content in files.items():
        (root / f"{name}.db").write_bytes(content)
        out[name] = root / f"{name}.db"
    return out


@pytest.mark.parametrize("name", ["garbage", "truncated", "malformed"])
def test_a_damaged_ledger_is_bad_input_and_verify_says_broken(broken: dict[str, Path], name: str,
                                                             tmp_path: Path) -> None:
    url = f"sqlite:///{broken[name]}"
    proc = grader(tmp_path, "grade", "public/coin-collector", str(ORACLE), "--database", url)
    one_line_error(proc, 2, f"{url}: not a readable grader ledger")
    proc = grader(tmp_path, "ledger", "verify", "--database", url)
    assert proc.returncode == 1 and proc.stdout.startswith("BROKEN") and "Traceback" not in proc.stderr, proc


@pytest.mark.parametrize(("url", "code", "text"), [
    ("notaurl", 2, "notaurl: not a database URL"),
    ("foo://bar", 2, "foo://bar: unknown kind of database"),
    ("mysql://someone@localhost/ledger", 2, "its database driver is not installed"),
    ("sqlite:////nonexistent-folder/grader.db", 2, "cannot open the database file"),
    ("postgresql+psycopg://someone:secret@127.0.0.1:9/ledger", 3, "someone:***@127.0.0.1:9/ledger: the database is "
                                                                    "unavailable"),
])
def test_a_bad_database_url_is_one_line_with_its_exit_code(url: str, code: int, text: str, tmp_path: Path) -> None:
    proc = grader(tmp_path, "grade", "public/coin-collector", str(ORACLE), "--database", url)
    one_line_error(proc, code, text)
    assert "secret" not in proc.stderr


@pytest.mark.parametrize("args", [("board",), ("ledger", "verify"), ("results",), ("show", "abcdef12"),
                                  ("edition", "list"), ("replay", "abcdef12")])
def test_commands_that_only_read_never_create_a_ledger(args: tuple[str, ...], tmp_path: Path) -> None:
    proc = grader(tmp_path, *args)
    one_line_error(proc, 2, "no ledger at sqlite:///")
    assert "grader.db: the file does not exist" in proc.stderr
    assert not (tmp_path / "grader.db").exists()


@pytest.fixture(scope="module")
def night(tmp_path_factory: pytest.TempPathFactory, starter_suite: Path) -> dict[str, object]:
    """A small night on the three starter tasks: an edition, a run under it with oracle and nop (piped), and an
    ad-hoc grade."""
    root = tmp_path_factory.mktemp("night")
    suite = ("--suite", str(starter_suite))
    created = grader(root, "edition", "create", "nightly-test", *suite, "--json")
    assert created.returncode == 0, created.stderr
    run = grader(root, "run", *suite, "--agent", "oracle", "--agent", "nop", "--edition", "nightly-test")
    assert run.returncode == 0, run.stderr
    run_json = grader(root, "run", *suite, "--agent", "oracle", "--json", "--no-record")
    grade = grader(root, "grade", "public/coin-collector", str(ORACLE))
    assert grade.returncode == 0, grade.stderr
    return {"root": root, "run": run, "run_json": json.loads(run_json.stdout), "edition": json.loads(created.stdout)}


def test_run_names_its_run_its_ledger_and_its_outcomes(night: dict[str, object]) -> None:
    run = night["run"]
    assert isinstance(run, subprocess.CompletedProcess)
    out = run.stdout
    assert "ledger sqlite:///" in out and "grader.db" in out
    assert "oracle: L2 pass rate 100% (3/3); failed first at L0 0, L1 0, L2 0" in out
    assert "nop: L2 pass rate 0% (0/3); failed first at L0 0, L1 0, L2 3" in out
    assert "6 of 6 attempts in" in out and " run run-" in out and "grader results" in out
    progress = [line for line in run.stderr.splitlines() if line.startswith("[")]
    assert len(progress) == 6 and progress[-1].startswith("[6/6 ")   # piped: one plain line per attempt
    summary = night["run_json"]
    assert isinstance(summary, dict)
    assert summary["agents"]["oracle"]["funnel"] == {"L0": 0, "L1": 0, "L2": 0, "passed": 3}
    assert Path(str(summary["run_dir"])).is_dir() and summary["planned"] == 3 and not summary["interrupted"]


def test_results_lists_the_hashes_show_and_replay_take(night: dict[str, object]) -> None:
    root = night["root"]
    assert isinstance(root, Path)
    listed = grader(root, "results", "--json")
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert rows["total"] == 7 and rows["ledger"].endswith("grader.db")
    only = json.loads(grader(root, "results", "--edition", "nightly-test", "--model", "nop", "--json").stdout)
    assert only["total"] == 3 and {r["model"] for r in only["results"]} == {"nop"}
    one = only["results"][0]["result_hash"]
    shown = grader(root, "show", one[:10])
    assert shown.returncode == 0 and one in shown.stdout and "grader.db" in shown.stdout
    replayed = grader(root, "replay", one[:10])
    assert replayed.returncode == 0 and replayed.stdout.startswith("MATCH")
    human = grader(root, "results", "--task", "coin-collector")
    assert human.returncode == 0 and "results in sqlite:///" in human.stdout
    assert all(len(line) <= 80 for line in human.stdout.splitlines())


def test_board_prints_every_board_of_the_newest_edition_in_80_columns(night: dict[str, object]) -> None:
    root = night["root"]
    assert isinstance(root, Path)
    proc = grader(root, "board")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert lines[0].startswith("ledger   sqlite:///") and lines[1].startswith("edition  1 nightly-test: dataset ")
    titles = {line.split(" — ")[0] for line in lines if " — " in line and line.split(" — ")[1].endswith(("task",
                                                                                                        "tasks"))}
    assert {"overall", "category:state", "difficulty:easy", "capability:input", "layer:completeness",
            "layer:richness"} <= titles
    assert "grade" not in [line.split()[2] for line in lines if line[:1].isdigit() and len(line.split()) > 2]
    only = grader(root, "board", "--board", "overall")
    assert only.returncode == 0 and "category:" not in only.stdout and "overall — 3 tasks" in only.stdout
    bad = grader(root, "board", "--board", "nope")
    one_line_error(bad, 2, "--board: no board 'nope'")
    pooled = json.loads(grader(root, "board", "--all-editions", "--include-grades", "--json").stdout)
    assert "grade" in pooled["models"] and pooled["edition"] is None


def test_board_json_imports_only_what_it_needs(night: dict[str, object]) -> None:
    """`grader board --json` is read by machines, often: it loads no engine, sandbox, task loader, migrations,
    queue or Docker client (python -X importtime lists every module a process imports)."""
    root = night["root"]
    assert isinstance(root, Path)
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "grader", "board", "--json"], cwd=root,
                          capture_output=True, text=True, check=False, timeout=120)
    assert proc.returncode == 0 and json.loads(proc.stdout)["format"] == "grader-snapshot/2"
    imported = {line.split("|")[2].strip() for line in proc.stderr.splitlines() if line.count("|") == 2}
    assert {"ledger", "grader.stats", "sqlalchemy"} <= imported   # the listing works
    heavy = {"engine", "lupa", "docker", "alembic", "celery", "redis", "pybullet", "Box2D", "grader.tasks",
             "grader.sandbox", "grader.lifecycle", "grader.l1", "numpy.ma", "scipy"}
    assert sorted(heavy & imported) == []


def test_the_page_reads_without_javascript(night: dict[str, object], tmp_path: Path) -> None:
    root = night["root"]
    assert isinstance(root, Path)
    assert grader(root, "board", "--out", str(tmp_path / "site")).returncode == 0
    page = (tmp_path / "site" / "index.html").read_text()
    noscript = page[page.index("<noscript>"): page.index("</noscript>")]
    assert "overall — 3 tasks" in noscript and "oracle" in noscript and "as of 20" in page
    assert page.index('<header id="about">') < page.index("<script")


def test_unranked_reasons_name_tasks_by_id(tmp_path: Path) -> None:
    edition = grader(tmp_path, "edition", "create", "partial")
    assert edition.returncode == 0, edition.stderr
    one = grader(tmp_path, "attempt", "public/coin-collector", "--agent", "oracle", "--edition", "partial")
    assert one.returncode == 0, one.stderr
    board = grader(tmp_path, "board", "--board", "overall")
    flat = " ".join(board.stdout.split())
    n = len(load_suite(ROOT / "batteries" / "public").tasks)
    assert f"not ranked: oracle: no counted attempt on {n - 1} of {n} tasks (" in flat
    named = re.search(r"of \d+ tasks \(([^)]*)\)", flat)
    assert named and "public/coin-collector" not in named.group(1)   # the tasks it has no attempt on, by id
    assert len(re.findall(r"public/[a-z0-9-]+", named.group(1))) == min(3, n - 1)
    assert (f" and {n - 4} more" in named.group(1)) == (n - 1 > 3)


def test_grading_output_names_files_lines_and_frames(tmp_path: Path) -> None:
    game = tmp_path / "game" / "scripts"
    game.mkdir(parents=True)
    (game / "main.lua").write_text("function Start()\n  NoSuchThing()\nend\n")
    proc = grader(tmp_path, "grade", "public/coin-collector", str(tmp_path / "game"), "--no-record")
    assert proc.returncode == 1
    assert "scripts/main.lua:2:3 error undefined-global" in proc.stdout
    frames = {line.rsplit("(frame ", 1)[1].split(")")[0] for line in proc.stdout.splitlines() if "(frame " in line}
    assert len(frames) > 1   # checks report the frame their values were taken at, not the run's last
    not_folder = grader(tmp_path, "grade", "public/coin-collector", str(game / "main.lua"), "--no-record")
    one_line_error(not_folder, 2, "main.lua: the deliverable must be a folder")


@pytest.mark.parametrize(("args", "text"), [
    (("-m", "engine", "run", "examples/spinning_box", "--seconds", "-5"), "Invalid value for '--seconds'"),
    (("-m", "engine", "run", "examples/spinning_box", "--dump", "/nonexistent/scene.json"),
     "--dump /nonexistent/scene.json: its folder does not exist"),
    (("-m", "grader", "tasks", "validate", "--repeats", "0"), "Invalid value for '--repeats'"),
    (("-m", "grader", "run", "--reps", "0"), "Invalid value for '--reps'"),
])
def test_numeric_and_path_options_are_checked_before_any_work(args: tuple[str, ...], text: str) -> None:
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT, check=False, timeout=120)
    assert proc.returncode == 2 and text in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_version_prints_the_content_derived_builds() -> None:
    from engine import engine_build
    from grader._version import grader_build

    proc = subprocess.run([sys.executable, "-m", "grader", "--version"], capture_output=True, text=True, cwd=ROOT,
                          check=False)
    assert proc.returncode == 0
    assert f"(build {grader_build()})" in proc.stdout and f"(build {engine_build()})" in proc.stdout


def test_ctrl_c_stops_after_recording_what_finished(tmp_path: Path, starter_suite: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "grader", "run", "--suite", str(starter_suite), "--agent", "oracle",
                             "--reps", "5"], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "80"})
    assert proc.stderr is not None
    deadline = time.monotonic() + 300
    seen = ""
    while time.monotonic() < deadline:
        seen = proc.stderr.readline()
        if seen.startswith("[2/15 "):
            break
    assert seen.startswith("[2/15 "), seen
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, (out, err)
    assert "interrupted" in out and " of 15 attempts in " in out and "Traceback" not in err
    con = sqlite3.connect(tmp_path / "grader.db")
    recorded = con.execute("SELECT count(*) FROM results").fetchone()[0]
    con.close()
    assert recorded >= 2 and f"{recorded} of 15 attempts" in out


@pytest.mark.parametrize("args", [("run", "--agent", "nosuch"), ("run", "--agent", "scripted:perfect"),
                                  ("attempt", "public/coin-collector", "--agent", "nosuch")])
def test_an_unknown_driver_is_refused_before_a_ledger_is_made(args: tuple[str, ...], tmp_path: Path) -> None:
    proc = grader(tmp_path, *args)
    one_line_error(proc, 2, "unknown ")
    assert list(tmp_path.iterdir()) == []
