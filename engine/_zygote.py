"""The pre-booted engine: a zygote process that has imported the engine and booted a Lua state, and forks each run.

A cold run (`python -m engine _worker`) pays for starting Python, importing the engine and booting a Lua state with
the registry bound before the game's first line; a run forked from the zygote pays only for its own game.  Both
take the same steps in the same order (engine/_runner.py, `serve_request`):

    cold worker:     boot_state()  settle()  read the request            settle()  run  write the report
    zygote:          boot_state()  settle()  wait ... fork
    forked child:                            read the request            settle()  run  write the report

so the Lua state of a forked run has seen exactly the allocations of a cold one (the arena at its fixed address,
the string seed, the seeds of the run), and Python's collector starts the run from the same empty state
(`settle`).  The evidence cannot tell them apart; tests/engine/test_zygote.py compares digests over the public
suite, the hostile programs and the fuzz seeds.

Protocol (one zygote per client process, started on first use; `Zygote` is the client side):

- The client starts `python -m engine _zygote FD` with the pinned environment of a cold worker and one end of a
  Unix SOCK_SEQPACKET socket pair (the control socket).  The zygote boots, settles and sends `ready`.
- A run: the client writes `request.json` into a fresh private folder, makes a socket pair for the run, and sends
  `run <folder>` with the run's end attached (SCM_RIGHTS) on the control socket.  The zygote forks; it answers
  `pid <n>` on the run socket (`error <why>` if it could not fork), and `exit <code>` (a negative code: killed by
  that signal) once it has reaped the child.  The child closes everything of the zygote, dies with the zygote
  (PR_SET_PDEATHSIG), works in the folder (stdout and stderr go to files there, the report to `result.json`) and
  leaves with os._exit.
- The wall-clock limit is the client's: past it, the client sends `kill` on the run socket and the zygote, the only
  process that can reap the child and so the only one that knows its pid is still the child's, sends SIGKILL.
  A run socket closed by the client (the client went away mid-run) kills the child too.
- The control socket closed (the client exited, however it ended) makes the zygote kill its children, reap them
  and exit: no zygote or run outlives the process that started it.
- A zygote found dead when a run is sent is started again (pre-booted again: a run never falls back to
  anything else); a zygote that dies while a run is in flight is started again and the run is sent once more
  (its evidence cannot depend on which zygote ran it).  A client process that forks gets a zygote of its own.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import gc
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._errors import EngineError, SetupError

READY_SECONDS = 120.0     # a zygote boots in about a second; a loaded machine gets a long grace
REAP_SECONDS = 30.0       # after a kill, the zygote reports the child's end well within this
_MESSAGE = 4096
_PR_SET_PDEATHSIG = 1


def settle() -> None:
    """Python's collector to one state, whatever ran before: nothing collectable, counters at zero, nothing young.

    Called at the same points by a cold worker and by the zygote and its children (see the module docstring), so a
    run's Python objects are collected at the same moments in both (lupa releases Lua references when they are).
    """
    gc.collect()
    gc.freeze()
    gc.collect()


# ----------------------------------------------------------------------------------------------------------------
# The zygote (server side): `python -m engine _zygote FD`
# ----------------------------------------------------------------------------------------------------------------
@dataclass
class _Child:
    pid: int
    sock: socket.socket
    killed: bool = False


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def _die_with_parent(parent: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() != parent:
        os._exit(70)   # cannot be tied to the zygote, or it is already gone


def serve(control_fd: int) -> int:
    """The zygote's loop (see the module docstring); returns when the client has gone."""
    from ._engine import boot_state

    control = socket.socket(fileno=control_fd)
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # the client owns Ctrl-C; its exit ends us
    try:
        booted = boot_state()
    except Exception as exc:   # a setup problem (lupa build, pyyoga): the client reports it
        control.send(f"error {type(exc).__name__}: {exc}".encode()[:_MESSAGE])
        return 1
    settle()
    threads = _threads()
    if threads != 1:
        control.send(f"error SetupError: the zygote has {threads} threads after booting; it cannot fork".encode())
        return 1
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: dict[int, _Child] = {}
    control.send(f"ready {os.getpid()}".encode())
    try:
        while True:
            watched: list[Any] = [control, wake_r, *(c.sock for c in children.values() if not c.killed)]
            readable, _, _ = select.select(watched, [], [])
            if wake_r in readable:
                with contextlib.suppress(BlockingIOError):
                    while os.read(wake_r, 512):
                        pass
                _reap(children)
            for child in list(children.values()):
                if child.sock in readable and not child.killed:
                    data = b""
                    with contextlib.suppress(OSError):
                        data = child.sock.recv(_MESSAGE)
                    if data in (b"", b"kill"):     # asked to, or the client went away: the child is still ours
                        child.killed = True
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(child.pid, signal.SIGKILL)
            if control in readable:
                try:
                    message, fds, _, _ = socket.recv_fds(control, _MESSAGE, 1)
                except OSError:
                    message, fds = b"", []
                if not message:
                    return 0
                if not message.startswith(b"run ") or len(fds) != 1:
                    for fd in fds:
                        os.close(fd)
                    continue
                run_sock = socket.socket(fileno=fds[0])
                folder = message[4:].decode()
                sys.stdout.flush()
                sys.stderr.flush()
                zygote = os.getpid()
                try:
                    pid = os.fork()
                except OSError as exc:   # out of processes or memory: this run fails, the zygote serves on
                    with contextlib.suppress(OSError):
                        run_sock.send(f"error could not fork the run: {exc}".encode()[:_MESSAGE])
                    run_sock.close()
                    continue
                if pid == 0:
                    _child(booted, folder, zygote, [control, run_sock, *(c.sock for c in children.values())],
                           (wake_r, wake_w))
                children[pid] = _Child(pid, run_sock)
                with contextlib.suppress(OSError):
                    run_sock.send(f"pid {pid}".encode())
    finally:
        for child in children.values():
            with contextlib.suppress(ProcessLookupError):
                os.kill(child.pid, signal.SIGKILL)
        for child in children.values():
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child.pid, 0)


def _reap(children: dict[int, _Child]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        child = children.pop(pid, None)
        if child is None:
            continue
        with contextlib.suppress(OSError):
            child.sock.send(f"exit {os.waitstatus_to_exitcode(status)}".encode())
        child.sock.close()


def _child(booted: Any, folder: str, zygote: int, inherited: list[socket.socket], pipe: tuple[int, int]) -> None:
    """A forked run: shed the zygote, then the same steps as a cold worker; never returns."""
    code = 1
    try:
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        _die_with_parent(zygote)
        for sock in inherited:
            sock.close()
        for fd in pipe:
            os.close(fd)
        os.chdir(folder)
        null = os.open(os.devnull, os.O_RDONLY)
        out = os.open("stdout", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        err = os.open("stderr", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        for fd, target in ((null, 0), (out, 1), (err, 2)):
            os.dup2(fd, target)
            os.close(fd)
        from ._runner import RunRequest, serve_request

        request = RunRequest.from_json(Path("request.json").read_text())
        code = serve_request(booted, request, "result.json")
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code)


# ----------------------------------------------------------------------------------------------------------------
# The client side
# ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ChildEnd:
    """How a forked run ended: its exit code (negative: the signal that killed it) and whether the wall limit did."""

    code: int
    timed_out: bool


class ZygoteDiedError(EngineError):
    """The zygote went away while a run was in flight (the run is sent again to a new one)."""


class Zygote:
    """A pre-booted engine process and the runs forked from it (see the module docstring)."""

    def __init__(self, env: dict[str, str]) -> None:
        self._env = env
        self._lock = threading.Lock()
        self._owner = os.getpid()
        self._proc: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._home: str | None = None
        self.pid: int | None = None
        self.generation = 0      # how many zygotes this client has started

    # Starting and stopping (with the lock held)
    def _start(self) -> None:
        self._stop()
        self._home = tempfile.mkdtemp(prefix="grader-zygote-")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        log = open(Path(self._home) / "zygote.log", "wb")  # noqa: SIM115 - the zygote writes it
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "engine", "_zygote", str(theirs.fileno())], pass_fds=[theirs.fileno()],
                env=self._env, cwd=self._home, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        finally:
            theirs.close()
            log.close()
        self._control = ours
        ours.settimeout(READY_SECONDS)
        try:
            message = ours.recv(_MESSAGE)
        except OSError:
            message = b""
        ours.settimeout(None)
        if message.startswith(b"ready "):
            self.pid = int(message.split()[1])
            self.generation += 1
            return
        problem = message.decode(errors="replace").removeprefix("error ") or self._log_tail()
        self._stop()
        if problem.startswith("SetupError: "):
            raise SetupError(problem.removeprefix("SetupError: "))
        raise EngineError(f"the pre-booted engine did not start: {problem}")

    def _log_tail(self) -> str:
        try:
            return (Path(self._home or "") / "zygote.log").read_text(errors="replace").strip()[-2000:]
        except OSError:
            return "(no log)"

    def _stop(self) -> None:
        if os.getpid() != self._owner:
            return
        if self._control is not None:
            self._control.close()   # the zygote sees the end of its control socket, kills its runs and exits
            self._control = None
        if self._proc is not None:
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        self.pid = None
        if self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)
            self._home = None

    def close(self) -> None:
        """Stop the zygote (and any run it still has)."""
        with self._lock:
            self._stop()

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None and self._control is not None

    def start(self) -> None:
        """Boot the engine now, not at the first run (a process that waits for work pays the boot meanwhile)."""
        with self._lock:
            if not self.alive():
                self._start()

    # Runs
    def _send(self, folder: str) -> tuple[socket.socket, int]:
        """Hand the run in `folder` to the zygote (starting one if there is none); its socket and generation."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            with self._lock:
                if not self.alive():
                    self._start()
                assert self._control is not None
                try:
                    socket.send_fds(self._control, [f"run {folder}".encode()], [theirs.fileno()])
                except OSError:
                    ours.close()
                    self._stop()
                    raise ZygoteDiedError("the pre-booted engine refused the run") from None
                return ours, self.generation
        finally:
            theirs.close()

    def _died(self, generation: int) -> None:
        """The zygote of `generation` failed a run: stop it, unless another run's failure already did."""
        with self._lock:
            if self.generation == generation:
                self._stop()

    def run(self, folder: str, wall_seconds: float) -> ChildEnd:
        """Run the request in `folder` (request.json) in a forked child; its report lands in result.json.

        A zygote that dies before or during the run is replaced and the run sent again, once.
        """
        for attempt in (1, 2):
            try:
                sock, generation = self._send(folder)
            except ZygoteDiedError:
                if attempt == 2:
                    raise
                continue
            try:
                with sock:
                    return self._follow(sock, wall_seconds)
            except ZygoteDiedError:
                self._died(generation)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    @staticmethod
    def _follow(sock: socket.socket, wall_seconds: float) -> ChildEnd:
        sock.settimeout(READY_SECONDS)
        try:
            message = sock.recv(_MESSAGE)
        except OSError:
            message = b""
        if message.startswith(b"error "):
            raise EngineError(message.decode(errors="replace").removeprefix("error "))
        if not message.startswith(b"pid "):
            raise ZygoteDiedError("the pre-booted engine went away before forking the run")
        timed_out = False
        sock.settimeout(max(wall_seconds, 0.001))   # the wall clock starts at the fork
        try:
            message = sock.recv(_MESSAGE)
        except TimeoutError:
            timed_out = True
            sock.settimeout(REAP_SECONDS)
            try:
                sock.send(b"kill")
                message = sock.recv(_MESSAGE)
            except OSError:
                message = b""
        except OSError:
            message = b""
        if not message.startswith(b"exit "):
            raise ZygoteDiedError("the pre-booted engine went away during the run")
        return ChildEnd(int(message.split()[1]), timed_out)


_zygote: Zygote | None = None
_zygote_lock = threading.Lock()


def shared_zygote(env: dict[str, str]) -> Zygote:
    """This process's zygote (started on its first run, stopped at exit)."""
    global _zygote
    with _zygote_lock:
        if _zygote is None or _zygote._owner != os.getpid():
            _zygote = Zygote(env)
        return _zygote


def _forget_after_fork() -> None:
    """A forked client does not share its parent's zygote (nor stop it): its own starts on first use."""
    global _zygote, _zygote_lock
    if _zygote is not None and _zygote._control is not None:
        _zygote._control.close()   # our copy only: the parent's zygote keeps its client
    _zygote = None
    _zygote_lock = threading.Lock()


def _close_at_exit() -> None:
    if _zygote is not None:
        _zygote.close()


os.register_at_fork(after_in_child=_forget_after_fork)
atexit.register(_close_at_exit)
