"""The agent loop that ships with the grader (grader/agent_loop/, docs/agents.md), against a scripted inference
server: an OpenAI-compatible chat-completions server started here that replays canned completions.

On this machine without Docker: the loop's parsing of replies, its bounded capture of a command's output, its exit
statuses and its usage file.  Through the real gateway and the real sandbox (`--sandbox docker`, root and Docker,
like the other test_sandbox_* modules): a model that writes main.lua and finishes (graded, passing; the ledger's
tokens and cost are the meter's count of the canned usage; its tool calls recorded; the provider key never inside
the container), and an edition whose models.toml names the loop as the driver of a model whose reply is broken
(agent_error) and of one that never stops (agent_error at its step limit).

These tests never skip under CI (CI=true): a machine without Docker fails them loudly.
"""

from __future__ import annotations

import http.server
import json
import os
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from grader.agent_loop import loop
from grader.drivers import DriverError
from grader.models_file import LoopLimits, ModelsFileError, load_model, load_models

ROOT = Path(__file__).resolve().parents[2]
KEY = "sk-loop-test-5f0c2a9e71d4"
LUA = """function Start()
  local scene = Scene()
  local box = scene:CreateChild("Box")
  box.position = Vector3(3, 0, 0)
end"""


@dataclass(frozen=True)
class Canned:
    """One canned answer: a reply's text with its usage, or raw bytes (a broken answer)."""

    content: str = ""
    tokens_in: int = 0
    tokens_out: int = 0
    raw: bytes = b""
    status: int = 200


def said(text: str, turn: int) -> Canned:
    return Canned(text, 1000 + 250 * turn, 40 + 7 * turn)


WRITER = [said('I look around first.\n```bash\ncat "$GRADER_PROMPT_FILE"; ls -R; env | sort\n```', 0),
          said("I know what to do.", 1),   # no command: the loop reminds the model of the format
          said(f"Writing the game.\n```bash\ncat > scripts/main.lua <<'EOF'\n{LUA}\nEOF\n```", 2),
          said("Checking it.\n```bash\ncat scripts/main.lua && python3 -c 'print(6 * 7)'\n```", 3),
          said("Done.\n```bash\necho COMPLETE_TASK\n```", 4)]
BROKEN = [Canned(raw=b'{"id": "x", "object": "chat.completion", "model": "scripted-broken", '
                     b'"usage": {"prompt_tokens": 700, "completion_tokens": 30}}')]
MODEL_SUFFIX = "-2026-01-01"   # the provider answers with a dated snapshot of the model asked for
pytestmark = pytest.mark.usefixtures("no_leftovers")   # tests/grader/conftest.py: no container or network left


def looper(turn: int) -> Canned:
    return said(f"Still working ({turn}).\n```bash\necho working {turn} >> log.txt\n```", turn)


class ScriptedModel:
    """A chat-completions server on this machine's loopback.  The answer to a request is chosen by its `model`
    (writer, broken, looper) and by how many assistant turns its messages hold; every request is kept (headers
    and body).  With `key` set, every request must carry it (as a provider would)."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.failures: list[int] = []   # statuses to answer with first, before any script (retries)
        self.key: str | None = None
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *_args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append({"path": self.path, "body": body,
                                       "headers": {k.lower(): v for k, v in self.headers.items()}})
                canned = outer.answer(body, self.headers.get("Authorization"))
                data = canned.raw or json.dumps({
                    "id": f"chatcmpl-{len(outer.requests)}", "object": "chat.completion",
                    "model": body["model"] + MODEL_SUFFIX,
                    "choices": [{"index": 0, "finish_reason": "stop",
                                 "message": {"role": "assistant", "content": canned.content}}],
                    "usage": {"prompt_tokens": canned.tokens_in, "completion_tokens": canned.tokens_out,
                              "total_tokens": canned.tokens_in + canned.tokens_out}}).encode()
                self.send_response(canned.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/v1"
        threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True).start()

    def answer(self, body: dict[str, Any], authorization: str | None) -> Canned:
        if self.failures:
            return Canned(raw=b'{"error": {"message": "overloaded"}}', status=self.failures.pop(0))
        turn = sum(m["role"] == "assistant" for m in body["messages"])
        model = body["model"]
        if self.key is not None and authorization != f"Bearer {self.key}":
            return Canned(raw=b'{"error": {"message": "no key"}}', status=401)
        if model == "scripted-writer":
            return WRITER[turn]
        if model == "scripted-broken":
            return BROKEN[turn]
        return looper(turn)

    def of(self, model: str) -> list[dict[str, Any]]:
        return [r for r in self.requests if r["body"]["model"] == model]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def totals(script: list[Canned]) -> tuple[int, int]:
    return sum(c.tokens_in for c in script), sum(c.tokens_out for c in script)


@pytest.fixture
def scripted() -> Iterator[ScriptedModel]:
    server = ScriptedModel()
    yield server
    server.close()


# --- on this machine ------------------------------------------------------------------------------------------------

def test_a_reply_gives_one_command_or_a_reminder() -> None:
    assert loop.parse_command("Let me look.\n```bash\nls -la\n```\n") == "ls -la"
    assert loop.parse_command("```sh\ncat > a.lua <<'EOF'\nprint('```')\nEOF\n```") == \
        "cat > a.lua <<'EOF'\nprint('```')\nEOF"   # a fence inside a line is not the block's end
    assert loop.parse_command("Some Lua:\n```lua\nprint(1)\n```\nand:\n```shell\nls\n```") == "ls"
    for reply, reminder in (("no block at all", loop.NO_COMMAND), ("```bash\n\n```", loop.NO_COMMAND),
                            ("```python\nprint(1)\n```", loop.NO_COMMAND),
                            ("```bash\nls\n```\n```bash\npwd\n```", loop.MANY_COMMANDS.format(n=2))):
        with pytest.raises(loop.FormatError) as caught:
            loop.parse_command(reply)
        assert str(caught.value) == reminder
    assert loop.is_finish(" echo COMPLETE_TASK \n") and loop.is_finish("echo 'COMPLETE_TASK'")
    assert not loop.is_finish("ls && echo COMPLETE_TASK")


def test_a_long_output_keeps_its_head_and_tail_in_bounded_memory() -> None:
    short = loop.Capture(limit=100)
    short.feed(b"x" * 60)
    short.feed(b"y" * 40)
    assert short.text() == "x" * 60 + "y" * 40
    long = loop.Capture(limit=100)
    for i in range(1000):
        long.feed(f"{i:04d}\n".encode())
    assert len(long.head) == 100 and len(long.tail) == 50
    assert long.text() == ("0000\n0001\n0002\n0003\n0004\n0005\n0006\n0007\n0008\n0009\n"
                           "\n[... 4900 bytes left out ...]\n"
                           "0990\n0991\n0992\n0993\n0994\n0995\n0996\n0997\n0998\n0999\n")
    just_over = loop.Capture(limit=100)   # the tail reaches back into what the head kept
    just_over.feed(b"a" * 90 + b"b" * 20)
    assert just_over.text() == "a" * 50 + "\n[... 10 bytes left out ...]\n" + "a" * 30 + "b" * 20
    status, output, stopped = loop.run_command("seq 1 100000; echo done >&2; exit 3", "/", 30, limit=1000)
    assert (status, stopped) == (3, False) and output.startswith("1\n2\n") and output.endswith("99999\n100000\ndone\n")
    assert "bytes left out" in output and len(output) < 1100
    status, output, stopped = loop.run_command("echo started; sleep 30 & wait", "/", 0.5)
    assert stopped and status == 137 and output == "started\n"
    assert loop.observation(137, output, 0.5) == ("<exit_status>137</exit_status>\n<output>\nstarted\n</output>\n"
                                                  "(the command was stopped after 0.5 seconds)")


def test_an_answer_that_is_no_chat_completion_is_a_model_error() -> None:
    reply = loop.read_reply(b'{"choices": [{"message": {"content": [{"type": "text", "text": "a"}, '
                            b'{"type": "text", "text": "b"}]}}], "usage": {"prompt_tokens": 5}}')
    assert (reply.content, reply.tokens_in, reply.tokens_out) == ("ab", 5, 0)
    assert loop.read_reply(b'{"choices": [{"message": {"content": null}}]}').content == ""   # a reminder follows
    for raw, problem in ((b"<html>busy</html>", "the answer is not JSON: '<html>busy</html>'"),
                         (b'{"choices": []}', "the answer is not a chat completion (no choices[0].message)"),
                         (b'{"error": {"message": "quota"}}', 'the answer is an error: {"message": "quota"}')):
        with pytest.raises(loop.ModelError) as caught:
            loop.read_reply(raw)
        assert str(caught.value).startswith(problem)


def _run_on_host(tmp_path: Path, url: str, model: str, *extra: str) -> tuple[int, dict[str, Any], Path]:
    workspace = tmp_path / f"ws-{len(list(tmp_path.glob('ws-*')))}"
    (workspace / "scripts").mkdir(parents=True)
    (tmp_path / "prompt.md").write_text("Make a Box at x = 3.\n")
    usage = workspace.with_suffix(".usage.json")
    status = loop.main(["--model", model, "--base-url", url, "--workspace", str(workspace), "--prompt-file",
                        str(tmp_path / "prompt.md"), "--usage-file", str(usage), *extra])
    return status, json.loads(usage.read_text()), workspace


def test_the_loop_on_this_machine_finishes_stops_and_counts(scripted: ScriptedModel, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The same loop as in the container, straight to the scripted server: every exit status and its usage file."""
    monkeypatch.setenv("GRADER_PROMPT_FILE", str(tmp_path / "prompt.md"))
    monkeypatch.setattr(loop, "RETRY_DELAYS", (0.0, 0.0, 0.0))
    scripted.failures = [503, 429]   # retried: the writer's first answer comes on the third try
    status, usage, workspace = _run_on_host(tmp_path, scripted.url, "scripted-writer", "--price-in", "2",
                                            "--price-out", "8", "--reasoning-effort", "high")
    assert status == loop.EXIT_DONE and (workspace / "scripts" / "main.lua").read_text() == LUA + "\n"
    tokens_in, tokens_out = totals(WRITER)
    assert usage == {"version": 1, "tokens_in": tokens_in, "tokens_out": tokens_out, "tool_calls": 3,
                     "cost_usd": round((tokens_in * 2 + tokens_out * 8) / 1e6, 9)}
    sent = [r["body"] for r in scripted.of("scripted-writer")]
    assert len(sent) == 7 and all(b["reasoning_effort"] == "high" for b in sent)
    assert sent[-3]["messages"][-1] == {"role": "user", "content": loop.NO_COMMAND}
    assert sent[-1]["messages"][-1]["content"] == "<exit_status>0</exit_status>\n<output>\n" + LUA + "\n42\n</output>"
    status, usage, _ = _run_on_host(tmp_path, scripted.url, "scripted-broken")
    assert status == loop.EXIT_MODEL and usage == {"version": 1, "tokens_in": 0, "tokens_out": 0, "tool_calls": 0}
    status, usage, workspace = _run_on_host(tmp_path, scripted.url, "scripted-looper", "--max-steps", "4")
    assert status == loop.EXIT_STEPS and usage["tool_calls"] == 4 and len(scripted.of("scripted-looper")) == 4
    assert (workspace / "log.txt").read_text() == "working 0\nworking 1\nworking 2\nworking 3\n"
    status, usage, _ = _run_on_host(tmp_path, scripted.url, "scripted-looper", "--price-in", "100",
                                    "--price-out", "100", "--max-cost", "0.2")
    assert status == loop.EXIT_COST and usage["tool_calls"] == 2   # $0.104 after one answer, $0.2337 after two
    assert loop.main(["--model", "m", "--base-url", "http://x/v1", "--extra-body", '{"stream": true}']) == \
        loop.EXIT_USAGE


def test_the_loop_image_holds_this_python_busybox_and_the_loop() -> None:
    from grader.agent_loop.image import SCRIPT, loop_rootfs

    fs = loop_rootfs()
    entries = fs.entries
    assert entries["bin/sh"].link == "busybox" and entries["bin/busybox"].source == "/bin/busybox"
    assert entries[SCRIPT.strip("/")].data == Path(loop.__file__).read_bytes()
    assert "agent:x:10001:10001:" in entries["etc/passwd"].data.decode()
    assert any(name.endswith("/json/__init__.py") for name in entries)
    assert not [name for name in entries if "site-packages/" in name], "the standard library only"
    assert loop_rootfs().manifest() == fs.manifest()   # what finds the image again without building it


# --- models.toml ------------------------------------------------------------------------------------------------------

WRITER_TOML = """
[models.writer]
provider = "scripted"
model = "scripted-writer"
version = "2026-01-01"
driver = "loop"
[models.writer.reasoning]
mode = "high"
[models.writer.endpoint]
url = "{url}"
key_env = "TEST_LOOP_KEY"
extra_body = {{ temperature = 0 }}
[models.writer.prices]
input_per_mtok = 2.0
output_per_mtok = 8.0
"""
EDITION_TOML = """
[models.broken]
provider = "scripted"
model = "scripted-broken"
version = "2026-01-01"
driver = "loop"
endpoint = {{ url = "{url}" }}
prices = {{ input_per_mtok = 0.5, output_per_mtok = 1.5 }}

[models.looper]
provider = "scripted"
model = "scripted-looper"
version = "2026-01-01"
driver = "loop"
endpoint = {{ url = "{url}" }}
loop = {{ max_steps = 3 }}
prices = {{ input_per_mtok = 1.0, output_per_mtok = 4.0 }}
"""
MODELS = WRITER_TOML + EDITION_TOML


def test_models_toml_names_the_loop_as_a_models_driver(tmp_path: Path) -> None:
    models = tmp_path / "models.toml"
    models.write_text(MODELS.format(url="http://127.0.0.1:9/v1"))
    writer, broken, looper = load_models(models)
    assert (writer.driver, writer.endpoint and writer.endpoint.key_header, writer.loop) == \
        ("loop", "authorization", LoopLimits(100, 3.0, 120))
    assert looper.loop == LoopLimits(3, 3.0, 120) and broken.endpoint and broken.endpoint.key_env == ""
    planned = writer.planned()
    assert planned.entry["endpoint"] == {"url": "http://127.0.0.1:9/v1", "key_env": "TEST_LOOP_KEY",
                                         "key_header": "authorization", "extra_body": {"temperature": 0}}
    again = type(writer).from_planned({"label": planned.label, "driver": planned.driver, **planned.entry})
    assert again == writer   # the plan holds everything the loop needs: a run never reads models.toml again
    from grader.agent_loop.setup import loop_command, loop_gateway

    assert loop_command(writer)[2:] == ("--model", "scripted-writer", "--max-steps", "100", "--command-timeout",
                                        "120", "--price-in", "2.0", "--price-out", "8.0", "--max-cost", "3.0",
                                        "--reasoning-effort", "high", "--extra-body", '{"temperature":0}')
    assert loop_gateway(writer).prices == (("scripted-writer", 2.0, 8.0),)
    assert load_model(f"{models}#looper") == looper
    with pytest.raises(ModelsFileError, match=r"models.toml: models.gamma: no such model \(known: writer, broken, "):
        load_model(f"{models}#gamma")
    with pytest.raises(ModelsFileError, match=r"name one model of a models\.toml: loop:MODELS\.toml#KEY"):
        load_model(str(models))
    for bad, error in (
            (MODELS.replace('endpoint = {{ url = "{url}" }}\nloop', "loop"),
             "models.looper.endpoint: missing (the loop driver's provider"),
            (MODELS.replace('driver = "loop"\nendpoint', 'driver = "nop"\nendpoint', 1),
             "models.broken.endpoint: only the loop driver reads it (driver = 'nop')"),
            (MODELS.replace("temperature = 0", "stream = true"),
             "models.writer.endpoint.extra_body.stream: set by the loop itself"),
            (MODELS.replace('driver = "loop"', 'driver = "loop:other.toml#x"', 1),
             "models.writer.driver: 'loop:other.toml#x': in models.toml the entry itself is the loop driver's model"),
            (MODELS.replace("max_steps = 3", "max_steps = 0"),
             "models.looper.loop.max_steps: must be an integer from 1 to 100000, got 0"),
            (MODELS.replace('key_env = "TEST_LOOP_KEY"', 'key_env = "GRADER_KEY"'),
             "models.writer.endpoint.key_env: GRADER_KEY is the grader's own variable")):
        models.write_text(bad.format(url="http://127.0.0.1:9/v1"))
        with pytest.raises(ModelsFileError) as caught:
            load_models(models)
        assert error in str(caught.value)


def test_the_loop_driver_needs_a_model_and_a_container(tmp_path: Path) -> None:
    from grader.lifecycle import AttemptOptions, prepare_agent

    with pytest.raises(DriverError, match="a real agent runs only in a container: add --sandbox docker"):
        prepare_agent("loop:models.toml#writer", AttemptOptions())
    proc = subprocess.run([sys.executable, "-m", "grader", "attempt", "public/coin-collector", "--agent", "loop:",
                           "--no-record"], capture_output=True, text=True, cwd=ROOT, check=False, timeout=60)
    assert proc.returncode == 2 and "Error: the loop driver needs an argument: loop:MODELS.toml#KEY" in proc.stderr


# --- through the gateway and the sandbox --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def loop_image(docker_client: Any) -> str:
    """Built once per machine; this module's tests share it."""
    from grader.agent_loop.image import loop_image as build

    return build(docker_client)


def _grader(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", *args, "--database", f"sqlite:///{tmp_path / 'l.db'}"],
                          capture_output=True, text=True, cwd=tmp_path, check=False, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **env})


def _rows(tmp_path: Path) -> dict[str, dict[str, Any]]:
    con = sqlite3.connect(tmp_path / "l.db")
    con.row_factory = sqlite3.Row
    rows = con.execute("SELECT a.*, m.provider, m.name AS model, m.version, m.reasoning_mode FROM attempts a "
                       "JOIN models m ON m.id = a.model_id "   # the counted attempt, not an infra failure's retry
                       "WHERE a.outcome IN ('completed', 'agent_error', 'agent_timeout')").fetchall()
    con.close()
    return {r["model"]: dict(r) for r in rows}


def test_the_loop_writes_a_game_through_the_gateway_and_the_sandbox(
        docker_client: Any, loop_image: str, scripted: ScriptedModel, make_task: Callable[..., Path],
        tmp_path: Path) -> None:
    task = make_task()
    (tmp_path / "models.toml").write_text(MODELS.format(url=scripted.url))
    scripted.key = KEY
    proc = _grader(tmp_path, "attempt", str(task), "--agent", f"loop:{tmp_path / 'models.toml'}#writer",
                   "--sandbox", "docker", "--runs-dir", str(tmp_path / "runs"), "--json", TEST_LOOP_KEY=KEY)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["verdict"]["passed"] and (out["driver"], out["outcome"]) == ("loop", "completed")
    tokens_in, tokens_out = totals(WRITER)
    cost = (tokens_in * 2.0 + tokens_out * 8.0) / 1e6   # the plan's list prices, for the snapshot it answered with
    row = _rows(tmp_path)["scripted-writer"]
    assert (row["driver"], row["outcome"], row["tokens_in"], row["tokens_out"], row["tool_calls"]) == \
        ("loop", "completed", tokens_in, tokens_out, 3)
    assert abs(row["cost_usd"] - cost) < 1e-12 and out["usage"]["tokens_in"] == tokens_in
    assert (row["provider"], row["version"], row["reasoning_mode"]) == ("scripted", "2026-01-01", "high")
    attempt = Path(out["attempt_dir"])
    sandbox = json.loads((attempt / "sandbox.json").read_text())
    assert sandbox["gateway"]["requests"] == 5 and sandbox["profile"]["image"] == loop_image
    assert sandbox["usage_claimed"] == {"tokens_in": tokens_in, "tokens_out": tokens_out, "tool_calls": 3,
                                       "cost_usd": round(cost, 9), "warnings": []}   # the loop agrees with the meter
    assert sandbox["agent"]["command"][:4] == ["python3", "/opt/grader/agent_loop.py", "--model", "scripted-writer"]
    assert (attempt / "workspace" / "scripts" / "main.lua").read_text() == LUA + "\n"
    sent = scripted.requests
    assert [r["headers"].get("authorization") for r in sent] == [f"Bearer {KEY}"] * 5   # added by the gateway
    assert all(r["path"] == "/v1/chat/completions" and r["body"]["reasoning_effort"] == "high"
               and r["body"]["temperature"] == 0 for r in sent)
    seen = sent[1]["body"]["messages"][-1]["content"]   # what `env` printed inside the container
    assert "GRADER_GATEWAY_URL=http://grader-gateway:" in seen and "Make a Box at x = 3." in seen
    assert "main.lua" in seen and "TEST_LOOP_KEY" not in seen
    assert not [r for r in sent if KEY in json.dumps(r["body"])], "the key reached the container"
    log = (attempt / "agent.log").read_text()
    assert "step 2: no single command in the reply" in log and "finished: 5 steps, 3 commands" in log
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert [p for p in written if KEY.encode() in p.read_bytes()] == [] and KEY not in proc.stdout + proc.stderr


def test_an_edition_runs_the_loop_as_its_planned_models(
        docker_client: Any, loop_image: str, scripted: ScriptedModel, make_task: Callable[..., Path],
        tmp_path: Path) -> None:
    """models.toml names the loop as two models' driver; the plan carries their model ids, endpoints and limits:
    a broken reply is agent_error (the meter still counts its tokens), a model that never stops is agent_error at
    its step limit."""
    suite = make_task().parent
    models = tmp_path / "models.toml"
    models.write_text(EDITION_TOML.format(url=scripted.url))
    plan = _grader(tmp_path, "edition", "plan", "nightly", "--suite", str(suite), "--models", str(models))
    assert plan.returncode == 0, plan.stderr
    models.write_text("")   # the run reads the plan, never models.toml again
    run = _grader(tmp_path, "edition", "run", "nightly", "--sandbox", "docker", "--workers", "2", "--json")
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)["models"]
    retried = 0
    for name in ("broken", "looper"):
        got = summary[f"scripted/scripted-{name}@2026-01-01"]
        retried += got["outcomes"].pop("infra failures", 0)   # a loaded machine may fail an attempt's infra: retried
        assert got == {"planned": 1, "recorded": 1, "passed": 0, "pass_rate": 0.0, "outcomes": {"agent_error": 1}}, (
            run.stderr)
    rows = _rows(tmp_path)
    if not retried:
        assert len(scripted.of("scripted-broken")) == 1 and len(scripted.of("scripted-looper")) == 3
    assert (rows["scripted-broken"]["tokens_in"], rows["scripted-broken"]["tokens_out"],
            rows["scripted-broken"]["tool_calls"]) == (700, 30, 0)
    assert abs(rows["scripted-broken"]["cost_usd"] - (700 * 0.5 + 30 * 1.5) / 1e6) < 1e-12
    tokens_in, tokens_out = totals([looper(t) for t in range(3)])
    assert (rows["scripted-looper"]["tokens_in"], rows["scripted-looper"]["tokens_out"],
            rows["scripted-looper"]["tool_calls"]) == (tokens_in, tokens_out, 3)
    results = {json.loads(p.read_text())["agent"]["command"][3]: (json.loads(p.read_text()), p.parent)
               for p in (tmp_path / "runs").rglob("sandbox.json")
               if json.loads(p.read_text())["outcome"] in ("completed", "agent_error", "agent_timeout")}
    broken, broken_dir = results["scripted-broken"]
    looping, looping_dir = results["scripted-looper"]
    assert (broken["exit_code"], looping["exit_code"]) == (loop.EXIT_MODEL, loop.EXIT_STEPS)
    assert "error: the answer is not a chat completion" in (broken_dir / "agent.log").read_text()
    assert "stopped: the step limit (3) is reached" in (looping_dir / "agent.log").read_text()
    assert (looping_dir / "workspace" / "log.txt").read_text() == "working 0\nworking 1\nworking 2\n"


def test_the_examples_of_docs_agents_md_are_valid(tmp_path: Path) -> None:
    """Every TOML example of docs/agents.md loads: the models.toml entries and the Claude Code agent file."""
    from grader.sandbox import load_agent_config

    text = (ROOT / "docs" / "agents.md").read_text()
    blocks = [b.split("```", 1)[0] for b in text.split("```toml\n")[1:]]
    (tmp_path / "agents").mkdir()
    agent_files = [b for b in blocks if b.startswith("# agents/claude-code.toml")]
    assert len(agent_files) == 1
    (tmp_path / "agents" / "claude-code.toml").write_text(agent_files[0])
    config = load_agent_config(tmp_path / "agents" / "claude-code.toml")
    assert config.gateway is not None and config.gateway.key_env == "BENCH_ANTHROPIC_KEY"
    entries = []
    for i, block in enumerate(b for b in blocks if "[models." in b):
        (tmp_path / f"models-{i}.toml").write_text(block)
        entries += load_models(tmp_path / f"models-{i}.toml")
    assert [e.driver for e in entries] == ["loop", "loop", f"command:{tmp_path / 'agents' / 'claude-code.toml'}"]
