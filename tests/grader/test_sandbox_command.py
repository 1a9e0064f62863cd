"""The `command` driver on real containers: an agent image built FROM the sandbox base runs its own command; API
keys pass by name and their values are found nowhere the grader writes; the usage file's tool calls reach the ledger
(malformed: NULL and a warning, not a crash) and is no part of the deliverable; an edition that pins a profile
refuses another before the agent runs.  Token counts and cost come only from the metered gateway
(test_sandbox_gateway.py): the usage file gives the tool calls.

These tests never skip under CI (CI=true): a machine without Docker fails them loudly.
"""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
import tarfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from grader.sandbox import base_image
from ledger import Ledger
from ledger._models import Edition
from ledger._store import now

ROOT = Path(__file__).resolve().parents[2]
SECRET, TOKEN = "sk-test-7d1e0c5a9b3f", "tok-test-41c8e2d0"
AGENT_SCRIPT = r"""
echo "key=$TEST_AGENT_KEY token=$TEST_AGENT_TOKEN mode=$MODE"
test -r /task/prompt.md || exit 4
mkdir -p /workspace/scripts
cat > /workspace/scripts/main.lua <<'LUA'
function Start()
  local scene = Scene()
  local box = scene:CreateChild("Box")
  box.position = Vector3(3, 0, 0)
end
LUA
case "$MODE" in
  good) echo '{"version": 1, "tokens_in": 1200, "tokens_out": 340, "cost_usd": 0.0123, "tool_calls": 17}' ;;
  bad) echo '{"tokens_in": "many", "tool_calls": 3}' ;;
esac > "$GRADER_USAGE_FILE"
"""


pytestmark = pytest.mark.usefixtures("no_leftovers")   # tests/grader/conftest.py


@pytest.fixture(scope="module")
def agent_image(docker_client: Any) -> Iterator[str]:
    """A real agent's image, built the way docs/sandbox.md tells a user to: FROM the base, its command added."""
    files = {"Dockerfile": f"FROM {base_image(docker_client)}\nCOPY run.sh /agent/run.sh\n".encode(),
             "run.sh": AGENT_SCRIPT.encode()}
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            tar.addfile(info, io.BytesIO(data))
    buf.seek(0)
    tag = f"grader-test-agent:{os.getpid()}"
    docker_client.images.build(fileobj=buf, custom_context=True, tag=tag, rm=True, forcerm=True)
    yield tag
    docker_client.images.remove(tag, force=True)


def _agent_file(tmp_path: Path, image: str, name: str, mode: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\nimage = "{image}"\ncommand = ["sh", "/agent/run.sh"]\n'
                    f'pass_env = ["TEST_AGENT_KEY"]\nenv = {{ MODE = "{mode}" }}\n\n'
                    '[model]\nprovider = "test"\nname = "fake-model"\nversion = "1"\n')
    return path


def _attempt(task: Path, agent: Path, tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TEST_AGENT_KEY": SECRET, "TEST_AGENT_TOKEN": TOKEN}
    return subprocess.run([sys.executable, "-m", "grader", "attempt", str(task), "--agent", f"command:{agent}",
                           "--sandbox", "docker", "--pass-env", "TEST_AGENT_TOKEN", "--runs-dir",
                           str(tmp_path / "runs"), "--database", f"sqlite:///{tmp_path / 'ledger.db'}", "--json",
                           *extra], capture_output=True, text=True, cwd=ROOT, env=env, check=False, timeout=180)


def _attempt_row(tmp_path: Path, result_hash: str) -> dict[str, Any]:
    con = sqlite3.connect(tmp_path / "ledger.db")
    con.row_factory = sqlite3.Row
    row = con.execute("SELECT a.*, m.name AS model FROM attempts a JOIN results r ON r.attempt_id = a.id "
                      "LEFT JOIN models m ON m.id = a.model_id WHERE r.result_hash = ?", (result_hash,)).fetchone()
    con.close()
    return dict(row)


def test_a_real_agent_runs_in_its_image_and_reports_its_usage(docker_client: Any, agent_image: str,
                                                              make_task: Callable[..., Path], tmp_path: Path) -> None:
    task = make_task()
    proc = _attempt(task, _agent_file(tmp_path, agent_image, "tester", "good"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["verdict"]["passed"] and out["driver"] == "command:tester" and out["outcome"] == "completed"
    # without a gateway nothing metered its tokens: NULL, whatever the agent's own file says; its tool calls count
    assert out["usage"] == {"tokens_in": None, "tokens_out": None, "cost_usd": None, "tool_calls": 17,
                            "warnings": []}
    row = _attempt_row(tmp_path, out["result_hash"])
    assert (row["driver"], row["tokens_in"], row["tokens_out"], row["cost_usd"], row["tool_calls"], row["model"]) \
        == ("command:tester", None, None, None, 17, "fake-model")
    attempt_dir = Path(out["attempt_dir"])
    sandbox = json.loads((attempt_dir / "sandbox.json").read_text())
    assert row["profile_hash"] == out["profile_hash"] == sandbox["profile_hash"]
    assert sandbox["usage_claimed"]["tokens_in"] == 1200   # kept as the agent's claim, never recorded
    assert sandbox["profile"]["image"] == docker_client.images.get(agent_image).id  # pinned by image id
    assert sandbox["environment"] == ["MODE", "TEST_AGENT_KEY", "TEST_AGENT_TOKEN"]
    assert sandbox["agent"]["pass_env"] == ["TEST_AGENT_KEY", "TEST_AGENT_TOKEN"]
    log = (attempt_dir / "agent.log").read_text()
    assert "key=[TEST_AGENT_KEY redacted] token=[TEST_AGENT_TOKEN redacted] mode=good" in log  # it did get them
    written = [p for p in [*tmp_path.rglob("*"), *attempt_dir.rglob("*")] if p.is_file()]
    for secret in (SECRET, TOKEN):
        assert secret not in proc.stdout and secret not in proc.stderr
        assert [p for p in written if secret.encode() in p.read_bytes()] == []  # ledger.db included
    assert not list((attempt_dir / "workspace").rglob("usage*")), "the usage file is no part of the deliverable"
    l0 = {c["name"]: c["passed"] for c in out["verdict"]["levels"]["L0"]["checks"]}
    assert all(l0.values())


def test_a_malformed_usage_file_is_a_warning_and_null(docker_client: Any, agent_image: str,
                                                      make_task: Callable[..., Path], tmp_path: Path) -> None:
    proc = _attempt(make_task(), _agent_file(tmp_path, agent_image, "tester-bad", "bad"), tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert ("Warning: /usage/usage.json: field 'tokens_in': expected an integer from 0 to 2147483647, got "
            '"many"; recorded as NULL') in proc.stderr
    out = json.loads(proc.stdout)
    row = _attempt_row(tmp_path, out["result_hash"])
    assert (row["tokens_in"], row["tokens_out"], row["cost_usd"], row["tool_calls"]) == (None, None, None, 3)


def test_an_edition_pinning_another_profile_refuses_before_the_agent_runs(
        docker_client: Any, agent_image: str, make_task: Callable[..., Path], tmp_path: Path) -> None:
    task, agent = make_task(), _agent_file(tmp_path, agent_image, "tester", "none")
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    with ledger.appending() as session:
        pinned = Edition(name="pinned", engine_version="x", dataset_version="1", dataset_hash="0" * 64,
                         profile_hash="f" * 64, root_seed=1, created_at=now())
        ledger.append(session, pinned)
    ledger.close()
    proc = _attempt(task, agent, tmp_path, "--edition", str(pinned.id))
    assert proc.returncode == 2
    assert f"Error: edition 'pinned' (id {pinned.id}) pins sandbox profile {'f' * 64}; the attempt's profile is " \
           in proc.stderr
    assert not (tmp_path / "runs").exists(), "refused before any attempt ran"


def test_an_edition_runs_a_real_agent_in_the_sandbox_as_its_planned_model(
        docker_client: Any, agent_image: str, make_task: Callable[..., Path], tmp_path: Path) -> None:
    """models.toml names the model and the command driver that drives it; `grader edition run --sandbox docker`
    runs the agent in its image for every planned attempt and records each as the plan's model."""
    for name in ("alpha", "beta"):
        suite = make_task(name).parent
    _agent_file(tmp_path, agent_image, "tester", "good")
    (tmp_path / "models.toml").write_text(
        '[models.acme]\nprovider = "acme"\nmodel = "alpha"\nversion = "2026-01-15"\ndriver = "command:tester.toml"\n'
        'concurrency = 2\n[models.acme.prices]\ninput_per_mtok = 1.0\noutput_per_mtok = 2.0\n')
    db = f"sqlite:///{tmp_path / 'ledger.db'}"
    env = {**os.environ, "TEST_AGENT_KEY": SECRET, "PYTHONPATH": str(ROOT)}

    def grader(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "grader", *args, "--database", db], capture_output=True,
                              text=True, cwd=tmp_path, env=env, check=False, timeout=300)

    plan = grader("edition", "plan", "real", "--suite", str(suite), "--models", str(tmp_path / "models.toml"))
    assert plan.returncode == 0, plan.stderr
    refused = grader("edition", "run", "real")
    assert refused.returncode == 2 and "add --sandbox docker" in refused.stderr
    run = grader("edition", "run", "real", "--sandbox", "docker", "--workers", "2", "--json")
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert summary["models"]["acme/alpha@2026-01-15"] == {
        "planned": 2, "recorded": 2, "passed": 2, "pass_rate": 1.0, "outcomes": {"completed": 2}}
    con = sqlite3.connect(tmp_path / "ledger.db")
    rows = con.execute("SELECT a.driver, m.provider, m.name, m.version, a.tool_calls, a.profile_hash FROM attempts a "
                       "JOIN models m ON m.id = a.model_id").fetchall()
    con.close()
    assert [r[:5] for r in rows] == [("command:tester", "acme", "alpha", "2026-01-15", 17)] * 2
    assert all(r[5] for r in rows)
