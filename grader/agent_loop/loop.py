"""The agent loop that ships with the grader (docs/agents.md): the model proposes one shell command at a time, in a
fenced block; the loop runs it in the workspace and shows the model its exit status and output; it stops when the
model's command is `echo COMPLETE_TASK` alone, or at its step or cost limit.

    python3 agent_loop.py --model MODEL [--base-url URL] [--reasoning-effort EFFORT] [--extra-body JSON]
        [--max-steps N] [--max-cost USD] [--price-in USD --price-out USD] [--command-timeout SECONDS]

It speaks the OpenAI-compatible chat-completions protocol (POST {base}/chat/completions with `model` and
`messages`; the answer's `choices[0].message.content` and `usage.prompt_tokens` / `usage.completion_tokens`) and
uses the standard library only, so it runs in a minimal image.  In the grader's sandbox the base URL is
`$GRADER_GATEWAY_URL`, the metered gateway, which adds the provider's key: the loop never sends one.  After every
answer and every command it rewrites `$GRADER_USAGE_FILE` (tokens, cost at the given list prices, tool calls).

Exit status: 0 the model finished; 1 the model or its API failed (an answer that is not a chat completion, an HTTP
error, no connection); 2 bad arguments or no task; 3 the step limit; 4 the cost limit.

This file is copied alone into the agent's image: it imports nothing of the grader.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

SENTINEL = "COMPLETE_TASK"
FINISH = {f"echo {SENTINEL}", f'echo "{SENTINEL}"', f"echo '{SENTINEL}'"}
OUTPUT_LIMIT = 10_000            # bytes of a command's output the model sees (beyond: the head and the tail)
REQUEST_TIMEOUT = 600.0          # seconds for one answer
RETRY_DELAYS = (1.0, 2.0, 4.0)   # seconds before each retry of a request that failed on the way
RETRY_STATUSES = {429, 500, 502, 503, 504}
EXCERPT = 300
BLOCK = re.compile(r"^```(?:bash|sh|shell)[ \t]*\n(.*?)\n?^```[ \t]*$", re.MULTILINE | re.DOTALL)

EXIT_DONE, EXIT_MODEL, EXIT_USAGE, EXIT_STEPS, EXIT_COST = 0, 1, 2, 3, 4

SYSTEM = """You are a software engineer working alone in a Linux shell, in the folder {workspace}.

Each of your replies holds a short explanation of what you will do next, then exactly one shell command in a \
fenced block, like this:

```bash
ls -la
```

The command runs with `sh -c` in {workspace}, each time in a fresh shell (a `cd` does not carry over), with no \
input and no network. You then see its exit status and its output (a long output is cut in the middle). Write \
files with a here-document, for example `cat > notes.txt <<'EOF'`, one line `EOF` closing it. Do not start \
background processes or anything interactive; a command is stopped after {timeout:g} seconds.

When the task is done, reply with this command alone:

```bash
echo COMPLETE_TASK
```"""

NO_COMMAND = ("Your reply holds no command. Reply with a short explanation and exactly one ```bash fenced block "
              "holding one shell command. When the task is done, the block holds `echo COMPLETE_TASK` alone.")
MANY_COMMANDS = ("Your reply holds {n} ```bash blocks: exactly one command per reply, please. Reply again with one "
                 "block.")


class FormatError(ValueError):
    """A reply the loop cannot take one command from: the model is told, and the step counts."""


class ModelError(RuntimeError):
    """The model's API failed or answered something that is not a chat completion: the loop stops (exit 1)."""


def parse_command(reply: str) -> str:
    """The one command of a reply: the text of its only ```bash (or sh, shell) fenced block."""
    blocks = BLOCK.findall(reply)
    if not blocks:
        raise FormatError(NO_COMMAND)
    if len(blocks) > 1:
        raise FormatError(MANY_COMMANDS.format(n=len(blocks)))
    command = blocks[0].strip()
    if not command:
        raise FormatError(NO_COMMAND)
    return command


def is_finish(command: str) -> bool:
    return command.strip() in FINISH


def elide(head: str, tail: str, left_out: int) -> str:
    """A long output as the model sees it: its head and tail around a note of how much was left out."""
    return f"{head}\n[... {left_out} bytes left out ...]\n{tail}"


class Capture:
    """A command's output as it arrives, in bounded memory: all of it up to `limit` bytes; beyond, its first and
    last `limit` // 2 bytes and a count of what is left out."""

    def __init__(self, limit: int = OUTPUT_LIMIT) -> None:
        self.limit = limit
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail = (self.tail + data)[-(self.limit // 2):]

    def text(self) -> str:
        if self.total <= self.limit:
            return self.head.decode("utf-8", "replace")
        half = self.limit // 2
        tail = (self.head[half:] + self.tail)[-half:]
        return elide(self.head[:half].decode("utf-8", "replace"), tail.decode("utf-8", "replace"),
                     self.total - half - len(tail))


def observation(exit_status: int, output: str, stopped_after: float | None = None) -> str:
    """What the model sees of a command it ran."""
    note = f"\n(the command was stopped after {stopped_after:g} seconds)" if stopped_after is not None else ""
    if output and not output.endswith("\n"):
        output += "\n"
    return f"<exit_status>{exit_status}</exit_status>\n<output>\n{output}</output>{note}"


def run_command(command: str, cwd: str, timeout: float, limit: int = OUTPUT_LIMIT) -> tuple[int, str, bool]:
    """Run `sh -c command` in cwd, in its own process group, its output (stdout and stderr together) kept in
    bounded memory: (exit status, output, whether it was stopped at the timeout)."""
    proc = subprocess.Popen(["sh", "-c", command], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    assert proc.stdout is not None
    capture = Capture(limit)
    deadline = time.monotonic() + timeout
    stopped = False
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                stopped = True
                break
            if not selector.select(left):
                continue
            chunk = os.read(proc.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            capture.feed(chunk)
    if stopped:
        _kill_group(proc)
    try:
        status = proc.wait(timeout=max(deadline - time.monotonic(), 1.0))
    except subprocess.TimeoutExpired:   # its output closed but it runs on: stopped like a slow one
        stopped = True
        _kill_group(proc)
        status = proc.wait()
    proc.stdout.close()
    return (status if status >= 0 else 128 - status), capture.text(), stopped


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


# --- the model ---------------------------------------------------------------------------------------------------

@dataclass
class Reply:
    content: str
    tokens_in: int = 0
    tokens_out: int = 0


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _excerpt(data: bytes | str) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    text = " ".join(text.split())
    return text if len(text) <= EXCERPT else text[:EXCERPT] + " ..."


def read_reply(raw: bytes) -> Reply:
    """A chat completion's text and token counts; ModelError when the answer is not one."""
    try:
        doc = json.loads(raw)
    except ValueError:
        raise ModelError(f"the answer is not JSON: {_excerpt(raw)!r}") from None
    if isinstance(doc, dict) and doc.get("error"):
        raise ModelError(f"the answer is an error: {_excerpt(json.dumps(doc['error']))}")
    choices = doc.get("choices") if isinstance(doc, dict) else None
    message = choices[0].get("message") if isinstance(choices, list) and choices and isinstance(choices[0], dict) \
        else None
    if not isinstance(message, dict):
        raise ModelError(f"the answer is not a chat completion (no choices[0].message): {_excerpt(raw)!r}")
    content = message.get("content")
    if isinstance(content, list):   # content parts: their text
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    usage = doc.get("usage") if isinstance(doc.get("usage"), dict) else {}
    return Reply(content if isinstance(content, str) else "", _count(usage.get("prompt_tokens")),
                 _count(usage.get("completion_tokens")))


@dataclass
class Model:
    """The OpenAI-compatible chat-completions API at `base_url` (no key: the gateway adds it)."""

    base_url: str
    model: str
    reasoning_effort: str = ""
    extra_body: dict[str, Any] = field(default_factory=dict)
    timeout: float = REQUEST_TIMEOUT

    def body(self, messages: Sequence[dict[str, str]]) -> dict[str, Any]:
        body = {**self.extra_body, "model": self.model, "messages": list(messages)}
        if self.reasoning_effort:
            body["reasoning_effort"] = self.reasoning_effort
        return body

    def complete(self, messages: Sequence[dict[str, str]]) -> Reply:
        data = json.dumps(self.body(messages)).encode()
        url = self.base_url.rstrip("/") + "/chat/completions"
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))   # straight to the base URL
        for attempt in range(len(RETRY_DELAYS) + 1):
            request = urllib.request.Request(url, data=data, method="POST",
                                             headers={"Content-Type": "application/json"})
            try:
                with opener.open(request, timeout=self.timeout) as response:
                    return read_reply(response.read())
            except urllib.error.HTTPError as exc:
                problem = f"HTTP {exc.code} from {url}: {_excerpt(exc.read())!r}"
                if exc.code not in RETRY_STATUSES:
                    raise ModelError(problem) from None
            except (urllib.error.URLError, OSError) as exc:
                problem = f"no answer from {url}: {getattr(exc, 'reason', None) or exc}"
            if attempt < len(RETRY_DELAYS):
                print(f"retrying in {RETRY_DELAYS[attempt]:g} s: {problem}", flush=True)
                time.sleep(RETRY_DELAYS[attempt])
        raise ModelError(problem)


# --- the loop ----------------------------------------------------------------------------------------------------

@dataclass
class Usage:
    """What the loop used, at the list prices it was given (USD per million tokens): the usage file."""

    tokens_in: int = 0
    tokens_out: int = 0
    tool_calls: int = 0
    price_in: float | None = None
    price_out: float | None = None

    @property
    def cost(self) -> float | None:
        if self.price_in is None or self.price_out is None:
            return None
        return (self.tokens_in * self.price_in + self.tokens_out * self.price_out) / 1e6

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"version": 1, "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
                               "tool_calls": self.tool_calls}
        if self.cost is not None:
            out["cost_usd"] = round(self.cost, 9)
        return out

    def write(self, path: str) -> None:
        """Replace the usage file at once (the grader may read it whenever the loop is stopped)."""
        if not path:
            return
        temporary = path + ".tmp"
        with open(temporary, "w", encoding="utf-8") as fh:
            json.dump(self.as_dict(), fh, sort_keys=True)
        os.replace(temporary, path)


@dataclass
class Settings:
    model: Model
    prompt: str
    workspace: str
    usage_file: str = ""
    max_steps: int = 100
    max_cost: float | None = None
    command_timeout: float = 120.0
    time_limit: str = ""


def first_messages(settings: Settings) -> list[dict[str, str]]:
    system = SYSTEM.format(workspace=settings.workspace, timeout=settings.command_timeout)
    task = settings.prompt.rstrip() + "\n"
    if settings.time_limit:
        task += f"\n(The session ends after {settings.time_limit} seconds.)\n"
    return [{"role": "system", "content": system}, {"role": "user", "content": task}]


def _show(command: str) -> str:
    lines = command.splitlines() or [""]
    first = lines[0] if len(lines[0]) <= 120 else lines[0][:120] + " ..."
    return first + (f"  [+{len(lines) - 1} lines]" if len(lines) > 1 else "")


def run(settings: Settings, usage: Usage) -> int:
    """The loop; returns the exit status (see the module's docstring)."""
    messages = first_messages(settings)
    steps = 0
    while True:
        if steps >= settings.max_steps:
            print(f"stopped: the step limit ({settings.max_steps}) is reached", flush=True)
            return EXIT_STEPS
        if settings.max_cost is not None and (usage.cost or 0.0) >= settings.max_cost:
            print(f"stopped: the cost limit (${settings.max_cost:g}) is reached (${usage.cost:.4f})", flush=True)
            return EXIT_COST
        try:
            reply = settings.model.complete(messages)
        except ModelError as exc:
            print(f"error: {exc}", flush=True)
            return EXIT_MODEL
        steps += 1
        usage.tokens_in += reply.tokens_in
        usage.tokens_out += reply.tokens_out
        usage.write(settings.usage_file)
        messages.append({"role": "assistant", "content": reply.content})
        try:
            command = parse_command(reply.content)
        except FormatError as exc:
            print(f"step {steps}: no single command in the reply; the model is reminded of the format", flush=True)
            messages.append({"role": "user", "content": str(exc)})
            continue
        if is_finish(command):
            print(f"finished: {steps} steps, {usage.tool_calls} commands", flush=True)
            return EXIT_DONE
        print(f"step {steps}: $ {_show(command)}", flush=True)
        status, output, stopped = run_command(command, settings.workspace, settings.command_timeout)
        usage.tool_calls += 1
        usage.write(settings.usage_file)
        print(f"step {steps}: exit status {status}{' (stopped at the timeout)' if stopped else ''}", flush=True)
        messages.append({"role": "user", "content": observation(
            status, output, settings.command_timeout if stopped else None)})


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    env = os.environ
    p = argparse.ArgumentParser(prog="agent_loop.py", description="The grader's agent loop (docs/agents.md).")
    p.add_argument("--model", required=True, help="the model id sent with each request")
    p.add_argument("--base-url", default=env.get("GRADER_GATEWAY_URL", ""),
                   help="the chat-completions API's base URL (default: $GRADER_GATEWAY_URL)")
    p.add_argument("--reasoning-effort", default="", help="sent as reasoning_effort (default: not sent)")
    p.add_argument("--extra-body", default="{}", help="a JSON object merged into every request's body")
    p.add_argument("--max-steps", type=int, default=100, help="at most this many model calls (default 100)")
    p.add_argument("--max-cost", type=float, default=None, help="stop once this many USD are spent")
    p.add_argument("--price-in", type=float, default=None, help="list price, USD per million input tokens")
    p.add_argument("--price-out", type=float, default=None, help="list price, USD per million output tokens")
    p.add_argument("--command-timeout", type=float, default=120.0, help="seconds a command may run (default 120)")
    p.add_argument("--workspace", default=env.get("GRADER_WORKSPACE") or os.getcwd())
    p.add_argument("--prompt-file", default=env.get("GRADER_PROMPT_FILE", ""))
    p.add_argument("--usage-file", default=env.get("GRADER_USAGE_FILE", ""))
    return p.parse_args(argv)


def settings_from(args: argparse.Namespace) -> Settings:
    """Checked settings; ValueError names the argument."""
    if not args.base_url:
        raise ValueError("--base-url: not given and $GRADER_GATEWAY_URL is not set")
    try:
        extra = json.loads(args.extra_body)
    except ValueError:
        raise ValueError("--extra-body: not JSON") from None
    if not isinstance(extra, dict) or "stream" in extra:
        raise ValueError("--extra-body: a JSON object, without 'stream' (the loop reads whole answers)")
    if args.max_steps < 1 or args.command_timeout <= 0 or (args.max_cost is not None and args.max_cost <= 0):
        raise ValueError("--max-steps, --max-cost and --command-timeout must be positive")
    if (args.price_in is None) != (args.price_out is None):
        raise ValueError("--price-in and --price-out go together")
    if args.max_cost is not None and args.price_in is None:
        raise ValueError("--max-cost needs --price-in and --price-out")
    if not args.prompt_file:
        raise ValueError("--prompt-file: not given and $GRADER_PROMPT_FILE is not set")
    try:
        with open(args.prompt_file, encoding="utf-8") as fh:
            prompt = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--prompt-file {args.prompt_file}: {exc}") from None
    return Settings(Model(args.base_url, args.model, args.reasoning_effort, extra), prompt, args.workspace,
                    args.usage_file, args.max_steps, args.max_cost, args.command_timeout,
                    os.environ.get("GRADER_TIME_LIMIT", ""))


def main(argv: Sequence[str] | None = None) -> int:
    args = _arguments(argv)
    try:
        settings = settings_from(args)
    except ValueError as exc:
        print(f"agent_loop.py: {exc}", file=sys.stderr, flush=True)
        return EXIT_USAGE
    usage = Usage(price_in=args.price_in, price_out=args.price_out)
    usage.write(settings.usage_file)
    return run(settings, usage)


if __name__ == "__main__":
    sys.exit(main())
