"""One warm `emmylua_ls` and the protocol to analyse deliverable after deliverable with it.

The server's workspace folder is fixed (a temporary folder holding the grader's `.emmyrc.json`).  For each
analysis the previous deliverable's files are deleted, then the new analysed copy is written there, each
step announced in ONE `workspace/didChangeWatchedFiles` notification.  One notification for all the files
matters: the server then indexes them as one batch, resolving names across files; files opened one by one
(`textDocument/didOpen`) are each analysed against whatever was indexed before them, so a `main.lua` that
arrives before the module it calls loses its cross-file types, and the findings depend on arrival order.
The server handles notifications asynchronously, so each step ends with a barrier: `textDocument/foldingRange`
answers null exactly for the files the server does not hold, and is asked until all are gone, then all there.
Diagnostics are pulled (`textDocument/diagnostic`), never awaited as pushes.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import engine
from grader.deliverable import Tree

from ._config import emmyrc, write_emmyrc
from ._copy import lua_sources, write_copy
from ._errors import L1SetupError
from ._jsonrpc import JsonRpcClient, RpcClosedError, RpcError, RpcTimeoutError
from ._launch import Linter, find_server, server_command, server_env, server_version
from ._policy import LUA_MEMBERS, SOURCE_SERVER, api_members, assigned_names, from_server, reconcile
from ._result import Diagnostic, L1Result
from ._stubcache import stubs_dir
from ._syntax import check_syntax

ENGINE_LUA_LIB = Path(engine.__file__).resolve().parent / "lua" / "lib"

# The probe: a declared class's undefined method and an undefined global must come out as errors, and the
# stubs (Node, math.pow, cjson, KEY_SPACE, Vector3.ZERO) must resolve.  When a configuration value is invalid,
# the server silently falls back to its defaults, and this is how that is noticed.
PROBE_FILE = "grader_l1_probe.lua"
PROBE_SOURCE = (
    "local node = Node()\n"
    "node:FlyToTheMoon()\n"
    "local x = GraderProbeUndefinedGlobal\n"
    "print(x, math.pow(2, 3), cjson.encode({}), KEY_SPACE, Vector3.ZERO.x, node.position.y)\n"
)
PROBE_EXPECTED = frozenset({("undefined-field", 2, "error"), ("undefined-global", 3, "error")})

_ANALYSIS_FAILURE = "linter-failure"
_CREATED, _DELETED = 1, 3  # LSP FileChangeType


class L1Server:
    """A running `emmylua_ls` with the grader's configuration, checked by the probe; `analyse()` is
    thread-safe (one analysis at a time).  Restarts the server when it died or stopped answering."""

    def __init__(self, *, library: Sequence[Path] = (), config_overrides: Mapping[str, Any] | None = None,
                 start_timeout: float = 120.0, request_timeout: float = 60.0) -> None:
        self.binary = find_server()
        self.linter: Linter = server_version(self.binary)
        self._library = [stubs_dir(), ENGINE_LUA_LIB, *(Path(p).resolve() for p in library)]
        self._known_members = api_members(engine.default_registry()) | LUA_MEMBERS
        self._config = emmyrc(self._library, config_overrides)
        self._start_timeout = start_timeout
        self._timeout = request_timeout
        self._root = Path(tempfile.mkdtemp(prefix="grader-l1-"))
        self._workspace = self._root / "workspace"
        self._workspace.mkdir()
        write_emmyrc(self._workspace, self._config)
        self._lock = threading.Lock()
        self._loaded = threading.Event()
        self._client: JsonRpcClient | None = None
        self._held: list[str] = []  # relative paths of the files the server holds now
        self.starts = 0
        self.server_info: dict[str, Any] = {}
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    # -- public --------------------------------------------------------------------------------------------

    def analyse(self, deliverable: Path | Tree) -> L1Result:
        """Analyse the deliverable (a folder, or the grader's bounded reading of one): its Lua files, by the
        server and by Lua 5.4's compiler."""
        sources = lua_sources(deliverable)
        lua_found = check_syntax(sources)
        with self._lock:
            server_found = self._analyse_with_retry(sources)
        found = reconcile(server_found, lua_found, self._known_members | assigned_names(sources.values()))
        return L1Result.from_diagnostics(self.linter, found)

    @property
    def alive(self) -> bool:
        return self._client is not None and self._client.alive

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None
        shutil.rmtree(self._root, ignore_errors=True)

    # -- start-up ------------------------------------------------------------------------------------------

    def _start(self) -> None:
        if self._client is not None:
            self._client.kill()
        self._clear_workspace()
        self._loaded.clear()
        self.starts += 1
        home = self._root / f"home{self.starts}"
        self._client = JsonRpcClient(server_command(self.binary), env=server_env(home), cwd=self._workspace,
                                     on_request=self._on_request, on_notification=self._on_notification)
        try:
            result = self._client.request("initialize", self._initialize_params(), timeout=self._start_timeout)
            self.server_info = dict((result or {}).get("serverInfo") or {})
            self._client.notify("initialized", {})
        except (RpcClosedError, RpcTimeoutError, RpcError) as exc:
            raise L1SetupError(f"{self.binary} did not start: {exc}") from None
        if not self._loaded.wait(self._start_timeout):
            raise L1SetupError(f"{self.binary} did not finish loading its workspace in {self._start_timeout:g} s"
                               f"{self._stderr_note()}")
        self._check_probe()

    def _clear_workspace(self) -> None:
        """Leave only the grader's `.emmyrc.json`: a new server indexes whatever the folder holds."""
        for child in sorted(self._workspace.iterdir()):
            if child.name == ".emmyrc.json":
                continue
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        self._held = []

    def _initialize_params(self) -> dict[str, Any]:
        uri = self._workspace.as_uri()
        return {
            "processId": os.getpid(),
            "clientInfo": {"name": "grader-l1", "version": "1"},
            "locale": "en",
            "rootUri": uri,
            "rootPath": str(self._workspace),
            "workspaceFolders": [{"uri": uri, "name": "deliverable"}],
            "initializationOptions": {},
            "capabilities": {
                "window": {"workDoneProgress": True},
                "workspace": {"configuration": True, "workspaceFolders": True,
                              "didChangeWatchedFiles": {"dynamicRegistration": True}},
                "textDocument": {
                    "synchronization": {"didSave": False, "dynamicRegistration": False},
                    "diagnostic": {"dynamicRegistration": False, "relatedDocumentSupport": False},
                    "publishDiagnostics": {"relatedInformation": False},
                    "foldingRange": {"dynamicRegistration": False},
                },
            },
        }

    def _check_probe(self) -> None:
        found = self._server_diagnostics({PROBE_FILE: PROBE_SOURCE})
        seen = frozenset((d.code, d.line, d.severity) for d in found)
        if seen != PROBE_EXPECTED:
            expected = ", ".join(f"{c} ({s}) on line {n}" for c, n, s in sorted(PROBE_EXPECTED))
            got = ", ".join(f"{c} ({s}) on line {n}" for c, n, s in sorted(seen)) or "nothing"
            raise L1SetupError(
                f"{self.linter.name} {self.linter.version} did not apply the grader's configuration: the probe "
                f"expected {expected}; it reported {got}. The server silently falls back to its defaults when "
                f"one value of .emmyrc.json is invalid (check grader/l1/_config.py and the stubs in "
                f"{self._library[0]}){self._stderr_note()}")

    def _stderr_note(self) -> str:
        tail = self._client.stderr_tail() if self._client is not None else ""
        return f"; server stderr: {tail}" if tail else ""

    # -- messages from the server --------------------------------------------------------------------------

    def _on_request(self, method: str, params: Any) -> Any:
        if method == "workspace/configuration":
            items = (params or {}).get("items") or [{}]
            return [self._config for _ in items]
        return None  # registerCapability, workDoneProgress/create, refresh requests: acknowledged

    def _on_notification(self, method: str, params: Any) -> None:
        if method == "$/progress" and isinstance(params, dict):
            value = params.get("value") or {}
            if params.get("token") == 0 and value.get("kind") == "end":  # 0: the server's "Load workspace"
                self._loaded.set()

    # -- analysis ------------------------------------------------------------------------------------------

    def _analyse_with_retry(self, sources: Mapping[str, str]) -> list[Diagnostic]:
        failure = ""
        for _ in range(2):
            try:
                if not self.alive:
                    self._start()
                return self._server_diagnostics(sources)
            except (RpcClosedError, RpcTimeoutError, RpcError) as exc:
                failure = str(exc)
                if self._client is not None:
                    self._client.kill()
        return [Diagnostic(file="", line=0, column=0, code=_ANALYSIS_FAILURE, severity="error",
                           source=SOURCE_SERVER, message=f"the language server failed twice: {failure}")]

    def _server_diagnostics(self, sources: Mapping[str, str]) -> list[Diagnostic]:
        client = self._client
        assert client is not None
        self._release(client)
        analysed = write_copy(dict(sources), self._workspace)
        order = sorted(analysed)
        self._held = order
        if order:
            client.notify("workspace/didChangeWatchedFiles", {"changes": [
                {"uri": self._uri(rel), "type": _CREATED} for rel in order]})
        self._wait_until(client, order, held=True)
        reports = client.requests([("textDocument/diagnostic", {"textDocument": {"uri": self._uri(rel)}})
                                   for rel in order], timeout=self._timeout)
        found: list[Diagnostic] = []
        for rel, report in zip(order, reports, strict=True):
            for raw in (report or {}).get("items") or []:
                diagnostic = from_server(rel, raw)
                if diagnostic is not None:
                    found.append(diagnostic)
        return found

    def _release(self, client: JsonRpcClient) -> None:
        """Delete the previous deliverable's files; wait until the server holds none of them."""
        if not self._held:
            return
        held = self._held
        self._clear_workspace()
        client.notify("workspace/didChangeWatchedFiles", {"changes": [
            {"uri": self._uri(rel), "type": _DELETED} for rel in held]})
        self._wait_until(client, held, held=False)

    def _wait_until(self, client: JsonRpcClient, rels: Sequence[str], *, held: bool) -> None:
        """Ask `textDocument/foldingRange` (null when the server does not hold the file) until every file is
        held (`held=True`) or none is."""
        deadline = time.monotonic() + self._timeout
        pause = 0.002
        pending = list(rels)
        while pending:
            answers = client.requests([("textDocument/foldingRange", {"textDocument": {"uri": self._uri(rel)}})
                                       for rel in pending], timeout=self._timeout)
            pending = [rel for rel, answer in zip(pending, answers, strict=True) if (answer is not None) != held]
            if not pending:
                return
            if time.monotonic() > deadline:
                state = "open" if held else "close"
                raise RpcTimeoutError(f"the server did not {state} {len(pending)} file(s) in {self._timeout:g} s")
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    def _uri(self, rel: str) -> str:
        return (self._workspace / rel).as_uri()
