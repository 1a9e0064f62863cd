"""A small JSON-RPC 2.0 client over a child process's stdio, with LSP's Content-Length framing."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from grader._process import dying_with_parent

RequestHandler = Callable[[str, Any], Any]
NotificationHandler = Callable[[str, Any], None]


class RpcError(Exception):
    """The server answered a request with an error object."""

    def __init__(self, method: str, error: Mapping[str, Any]) -> None:
        super().__init__(f"{method}: {error.get('message', error)} (code {error.get('code')})")
        self.error = dict(error)


class RpcTimeoutError(Exception):
    """No answer within the time allowed."""


class RpcClosedError(Exception):
    """The server's process ended or closed its output."""


_CLOSED = object()


class JsonRpcClient:
    """Starts `argv` and speaks JSON-RPC with it.

    Requests from the server are answered by `on_request(method, params)` (its return value is the result);
    notifications go to `on_notification(method, params)`.  Both run on the reader thread.
    """

    def __init__(self, argv: Sequence[str], *, env: Mapping[str, str], cwd: Path,
                 on_request: RequestHandler, on_notification: NotificationHandler) -> None:
        self._on_request = on_request
        self._on_notification = on_notification
        self._outbox: queue.Queue[bytes | None] = queue.Queue()
        self._pending: dict[int, queue.Queue[Any]] = {}
        self._pending_lock = threading.Lock()
        self._next_id = 0
        self._stderr: deque[str] = deque(maxlen=40)
        self._closed = threading.Event()
        self.process = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=dict(env), cwd=str(cwd), start_new_session=True, preexec_fn=dying_with_parent(),
        )
        # Writes go through a thread of their own, so that a server that stops reading (its pipe full) makes
        # requests time out instead of blocking the caller.
        threading.Thread(target=self._write_stdin, name="l1-lsp-stdin", daemon=True).start()
        threading.Thread(target=self._read_stdout, name="l1-lsp-stdout", daemon=True).start()
        threading.Thread(target=self._read_stderr, name="l1-lsp-stderr", daemon=True).start()

    # -- public --------------------------------------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return not self._closed.is_set() and self.process.poll() is None

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    def request(self, method: str, params: Any, timeout: float) -> Any:
        """Send a request and wait for its result."""
        return self.requests([(method, params)], timeout)[0]

    def requests(self, calls: Sequence[tuple[str, Any]], timeout: float) -> list[Any]:
        """Send several requests at once and wait for all their results, in order (`timeout` for each)."""
        boxes: list[tuple[str, int, queue.Queue[Any]]] = []
        with self._pending_lock:
            for method, _ in calls:
                self._next_id += 1
                box: queue.Queue[Any] = queue.Queue(maxsize=1)
                self._pending[self._next_id] = box
                boxes.append((method, self._next_id, box))
        try:
            for (method, params), (_, msg_id, _) in zip(calls, boxes, strict=True):
                self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
            results = []
            for method, _, box in boxes:
                try:
                    reply = box.get(timeout=timeout)
                except queue.Empty:
                    raise RpcTimeoutError(f"{method}: no answer in {timeout:g} s") from None
                if reply is _CLOSED:
                    raise RpcClosedError(f"{method}: the server exited ({self._exit_text()})")
                if "error" in reply:
                    raise RpcError(method, reply["error"])
                results.append(reply.get("result"))
            return results
        finally:
            with self._pending_lock:
                for _, msg_id, _ in boxes:
                    self._pending.pop(msg_id, None)

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def close(self, timeout: float = 3.0, grace: float = 0.2) -> None:
        """LSP shutdown and exit, then make sure the process group is gone (a server still winding down its
        background tasks `grace` seconds after `exit` is killed)."""
        if self.alive:
            with contextlib.suppress(RpcError, RpcTimeoutError, RpcClosedError, OSError, subprocess.TimeoutExpired):
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit", None)
                self.process.wait(timeout=grace)
        self.kill()

    def kill(self) -> None:
        self._outbox.put(None)
        if self.process.poll() is None:
            try:
                os.killpg(self.process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._fail_pending()

    # -- wire ----------------------------------------------------------------------------------------------

    def _exit_text(self) -> str:
        code = self.process.poll()
        tail = self.stderr_tail()
        return (f"exit code {code}" if code is not None else "output closed") + (f"; stderr: {tail}" if tail else "")

    def _send(self, message: Mapping[str, Any]) -> None:
        if self._closed.is_set():
            raise RpcClosedError(f"cannot send {message.get('method', 'a reply')}: {self._exit_text()}")
        body = json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        self._outbox.put(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def _write_stdin(self) -> None:
        stream = self.process.stdin
        assert stream is not None
        while True:
            data = self._outbox.get()
            if data is None:
                return
            try:
                stream.write(data)
                stream.flush()
            except (OSError, ValueError):
                self._closed.set()
                self._fail_pending()
                return

    def _read_message(self) -> dict[str, Any] | None:
        stream = self.process.stdout
        assert stream is not None
        length = None
        while True:
            line = stream.readline()
            if not line:
                return None
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode("ascii", errors="replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if length is None:
            raise ValueError("a message without Content-Length")
        body = stream.read(length)
        if len(body) < length:
            return None
        return json.loads(body.decode("utf-8"))

    def _read_stdout(self) -> None:
        try:
            while True:
                message = self._read_message()
                if message is None:
                    break
                self._dispatch(message)
        except (OSError, ValueError):
            pass
        finally:
            self._closed.set()
            self._fail_pending()

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is None:
            with self._pending_lock:
                box = self._pending.get(message.get("id"))  # type: ignore[arg-type]
            if box is not None:
                box.put(message)
            return
        params = message.get("params")
        if "id" not in message:
            self._on_notification(method, params)
            return
        try:
            reply: dict[str, Any] = {"jsonrpc": "2.0", "id": message["id"], "result": self._on_request(method, params)}
        except Exception as exc:
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32603, "message": str(exc)}}
        with contextlib.suppress(RpcClosedError):
            self._send(reply)

    def _fail_pending(self) -> None:
        with self._pending_lock:
            boxes = list(self._pending.values())
        for box in boxes:
            with contextlib.suppress(queue.Full):
                box.put_nowait(_CLOSED)

    def _read_stderr(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        try:
            for raw in iter(stream.readline, b""):
                text = raw.decode("utf-8", errors="replace").rstrip()
                if text:
                    self._stderr.append(text)
        except (OSError, ValueError):
            pass
