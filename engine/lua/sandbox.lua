-- sandbox.lua: the game's environment.  Every function here is a closure over pristine values
-- captured at boot; the game can replace its own globals but never reach E or the battery.
local state, ABORT, config = E.state, E.ABORT, E.host.config
local error, type, select, rawget, setmetatable, tostring, pairs = error, type, select, rawget, setmetatable,
  tostring, pairs
local raw_pcall, raw_xpcall, raw_load = pcall, xpcall, load
local co_create, co_resume, co_status, co_running = coroutine.create, coroutine.resume, coroutine.status,
  coroutine.running
local tconcat, ssub, sformat = table.concat, string.sub, string.format
local os_date, os_difftime = os.date, os.difftime
local m_random, m_randomseed, m_floor = math.random, math.randomseed, math.floor
local is_memory_error = function(err) return err == "not enough memory" end

local function after_protected(ok, ...)
  if not ok then
    local err = ...
    if err == ABORT or state.aborted then error(ABORT, 0) end
    if is_memory_error(err) then E.abort("memory") end
  end
  return ok, ...
end

local function strip_dump(lib)
  local out = copy(lib)
  out.dump = nil
  return out
end

-- Virtual time for os.*: a fixed epoch plus simulated time.
local function virtual_now()
  return config.epoch + m_floor(E.sim_time())
end

-- os.time{...} read as UTC, so no time zone of the machine leaks in.
local function days_from_civil(y, mo, d)
  y = mo <= 2 and y - 1 or y
  local era = (y >= 0 and y or y - 399) // 400
  local yoe = y - era * 400
  local doy = (153 * (mo + (mo > 2 and -3 or 9)) + 2) // 5 + d - 1
  local doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
  return era * 146097 + doe - 719468
end
function E.utc_time(t)
  local function field(k, default)
    local v = t[k]
    if v == nil then
      if default == nil then error(sformat("field '%s' missing in date table", k), 3) end
      return default
    end
    return m_floor(v)
  end
  local y, mo, d = field("year"), field("month"), field("day")
  local h, mi, s = field("hour", 12), field("min", 0), field("sec", 0)
  y = y + (mo - 1) // 12
  mo = (mo - 1) % 12 + 1
  return days_from_civil(y, mo, 1) * 86400 + (d - 1) * 86400 + h * 3600 + mi * 60 + s
end

-- Urho3D's LuaScript adds five functions to `coroutine` (its LuaScript/Coroutine.pkg): start(f) creates and resumes
-- a coroutine; sleep(seconds) suspends the running one until that much game time has passed; waitevent(name)
-- until sendevent(name); update(step) adds to the game time and resumes the sleepers it woke. Urho3D calls update
-- with each PostUpdate's step ahead of the game's own PostUpdate handlers (E.coroutine_update, 90_frame.lua), and
-- ignores what a resumed coroutine returns, errors included. Its sleepers wake in its table's hash order; here in
-- the order they fell asleep. Under Lua 5.4 `coroutine.running()` is never nil, so a sleep or wait outside a
-- coroutine raises Lua's own "attempt to yield from outside a coroutine", as it does in UrhoX.
local function add_urho3d_coroutines(co)
  local co_yield = coroutine.yield
  local total, sleepers, waiters = 0.0, {}, {}
  local function running()   -- called (never tail-called) by sleep and waitevent: level 3 is their caller
    local c, main = co_running()
    if main then error("attempt to yield from outside a coroutine", 3) end
    return c
  end
  co.start = function(f)
    if f == nil then return nil end
    return co.resume(co_create(f))
  end
  co.sleep = function(seconds)
    local c = running()
    sleepers[#sleepers + 1] = {c, total + seconds}
    return co_yield(c)
  end
  co.waitevent = function(name)
    local c = running()
    local list = waiters[name]
    if list == nil then list = {}; waiters[name] = list end
    list[#list + 1] = {c}
    return co_yield(c)
  end
  co.sendevent = function(name)
    local list = waiters[name]
    if list == nil then return end
    waiters[name] = nil
    for _, entry in ipairs(list) do co.resume(entry[1]) end
  end
  co.update = function(step)
    total = total + step
    local woken, kept = {}, {}
    for _, entry in ipairs(sleepers) do
      if entry[2] < total then woken[#woken + 1] = entry[1] else kept[#kept + 1] = entry end
    end
    sleepers = kept
    for _, c in ipairs(woken) do co.resume(c) end
  end
  local update = co.update
  E.coroutine_update = function(step) return update(step) end
end

function E.make_game_env()
  local G = {}
  for _, name in ipairs({"assert", "error", "ipairs", "next", "pairs", "rawequal", "rawget", "rawlen", "rawset",
                         "select", "tonumber", "tostring", "type", "getmetatable", "_VERSION"}) do
    G[name] = E[name]
  end
  G._G = G
  G.pcall = function(f, ...) return after_protected(raw_pcall(f, ...)) end
  G.xpcall = function(f, handler, ...)
    local function guarded(err)
      if err == ABORT or state.aborted or is_memory_error(err) then return err end
      return handler(err)
    end
    return after_protected(raw_xpcall(f, guarded, ...))
  end
  -- Finalizers would run game code at whatever moment the collector picks, inside engine code and outside the
  -- budget's accounting.  A metatable with __gc is accepted (urhox-libs/UI propagates one) but the object is
  -- never marked for finalization: Lua only marks it when __gc is present at setmetatable time, so the field
  -- is lifted for that call.  Its finalizer never runs, as if every run ended before the object was collected.
  local gc_warned = false
  G.setmetatable = function(t, mt)
    if type(mt) == "table" and rawget(mt, "__gc") ~= nil then
      if not gc_warned then
        gc_warned = true
        E.log("WARNING", "__gc finalizers never run in the grader's engine (the metatable is kept)")
      end
      local gc = rawget(mt, "__gc")
      rawset(mt, "__gc", nil)
      local ok, result = pcall(setmetatable, t, mt)
      rawset(mt, "__gc", gc)
      if not ok then error(result, 2) end
      return result
    end
    return setmetatable(t, mt)
  end
  G.print = function(...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    E.log("INFO", tconcat(parts, "\t"))
  end
  G.load = function(chunk, chunkname, _mode, env)
    if select("#", _mode, env) >= 2 and env ~= nil then
      return raw_load(chunk, chunkname, "t", env)
    end
    return raw_load(chunk, chunkname, "t", G)
  end
  G.collectgarbage = function(opt, ...)
    opt = opt or "collect"
    if opt == "count" or opt == "collect" or opt == "step" or opt == "isrunning" then
      return collectgarbage(opt, ...)
    end
    return 0
  end

  local co = copy(coroutine)
  -- UrhoX's engine is C++: a callback or metamethod the engine calls cannot yield across it ("attempt to yield
  -- across a C-call boundary").  Here the engine is Lua, so a yield would suspend it halfway (an event half sent,
  -- a layout half loaded) and leave it so if the coroutine is never resumed: refused the same way.  The sandbox's
  -- own pcall and xpcall (engine/sandbox.lua) stand for Lua's and let yields through.
  local co_yield, dgetinfo = coroutine.yield, debug.getinfo
  local ENGINE_CORE = {["@engine/boot.lua"] = true, ["@engine/bind.lua"] = true, ["@engine/require.lua"] = true}
  co.yield = function(...)
    local level = 2
    while true do
      local info = dgetinfo(level, "S")
      if info == nil then break end
      local source = info.source
      if ENGINE_CORE[source] or ssub(source, 1, 16) == "@engine/runtime/" then
        error("attempt to yield across a C-call boundary", 2)
      end
      level = level + 1
    end
    return co_yield(...)
  end
  co.create = co_create   -- the VM counts every coroutine's instructions against the same budget
  co.resume = function(c, ...)
    return after_protected(co_resume(c, ...))
  end
  co.wrap = function(f)
    local c = co.create(f)
    return function(...)
      local function finish(ok, ...)
        if not ok then
          local err = ...
          if err == ABORT or state.aborted then error(ABORT, 0) end
          if is_memory_error(err) then E.abort("memory") end
          error(err, 0)
        end
        return ...
      end
      return finish(co_resume(c, ...))
    end
  end
  add_urho3d_coroutines(co)
  G.coroutine = co

  G.string = strip_dump(string)
  G.table = copy(table)
  G.utf8 = copy(utf8)
  local m = copy(math)
  -- UrhoX keeps Lua 5.1's math functions; games call them unguarded.
  m.pow = function(x, y) return x ^ y end
  m.atan2 = function(y, x) return math.atan(y, x) end
  m.cosh = function(x) return (math.exp(x) + math.exp(-x)) / 2 end
  m.sinh = function(x) return (math.exp(x) - math.exp(-x)) / 2 end
  m.tanh = function(x) local a, b = math.exp(x), math.exp(-x); return (a - b) / (a + b) end
  m.log10 = function(x) return math.log(x, 10) end
  m.ldexp = function(x, e) return x * 2.0 ^ e end
  m.frexp = function(x)
    if x == 0 then return 0.0, 0 end
    local e = m_floor(math.log(math.abs(x), 2)) + 1
    local f = x / 2.0 ^ e
    if math.abs(f) >= 1 then f, e = f / 2, e + 1 elseif math.abs(f) < 0.5 then f, e = f * 2, e - 1 end
    return f, e
  end
  m.random = m_random
  m.randomseed = function(...)
    if select("#", ...) == 0 then return m_randomseed(config.seed) end
    return m_randomseed(...)
  end
  G.math = m
  G.os = {
    time = function(t)
      if t == nil then return virtual_now() end
      return E.utc_time(t)
    end,
    clock = function() return E.sim_time() end,
    date = function(fmt, t)
      fmt = fmt or "%c"
      if ssub(fmt, 1, 1) ~= "!" then fmt = "!" .. fmt end
      return os_date(fmt, t or virtual_now())
    end,
    difftime = os_difftime,
    getenv = function() return nil end,
  }
  G.debug = {traceback = debug.traceback}
  G.package = {loaded = {}, preload = {}, path = "scripts/?.lua;?.lua", config = "/\n;\n?\n!\n-\n"}
  G.require = E.make_require(G)
  E.install_api(G, true)
  for _, name in ipairs(E.sorted_keys(E.EXTRA_GLOBALS or {})) do G[name] = E.EXTRA_GLOBALS[name]() end
  return G
end
