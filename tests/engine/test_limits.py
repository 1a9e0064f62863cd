"""Limits end runs as recorded outcomes, never as engine crashes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Engine, EngineSettings

SMALL = EngineSettings(instruction_budget=5_000_000, memory_limit=48 * 1024 * 1024)


def run(game: Path, frames: int = 10) -> tuple[str, Engine]:
    engine = Engine(game, SMALL)
    engine.start()
    engine.run_frames(frames)
    return engine.report().outcome, engine


@pytest.mark.parametrize(
    "source",
    [
        "function Start() while true do end end",
        "function Start() SubscribeToEvent('Update', function() while true do end end) end",
        "function Start() while true do pcall(function() while true do end end) end end",
        "function Start() while true do\n"
        "  xpcall(function() while true do end end, function() while true do end end) end end",
        "function Start() coroutine.wrap(function() while true do end end)() end",
        "function Start() local co = coroutine.create(function() while true do end end)\n"
        "  while true do coroutine.resume(co) end end",
        "function Start() ('x'):rep(100):gsub('x', function() while true do end end) end",
    ],
)
def test_infinite_loops_exhaust_the_budget(make_game: Callable[..., Path], source: str) -> None:
    outcome, engine = run(make_game(source))
    assert outcome == "budget"
    report = engine.report()
    assert report.errors[-1]["phase"] == "limit"
    assert "instruction budget" in report.errors[-1]["message"]


@pytest.mark.parametrize(
    "source",
    [
        "function Start() local t = {} for i = 1, 1e9 do t[i] = ('x'):rep(1000) .. i end end",
        "function Start() local s = ('x'):rep(1e9) end",
        "function Start() while true do\n"
        "  pcall(function() local t = {} for i = 1, 1e9 do t[i] = ('y'):rep(64) .. i end end) end end",
    ],
)
def test_memory_bombs_hit_the_memory_cap(make_game: Callable[..., Path], source: str) -> None:
    outcome, engine = run(make_game(source))
    assert outcome == "memory"
    assert engine.runtime.get_memory_used() <= SMALL.memory_limit


def test_an_error_in_update_does_not_stop_the_frame_loop(make_game: Callable[..., Path]) -> None:
    game = make_game(
        "count = 0\n"
        "function Start() SubscribeToEvent('Update', 'HandleUpdate') end\n"
        "function HandleUpdate() count = count + 1; if count % 2 == 0 then error('boom') end end\n"
    )
    outcome, engine = run(game, frames=10)
    assert outcome == "lua_error"
    report = engine.report()
    assert report.frames == 10
    assert engine.game_env["count"] == 10
    assert [e["frame"] for e in report.errors] == [2, 4, 6, 8, 10]
    assert report.errors[0]["message"] == "scripts/main.lua:3: boom"
    assert "stack traceback" in report.errors[0]["traceback"]


def test_a_syntax_error_is_a_recorded_load_error(make_game: Callable[..., Path]) -> None:
    outcome, engine = run(make_game("function Start( end"))
    assert outcome == "lua_error"
    assert engine.report().errors[0]["phase"] == "load"
    assert "scripts/main.lua:1" in engine.report().errors[0]["message"]


def test_a_loop_inside_a_c_function_is_killed_by_the_wall_clock(make_game: Callable[..., Path]) -> None:
    from engine import RunRequest, run_in_subprocess

    # pattern matching runs in C, where the instruction hook never fires: only the process-level kill stops it
    game = make_game("function Start() string.find(string.rep('a', 200000), '.-.-.-.-.-b') end")
    report = run_in_subprocess(RunRequest(game_dir=str(game), seconds=1.0), wall_seconds=3.0)
    assert report["outcome"] == "timeout"
    assert report["errors"][0]["phase"] == "wall"


def test_bytes_that_are_not_utf8_never_crash_the_report(make_game: Callable[..., Path]) -> None:
    """Lua strings are bytes; a hostile game prints, errors, requires and names fonts in junk bytes."""
    game = make_game(
        'function Start()\n'
        '  print("bad \\xff\\xfe byte")\n'
        '  log:Write(LOG_INFO, "cut \\xc3")\n'
        '  assert(not pcall(require, "mod\\xff"))\n'
        '  local vg = nvgCreate(1)\n'
        '  assert(nvgCreateFont(vg, "f", "Fonts/\\xff.ttf") == -1)\n'
        '  SubscribeToEvent("Update", function() error("boom \\x80", 0) end)\n'
        'end\n')
    outcome, engine = run(game, frames=2)
    report = engine.report()
    assert outcome == "lua_error"
    messages = [e["message"] for e in report.log] + [e["message"] for e in report.errors]
    assert "bad \\xFF\\xFE byte" in messages and "cut \\xC3" in messages
    assert [e["message"] for e in report.errors] == ["boom \\x80", "boom \\x80"]
    again = Engine(game, SMALL)
    again.start()
    again.run_frames(2)
    assert again.report().as_dict() == report.as_dict()
