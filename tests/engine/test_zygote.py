"""The pre-booted engine: runs forked from a zygote give a cold process's evidence, and keep their own limits."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from engine import BadInputError, EngineError, RunRequest, run_evidence, run_in_subprocess
from engine._runner import pinned_environment, start_mode
from engine._zygote import Zygote, shared_zygote
from tests.engine.fuzz_surfaces import evidence_digest, generate, run_program

ROOT = Path(__file__).resolve().parents[2]


def _digest(report: dict) -> str:
    return str(run_evidence(report)["digest"])


def _children(pid: int) -> list[int]:
    try:
        return [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.fixture
def zygote() -> Iterator[Zygote]:
    z = shared_zygote(pinned_environment())
    yield z
    # each test leaves the shared zygote without runs: nothing of one test leaks into the next
    if z.pid is not None:
        deadline = time.monotonic() + 10
        while _children(z.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _children(z.pid) == []


def test_the_start_mode_defaults_to_prebooted_and_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GRADER_ENGINE_START", raising=False)
    assert start_mode() == "prebooted"
    monkeypatch.setenv("GRADER_ENGINE_START", "cold")
    assert start_mode() == "cold" and start_mode("prebooted") == "prebooted"
    with pytest.raises(BadInputError, match="engine start 'warm' is unknown"):
        start_mode("warm")


def test_one_zygote_serves_a_clients_runs(make_game: Callable[..., Path], zygote: Zygote) -> None:
    game = make_game("function Start() end")
    for _ in range(3):
        run_in_subprocess(RunRequest(game_dir=str(game), seconds=0.1), start="prebooted")
    generation = zygote.generation
    run_in_subprocess(RunRequest(game_dir=str(game), seconds=0.1), start="cold")
    run_in_subprocess(RunRequest(game_dir=str(game), seconds=0.1), start="prebooted")
    assert zygote.generation == generation >= 1 and zygote.alive()


def test_the_fixed_fuzz_programs_give_the_same_evidence_cold_and_prebooted(zygote: Zygote) -> None:
    seeds = (3, 17, 42, 77, 101, 150, 5, 61)
    with ThreadPoolExecutor(max_workers=2) as pool:   # two runs at once share the zygote
        pre = dict(pool.map(lambda s: (s, run_program(generate(s))), seeds))
    os.environ["GRADER_ENGINE_START"] = "cold"
    try:
        cold = {s: run_program(generate(s)) for s in seeds}
    finally:
        del os.environ["GRADER_ENGINE_START"]
    for seed in seeds:
        assert evidence_digest(pre[seed]) == evidence_digest(cold[seed]), seed


def test_a_prebooted_run_spinning_in_c_is_killed_at_its_wall_time(make_game: Callable[..., Path],
                                                                 zygote: Zygote) -> None:
    game = make_game("function Start() string.find(string.rep('a', 200000), '.-.-.-.-.-b') end")
    started = time.monotonic()
    report = run_in_subprocess(RunRequest(game_dir=str(game), seconds=1.0), wall_seconds=1.5, start="prebooted")
    assert report["outcome"] == "timeout" and report["errors"][0]["phase"] == "wall"
    assert time.monotonic() - started < 8
    cold = run_in_subprocess(RunRequest(game_dir=str(game), seconds=1.0), wall_seconds=1.5, start="cold")
    assert _digest(cold) == _digest(report)


def test_limits_are_the_runs_own(make_game: Callable[..., Path], zygote: Zygote) -> None:
    """A run's budget and memory cap come from its request, whatever the zygote ran before."""
    loop = make_game("function Start() local n = 0 while true do n = n + 1 end end")
    bomb = make_game("function Start() local t = {} for i = 1, 3e5 do t[i] = ('x'):rep(100) .. i end end")
    tight = {"instruction_budget": 1_000_000, "memory_limit": 16 * 1024 * 1024}
    assert run_in_subprocess(RunRequest(game_dir=str(loop), seconds=0.1, settings=tight))["outcome"] == "budget"
    assert run_in_subprocess(RunRequest(game_dir=str(bomb), seconds=0.1, settings=tight))["outcome"] == "memory"
    roomy = {"instruction_budget": 50_000_000, "memory_limit": 256 * 1024 * 1024}
    assert run_in_subprocess(RunRequest(game_dir=str(bomb), seconds=0.1, settings=roomy))["outcome"] == "clean"


def test_bad_input_and_a_dead_run_keep_the_runners_contract(make_game: Callable[..., Path], zygote: Zygote,
                                                            tmp_path: Path) -> None:
    game = make_game("function Start() end")
    with pytest.raises(BadInputError, match="entry script not found"):
        run_in_subprocess(RunRequest(game_dir=str(game), entry="scripts/other.lua"), start="prebooted")
    with pytest.raises(BadInputError, match="battery file not found"):
        run_in_subprocess(RunRequest(game_dir=str(game), battery=str(tmp_path / "nope.lua")), start="prebooted")
    # a run whose process dies (here: killed from outside) is an EngineError, as a cold worker's death is
    slow = make_game("function Start() SubscribeToEvent('Update', function() for i = 1, 1e5 do end end) end")

    def kill_the_run() -> None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            runs = _children(zygote.pid or 0)
            if runs:
                os.kill(runs[0], signal.SIGKILL)
                return
            time.sleep(0.02)

    killer = threading.Thread(target=kill_the_run)
    run_in_subprocess(RunRequest(game_dir=str(game), seconds=0.0))   # the zygote is up
    killer.start()
    with pytest.raises(EngineError, match=r"engine worker died \(exit -9\)"):
        run_in_subprocess(RunRequest(game_dir=str(slow), seconds=600.0, settings={"instruction_budget": 10**15}))
    killer.join()


def test_a_dead_zygote_is_started_again(make_game: Callable[..., Path], zygote: Zygote) -> None:
    game = make_game("function Start() print(tostring({})) end")
    first = run_in_subprocess(RunRequest(game_dir=str(game), seconds=0.1))
    assert zygote.pid is not None
    generation, old = zygote.generation, zygote.pid
    os.kill(old, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while _alive(old) and time.monotonic() < deadline:
        time.sleep(0.02)
    again = run_in_subprocess(RunRequest(game_dir=str(game), seconds=0.1))
    assert zygote.generation == generation + 1 and zygote.pid != old
    assert _digest(again) == _digest(first)


CLIENT = """
import os, sys, time
sys.path.insert(0, {root!r})
from engine import RunRequest, run_in_subprocess
from engine._runner import pinned_environment
from engine._zygote import shared_zygote
game = {game!r}
run_in_subprocess(RunRequest(game_dir=game, seconds=0.1))
z = shared_zygote(pinned_environment())
print(z.pid, flush=True)
if sys.argv[1] == "busy":      # a run in flight when the client is killed
    import threading
    endless = RunRequest(game_dir=game, seconds=600.0, settings={{"instruction_budget": 10**15}})
    threading.Thread(target=run_in_subprocess, args=(endless,), daemon=True).start()
    time.sleep(1.0)
    print(" ".join(open(f"/proc/{{z.pid}}/task/{{z.pid}}/children").read().split()), flush=True)
    time.sleep(600)
if sys.argv[1] == "fork":      # a forked client gets its own zygote and leaves its parent's alone
    pid = os.fork()
    if pid == 0:
        run_in_subprocess(RunRequest(game_dir=game, seconds=0.1))
        print(shared_zygote(pinned_environment()).pid, flush=True)
        os._exit(0)
    os.waitpid(pid, 0)
    run_in_subprocess(RunRequest(game_dir=game, seconds=0.1))
"""


@pytest.mark.parametrize("how", ["exit", "sigkill", "fork"])
def test_no_zygote_or_run_outlives_its_client(make_game: Callable[..., Path], how: str) -> None:
    game = make_game("function Start() SubscribeToEvent('Update', function() for i = 1, 1e5 do end end) end")
    script = textwrap.dedent(CLIENT).format(root=str(ROOT), game=str(game))
    mode = "busy" if how == "sigkill" else how
    proc = subprocess.Popen([sys.executable, "-c", script, mode], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    pids = [int(proc.stdout.readline())]
    if how == "sigkill":
        runs = [int(p) for p in proc.stdout.readline().split()]
        assert runs, "the run was not in flight"
        pids += runs
        proc.kill()
    if how == "fork":
        pids.append(int(proc.stdout.readline()))
        assert pids[0] != pids[1]
    proc.wait(timeout=60)
    deadline = time.monotonic() + 15
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if _alive(p)]
