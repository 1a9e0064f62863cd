"""The sandbox's inputs, without Docker: the usage file (hostile input), agent files, gateway settings, and the
choices refused before any container starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from grader.drivers import DriverError, resolve_driver
from grader.lifecycle import AttemptOptions, prepare_agent
from grader.sandbox import AgentConfigError, GatewayError, Usage, load_agent_config, parse_gateway, parse_usage
from grader.sandbox.agent import passed_environment
from grader.sandbox.gateway import proxy_script
from grader.sandbox.metering import BodyReader, Meter, price_of
from grader.sandbox.usage import MAX_BYTES, read_usage

ROOT = Path(__file__).resolve().parents[2]
SOURCE = "/usage/usage.json"


def test_a_complete_usage_file() -> None:
    usage = parse_usage(b'{"version": 1, "tokens_in": 1200, "tokens_out": 34, "cost_usd": 0.5, "tool_calls": 7}')
    assert usage == Usage(1200, 34, 0.5, 7, ())
    assert parse_usage(b'{"cost_usd": 2}').cost_usd == 2.0 and parse_usage(b"{}") == Usage()


@pytest.mark.parametrize(("data", "field", "expected"), [
    (b'{"tokens_in": -1, "tokens_out": 3}', "tokens_in", Usage(None, 3)),
    (b'{"tokens_in": true}', "tokens_in", Usage()),
    (b'{"tool_calls": 1.5}', "tool_calls", Usage()),
    (b'{"tokens_out": 4294967296}', "tokens_out", Usage()),
    (b'{"cost_usd": "0.1", "tool_calls": 2}', "cost_usd", Usage(tool_calls=2)),
    (b'{"cost_usd": NaN}', None, Usage()),
    (b'{"cost_usd": 1e308, "tokens_in": 1}', "cost_usd", Usage(tokens_in=1)),
])
def test_a_bad_field_is_null_with_a_warning_naming_the_file_and_field(data: bytes, field: str | None,
                                                                         expected: Usage) -> None:
    usage = parse_usage(data, SOURCE)
    assert (usage.tokens_in, usage.tokens_out, usage.cost_usd, usage.tool_calls) == \
        (expected.tokens_in, expected.tokens_out, expected.cost_usd, expected.tool_calls)
    assert len(usage.warnings) == 1 and usage.warnings[0].startswith(f"{SOURCE}: ")
    if field:
        assert f"field {field!r}" in usage.warnings[0] and "recorded as NULL" in usage.warnings[0]


@pytest.mark.parametrize(("data", "message"), [
    (b"not json", "not valid JSON"),
    (b"\xff\xfe", "not valid JSON"),
    (b"[1, 2]", "expected a JSON object, got list"),
    (b'{"version": 2, "tokens_in": 5}', "field 'version': '2' is not a version this grader reads"),
])
def test_a_malformed_file_is_all_null_with_a_warning(data: bytes, message: str) -> None:
    usage = parse_usage(data, SOURCE)
    assert (usage.tokens_in, usage.tokens_out, usage.cost_usd, usage.tool_calls) == (None, None, None, None)
    assert usage.warnings == (usage.warnings[0],) and message in usage.warnings[0] and SOURCE in usage.warnings[0]


def test_unknown_fields_are_named_and_ignored() -> None:
    usage = parse_usage(b'{"tokens_in": 3, "model": "x", "extra": 1}', SOURCE)
    assert usage.tokens_in == 3
    assert usage.warnings == (f"{SOURCE}: unknown fields ignored: 'extra', 'model'",)


def test_reading_the_file_never_follows_links_nor_blocks(tmp_path: Path) -> None:
    assert read_usage(tmp_path) == Usage()  # absent: NULL, and nothing to warn about
    secret = tmp_path / "secret.json"
    secret.write_text('{"tokens_in": 99}')
    (tmp_path / "usage.json").symlink_to(secret)
    linked = read_usage(tmp_path)
    assert linked.tokens_in is None and "cannot be read" in linked.warnings[0]
    (tmp_path / "usage.json").unlink()
    os.mkfifo(tmp_path / "usage.json")  # opening a FIFO for reading would block without O_NONBLOCK
    assert "not a regular file" in read_usage(tmp_path).warnings[0]
    (tmp_path / "usage.json").unlink()
    (tmp_path / "usage.json").write_bytes(b" " * (MAX_BYTES + 1))
    assert "larger than" in read_usage(tmp_path).warnings[0]


def test_gateway_settings() -> None:
    gw = parse_gateway("https://LLM.example.com/v1?x=1", allow=["llm.example.com:443"], url_env=["ANTHROPIC_BASE_URL"],
                       key_env="ANTHROPIC_API_KEY", key_header="X-Api-Key", prices={"m": [1, 2.5]})
    assert [str(e) for e in gw.allow] == ["llm.example.com:443"]
    assert gw.environment(4100) == {"GRADER_GATEWAY_URL": "http://grader-gateway:4100/v1?x=1",
                                    "ANTHROPIC_BASE_URL": "http://grader-gateway:4100/v1?x=1"}
    assert (gw.key_header, gw.prices) == ("x-api-key", (("m", 1.0, 2.5),))
    assert parse_gateway("http://172.17.0.1:8080/v1").as_dict() == {
        "allow": ["172.17.0.1:8080"], "connect_timeout": 10, "egress_network": "bridge", "metered": True,
        "key_header": ""}
    for url, message in [("ftp://x/", "expected http"), ("https://u:p@x/", "credentials"),
                         ("http://[::1]:80/", "IPv6"), ("http://a_b/", "not a host name")]:
        with pytest.raises(GatewayError, match=message):
            parse_gateway(url)
    with pytest.raises(GatewayError, match=r"b\.example:443: the metered gateway forwards to a\.example:443 only"):
        parse_gateway("https://a.example/", allow=["b.example:443"])
    with pytest.raises(GatewayError, match="connect_timeout"):
        parse_gateway("http://a.example/", connect_timeout=0)
    with pytest.raises(GatewayError, match="key_env and key_header go together"):
        parse_gateway("http://a.example/", key_env="K")
    with pytest.raises(GatewayError, match="prices 'm': expected"):
        parse_gateway("http://a.example/", prices={"m": [1]})


def test_the_proxy_forwards_to_the_meter_only() -> None:
    script = proxy_script(4100, "172.17.0.1", 7)
    assert script.count("nc -ll -p") == 1 and "nc -ll -p 4100 -e nc -w 7 172.17.0.1 4100" in script


OPENAI = {"id": "c1", "model": "gpt-4o-2024-08-06", "usage": {"prompt_tokens": 1000, "completion_tokens": 200}}
ANTHROPIC_SSE = (b'event: message_start\ndata: {"type": "message_start", "message": {"model": "claude-3-5-haiku-1", '
                 b'"usage": {"input_tokens": 900, "cache_read_input_tokens": 100, "output_tokens": 1}}}\n\n'
                 b'event: content_block_delta\ndata: {"type": "content_block_delta", "delta": {"text": "hi"}}\n\n'
                 b'event: message_delta\ndata: {"type": "message_delta", "usage": {"output_tokens": 150}}\n\n'
                 b'event: message_delta\ndata: {"type": "message_delta", "usage": {"output_tokens": 300}}\n\n')


def test_the_meter_reads_usage_from_json_and_event_streams() -> None:
    meter = Meter("http://x/", prices={"gpt-4o": (1.0, 1.0)})   # the agent file's price beats the built-in one
    whole = BodyReader("application/json")
    whole.feed(json.dumps(OPENAI).encode())
    meter.count(whole.close())
    stream = BodyReader("text/event-stream; charset=utf-8")
    for i in range(0, len(ANTHROPIC_SSE), 7):   # split anywhere: lines are joined again
        stream.feed(ANTHROPIC_SSE[i:i + 7])
    meter.count(stream.close())
    openai_stream = BodyReader("text/event-stream")
    openai_stream.feed(b'data: {"model": "gpt-4o-mini", "choices": []}\n\ndata: {"model": "gpt-4o-mini", "usage": '
                       b'{"prompt_tokens": 10, "completion_tokens": 5}}\n\ndata: [DONE]\n\n')
    meter.count(openai_stream.close())
    report = meter.close()
    assert (report.requests, report.tokens_in, report.tokens_out) == (3, 1000 + 1000 + 10, 200 + 300 + 5)
    expected = (1200 * 1.0 + 1000 * 0.8 + 300 * 4.0 + 10 * 0.15 + 5 * 0.6) / 1e6
    assert report.cost_usd is not None and abs(report.cost_usd - expected) < 1e-12
    unknown = Meter("http://x/")
    silent = BodyReader("application/json")
    silent.feed(b'{"model": "mystery-1", "usage": {"input_tokens": 5, "output_tokens": 1}}')
    unknown.count(silent.close())
    unknown.count(BodyReader("application/json").close())
    assert unknown.report.cost_usd is None and unknown.report.warnings() == [
        "gateway: no list price for model 'mystery-1': cost recorded as NULL",
        "gateway: 1 of 2 responses reported no usage"]
    assert price_of("claude-3-5-haiku-20241022", {}) == (0.8, 4.0)


AGENT = """name = "tester"
image = "grader-test-agent:1"
command = ["sh", "/agent/run.sh"]
pass_env = ["TEST_AGENT_KEY"]
env = { MODE = "good" }

[gateway]
url = "http://172.17.0.1:9999/v1"
url_env = ["OPENAI_BASE_URL"]

[limits]
pids = 64
memory_mb = 256

[model]
provider = "test"
name = "fake"
version = "1"
"""


def test_agent_files(tmp_path: Path) -> None:
    path = tmp_path / "agent.toml"
    path.write_text(AGENT)
    config = load_agent_config(path)
    assert config.driver == "command:tester" and config.command == ("sh", "/agent/run.sh")
    assert config.pass_env == ("TEST_AGENT_KEY",) and config.env == (("MODE", "good"),)
    assert config.limits.pids == 64 and config.limits.memory_bytes == 256 << 20
    assert config.gateway is not None and config.gateway.url_env == ("OPENAI_BASE_URL",)
    assert config.model is not None and config.model.reasoning_mode == "default"
    for bad, message in [("colour = 1\n", "unknown field 'colour'"), ('name = "a b"\n', "no spaces"),
                         ('pass_env = ["GRADER_X"]\n', "GRADER_X is set by the grader"),
                         ('pass_env = ["1X"]\n', "not an environment variable name"),
                         ("command = []\n", "must not be empty"), ("[limits]\npids = -1\n", "positive number"),
                         ('[gateway]\nurl = "ftp://x"\n', r"\[gateway\] gateway URL")]:
        key = bad.split()[0].strip("[]")
        kept = "\n".join(line for line in AGENT.split("\n\n")[0].splitlines() if not line.startswith(key))
        path.write_text(kept + "\n" + bad)
        with pytest.raises(AgentConfigError, match=message) as info:
            load_agent_config(path)
        assert str(path) in str(info.value)


def test_passed_environment_names_missing_variables_never_values(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TEST_AGENT_KEY", "sk-very-secret")
    monkeypatch.delenv("TEST_OTHER_KEY", raising=False)
    assert passed_environment(["TEST_AGENT_KEY"]) == {"TEST_AGENT_KEY": "sk-very-secret"}
    with pytest.raises(AgentConfigError, match=r"^--pass-env TEST_OTHER_KEY: not set"):
        passed_environment(["TEST_AGENT_KEY", "TEST_OTHER_KEY"])


def test_choices_refused_before_any_container(tmp_path: Path) -> None:
    with pytest.raises(DriverError, match=r"command:AGENT\.toml"):
        resolve_driver("command")
    with pytest.raises(DriverError, match="add --sandbox docker"):
        prepare_agent(f"command:{tmp_path / 'agent.toml'}", AttemptOptions())
    with pytest.raises(DriverError, match="--gateway and --pass-env need --sandbox docker"):
        prepare_agent("oracle", AttemptOptions(pass_env=("HOME",)))
    proc = subprocess.run([sys.executable, "-m", "grader", "attempt", "public/coin-collector", "--agent", "oracle",
                           "--gateway", "http://x/", "--no-record"], capture_output=True, text=True, cwd=tmp_path,
                          check=False)
    assert proc.returncode == 2 and "Error: --gateway and --pass-env need --sandbox docker" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "grader", "attempt", "public/coin-collector", "--agent", "nop",
                           "--edition", "1", "--no-record", "--json"], capture_output=True, text=True, cwd=tmp_path,
                          check=False)
    assert proc.returncode == 2 and "cannot go with --no-record" in proc.stderr and proc.stdout == ""
