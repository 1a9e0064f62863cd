"""L1 with the real emmylua_ls (no mocks): what fails, what passes, what the deliverable cannot switch off."""

from __future__ import annotations

import json
import os
import re
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from grader.l1 import ERROR_CODES, L1Result, L1Server, L1SetupError

Deliverable = Callable[..., Path]


@pytest.fixture(scope="module")
def server() -> Iterator[L1Server]:
    s = L1Server()
    yield s
    s.close()


@pytest.fixture
def deliverable(tmp_path: Path) -> Deliverable:
    """deliverable({"scripts/main.lua": "...", ...}) -> a folder with those files."""
    counter = {"n": 0}

    def make(files: dict[str, str]) -> Path:
        counter["n"] += 1
        root = tmp_path / f"deliverable{counter['n']}"
        for rel, text in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        return root

    return make


def errors(result: L1Result) -> list[tuple[str, str, int, str]]:
    return [(d.file, d.code, d.line, d.source) for d in result.diagnostics if d.severity == "error"]


SYNTAX_ERROR = "function Start()\n  local x = (1 +\nend\n"


def test_syntax_error_fails(server: L1Server, deliverable: Deliverable) -> None:
    result = server.analyse(deliverable({"scripts/main.lua": SYNTAX_ERROR}))
    assert not result.passed
    found = errors(result)
    assert ("scripts/main.lua", "syntax-error", 3, "lua54") in found  # Lua 5.4's own compiler
    assert any(f[1] == "syntax-error" and f[3] == "emmylua_ls" for f in found)


def test_call_to_a_method_the_registry_does_not_declare_fails(server: L1Server, deliverable: Deliverable) -> None:
    result = server.analyse(deliverable({"scripts/main.lua": (
        "function Start()\n"
        "  local scene = Scene()\n"
        "  local node = scene:CreateChild(\"Ship\")\n"
        "  node:SetPosition(Vector3(0, 1, 0))\n"
        "  node:FlyToTheMoon()\n"
        "end\n")}))
    assert not result.passed
    assert errors(result) == [("scripts/main.lua", "undefined-field", 5, "emmylua_ls")]
    assert "FlyToTheMoon" in result.diagnostics[0].message


def test_undefined_global_fails(server: L1Server, deliverable: Deliverable) -> None:
    result = server.analyse(deliverable({"scripts/main.lua": "function Start()\n  SpawnTheBoss(3)\nend\n"}))
    assert not result.passed
    assert errors(result) == [("scripts/main.lua", "undefined-global", 2, "emmylua_ls")]


VALID_UNUSUAL = """\
require "LuaScripts/Utilities/Sample"
local json = require("cjson")

local MAX <const> = 10

local function counts()
  local n, bits = 7 // 2, 0xF0 | 0x0F & ~0x3 ~ 1 << 2 >> 1
  local i = 0
  ::again::
  i = i + 1
  if i < MAX then goto again end
  for k = 1, 3 do
    if k == 2 then goto continue end
    bits = bits + k
    ::continue::
  end
  return n, bits, utf8.char(72, 105, 0x4E2D), utf8.len("abc"), math.pow(2, 10), math.atan2(1, 2),
    math.log10(100), math.ldexp(1, 3), math.tointeger(3.0), string.pack("i4", 7)
end

function Start()
  SampleStart()
  local scene = Scene()
  scene:CreateComponent("Octree")
  local cameraNode = scene:CreateChild("Camera")
  local camera = cameraNode:CreateComponent("Camera")
  camera.farClip = 300
  renderer:SetViewport(0, Viewport:new(scene, camera))
  local model = scene:CreateChild("Box"):CreateComponent("StaticModel")
  model:SetModel(cache:GetResource("Model", "Models/Box.mdl"))
  local text = ui.root:CreateChild("Text")
  text:SetText(json.encode({counts()}) .. cjson.encode({1}))
  text.horizontalAlignment = HA_CENTER
  local v = Vector3(1, 2, 3) + Vector3.UP * 2
  cameraNode.position = v
  cameraNode.hp = 3  -- data the game keeps on a node: allowed, as in UrhoX
  print(cameraNode.hp, v:Length(), Quaternion(45, Vector3.UP) * v)
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local dt = eventData["TimeStep"]:GetFloat()
  if input:GetKeyDown(KEY_W) then print(dt, eventType) end
end
"""


def test_valid_code_with_unusual_lua54_passes(server: L1Server, deliverable: Deliverable) -> None:
    result = server.analyse(deliverable({"scripts/main.lua": VALID_UNUSUAL}))
    assert errors(result) == []
    assert result.passed


def test_a_known_member_on_a_type_the_linter_lost_is_only_a_warning(
        server: L1Server, deliverable: Deliverable) -> None:
    # `local player_` assigned in Start() is `nil` to the linter in every other function, so `pos` is `never`
    # there and `pos.x` "undefined": x is a Vector3 field, not missing API.  A name no class has stays an error.
    result = server.analyse(deliverable({"scripts/main.lua": (
        "local player_\n"
        "function Start()\n  player_ = Scene():CreateChild(\"Player\")\nend\n"
        "function HandleUpdate()\n  local pos = player_.position\n  print(pos.x + pos.z)\nend\n")}))
    assert result.passed
    assert {(d.code, d.severity, d.line) for d in result.diagnostics} == {
        ("undefined-field", "warning", 7)}
    failing = server.analyse(deliverable({"scripts/main.lua": (
        "function HandleUpdate()\n  local n = Node()\n  print(n.position.x, n.positon)\nend\n")}))
    assert errors(failing) == [("scripts/main.lua", "undefined-field", 3, "emmylua_ls")]


def test_the_deliverables_configuration_and_comments_cannot_hide_errors(
        server: L1Server, deliverable: Deliverable) -> None:
    silence = json.dumps({"diagnostics": {"enable": False, "disable": list(ERROR_CODES), "globals": ["Ghost"]},
                          "runtime": {"version": "Lua5.1"}})
    result = server.analyse(deliverable({
        ".emmyrc.json": silence,
        ".luarc.json": silence,
        "scripts/.luarc.json": silence,
        "scripts/.emmyrc.json": silence,
        ".emmyrc.lua": "return " + silence.replace(":", "=").replace("[", "{").replace("]", "}"),
        "scripts/main.lua": "---@meta\n---@diagnostic disable: syntax-error, undefined-global\n"
                            "---@diagnostic disable-next-line\nprint(Ghost)\n" + SYNTAX_ERROR,
    }))
    assert not result.passed
    found = errors(result)
    assert ("scripts/main.lua", "syntax-error", 7, "lua54") in found
    assert any(f[1] == "syntax-error" and f[3] == "emmylua_ls" for f in found)
    assert ("scripts/main.lua", "undefined-global", 4, "emmylua_ls") in found


def test_lua_compile_errors_the_linter_may_miss(server: L1Server, deliverable: Deliverable) -> None:
    result = server.analyse(deliverable({
        "a.lua": "local x <const> = 1\nx = 2\n",
        "b.lua": "goto nowhere\n",
        "c.lua": "print(1)\nbreak\n",
    }))
    lua = {d.file: d.message for d in result.diagnostics if d.source == "lua54"}
    assert lua == {"a.lua": "attempt to assign to const variable 'x'",
                   "b.lua": "no visible label 'nowhere' for <goto> at line 1",
                   "c.lua": "break outside loop at line 2"}
    assert not result.passed


TWIN_A = ("function Helper(n)\n  return Scene():CreateChild(\"a\"), n + 1\nend\n"
          "function Make() return Vector3(1, 2, 3) end\n")
TWIN_B = "function Helper(s)\n  return {name = s}, \"x\"\nend\nfunction Make() return Scene() end\n"
TWIN_MAIN = """\
function Start()
  local h, k = Helper(1)
  print(h.name, h.position, k:upper(), Helper("x").name)
  local m = Make()
  print(m.x, m:Length(), m:CreateChild("c"))
  m:AlsoNope()
end
"""


def test_the_verdict_is_identical_over_20_runs_when_two_files_define_one_global(
        server: L1Server, deliverable: Deliverable) -> None:
    root = deliverable({"scripts/a.lua": TWIN_A, "scripts/b.lua": TWIN_B, "scripts/main.lua": TWIN_MAIN})
    other = deliverable({"scripts/main.lua": VALID_UNUSUAL})
    seen = set()
    for i in range(20):
        seen.add(json.dumps(server.analyse(root).to_json(), sort_keys=True))
        if i % 5 == 0:
            server.analyse(other)  # the warm server between two runs held another deliverable
    fresh = L1Server()
    try:
        seen.add(json.dumps(fresh.analyse(root).to_json(), sort_keys=True))
    finally:
        fresh.close()
    assert len(seen) == 1
    result = json.loads(seen.pop())
    assert [(d["code"], d["line"]) for d in result["diagnostics"]] == [("undefined-field", 6)]


def test_the_previous_deliverable_leaves_nothing_behind(server: L1Server, deliverable: Deliverable) -> None:
    first = deliverable({"scripts/main.lua": "function SharedHelper() end\nSharedHelper()\n"})
    second = deliverable({"scripts/main.lua": "SharedHelper()\n"})
    assert server.analyse(first).passed
    assert errors(server.analyse(second)) == [("scripts/main.lua", "undefined-global", 1, "emmylua_ls")]


def test_diagnostics_are_canonical(server: L1Server, deliverable: Deliverable) -> None:
    result = server.analyse(deliverable({
        "scripts/z.lua": "NoSuchB()\nNoSuchA()\n",
        "scripts/a.lua": "local n = Node()\nn:Nope()\n",
    }))
    rows = result.to_json()["diagnostics"]
    assert [(r["file"], r["line"]) for r in rows] == [
        ("scripts/a.lua", 2), ("scripts/z.lua", 1), ("scripts/z.lua", 2)]
    assert set(rows[0]) == {"file", "line", "column", "code", "severity", "source", "message"}
    assert all(r["code"] in ERROR_CODES for r in rows)
    assert result.to_json()["linter"]["name"] == "emmylua_ls"
    assert re.fullmatch(r"\d+\.\d+\.\d+.*", result.linter.version)


def test_the_probe_raises_when_the_configuration_does_not_take() -> None:
    # One invalid value (an unknown Lua version) makes the server drop the whole configuration.
    with pytest.raises(L1SetupError, match="did not apply the grader's configuration"):
        L1Server(config_overrides={"runtime": {"version": "Lua9.9"}})


def test_a_dead_server_is_restarted(deliverable: Deliverable) -> None:
    s = L1Server()
    try:
        os.kill(s._client.process.pid, signal.SIGKILL)  # type: ignore[union-attr]
        result = s.analyse(deliverable({"main.lua": "NoSuch()\n"}))
        assert errors(result) == [("main.lua", "undefined-global", 1, "emmylua_ls")]
        assert s.starts == 2
    finally:
        s.close()


def test_a_hung_server_is_restarted(deliverable: Deliverable) -> None:
    s = L1Server(request_timeout=2.0)
    try:
        os.kill(s._client.process.pid, signal.SIGSTOP)  # type: ignore[union-attr]
        result = s.analyse(deliverable({"main.lua": "NoSuch()\n"}))
        assert errors(result) == [("main.lua", "undefined-global", 1, "emmylua_ls")]
        assert s.starts == 2
    finally:
        s.close()


def test_the_language_server_dies_with_a_grader_killed_outright(tmp_path: Path) -> None:
    """A SIGKILLed grader (an edition runner's crash, a nightly job killed) leaves no emmylua_ls behind."""
    import subprocess
    import sys
    import time

    code = ("from grader.l1 import server\n"
            "s = server(); s._start(); print(s._client.process.pid, flush=True)\n"
            "import time; time.sleep(60)\n")
    grader = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[2])
    try:
        assert grader.stdout is not None
        server_pid = int(grader.stdout.readline())
        os.kill(server_pid, 0)   # running
    finally:
        grader.kill()
        grader.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(server_pid, 0)
        except ProcessLookupError:
            return
        with open(f"/proc/{server_pid}/stat") as stat:   # a zombie until its new parent reaps it: gone too
            if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                return
        time.sleep(0.05)
    os.kill(server_pid, signal.SIGKILL)
    raise AssertionError(f"emmylua_ls {server_pid} outlived its grader")
