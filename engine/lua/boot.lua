-- boot.lua: runs first, in a fresh Lua state, with the pristine standard library as _ENV.
-- It builds E, the privileged environment shared by the engine's own modules, and the
-- sandbox environments for the game (agent) and the battery.  Nothing here is reachable
-- from the game's code: the game only ever sees the tables made by make_game_env.
--
-- Booting has two steps, in this order in every process (engine/_lua.py):
--   1. generic: this file, the sandbox, the runtime modules, the binder and the harness run with the host's
--      run-independent parts (the registry, stock resources, the host functions); nothing may read the run's
--      settings yet (E.host.config raises when read);
--      It ends with the game's and the battery's environments (E.finish_boot).
--   2. E.configure(run): the run's settings arrive (the game's files stay on disk: the host reads one when the game
--      opens it, engine/lua/runtime/59_files.lua), each module's configure step runs (in the
--      order the modules registered them with E.on_configure), then the seed and the instruction budget.
-- A pre-booted engine (engine/_zygote.py) does step 1 once and step 2 in each forked run; a cold process does
-- both.  The Lua state sees the same sequence of allocations either way, so the evidence cannot tell them apart.
local host = ...

local E = {}
E.host = host
E.E = E

-- Pristine copies of everything the engine uses, captured before any game code runs.
for _, name in ipairs({"assert", "error", "ipairs", "next", "pairs", "pcall", "rawequal", "rawget", "rawlen",
                      "rawset", "select", "setmetatable", "getmetatable", "tonumber", "tostring", "type", "xpcall",
                      "load", "collectgarbage", "_VERSION"}) do
  E[name] = _G[name]
end
local function copy(t)
  local out = {}
  for k, v in pairs(t) do out[k] = v end
  return out
end
E.copy = copy
-- Keys of a table in sorted order: iteration that never depends on table layout.
function E.sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end
E.string = copy(string)
E.table = copy(table)
E.math = copy(math)
E.utf8 = copy(utf8)
E.coroutine = copy(coroutine)
E.os = copy(os)
E.debug = copy(debug)

local error, type, setmetatable, rawget, rawset, pairs, ipairs, select, tostring =
  error, type, setmetatable, rawget, rawset, pairs, ipairs, select, tostring
local sformat, sbyte, ssub, sfind, sgsub, srep = string.format, string.byte, string.sub, string.find, string.gsub, string.rep
local tconcat, tsort, tunpack, tinsert = table.concat, table.sort, table.unpack, table.insert
local dgetmt, dtraceback = debug.getmetatable, debug.traceback
local raw_pcall, raw_xpcall, raw_load = pcall, xpcall, load
local co_create, co_resume, co_wrap, co_status, co_running = coroutine.create, coroutine.resume, coroutine.wrap,
  coroutine.status, coroutine.running
E.dgetmt = dgetmt
-- The string metatable is shared by every string in the state: games must not reach it.
E.string_mt = dgetmt("")
E.string_mt.__metatable = false

-- The run's settings: filled in by E.configure; read before that, they raise (a module that read one while
-- booting would keep a value of no run in particular, so the boot fails loudly instead).
local config = setmetatable({}, {__index = function(_, key)
  error("engine: setting '" .. tostring(key) .. "' read while booting, before E.configure", 2)
end})
host.config = config
E.REGISTRY = host.registry
local CONFIGURE = {}
-- fn(config) runs at E.configure, after the run's settings are in `config`, in registration order.
function E.on_configure(fn) CONFIGURE[#CONFIGURE + 1] = fn end

----------------------------------------------------------------------------------------------------
-- Run state and limits
----------------------------------------------------------------------------------------------------
local ABORT = setmetatable({}, {__tostring = function() return "grader: run aborted" end})
E.ABORT = ABORT
E.state = {
  frame = 0,            -- frames completed
  aborted = nil,        -- nil | "budget" | "memory" | "exit" | "missing_api" (string: why the run stopped)
  errors = {},          -- {message, traceback, frame, phase}
  log = {},             -- {level, message, frame}
  missing = {},         -- set of missing API names touched
  missing_order = {},
}
local state = E.state

-- The instruction budget is counted by the VM (engine/native/budget.c): game code's loops charge the length of
-- their body at each backward jump and each call of a game function charges 1; the engine's own code (loaded
-- through E.load_module and marked with debug.unmetered) is never charged, so the engine's work costs nothing.
-- When the budget runs out the VM calls budget_out and raises what it returns; from then on the first game (or
-- battery) instruction to run, in any coroutine, raises again, so no pcall can swallow the abort.  The engine's
-- own code runs on, to unwind.
local dsetbudget, dunmetered = debug.setbudget, debug.unmetered
local dgetinfo, ssub_ = debug.getinfo, string.sub
local function budget_out()
  if not state.aborted then state.aborted = "budget" end
  return ABORT
end
E.unmetered = dunmetered
function E.arm_budget(units) dsetbudget(units, budget_out) end
function E.disarm_budget() dsetbudget(nil) end

function E.abort(reason)
  if not state.aborted then state.aborted = reason end
  error(ABORT, 0)
end

-- Text the game controls ends up in the evidence: its prints, its error messages, the names it passed that the
-- engine logs.  Each entry is clipped (at a UTF-8 boundary, saying how long it was), so a game cannot make every
-- frame's log entry megabytes long, or the report as big as its memory.
local MAX_TEXT = 8192
function E.clip_text(s, limit)
  limit = limit or MAX_TEXT
  if type(s) ~= "string" or #s <= limit then return s end
  local cut = limit
  while cut > 0 do
    local b = sbyte(s, cut + 1)
    if b < 0x80 or b >= 0xC0 then break end
    cut = cut - 1
  end
  return ssub(s, 1, cut) .. sformat("... (%d bytes)", #s)
end
local clip_text = E.clip_text

function E.log(level, message)
  local entry = {level = level, message = clip_text(message), frame = state.frame}
  state.log[#state.log + 1] = entry
end

-- A member declared by UrhoX but not implemented here: loud, named, counted.
-- Record `name` as missing API without raising (the engine went on without it, as with a scene file's component).
function E.record_missing(name)
  if not state.missing[name] then
    state.missing[name] = true
    state.missing_order[#state.missing_order + 1] = name
  end
end
function E.missing(name)
  E.record_missing(name)
  error(sformat("UrhoX API not implemented by the grader engine: %s", name), 3)
end

-- Raise `msg` at the game's line: the first caller outside the engine's own Lua.  For argument checks that sit at
-- different depths below the API function the game called.
function E.raise_at_game(msg)
  local level = 2
  while true do
    local info = dgetinfo(level, "S")
    if info == nil then level = 0; break end
    if info.what == "C" or ssub_(info.source, 1, 8) ~= "@engine/" then break end
    level = level + 1
  end
  error(msg, level)
end
-- A game's argument of the wrong type, in tolua's words ("bad argument #2 to 'F' (number expected, got nil)").
function E.arg_error(n, fname, expected, v)
  E.raise_at_game(sformat("bad argument #%d to '%s' (%s expected, got %s)", n, fname, expected, type(v)))
end
-- A number, or the game's error (no conversion from strings, unlike E.tolua_number).
function E.number_arg(v, fname, n)
  if type(v) ~= "number" then E.arg_error(n, fname, "number", v) end
  return v
end
-- A value of engine class `class_name`, or the game's error.
function E.class_arg(v, class_name, fname, n)
  if not E.is(v, class_name) then E.arg_error(n, fname, class_name, v) end
  return v
end

-- Errors: record with message, traceback and frame.
local function is_memory_error(err)
  return err == "not enough memory"
end
function E.error_text(err)
  if type(err) == "string" then return err end
  local mt = dgetmt(err)
  if mt and mt.__tostring then return tostring(err) end
  return sformat("(error object is a %s value)", type(err))
end
local function on_error(err)
  if err == ABORT then return ABORT end
  if is_memory_error(err) then
    if not state.aborted then state.aborted = "memory" end
    return ABORT
  end
  return {message = E.error_text(err), traceback = dtraceback("", 2)}
end

-- Call fn(...) for the engine; a Lua error in the game is recorded and swallowed, an abort propagates.
function E.protected(phase, fn, ...)
  local ok, err = raw_xpcall(fn, on_error, ...)
  if ok then return true end
  if type(err) ~= "table" then
    -- memory errors skip the message handler; a failing handler leaves a string too
    if is_memory_error(err) and not state.aborted then state.aborted = "memory" end
    if err ~= ABORT then err = {message = E.error_text(err), traceback = ""} end
  end
  if err == ABORT or state.aborted then error(ABORT, 0) end
  state.errors[#state.errors + 1] = {message = clip_text(err.message), traceback = clip_text(err.traceback),
                                     frame = state.frame, phase = phase}
  return false
end

-- Calls into the Python host that hand Lua values back (strings, tables, long tuples) run without the game's
-- memory limit: lupa cannot recover from an allocation failure while it converts a Python value (engine/_engine.py,
-- Engine._unmeter).  The limit applies again as soon as the call returns.  A host error reaches the game as text,
-- never as the Python exception object lupa would hand over.
local host_unmeter, host_meter = host.unmeter, host.meter
local function host_done(ok, ...)
  host_meter()
  if not ok then
    local err = ...
    error(type(err) == "string" and err or "grader: the engine's host failed (" .. tostring(err) .. ")", 0)
  end
  return ...
end
function E.host_call(fn, ...)
  if host_unmeter == nil then return fn(...) end
  host_unmeter()
  return host_done(raw_pcall(fn, ...))
end

----------------------------------------------------------------------------------------------------
-- Classes: implementations register here; the binder (bind.lua) turns registry + implementations
-- into the tables games use.
----------------------------------------------------------------------------------------------------
E.IMPL = {}
function E.class(name)
  local impl = E.IMPL[name]
  if not impl then
    impl = {name = name, methods = {}, ops = {}, statics = {}, staticfunctions = {}, mt = {}}
    E.IMPL[name] = impl
  end
  return impl
end
-- Work that needs every class bound (run by bind.lua at its end, in registration order).
E.DEFERRED = {}
function E.defer(fn) E.DEFERRED[#E.DEFERRED + 1] = fn end
E.FUNCTIONS = {}   -- global functions by name
E.GLOBALS = {}     -- global objects by name (values or functions returning values)

function E.is(value, class_name)
  local mt = dgetmt(value)
  return mt ~= nil and mt.__name == class_name
end

----------------------------------------------------------------------------------------------------
-- Module loading for the engine's own Lua (privileged, env = E)
----------------------------------------------------------------------------------------------------
function E.load_module(chunkname, source)
  local fn, err = raw_load(source, "@" .. chunkname, "t", E)
  if not fn then error(err, 0) end
  return dunmetered(fn)()
end

----------------------------------------------------------------------------------------------------
-- Step 2 of the boot: the run's settings (see the top of this file).
----------------------------------------------------------------------------------------------------
-- The end of step 1: the game's and the battery's environments depend on no setting (their functions read the
-- settings when called), so they are made once here rather than in every run.
function E.finish_boot()
  E.game_env = E.make_game_env()
  E.battery_env = E.make_battery_env()
end

local configured = false
function E.configure(run)
  if configured then error("engine: E.configure runs once per state", 2) end
  configured = true
  setmetatable(config, nil)
  for _, key in ipairs(E.sorted_keys(run.config)) do config[key] = run.config[key] end
  for _, fn in ipairs(CONFIGURE) do fn(config) end
  E.math.randomseed(config.seed)
  E.arm_budget(config.instruction_budget)
  return E.game_env
end

return E
