"""A seeded fuzzer for the engine's newest surfaces: hostile game Lua against Yoga, the native UI and its XML reader,
NanoVG, cjson, File/VFS, the platform fakes and the event system.

`generate(seed)` builds a `Program`: a game (scripts/main.lua plus data files: XML layouts and styles, JSON,
mutated fonts and images) whose steps call the surfaces with adversarial arguments (wrong types, nil, NaN, +-inf,
huge and negative numbers, giant strings, deep, cyclic and exponential tables, freed and foreign objects, proxies
of other classes, spoofed `__name` metatables, callbacks that re-enter the API, metamethods that call it, callbacks
that yield across engine calls, errors with hostile error objects).  Calls are drawn from the API registry
(`engine/api/*.api`), skipping members the runtime does not implement, plus hand-written scenarios that reach
deeper state (Yoga trees, UI trees with scripted input, layout files, NanoVG frames, platform round trips).
Everything depends only on the seed.

`run_program` runs a program through `engine._runner.run_in_subprocess` (a native crash kills only the worker),
and `findings` turns its report into findings:

- `crash`: the worker died (segfault, abort, a Python exception out of the engine);
- `timeout`: the program is finite and small, so a wall-clock kill means the engine hung;
- `engine_error`: an error escaped every game handler (phase `engine`): the run stopped early;
- `leak`: a Python object (a Lua userdata) or a Python traceback reached the game, or an engine metatable
  was readable;
- `sandbox`: the canary file outside the game folder was read;
- `internal`: a game call failed inside the engine's own Lua (`engine/...lua:N: attempt to ...`) with a message
  that does not say what the game did wrong: unclear messages rather than crashes;
- `misplaced`: the engine's own message about a named API, pointing at an engine line instead of the game's.

`minimize` shrinks a program to the steps that still produce a finding (a reproducer), and
`evidence_digest` gives the evidence digest of a report for the determinism check.
"""

from __future__ import annotations

import random
import re
import shutil
import struct
import tempfile
import zlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine._errors import BadInputError, EngineError, SetupError
from engine._evidence import run_evidence
from engine._registry import ClassDecl, Method, Registry, default_registry
from engine._runner import RunRequest, run_in_subprocess

CANARY = "GRADER-FUZZ-CANARY-7f3a91"
CANARY_NAME = "canary.txt"      # written next to the game folder: "../canary.txt" from inside it
DEFAULT_SECONDS = 0.3           # 18 frames: platform answers (2 frames of latency) arrive, scripted input lands
DEFAULT_WALL = 30.0             # a fuzz program is small: anything near this is a hang
# A game loop the minimiser makes endless (by dropping the line that ends it) ends as 'budget' in a few seconds,
# long before the wall clock: only the engine's own work can still reach DEFAULT_WALL.
FUZZ_BUDGET = 300_000_000
DEFAULT_MEMORY_LIMIT = 512 * 1024 * 1024
PRESSURE_MEMORY_LIMIT = 24 * 1024 * 1024   # the engine boots in about 10 MB

# What the fuzzer aims at: registry files whose classes it instantiates, and global-function prefixes.
SURFACE_FILES = ("ui.api", "io.api", "platform.api", "nanovg.api", "yoga.api", "network.api")
FUNCTION_NAMES = re.compile(r"^(YG|nvg|Get(Path|FileName|Extension|FileNameAndExtension|ParentPath|InternalPath|"
                            r"NativePath|UserNickname|FileSystem|UI|NanoVGContext|Http)$|ReplaceExtension$|"
                            r"AddTrailingSlash$|RemoveTrailingSlash$|IsAbsolutePath$|SendEvent$|SubscribeToEvent$|"
                            r"UnsubscribeFrom)")
# Classes a Lua expression can make (a fresh one per evaluation where that makes sense).
UI_TYPES = ("UIElement", "BorderImage", "Button", "CheckBox", "Cursor", "Menu", "DropDownList", "LineEdit",
            "ScrollView", "ListView", "ProgressBar", "ScrollBar", "Slider", "Sprite", "Text", "ToolTip", "Window")
MAKERS: dict[str, tuple[str, ...]] = {
    "UI": ("ui",),
    "FileSystem": ("fileSystem",),
    "File": ("File()", 'File("data/doc.json", FILE_READ)', 'File("save/out.bin", FILE_WRITE)',
             'File("save/rw.bin", FILE_READWRITE)', "X.closed_file()"),
    "ClientCloud": ("clientCloud", "clientScore"),
    "ClientCloudBatchGet": ("clientCloud:BatchGet()",),
    "ClientCloudBatchSet": ("clientCloud:BatchSet()",),
    "ServerCloud": ("serverCloud",),
    "ServerCloudBatchGet": ("serverCloud:BatchGet(10001)", "serverCloud:BatchGet()"),
    "ServerCloudBatchSet": ("serverCloud:BatchSet(10001)",),
    "ServerCloudCommit": ('serverCloud:BatchCommit("fuzz")',),
    "ServerCloudMoney": ("serverCloud.money",),
    "ServerCloudList": ("serverCloud.list",),
    "ServerCloudItem": ("serverCloud.item",),
    "ServerCloudMessage": ("serverCloud.message",),
    "ServerCloudQuota": ("serverCloud.quota",),
    "Sdk": ("sdk",),
    "Lobby": ("lobby",),
    "HttpManager": ("http",),
    "HttpClient": ("http:Create()", 'http:Create():SetUrl("https://example.com/x")'),
    "Font": ('cache:GetResource("Font", "Fonts/Anonymous Pro.ttf")', 'cache:GetResource("Font", "data/font.ttf")'),
    "XMLFile": ('cache:GetResource("XMLFile", "UI/DefaultStyle.xml")', 'cache:GetResource("XMLFile", "data/style.xml")',
                'cache:GetResource("XMLFile", "data/layout.xml")'),
    "NVGContextWrapper": ("X.ctx()", "nvgCreate(1)", "X.deleted_ctx()"),
    "YGNodeRef": ("X.node()", "YGNodeNew()", "X.freed_node()", "X.child_node()"),
    "YGConfigRef": ("YGConfigGetDefault()",),
    "NVGcolor": ("nvgRGBA(255, 0, 0, 255)", "nvgRGBf(0.5, 0.5, 0.5)"),
    "NVGpaint": ("nvgLinearGradient(X.ctx(), 0, 0, 10, 10, nvgRGB(1, 2, 3), nvgRGB(4, 5, 6))",),
    "Texture2D": ('cache:GetResource("Texture2D", "Textures/UI.png")',),
    "Texture": ('cache:GetResource("Texture2D", "Textures/UI.png")',),
    "Vector2": ("Vector2(1.5, -2)", "Vector2(0/0, 1/0)"),
    "Vector3": ("Vector3(1, 2, 3)",),
    "Vector4": ("Vector4(1, 2, 3, 4)",),
    "IntVector2": ("IntVector2(10, 20)", "IntVector2(-5, 100000)", "IntVector2(2147483647, -2147483648)"),
    "IntVector3": ("IntVector3(1, 2, 3)",),
    "IntRect": ("IntRect(0, 0, 100, 50)", "IntRect(50, 50, -10, -10)", "IntRect(-2147483648, 0, 2147483647, 1)"),
    "Rect": ("Rect(0, 0, 1, 1)",),
    "Color": ("Color(1, 0, 0, 1)", "Color(0/0, 2, -1, 1/0)"),
    "Quaternion": ("Quaternion(1, 0, 0, 0)",),
    "VariantMap": ("VariantMap()", "X.vmap()"),
    "Variant": ("Variant(1)", 'Variant("s")'),
    "StringHash": ('StringHash("x")',),
    "Scene": ("X.scene()",),
    "Node": ("X.scene():CreateChild(\"n\")",),
    "Object": ("ui.root", "X.scene()"),
}
for _t in UI_TYPES:
    MAKERS[_t] = (f'X.elem("{_t}")',)
MAKERS["UIElement"] = ("ui.root", 'X.elem("UIElement")', 'X.elem("Text")', 'X.elem("Window")', "X.removed()",
                       "X.focused()")

# Adversarial values: Lua expressions.  Cheap ones inline, expensive ones memoised by the prelude (X.v(name)).
ADVERSARIAL: tuple[str, ...] = (
    "nil", "true", "false", "0", "-1", "1", "0.5", "-0.0", "(0/0)", "(-(0/0))", "(1/0)", "(-1/0)",
    "math.maxinteger", "math.mininteger", "2^31", "-2^31", "2^32", "2^53", "2^63", "-2^63", "1e308", "-1e308",
    "5e-324", "2147483647", "-2147483648", "4294967295", "65535", "1e15+0.5", "-7.75",
    '""', '"0"', '"12"', '" 7 "', '"0x10"', '"1e999"', '"nan"', '"-inf"', '"\\0"', '"a\\0b"', '"%"', '"%s%n%"',
    '"(["', '"\\255\\254"', '"\\240\\159\\152"', '"\\240\\159\\152\\128"', '"中文字符"', '"../canary.txt"',
    '"../../canary.txt"', '"/etc/passwd"', '"..\\\\canary.txt"', '"scripts/main.lua"', '"Fonts/Anonymous Pro.ttf"',
    '"UI/DefaultStyle.xml"', '"data/layout.xml"', '"data/style.xml"', '"data/doc.json"', '"data/font.ttf"',
    '"data/junk.ttf"', '"data/img.png"', '"save/out.bin"', '"/user/"', '"Button"', '"Window"', '"Text"',
    'X.v("big")', 'X.v("huge")', 'X.v("binary")', 'X.v("pattern")',
    "{}", "{1, 2, 3}", "{x = 1, y = 2}", "{1, nil, 3}", "{n = -1}", "{[0] = 1, [-5] = 2}", "{0/0}",
    'X.v("deep")', 'X.v("deeper")', 'X.v("cycle")', 'X.v("dag")', 'X.v("sparse")', 'X.v("wide")',
    'X.hostile("error")', 'X.hostile("reenter")', 'X.hostile("yield")', 'X.hostile("lying")',
    'X.fake("UIElement")', 'X.fake("YGNodeRef")', 'X.fake("NVGContextWrapper")', 'X.fake("File")',
    'X.fake("NVGcolor")', 'X.fake("VariantMap")', 'X.fake("Vector2")',
    "print", "X.noop", "X.err_fn", "X.bad_err_fn", "X.yield_fn", "X.reenter_fn", "X.huge_ret_fn",
    "coroutine.running()", "coroutine.create(X.noop)", "cjson.null",
    "ui.root", 'X.elem("Text")', "X.removed()", "X.node()", "X.freed_node()", "X.ctx()", "X.deleted_ctx()",
    "File()", "X.closed_file()", "clientCloud", "serverCloud", "sdk", "fileSystem", "http",
    "Vector2(1, 2)", "Vector3(0/0, 1/0, -1)", "IntVector2(-1, 2147483647)", "Color(2, -1, 0/0, 1)",
    "IntRect(0, 0, -5, -5)", "X.scene()", 'cache:GetResource("XMLFile", "data/layout.xml")',
    'cache:GetResource("Font", "Fonts/Anonymous Pro.ttf")', "VariantMap()", 'StringHash("Update")',
)
NUMBERS_OK = ("0", "1", "2", "3", "10", "0.5", "100", "-3", "37.25", "1280", "720", "255")
STRINGS_OK = ('"a"', '"hello"', '"key1"', '"Text"', '"Button"', '"scores"', '"x.y"', '"data/layout.xml"',
              '"Fonts/Anonymous Pro.ttf"', '"sans"', '"level"', '"中文"', '"line1\\nline2"')

# Events the engine itself sends (and handles): faked with hostile data.
HOSTILE_EVENTS = ("MouseButtonDown", "MouseButtonUp", "MouseMove", "MouseWheel", "KeyDown", "KeyUp", "TextInput",
                  "TouchBegin", "TouchMove", "TouchEnd", "UIMouseClick", "UIMouseClickEnd", "Pressed", "Released",
                  "Toggled", "SliderChanged", "ItemSelected", "TextChanged", "TextFinished", "FocusChanged",
                  "NanoVGRender", "BeginFrame", "Update", "PostUpdate", "RenderUpdate", "EndFrame", "ScreenMode",
                  "DragBegin", "DragMove", "DragEnd", "ElementAdded", "Resized", "UserNicknameResponse",
                  "ClickEnd", "Click", "HoverBegin", "LayoutUpdated")


# ----------------------------------------------------------------------------------------------------------------
# The Lua side: helpers shared by every program
# ----------------------------------------------------------------------------------------------------------------
PRELUDE = r"""
-- fuzz prelude: helpers for the steps (X), then the steps, then the driver
X = {depth = 0, cos = {}, memo = {}, again = nil, mine = setmetatable({}, {__mode = "k"})}
local X = X
function X.noop() end
function X.err_fn() error("fuzz callback error") end
function X.bad_err_fn() error(setmetatable({}, {__tostring = function() error("tostring of the error failed") end})) end
function X.yield_fn(...) if coroutine.isyieldable() then return coroutine.yield(...) end end
function X.huge_ret_fn() return X.v("huge"), 0/0, X.v("cycle") end
function X.reenter_fn(...)
  if X.again and X.depth < 3 then
    X.depth = X.depth + 1
    local ok = pcall(X.again, ...)
    X.depth = X.depth - 1
  end
  return ...
end
function X.deep(n) local t = {} for _ = 1, n do t = {t, k = t} end return t end
local builders = {
  big = function() return string.rep("x", 1 << 16) end,
  huge = function() return string.rep("\0\255ab", 1 << 20) end,
  binary = function() local p = {} for i = 0, 255 do p[#p + 1] = string.char(i) end return table.concat(p):rep(8) end,
  pattern = function() return string.rep("a-", 40) .. "%" end,
  deep = function() return X.deep(300) end,
  deeper = function() return X.deep(20000) end,
  cycle = function() local t = {1, 2} t.self = t t[3] = t return t end,
  dag = function() local t = {1} for _ = 1, 60 do t = {t, t} end return t end,
  sparse = function() return {[1] = 1, [2] = 2, [1000000] = 3, [2^40] = 4} end,
  wide = function() local t = {} for i = 1, 50000 do t[i] = i end return t end,
}
function X.v(name)
  local v = X.memo[name]
  if v == nil then v = builders[name](); X.memo[name] = v end
  return v
end
-- Tables whose metamethods misbehave: raise, re-enter the API under test, yield, or lie about their length.
function X.hostile(kind)
  local mt = {}
  local function act(...)
    if kind == "error" then error("hostile metamethod") end
    if kind == "reenter" then X.reenter_fn(...) return 1 end
    if kind == "yield" then X.yield_fn() return 1 end
    return 1e18
  end
  for _, m in ipairs({"__index", "__newindex", "__call", "__eq", "__lt", "__le", "__len", "__concat", "__unm",
                      "__add", "__sub", "__mul", "__div", "__idiv", "__mod", "__pow", "__band", "__bor", "__shl"}) do
    mt[m] = act
  end
  mt.__tostring = function() act() return "hostile" end
  mt.__name = kind == "lying" and "UIElement" or nil
  mt.__pairs = function(t) act() return next, {a = 1}, nil end
  local t = setmetatable({}, mt)
  X.mine[t] = true
  return t
end
function X.fake(name)
  local t = setmetatable({}, {__name = name, __index = function() return X.noop end})
  X.mine[t] = true
  return t
end
function X.ctx() if not X._ctx then X._ctx = nvgCreate(1) end return X._ctx end
function X.deleted_ctx() local c = nvgCreate(1) nvgDelete(c) return c end
function X.node() if not X._node then X._node = YGNodeNew() end return X._node end
function X.child_node()
  local n = YGNodeNew()
  pcall(YGNodeInsertChild, X.node(), n, YGNodeGetChildCount(X.node()))
  return n
end
function X.freed_node() local n = YGNodeNew() YGNodeFree(n) return n end
function X.elem(t)
  local e = ui.root:CreateChild(t, "fuzz" .. t)
  if e and e.SetSize then pcall(e.SetSize, e, 400, 300) end
  return e
end
function X.removed() local e = ui.root:CreateChild("Text") e:Remove() return e end
function X.focused() local e = X.elem("LineEdit") pcall(function() ui.focusElement = e end) return e end
function X.closed_file() local f = File("save/closed.bin", FILE_WRITE) f:Write("abc") f:Close() return f end
function X.scene() if not X._scene then X._scene = Scene() end return X._scene end
function X.vmap() local m = VariantMap() m["Key"] = 1 m[StringHash("B")] = "x" return m end
-- Run f in a coroutine; a coroutine left suspended (a callback yielded inside the engine) is resumed later.
function X.in_co(f, ...)
  local co = coroutine.create(f)
  local ok, err = coroutine.resume(co, ...)
  if coroutine.status(co) == "suspended" then X.cos[#X.cos + 1] = co end
  if not ok then error(err, 0) end
end
function X.resume_all(...)
  local cos = X.cos
  X.cos = {}
  for _, co in ipairs(cos) do
    local ok, err = coroutine.resume(co, ...)
    if not ok then X.report("co", err) end
    if coroutine.status(co) == "suspended" and #X.cos < 64 then X.cos[#X.cos + 1] = co end
  end
end
-- What a call returned: a userdata is a Python object; an engine object's metatable must stay hidden.
function X.r(...)
  for i = 1, select("#", ...) do
    local v = select(i, ...)
    local t = type(v)
    if t == "userdata" then print("LEAK userdata returned: " .. tostring(v)) end
    if t == "table" and not X.mine[v] and v ~= cjson.null then
      local mt = getmetatable(v)
      if type(mt) == "table" and rawget(mt, "__name") then
        print("LEAK metatable of " .. tostring(rawget(mt, "__name")))
      end
    end
    if t == "string" and string.find(v, "GRADER%-FUZZ%-CANARY") then print("LEAK canary read") end
  end
  return ...
end
function X.report(i, err)
  local t = type(err)
  local msg
  if t == "string" then msg = err
  elseif t == "userdata" then msg = "LEAK userdata error: " .. tostring(err)
  else
    local ok, s = pcall(tostring, err)
    msg = "<" .. t .. "> " .. ((ok and type(s) == "string") and s or "?")
  end
  if string.find(msg, "GRADER%-FUZZ%-CANARY") then msg = "LEAK canary read: " .. msg end
  print("E" .. tostring(i) .. " " .. msg)
end
function X.step(i, f)
  X.again = nil
  local ok, err = pcall(f)
  if not ok then X.report(i, err) end
end
"""

DRIVER = r"""
function Start()
  for _, i in ipairs(START) do X.step(i, S[i]) end
  for _, i in ipairs(START_RAW) do S[i]() end
  SubscribeToEvent("Update", "FuzzUpdate")
end
local frame = 0
function FuzzUpdate(eventType, eventData)
  frame = frame + 1
  X.resume_all(frame)
  for _, i in ipairs(FRAMES[frame] or {}) do X.step(i, S[i]) end
  for _, i in ipairs(FRAMES_RAW[frame] or {}) do S[i]() end
end
"""


# ----------------------------------------------------------------------------------------------------------------
# Programs
# ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One step: a Lua chunk run in `frame` (0 = Start) under pcall, or unprotected when `raw`."""

    code: str
    frame: int = 0
    raw: bool = False
    label: str = ""


@dataclass(frozen=True)
class Program:
    """A generated game: its steps and data files; `main_lua()` renders scripts/main.lua."""

    seed: int
    steps: tuple[Step, ...]
    files: tuple[tuple[str, bytes], ...] = ()
    scripted_input: bool = True
    seconds: float = DEFAULT_SECONDS
    memory_limit: int | None = None      # a smaller Lua memory limit (memory-pressure programs)

    def main_lua(self) -> str:
        limit = self.memory_limit or DEFAULT_MEMORY_LIMIT
        out = [PRELUDE, f"MEMORY_LIMIT = {limit}", "S = {}"]
        start: list[int] = []
        start_raw: list[int] = []
        frames: dict[int, list[int]] = {}
        frames_raw: dict[int, list[int]] = {}
        for i, step in enumerate(self.steps, 1):
            out.append(f"-- step {i}: {step.label}\nS[{i}] = function()\n{step.code}\nend")
            if step.frame == 0:
                (start_raw if step.raw else start).append(i)
            else:
                (frames_raw if step.raw else frames).setdefault(step.frame, []).append(i)
        out.append(f"START = {{{', '.join(map(str, start))}}}")
        out.append(f"START_RAW = {{{', '.join(map(str, start_raw))}}}")
        out.append("FRAMES = {" + ", ".join(f"[{f}] = {{{', '.join(map(str, ix))}}}"
                                            for f, ix in sorted(frames.items())) + "}")
        out.append("FRAMES_RAW = {" + ", ".join(f"[{f}] = {{{', '.join(map(str, ix))}}}"
                                                for f, ix in sorted(frames_raw.items())) + "}")
        out.append(DRIVER)
        return "\n".join(out)

    def keep(self, indices: Iterable[int]) -> Program:
        """The program with only the steps at `indices` (0-based)."""
        wanted = set(indices)
        return replace(self, steps=tuple(s for i, s in enumerate(self.steps) if i in wanted))

    def write(self, root: Path) -> Path:
        """Write the game folder under `root` (the canary goes next to it); returns the game folder."""
        game = root / "game"
        (game / "scripts").mkdir(parents=True, exist_ok=True)
        (game / "scripts" / "main.lua").write_text(self.main_lua(), encoding="utf-8")
        for rel, data in self.files:
            path = game / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        (root / CANARY_NAME).write_text(CANARY)
        return game


# ----------------------------------------------------------------------------------------------------------------
# The registry's view: what can be called, and with what
# ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    """A callable member: a global function (`receiver` None) or a method/property of a class."""

    name: str
    params: tuple[tuple[str, str, bool], ...]     # (name, type, optional)
    receiver: str | None = None                   # class name
    kind: str = "function"                        # function | method | get | set


@dataclass
class Model:
    functions: list[Target] = field(default_factory=list)
    methods: list[Target] = field(default_factory=list)
    enums: dict[str, tuple[int | float, ...]] = field(default_factory=dict)
    events: dict[str, dict[str, str]] = field(default_factory=dict)


@lru_cache(maxsize=1)
def missing_members() -> frozenset[str]:
    """Declared members the runtime does not implement (the coverage report), as 'Class:Method'/'Function'."""
    from engine._coverage import coverage_report

    return frozenset(str(m) for m in coverage_report().get("missing") or [])


def _lineage_methods(registry: Registry, decl: ClassDecl) -> dict[str, tuple[ClassDecl, Method]]:
    out: dict[str, tuple[ClassDecl, Method]] = {}
    for d in reversed(registry.lineage(decl.name)):
        for name, m in d.methods.items():
            if m.kind == "method":
                out[name] = (d, m)
    return out


@lru_cache(maxsize=1)
def model() -> Model:
    registry = default_registry()
    missing = missing_members()
    out = Model()
    for name in sorted(registry.functions):
        if not FUNCTION_NAMES.match(name) or name in missing:
            continue
        for sig in registry.functions[name].overloads:
            out.functions.append(Target(name, tuple((p.name, p.type, p.optional) for p in sig.params)))
    for cname in sorted(registry.classes):
        decl = registry.classes[cname]
        if decl.source not in SURFACE_FILES or cname not in MAKERS:
            continue
        for mname, (owner, method) in sorted(_lineage_methods(registry, decl).items()):
            if f"{owner.name}:{mname}" in missing or f"{cname}:{mname}" in missing:
                continue
            for sig in method.overloads:
                out.methods.append(Target(mname, tuple((p.name, p.type, p.optional) for p in sig.params), cname,
                                          "method"))
        for pname, prop in sorted(decl.properties.items()):
            out.methods.append(Target(pname, (), cname, "get"))
            if prop.setter:
                out.methods.append(Target(pname, (("value", prop.type, False),), cname, "set"))
    for ename, enum in registry.enums.items():
        out.enums[ename] = tuple(enum.values.values())
    for ename, event in registry.events.items():
        out.events[ename] = dict(event.params)
    return out


# ----------------------------------------------------------------------------------------------------------------
# Generation
# ----------------------------------------------------------------------------------------------------------------
class Generator:
    """Lua text for one program, from one `random.Random`."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.model = model()
        self.hostility = rng.choice((0.15, 0.35, 0.6))   # chance that an argument is adversarial

    # values
    def adversarial(self) -> str:
        return self.rng.choice(ADVERSARIAL)

    def value(self, typ: str, depth: int = 0) -> str:
        rng = self.rng
        if rng.random() < self.hostility:
            return self.adversarial()
        typ = typ.strip()
        if typ.startswith("fun("):
            return self.callback(depth)
        if "|" in typ and not typ.startswith("fun("):
            return self.value(rng.choice(typ.split("|")), depth)
        if typ.endswith("[]"):
            n = rng.choice((0, 1, 2, 5))
            return "{" + ", ".join(self.value(typ[:-2], depth + 1) for _ in range(n)) + "}"
        if typ in ("number",):
            return rng.choice(NUMBERS_OK)
        if typ == "integer":
            return rng.choice(("0", "1", "2", "3", "10", "-1", "100", "10001", "10002", "5"))
        if typ == "string":
            return rng.choice(STRINGS_OK)
        if typ == "boolean":
            return rng.choice(("true", "false"))
        if typ in ("table", "any"):
            return self.table(depth)
        if typ == "function":
            return self.callback(depth)
        if typ == "nil":
            return "nil"
        if typ in self.model.enums:
            values = self.model.enums[typ]
            if rng.random() < 0.15:
                return rng.choice(("-1", "99", "2^31", "0.5"))
            return repr(rng.choice(values))
        if typ in MAKERS:
            return rng.choice(MAKERS[typ])
        return self.adversarial()

    def table(self, depth: int) -> str:
        rng = self.rng
        if depth > 1:
            return rng.choice(("{}", "{1}", '{a = "b"}'))
        kind = rng.randrange(6)
        if kind == 0:
            return "{" + ", ".join(rng.choice(NUMBERS_OK) for _ in range(rng.randrange(4))) + "}"
        if kind == 1:
            return self.events_table(depth + 1)
        if kind == 2:
            return "{score = 10, name = " + rng.choice(STRINGS_OK) + ", list = {1, 2, 3}, nested = {a = {b = true}}}"
        if kind == 3:
            return "{[" + self.adversarial() + " or 1] = " + self.adversarial() + "}"
        return self.adversarial()

    def callback(self, depth: int) -> str:
        rng = self.rng
        roll = rng.random()
        if roll < 0.5 or depth > 0:
            return rng.choice(("X.noop", "X.err_fn", "X.bad_err_fn", "X.yield_fn", "X.reenter_fn", "X.huge_ret_fn",
                               "function(...) print('cb', select('#', ...)) end"))
        # a callback that calls another API of the surface
        return "function(...) X.r(pcall(function() " + self.call_expr(depth + 1) + " end)) end"

    def events_table(self, depth: int) -> str:
        names = ("ok", "error", "timeout", "success", "fail")
        parts = [f"{n} = {self.callback(depth)}" for n in names if self.rng.random() < 0.7]
        return "{" + ", ".join(parts) + "}"

    def args(self, params: Sequence[tuple[str, str, bool]], depth: int) -> str:
        rng = self.rng
        vals = []
        for i, (name, typ, optional) in enumerate(params):
            if name == "...":
                vals += [self.value("string", depth) for _ in range(rng.randrange(3))]
                break
            if optional and rng.random() < 0.3:
                # stop here: trailing optionals omitted
                if all(p[2] for p in params[i:]):
                    break
                vals.append("nil")
                continue
            vals.append(self.value(typ, depth))
        roll = rng.random()
        if roll < 0.05 and vals:
            vals.pop()                     # one argument too few
        elif roll < 0.10:
            vals.append(self.adversarial())  # one too many
        return ", ".join(vals)

    # calls
    def call_expr(self, depth: int = 0) -> str:
        rng = self.rng
        m = self.model
        if rng.random() < 0.45 and m.functions:
            t = rng.choice(m.functions)
            return f"X.r({t.name}({self.args(t.params, depth)}))"
        t = rng.choice(m.methods)
        assert t.receiver is not None
        recv = rng.choice(MAKERS[t.receiver])
        if rng.random() < 0.06:
            # a method of this class called on an object of another class
            other = rng.choice(sorted(MAKERS))
            args = ", ".join(a for a in (rng.choice(MAKERS[other]), self.args(t.params, depth)) if a)
            return (f"do local o = {recv}; local f = o and o.{t.name}; "
                    f"if type(f) == 'function' then X.r(f({args})) end end")
        if t.kind == "get":
            return f"X.r(({recv}).{t.name})"
        if t.kind == "set":
            return f"do local o = {recv}; o.{t.name} = {self.value(t.params[0][1], depth)} end"
        args = self.args(t.params, depth)
        return f"X.r(({recv}):{t.name}({args}))"

    def call_step(self) -> str:
        rng = self.rng
        expr = self.call_expr()
        roll = rng.random()
        if roll < 0.25:
            # re-entrant: callbacks and metamethods call the same API again
            return f"X.again = function() {expr} end\n{expr}"
        if roll < 0.35:
            # the API called inside a coroutine whose callbacks may yield across the engine
            return f"X.again = function() {expr} end\nX.in_co(function() {expr} end)"
        if roll < 0.40:
            # the call from inside a metamethod of a table the engine itself stringifies or compares
            return (f"local t = setmetatable({{}}, {{__tostring = function() {expr} return 'mm' end}})\n"
                    "print(tostring(t))")
        return expr

    # scenarios: longer, stateful uses of one surface
    def scenario(self) -> tuple[str, str]:
        fn = self.rng.choice((self.yoga_tree, self.ui_tree, self.layout_files, self.nanovg_frame, self.cjson_ops,
                              self.vfs_ops, self.platform_ops, self.event_storm, self.yoga_tree, self.ui_tree,
                              self.nanovg_frame, self.memory_pressure))
        return fn.__name__, fn()

    def yoga_tree(self) -> str:
        rng = self.rng
        lines = ["local nodes = {}", "for i = 1, 12 do nodes[i] = YGNodeNew() end",
                 "local function N() return nodes[math.random(#nodes)] end"]
        ops = [
            "YGNodeInsertChild(N(), N(), {i})", "YGNodeRemoveChild(N(), N())", "YGNodeFree(N())",
            "YGNodeFreeRecursive(N())", "YGNodeReset(N())", "YGNodeRemoveAllChildren(N())",
            "YGNodeCalculateLayout(N(), {n}, {n}, {d})", "X.r(YGNodeLayoutGetWidth(N()))",
            "X.r(YGNodeLayoutGetMargin(N(), {e}))", "YGNodeStyleSetWidth(N(), {n})", "YGNodeStyleSetFlexGrow(N(), {n})",
            "YGNodeStyleSetMargin(N(), {e}, {n})", "YGNodeStyleSetGap(N(), {g}, {n})",
            "YGNodeStyleSetAlignItems(N(), 5)", "YGNodeSetBaselineValue(N(), {n})",
            "YGNodeStyleSetMinWidthFitContent(N())", "YGConfigSetPointScaleFactor(YGConfigGetDefault(), {n})",
            "X.r(YGNodeGetChild(N(), {i}))", "X.r(YGNodeGetParent(N()))", "YGNodeStyleSetFlexBasisPercent(N(), {n})",
            "YGNodeStyleSetAspectRatio(N(), {n})", "YGNodeStyleSetDisplay(N(), {dp})",
            "YGNodeStyleSetPositionType(N(), 2)",
            "YGNodeStyleSetFlexWrap(N(), 1)", "X.r(YGNodeStyleGetGap(N(), {g}))", "X.r(YGNodeStyleGetWidth(N()))",
        ]
        nums = (*NUMBERS_OK, "(0/0)", "(1/0)", "(-1/0)", "1e38", "1e39", "-1e30", "3.4e38", "-0.0", "1e-45",
                             "2^24+1", "math.maxinteger", '"15"')
        for _ in range(rng.randrange(10, 60)):
            op = rng.choice(ops).format(i=rng.choice(("0", "1", "2", "-1", "100", "2^40", "0.5")),
                                        n=rng.choice(nums), d=rng.choice(("0", "1", "2", "3", "nil")),
                                        e=rng.choice(("0", "1", "4", "5", "6", "8", "9")),
                                        g=rng.choice(("0", "1", "2", "3")), dp=rng.choice(("0", "1", "2")))
            lines.append(f"pcall(function() {op} end)")
        if rng.random() < 0.3:
            lines.append("local chain = YGNodeNew() local top = chain\n"
                         "for i = 1, 600 do local c = YGNodeNew() "
                         "if not pcall(YGNodeInsertChild, chain, c, 0) then break end "
                         "chain = c end\nYGNodeCalculateLayout(top, 100, 100, 1)")
        if rng.random() < 0.2:
            lines.append("local wide = YGNodeNew() for i = 1, 3000 do YGNodeInsertChild(wide, YGNodeNew(), 0) end\n"
                         "YGNodeStyleSetFlexWrap(wide, 1) YGNodeCalculateLayout(wide, 1e30, 0/0, 1) "
                         "YGNodeFreeRecursive(wide)")
        return "\n".join(lines)

    def ui_tree(self) -> str:
        rng = self.rng
        lines = ["local els = {ui.root}",
                 "local function P() return els[math.random(#els)] end"]
        for _ in range(rng.randrange(3, 15)):
            t = rng.choice(UI_TYPES)
            lines.append(f"pcall(function() local e = P():CreateChild(\"{t}\", \"e\" .. #els) "
                         f"if e then els[#els + 1] = e end end)")
        ops = [
            "e:SetSize({n}, {n})", "e:SetPosition({n}, {n})", "e:SetLayout({lm}, {n})", "e:SetMinSize({n}, {n})",
            "e:SetMaxSize({n}, {n})", "e:SetStyleAuto()", "e:SetStyle({s})", "e:Remove()", "e:RemoveAllChildren()",
            "e:SetParent(P())", "e:AddChild(P())", "e:InsertChild({n}, P())", "e:SetVisible({b})", "e:SetEnabled({b})",
            "e:SetFocus({b})", "e:SetText({s})", "e:SetFont(cache:GetResource('Font', 'Fonts/Anonymous Pro.ttf'), {n})",
            "e:SetFontSize({n})", "e:SetOpacity({n})", "e:SetClipChildren({b})", "e:SetPriority({n})",
            "e:BringToFront()", "e:SetVar(StringHash('k'), Variant({s}))", "e:SetLayoutBorder(IntRect({n}, 0, 0, {n}))",
            "e:AddItem(P())", "e:RemoveItem(P())", "e:SetSelection({n})", "e:SetRange({n})", "e:SetValue({n})",
            "e:ChangeValue({n})", "e:SetChecked({b})", "e:ShowPopup({b})", "e:SetPopup(P())",
            "e:SetContentElement(P())",
            "e:SetViewPosition({n}, {n})", "e:SetScrollBarsVisible({b}, {b})", "e:SetDragDropMode(3)",
            "e:SetLayoutMode({lm})", "e:SetWordwrap({b})", "e:SetTextAlignment({n})", "e:SetMaxLength({n})",
            "e:SetCursorPosition({n})", "e:SetEchoCharacter({n})", "e:SetImageRect(IntRect(0, 0, {n}, {n}))",
            "e:SetHoverOffset({n}, {n})", "e:SetModal({b})", "e:SetMovable({b})", "e:SetResizable({b})",
            "ui:SetFocusElement(e)", "ui:GetElementAt({n}, {n})", "ui.root:GetChild({s}, true)",
            "e:SetDefaultStyle(cache:GetResource('XMLFile', 'data/style.xml'))",
            "e:LoadXML(cache:GetResource('XMLFile', 'data/layout.xml'))",
            "SubscribeToEvent(e, 'Pressed', {cb})", "SubscribeToEvent(e, 'Released', {cb})",
            "SubscribeToEvent(e, 'Click', {cb})", "SubscribeToEvent(e, 'DragMove', {cb})",
            "SubscribeToEvent('UIMouseClick', {cb})", "SubscribeToEvent(e, 'TextChanged', {cb})",
            "SubscribeToEvent(e, 'Resized', {cb})", "SubscribeToEvent(e, 'LayoutUpdated', {cb})",
            "SubscribeToEvent(e, 'ItemSelected', {cb})", "SubscribeToEvent('FocusChanged', {cb})",
        ]
        nums = (*NUMBERS_OK, "(0/0)", "(1/0)", "-1", "2147483647", "-2147483648", "1e300", "2^40", "0.25", '"3"')
        for _ in range(rng.randrange(10, 50)):
            op = rng.choice(ops).format(n=rng.choice(nums), s=rng.choice(STRINGS_OK + ADVERSARIAL[30:60]),
                                        b=rng.choice(("true", "false", "nil", "0")),
                                        lm=rng.choice(("0", "1", "2", "3", "-1")),
                                        cb=self.ui_callback())
            lines.append(f"pcall(function() local e = P() {op} end)")
        lines.append("local w = X.elem('Window') w:SetSize(1280, 720) w:SetLayout(2, 0)"
                     " for i = 1, 6 do local b = w:CreateChild(i % 2 == 0 and 'Button' or 'LineEdit')"
                     " b:SetMinSize(0, 100)"
                     " els[#els + 1] = b end")
        return "\n".join(lines)

    def ui_callback(self) -> str:
        return self.rng.choice((
            "function(t, d) local e = d['Element'] and d['Element']:GetPtr() if e then pcall(e.Remove, e) end end",
            "function(t, d) ui.root:RemoveAllChildren() end",
            "function() ui.root:CreateChild('Window'):SetSize(1280, 720) end",
            "function(t, d) SendEvent(t, d) end",
            "function() X.yield_fn() end", "X.err_fn", "X.bad_err_fn", "X.reenter_fn",
            "function(t, d) print(d['X'] and d['X']:GetInt(), d['Text'] and d['Text']:GetString()) end",
            "function() ui.focusElement = nil; ui.root:SetSize(-1, -1) end",
        ))

    def layout_files(self) -> str:
        rng = self.rng
        lines = []
        for _ in range(rng.randrange(2, 8)):
            lines.append("pcall(function() " + rng.choice((
                "X.r(ui:LoadLayout(cache:GetResource('XMLFile', 'data/layout.xml')))",
                "X.r(ui:LoadLayout(cache:GetResource('XMLFile', 'data/layout.xml'), "
                "cache:GetResource('XMLFile', 'data/style.xml')))",
                "ui.root.defaultStyle = cache:GetResource('XMLFile', 'data/style.xml')",
                "ui.root.defaultStyle = cache:GetResource('XMLFile', 'UI/DefaultStyle.xml')",
                "local e = X.elem('Window') e:SetStyle('"
                + rng.choice(("Window", "Button", "A", "B", "Text", "")) + "')",
                "X.elem('Button'):SetStyleAuto(cache:GetResource('XMLFile', 'data/style.xml'))",
                "ui.root:LoadXML(cache:GetResource('XMLFile', 'data/layout.xml'))",
                "X.elem('Menu'):LoadXML(cache:GetResource('XMLFile', 'data/layout.xml'))",
                "ui.root:LoadXML(File('data/layout.xml', FILE_READ))",
                "ui.root:LoadXML('data/layout.xml')",
                "local f = File('data/gen.xml', FILE_WRITE) f:Write(" + self.adversarial() + ") f:Close() "
                "ui:LoadLayout('data/gen.xml')",
            )) + " end)")
        return "\n".join(lines)

    def nanovg_frame(self) -> str:
        rng = self.rng
        fns = [t for t in self.model.functions if t.name.startswith("nvg")]
        body = ["local vg = X.ctx()", "nvgBeginFrame(vg, 1280, 720, 1)"]
        for _ in range(rng.randrange(5, 30)):
            t = rng.choice(fns)
            params = list(t.params)
            args = ["vg"] + [self.value(p[1]) for p in params[1:]] if params and params[0][1] == "NVGContextWrapper" \
                else [self.value(p[1]) for p in params]
            body.append(f"pcall(function() X.r({t.name}({', '.join(args)})) end)")
        body.append("nvgEndFrame(vg)")
        draw = "\n".join(body)
        font = rng.choice(("data/font.ttf", "data/junk.ttf", "Fonts/Anonymous Pro.ttf", "Fonts/MiSans-Regular.ttf",
                           "data/img.png", "../canary.txt"))
        return (f"local vg = X.ctx()\nX.r(nvgCreateFont(vg, 'f', '{font}'))\nnvgFontFace(vg, 'f')\n"
                f"X.r(nvgCreateImage(vg, 'data/img.png', 0))\n"
                f"SubscribeToEvent(vg, 'NanoVGRender', function()\n{draw}\nend)\n"
                f"pcall(function()\n{draw}\nend)")

    def cjson_ops(self) -> str:
        rng = self.rng
        docs = ('"[" .. string.rep("[", 100000)', 'string.rep("[", 5000) .. string.rep("]", 5000)',
                '"{\\"a\\":1e999}"', '"[1,2,"', '"\\"\\\\ud800\\\\udc00\\\\ud800\\""', '"[-]"', '"1e"', '"tru"',
                '"{\\"a\\" 1}"', '"\\"\\\\u00zz\\""', '"[1] x"', '""', '"   "', '"-0"', '"99999999999999999999999"',
                'X.v("huge")', 'X.v("binary")', "File('data/doc.json', FILE_READ):ReadString()",
                '\'{"a":[1,2,{"b":null}],"c":"\\\\u4e2d"}\'', '"[" .. string.rep("1,", 100000) .. "1]"')
        lines = []
        for _ in range(rng.randrange(3, 10)):
            if rng.random() < 0.5:
                lines.append(f"X.step('cjd', function() X.r(cjson.decode({rng.choice(docs)})) end)")
            else:
                lines.append(f"X.step('cje', function() X.r(cjson.encode({self.value('any')})) end)")
        lines.append("X.step('cjr', function() local c = require('cjson') local s = c.encode({a = {1, 2, c.null}}) "
                     "X.r(c.decode(s)) X.r(require('cjson.safe').decode('[')) end)")
        return "\n".join(lines)

    def vfs_ops(self) -> str:
        rng = self.rng
        names = ('"save/a.txt"', '"save/../../canary.txt"', '"../canary.txt"', '"/user/x/y"', '"scripts/main.lua"',
                 '"data/doc.json"', '""', '"/"', '"save//x"', '"\\\\save\\\\w"', '"./save/a.txt"', 'X.v("big")',
                 '"save/\\0nul"', '"data/"', '"%a+"')
        ops = ["local f = File({p}, {m}) X.r(f:Write({v})) X.r(f:Seek({n})) X.r(f:Read({n})) f:Close()",
               "local f = File({p}, FILE_READ) X.r(f:ReadString()) X.r(f:ReadLine()) X.r(f:ReadInt()) "
               "X.r(f:GetChecksum())",
               "X.r(fileSystem:ScanDir({p}, {v}, 0, {b}))", "X.r(fileSystem:FileExists({p}))",
               "X.r(fileSystem:Rename({p}, {p}))", "X.r(fileSystem:Copy({p}, {p}))", "X.r(fileSystem:Delete({p}))",
               "X.r(fileSystem:CreateDir({p}))", "X.r(fileSystem:DirExists({p}))",
               "X.r(GetFileName({p}), GetExtension({p}), GetPath({p}), ReplaceExtension({p}, {v}))",
               "local f = File() X.r(f:Open({p}, {m})) X.r(f:WriteInt({n})) X.r(f:WriteFloat({n})) "
               "X.r(f:WriteByte({n}))"
               " X.r(f:WriteString({v})) f:Flush()",
               "X.r(require({p}))", "X.r(cache:GetResource('XMLFile', {p}))", "X.r(cache:Exists({p}))"]
        lines = []
        for _ in range(rng.randrange(4, 14)):
            op = rng.choice(ops).format(p=rng.choice(names), m=rng.choice(("FILE_READ", "FILE_WRITE", "FILE_READWRITE",
                                                                          "7", "-1", "nil", '"w"')),
                                        v=self.adversarial(),
                                        n=rng.choice((*NUMBERS_OK, "(0/0)", "-5", "2^40", "1.5")),
                                        b=rng.choice(("true", "false")))
            lines.append(f"X.step('vfs', function() {op} end)")
        return "\n".join(lines)

    def platform_ops(self) -> str:
        rng = self.rng
        lines = []
        for _ in range(rng.randrange(4, 16)):
            t = rng.choice([m for m in self.model.methods if m.receiver in ("ClientCloud", "ServerCloud", "Sdk",
                            "Lobby", "ServerCloudList", "ServerCloudItem", "ServerCloudMessage", "ServerCloudQuota",
                            "ServerCloudMoney", "ClientCloudBatchSet", "ClientCloudBatchGet", "ServerCloudCommit",
                            "HttpClient", "HttpManager") and m.kind == "method"])
            assert t.receiver is not None
            recv = rng.choice(MAKERS[t.receiver])
            lines.append(f"X.step('plat', function() X.r(({recv}):{t.name}({self.args(t.params, 0)})) end)")
        if rng.random() < 0.5:
            lines.append("X.step('nick', function() GetUserNickname({userIds = " + self.value("integer[]") +
                         ", onSuccess = " + self.callback(0) + ", onError = " + self.callback(0) + "}) end)")
        if rng.random() < 0.4:
            lines.append("X.step('flood', function() "
                         "for i = 1, 400 do clientCloud:Get('k' .. i, {ok = X.noop}) end end)")
        return "\n".join(lines)

    def event_storm(self) -> str:
        rng = self.rng
        lines = []
        for _ in range(rng.randrange(2, 10)):
            name = rng.choice(HOSTILE_EVENTS)
            params = self.model.events.get(name, {})
            fields = []
            for pname in sorted(params):
                if rng.random() < 0.8:
                    fields.append(f"{pname} = {self.adversarial() if rng.random() < 0.5 else rng.choice(NUMBERS_OK)}")
            data = "{" + ", ".join(fields) + "}"
            if rng.random() < 0.2:
                data = self.adversarial()
            sender = rng.choice(("", "ui.root, ", "X.elem('Button'), ", "X.ctx(), "))
            if sender:
                lines.append(f"X.step('ev', function() {sender.rstrip(', ')}:SendEvent('{name}', {data}) end)")
            else:
                lines.append(f"X.step('ev', function() SendEvent('{name}', {data}) end)")
        if rng.random() < 0.3:
            lines.append("X.step('sub', function() SubscribeToEvent('Update', function() "
                         "UnsubscribeFromAllEvents() SubscribeToEvent('Update', 'FuzzUpdate') end) end)")
        return "\n".join(lines)

    def memory_pressure(self) -> str:
        # Fill memory to just under the limit (MEMORY_LIMIT, set for programs with this scenario), then make
        # engine calls that allocate, some crossing into Python: the limit is hit at an arbitrary point inside them.
        margin = self.rng.choice((256, 1024, 4096, 16384, 65536, 262144))
        calls = " ".join(f"pcall(function() {self.call_expr()} end)" for _ in range(3))
        return (f"local hog, margin = {{}}, {margin}\n"
                "while true do\n"
                "  local room = MEMORY_LIMIT - margin - collectgarbage('count') * 1024\n"
                "  if room <= 256 then break end\n"
                "  hog[#hog + 1] = string.rep('m', room > 4194304 and 1048576 or math.max(16, math.floor(room / 4)))\n"
                "end\n"
                f"for _ = 1, 3 do {calls} pcall(function() YGNodeCalculateLayout(X.node(), 10, 10, 1) end) "
                "pcall(require, 'data.mod') pcall(nvgCreateFont, X.ctx(), 'g' .. _, 'data/font.ttf') "
                "pcall(cjson.decode, '[1,2,3]') pcall(ui.LoadLayout, ui, 'data/layout.xml') end")

    # programs
    def step(self) -> Step:
        rng = self.rng
        if rng.random() < 0.3:
            label, code = self.scenario()
        else:
            label, code = "call", self.call_step()
        frame = 0 if rng.random() < 0.5 else rng.randrange(1, 16)
        return Step(code, frame=frame, raw=rng.random() < 0.05, label=label)


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
            + chunk(b"IEND", b""))


@lru_cache(maxsize=1)
def _font_bytes() -> bytes | None:
    """A real TrueType file to mutate (a small one: each program carries its own copy)."""
    from engine._fonts import ANONYMOUS_PRO

    try:
        return ANONYMOUS_PRO.path.read_bytes()
    except OSError:
        return None


def mutate(data: bytes, rng: random.Random, flips: int) -> bytes:
    """`data` with `flips` random bytes overwritten (and maybe truncated)."""
    buf = bytearray(data)
    for _ in range(flips):
        if buf:
            buf[rng.randrange(len(buf))] = rng.randrange(256)
    if rng.random() < 0.3 and buf:
        del buf[rng.randrange(len(buf)):]
    return bytes(buf)


XML_ATTRIBUTES = ("Name", "Position", "Size", "Min Size", "Max Size", "Layout Mode", "Layout Spacing",
                  "Layout Border", "Text", "Font", "Font Size", "Color", "Opacity", "Is Visible", "Priority",
                  "Clip Border", "Texture", "Image Rect", "Border", "Range", "Value", "Orientation", "Selection",
                  "Max Length", "Echo Character", "Horiz Alignment", "Vert Alignment", "Min Anchor", "Max Anchor",
                  "Enable Anchor", "Pivot", "Focus Mode", "Text Alignment", "Word Wrap", "Is Checked", "Scale",
                  "Rotation", "Hot Spot", "View Position", "Resize Border", "Layout Flex Scale", "Indent",
                  "Variables", "Bogus Attr")
XML_VALUES = ("0", "1", "10 20", "-1 -1", "2147483647 2147483647", "-2147483648 5", "1e999", "nan", "-inf",
              "0.5 0.5", "true", "false", "Horizontal", "Vertical", "Center", "&lt;&amp;&#x41;&#99999999;&#xD800;",
              "Font;Fonts/Anonymous Pro.ttf", "Font;data/junk.ttf", "Texture2D;Textures/UI.png", "Texture2D;",
              ";", "1 2 3 4 5 6", "", "  ", "x" * 300, "中文", "1e308 1e308", "0x10 0x20")
XML_TYPES = (*UI_TYPES, "Bogus", "", "Window", "Button", "Text")


def random_xml(rng: random.Random, depth: int = 0, max_depth: int = 6) -> str:
    """A layout or style document: nested <element>s with <attribute>s, styles that may refer to each other."""
    parts = []
    attrs = []
    if rng.random() < 0.8:
        attrs.append(f'type="{rng.choice(XML_TYPES)}"')
    if rng.random() < 0.3:
        attrs.append(f'style="{rng.choice(("A", "B", "Window", "Button", "none", ""))}"')
    if rng.random() < 0.15:
        attrs.append(f'internal="{rng.choice(("true", "false"))}"')
    if rng.random() < 0.1:
        attrs.append(f'popup="{rng.choice(("true", "false"))}"')
    if rng.random() < 0.1:
        attrs.append(f'index="{rng.choice(("0", "-1", "1e300", "99", "x"))}"')
    parts.append(f"<element {' '.join(attrs)}>")
    for _ in range(rng.randrange(0, 6)):
        parts.append(f'<attribute name="{rng.choice(XML_ATTRIBUTES)}" value="{rng.choice(XML_VALUES)}" />')
    if depth < max_depth:
        for _ in range(rng.randrange(0, 4)):
            parts.append(random_xml(rng, depth + 1, max_depth))
    parts.append("</element>")
    text = "".join(parts)
    if depth == 0 and rng.random() < 0.2:
        # damage: truncate, unbalance, or nest far too deep
        roll = rng.random()
        if roll < 0.4:
            text = text[: rng.randrange(len(text) + 1)]
        elif roll < 0.7:
            text = "<element>" * rng.choice((100, 300, 5000)) + text
        else:
            text = text.replace("</element>", "</elemnt>", 1)
    return text


def random_style(rng: random.Random) -> str:
    body = []
    for name in ("A", "B", "Window", "Button", "Text", "LineEdit", "ListView"):
        if rng.random() < 0.7:
            inner = random_xml(rng, 3, 5)
            style = rng.choice(("", ' style="A"', ' style="B"', f' style="{name}"'))
            body.append(inner.replace("<element", f'<element type="{name}"{style}', 1)
                        if 'type="' not in inner[:40] else inner)
    return "<elements>" + "".join(body) + "</elements>"


def generate(seed: int, steps: int | None = None) -> Program:
    """The program of `seed`: 6 to 20 steps and its data files."""
    rng = random.Random(seed)
    gen = Generator(rng)
    n = steps if steps is not None else rng.randrange(6, 21)
    program_steps = tuple(gen.step() for _ in range(n))
    files: list[tuple[str, bytes]] = [
        ("data/layout.xml", random_xml(rng).encode("utf-8")),
        ("data/style.xml", random_style(rng).encode("utf-8")),
        ("data/doc.json", rng.choice((b'{"a": [1, 2, 3], "b": {"c": null}}', b"[" * 3000, b'{"x": 1e400}',
                                      b"\xff\xfe\x00garbage", b'"\\ud800"'))),
        ("data/mod.lua", b"return {value = 1}"),
        ("data/img.png", mutate(_png(rng.choice((1, 64, 0, 2**31 - 1, 2**32 - 1)), 32), rng, rng.randrange(3))),
        ("data/junk.ttf", bytes(rng.randrange(256) for _ in range(rng.choice((0, 12, 100, 2000))))),
    ]
    font = _font_bytes()
    if font is not None:
        files.append(("data/font.ttf", mutate(font, rng, rng.choice((0, 1, 10, 200)))))
    pressure = any(s.label == "memory_pressure" for s in program_steps)
    return Program(seed=seed, steps=program_steps, files=tuple(files), scripted_input=rng.random() < 0.7,
                   memory_limit=PRESSURE_MEMORY_LIMIT if pressure else None)


# ----------------------------------------------------------------------------------------------------------------
# Running and judging
# ----------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Finding:
    kind: str            # crash | timeout | engine_error | leak | sandbox | internal
    signature: str       # what identifies the bug (for deduplication and minimisation)
    detail: str


def run_program(program: Program, wall_seconds: float = DEFAULT_WALL,
                settings: dict[str, Any] | None = None) -> dict[str, Any]:
    """The run report of `program` in a fresh engine subprocess; a dead worker becomes outcome 'crash'."""
    tmp = Path(tempfile.mkdtemp(prefix="grader-fuzz-"))
    try:
        game = program.write(tmp)
        merged: dict[str, Any] = {"seed": 1000 + program.seed % 100000, "instruction_budget": FUZZ_BUDGET}
        if program.memory_limit:
            merged["memory_limit"] = program.memory_limit
        merged.update(settings or {})
        request = RunRequest(game_dir=str(game), seconds=program.seconds, scripted_input=program.scripted_input,
                             settings=merged)
        try:
            return run_in_subprocess(request, wall_seconds=wall_seconds)
        except (BadInputError, SetupError) as exc:
            return {"outcome": "bad_input", "errors": [{"message": str(exc), "phase": "engine"}], "log": []}
        except EngineError as exc:
            return {"outcome": "crash", "errors": [{"message": str(exc), "phase": "engine"}], "log": []}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_INTERNAL = re.compile(r"^(?:E\S+ )?(engine/[\w/.-]+\.lua:\d+): (.*)$", re.DOTALL)
_TRACEBACK = re.compile(r"Traceback \(most recent call last\)|\bFile \"[^\"]+\.py\"|lupa\.|_lupa|LuaError")


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


def findings(report: dict[str, Any]) -> list[Finding]:
    """The findings in one run report (see the module docstring), deduplicated by signature, in order."""
    out: dict[str, Finding] = {}

    def add(kind: str, signature: str, detail: str) -> None:
        out.setdefault(f"{kind}:{signature}", Finding(kind, signature, detail[:2000]))

    outcome = report.get("outcome")
    errors = report.get("errors") or []
    if outcome == "crash":
        message = str(errors[0].get("message", "")) if errors else ""
        tail = [line for line in message.strip().splitlines() if line.strip()]
        add("crash", tail[-1][:200] if tail else "worker died", message)
    elif outcome == "timeout":
        add("timeout", "wall clock", str(errors[:1]))
    elif outcome == "bad_input":
        add("crash", "bad input: " + _first_line(str(errors[0].get("message", ""))) if errors else "bad input",
            str(errors))
    texts: list[str] = []
    for err in errors:
        msg = str(err.get("message", ""))
        if err.get("phase") == "engine" and outcome not in ("crash", "bad_input"):
            add("engine_error", _signature(msg), msg + "\n" + str(err.get("traceback", "")))
        if outcome != "crash":
            texts.append(msg)
    for entry in report.get("log") or []:
        texts.append(str(entry.get("message", "")))
    for text in texts:
        if CANARY in text or "LEAK canary" in text:
            add("sandbox", "canary read", text)
        if "LEAK " in text:
            add("leak", _first_line(text)[text.find("LEAK "):][:80], text)
        if _TRACEBACK.search(text):
            add("leak", "python traceback", text)
        m = _INTERNAL.match(text.strip())
        if m and not _deliberate(m.group(2)):
            add(classify_internal(m.group(2)), _signature(text), text)
    platform = report.get("platform") or {}
    if CANARY in str(platform):
        add("sandbox", "canary in platform evidence", str(platform)[:500])
    return list(out.values())


def _deliberate(message: str) -> bool:
    """Errors the engine raises on purpose from its own code: limits and aborts."""
    return message.startswith(("grader: ", "UrhoX API not implemented"))


@lru_cache(maxsize=1)
def api_names() -> frozenset[str]:
    """Every name a game calls: global functions, methods, classes (and cjson's and require's own)."""
    registry = default_registry()
    names = set(registry.functions) | set(registry.classes) | {"require", "encode", "decode"}
    for decl in registry.classes.values():
        names.update(decl.methods)
    return frozenset(names)


_NAMED = re.compile(r"bad argument #\d+ to '([\w.:]+)'|^([\w.:]+): |^(?:invalid 'self'|a UIElement was expected)")


def classify_internal(body: str) -> str:
    """'internal' for a Lua runtime error inside the engine (the message does not say what the game did wrong),
    'misplaced' for the engine's own message about a named API that only points at the wrong line."""
    if body.startswith(("attempt to ", "C stack overflow", "stack overflow", "table index is ", "invalid order",
                        "string length overflow", "number has no integer representation")):
        return "internal"
    m = _NAMED.search(body)
    if m:
        name = m.group(1) or m.group(2)
        if name is None or name.split(":")[0].split(".")[-1] in api_names() or name.split(":")[-1] in api_names():
            return "misplaced"
    return "internal"


def _signature(text: str) -> str:
    """File:line of an internal error, else its first line with numbers blanked."""
    m = re.search(r"engine/[\w/.-]+\.lua:\d+", text)
    if m:
        return m.group(0)
    return re.sub(r"\d+", "N", _first_line(text))[:120]


def evidence_digest(report: dict[str, Any]) -> str:
    return str(run_evidence(report)["digest"])


def minimize(program: Program, wanted: Finding, run: Callable[[Program], dict[str, Any]] = run_program,
             budget: int = 80) -> Program:
    """Drop runs of steps (halves, quarters, ... single steps), then single lines of the steps left, while the
    program still shows `wanted`; at most `budget` engine runs."""
    runs = 0

    def shows(p: Program) -> bool:
        nonlocal runs
        runs += 1
        return any(f.kind == wanted.kind and f.signature == wanted.signature for f in findings(run(p)))

    current = program
    chunk = max(1, len(current.steps) // 2)
    while runs < budget and len(current.steps) > 1:
        removed, start = False, 0
        while start < len(current.steps) and runs < budget:
            keep = [j for j in range(len(current.steps)) if not start <= j < start + chunk]
            candidate = current.keep(keep)
            if keep and shows(candidate):
                current, removed = candidate, True
            else:
                start += chunk
        if not removed:
            if chunk == 1:
                break
            chunk = max(1, chunk // 2)
    for index in range(len(current.steps)):
        i = len(current.steps[index].code.splitlines()) - 1
        while i >= 0 and runs < budget:
            lines = current.steps[index].code.splitlines()
            if len(lines) <= 1:
                break
            step = replace(current.steps[index], code="\n".join(lines[:i] + lines[i + 1:]))
            candidate = replace(current, steps=(*current.steps[:index], step, *current.steps[index + 1:]))
            if shows(candidate):
                current = candidate
            i -= 1
    return current
