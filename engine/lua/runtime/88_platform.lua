-- Platform services as deterministic fakes: the shared core (the services themselves are in 88_platform_*.lua).
--
-- One in-memory world per run, seeded from the `services` setting (engine/_platform.py; docs/platform.md):
-- accounts with their cloud data, the ads' scripted outcomes, scripted HTTP responses and injected failures.
-- Nothing ever touches a network.  Every request a game makes is appended to the call log (the run's `platform`
-- evidence) and answered on a later frame, never inside the call: answers are delivered early in their due frame
-- (after BeginFrame, before input events and Update), in call order.
local error, type, tostring, tonumber, ipairs, next, select = error, type, tostring, tonumber, ipairs, next, select
local sformat, sbyte, ssub, sgsub, tconcat, tsort, tpack, tunpack = string.format, string.byte, string.sub,
  string.gsub, table.concat, table.sort, table.pack, table.unpack
local mtype, mfloor, utf8len = math.type, math.floor, utf8.len
local clock = E.clock

local seed = {}   -- the run's `services` world (E.configure, at the end of this file's accounts section)
local P = {}
E.platform = P

-- Bounds on everything a game can grow (docs/platform.md lists them).  The request rates and the batch size are
-- the ones TapTap documents for its cloud; the others are the grader's own.
local LIMITS = {
  log_entries = 2000,          -- calls kept in the evidence (the rest are counted as dropped)
  log_text = 200,              -- bytes of one call's rendered arguments or result
  key_bytes = 128,             -- a cloud key
  keys_per_user = 1000,        -- keys of one user's values, and of its iscores
  value_bytes = 256 * 1024,    -- one stored value, encoded
  users = 10000,               -- accounts (serverCloud may write to any user id)
  batch_ops = 1000,            -- operations in one BatchSet/BatchCommit, keys in one BatchGet
  rank_count = 1000,           -- entries one GetRankList may ask for
  reads_per_minute = 300,      -- cloud reads per simulated minute
  writes_per_minute = 300,     -- cloud writes per simulated minute
  bytes_per_minute = 48 * 1024 * 1024,   -- cloud bytes written per simulated minute
  pending = 10000,             -- requests waiting for their answer
  records_per_user = 1000,     -- list entries, items and messages of one user (each)
  http_pending = 256,          -- HTTP requests in flight
  http_body_bytes = 1024 * 1024,
  nickname_ids = 1000,         -- user ids in one nickname query
}
P.LIMITS = LIMITS
-- Error codes the fakes answer with (besides injected ones): TapTap documents -429 and the nickname query's
-- -1/-2; the others are the grader's.
local CODES = {failure = -1, timeout = -2, bad_request = -400, insufficient = -402, not_found = -404,
  too_large = -413, rate = -429}
P.CODES = CODES
P.latency = 2   -- the world's network.latency_frames (E.configure)

----------------------------------------------------------------------------------------------------
-- Rendering arguments and results for the log: deterministic (sorted keys, no addresses), short, valid UTF-8.
----------------------------------------------------------------------------------------------------
local ESCAPES = {['"'] = '\\"', ["\\"] = "\\\\", ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t"}
local function quote(s)
  local valid = utf8len(s) ~= nil
  local body = sgsub(s, "[%c\"\\\128-\255]", function(c)
    local e = ESCAPES[c]
    if e then return e end
    local b = sbyte(c)
    if b >= 128 and valid then return c end
    return sformat("\\x%02X", b)
  end)
  return '"' .. body .. '"'
end
local TYPE_ORDER = {number = 1, string = 2, boolean = 3}
local function key_less(a, b)
  local ta, tb = TYPE_ORDER[type(a)] or 4, TYPE_ORDER[type(b)] or 4
  if ta ~= tb then return ta < tb end
  if ta <= 2 then return a < b end
  return false
end
local MAX_RENDER_KEYS = 32
local render
function render(v, depth)
  local t = type(v)
  if t == "string" then return quote(v) end
  if t == "number" then
    if mtype(v) == "integer" then return tostring(v) end
    return sformat("%.17g", v)
  end
  if t == "boolean" or t == "nil" then return tostring(v) end
  if t == "function" then return "<function>" end
  if t ~= "table" then return "<" .. t .. ">" end
  local mt = E.dgetmt(v)
  local name = mt and E.rawget(mt, "__name")
  if type(name) == "string" then return "<" .. name .. ">" end
  if depth >= 3 then return "{...}" end
  local keys, more = {}, false
  for k in next, v do
    if #keys >= MAX_RENDER_KEYS then more = true; break end
    keys[#keys + 1] = k
  end
  tsort(keys, key_less)
  local parts, seq = {}, true
  for i, k in ipairs(keys) do if k ~= i then seq = false end end
  for i, k in ipairs(keys) do
    local value = render(E.rawget(v, k), depth + 1)
    if seq then parts[i] = value
    elseif type(k) == "string" and k:match("^[%a_][%w_]*$") then parts[i] = k .. "=" .. value
    else parts[i] = "[" .. render(k, depth + 1) .. "]=" .. value end
  end
  if more then parts[#parts + 1] = "..." end
  return "{" .. tconcat(parts, ",") .. "}"
end
-- Cut at a character boundary, never inside a UTF-8 sequence.
local function clip(s, limit)
  if #s <= limit then return s end
  local cut = limit - 3
  while cut > 0 do
    local b = sbyte(s, cut + 1)
    if b == nil or b < 0x80 or b >= 0xC0 then break end
    cut = cut - 1
  end
  return ssub(s, 1, cut) .. "..."
end
-- The values ... rendered and joined with ", ", clipped to the log's limit.
function P.text(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = render((select(i, ...)), 0) end
  return clip(tconcat(parts, ", "), LIMITS.log_text)
end
P.clip = clip

----------------------------------------------------------------------------------------------------
-- The call log
----------------------------------------------------------------------------------------------------
local calls, dropped, seq = {}, 0, 0
-- Log a call: its sequence number, the frame it was made in, service, method and arguments.  `due` is the frame
-- its answer is delivered; `outcome` is pending until then (ok, error, timeout, cancelled).
function P.begin(service, method, args)
  seq = seq + 1
  local entry = {seq = seq, frame = clock.frame, service = service, method = method, args = args or "",
    due = clock.frame, outcome = "pending", result = ""}
  if #calls < LIMITS.log_entries then
    calls[#calls + 1] = entry
  else
    dropped = dropped + 1
    if dropped == 1 then
      E.log("WARNING", sformat("platform call log full (%d calls): later calls are counted, not logged",
        LIMITS.log_entries))
    end
  end
  return entry
end
function P.finish(entry, outcome, result)
  entry.outcome = outcome
  entry.result = clip(result or "", LIMITS.log_text)
end
function P.evidence()
  local out = {}
  for i, e in ipairs(calls) do
    out[i] = {seq = e.seq, frame = e.frame, service = e.service, method = e.method, args = e.args, due = e.due,
      outcome = e.outcome, result = e.result}
  end
  return {calls = out, dropped = dropped}
end

----------------------------------------------------------------------------------------------------
-- The scheduler: answers wait in one bucket per due frame, in call order.
----------------------------------------------------------------------------------------------------
local buckets, pending = {}, 0
function P.pending() return pending end
-- Run fn at the start of frame (now + latency); latency >= 1, so never inside the call.  Returns the due frame.
function P.schedule(latency, fn)
  if pending >= LIMITS.pending then
    error(sformat("grader: more than %d platform requests are waiting for an answer", LIMITS.pending), 4)
  end
  if latency < 1 then latency = 1 end
  local due = clock.frame + latency
  local bucket = buckets[due]
  if bucket == nil then bucket = {}; buckets[due] = bucket end
  bucket[#bucket + 1] = fn
  pending = pending + 1
  return due
end
local function deliver()
  local frame = clock.frame
  local bucket = buckets[frame]
  if bucket == nil then return end
  buckets[frame] = nil
  for i = 1, #bucket do
    pending = pending - 1
    bucket[i]()
  end
end
-- Delivered where a frame processes its input (after the BeginFrame event, before input events and Update):
-- a chained hook, so frames with nothing due cost one table lookup.
local process_input = E.process_input
E.process_input = function(...)
  if buckets[clock.frame] ~= nil then deliver() end
  return process_input(...)
end

-- Call events[name](...) as game code (errors recorded, the other answers still delivered).
function P.call_event(phase, events, name, ...)
  if events == nil then return end
  local args = tpack(...)
  E.protected(phase, function()
    local fn = events[name]
    if fn == nil then return end
    local mt = type(fn) ~= "function" and E.dgetmt(fn)
    if mt ~= false and (mt == nil or mt.__call == nil) then
      error(sformat("%s: the events table's '%s' is a %s, not a function", phase, tostring(name), type(fn)), 0)
    end
    fn(tunpack(args, 1, args.n))
  end)
end
function P.call(phase, fn, ...)
  if fn == nil then return end
  local mt = type(fn) ~= "function" and E.dgetmt(fn)
  if mt ~= false and (mt == nil or mt.__call == nil) then
    local what = type(fn)
    E.protected(phase, function() error(sformat("%s: the callback is a %s, not a function", phase, what), 0) end)
    return
  end
  E.protected(phase, fn, ...)
end

----------------------------------------------------------------------------------------------------
-- Argument checks: wrong types are Lua errors in the game, as the C++ bindings raise them.
--
-- P.raise(msg) raises at the game's line (E.raise_at_game), since the checks sit at different depths below the
-- function the game called (batch operations check inside helpers of helpers).
P.raise = E.raise_at_game
----------------------------------------------------------------------------------------------------
local function bad_arg(n, fname, expected, got)
  P.raise(sformat("bad argument #%d to '%s' (%s expected, got %s)", n, fname, expected, type(got)))
end
function P.check_key(key, fname, n)
  if type(key) ~= "string" then bad_arg(n, fname, "string", key) end
  return key
end
function P.check_int(v, fname, n)
  if type(v) ~= "number" then bad_arg(n, fname, "number", v) end
  if mtype(v) == "integer" then return v end
  if v ~= v or v == math.huge or v == -math.huge then bad_arg(n, fname, "finite number", v) end
  local i = v >= 0 and mfloor(v) or -mfloor(-v)   -- C++'s conversion truncates
  return math.tointeger(i) or bad_arg(n, fname, "64-bit integer", v)
end
function P.check_uid(v, fname, n)
  local id = tonumber(v)
  if id == nil then bad_arg(n, fname, "user id", v) end
  return P.check_int(id, fname, n)
end
function P.check_events(events, fname, n)
  if events ~= nil and type(events) ~= "table" then bad_arg(n, fname, "table of callbacks", events) end
  return events
end
-- The record of a platform object of class `cname`: a method called on an object of another class (a method
-- taken from one object and called on another) is the game's error, not a record of the wrong shape.
function P.rec(self, cname)
  local r = E.REC[self]
  local mt = E.dgetmt(self)
  if r == nil or mt == nil or mt.__name ~= cname then
    P.raise(sformat("invalid 'self' in call to %s method (got %s)", cname,
      mt and type(mt.__name) == "string" and mt.__name or type(self)))
  end
  return r
end
function P.check_callback(fn, fname, n)
  if fn ~= nil and type(fn) ~= "function" then bad_arg(n, fname, "function", fn) end
  return fn
end

----------------------------------------------------------------------------------------------------
-- Injected failures ([[failures]] in the world) and the documented request-rate limits.
----------------------------------------------------------------------------------------------------
local rules = {}   -- the world's failures (E.configure)
local rule_counts = {}
-- The failure rule that fires for this call, if any; `calls` numbers the calls matching each rule.
function P.injected(service, method)
  local fired
  for i, rule in ipairs(rules) do
    if rule.service == service and (rule.method == "*" or rule.method == method) then
      local n = (rule_counts[i] or 0) + 1
      rule_counts[i] = n
      local hit = rule.calls == nil
      if not hit then
        for _, c in ipairs(rule.calls) do if c == n then hit = true; break end end
      end
      if hit and fired == nil then fired = rule end
    end
  end
  return fired
end

-- Sliding one-minute windows of simulated time: queues of {t = time, n = bytes} with head and tail indices.
local windows = {read = {head = 1, tail = 0, total = 0}, write = {head = 1, tail = 0, total = 0},
  bytes = {head = 1, tail = 0, total = 0}}
local function window_purge(w, now)
  while w.head <= w.tail and w[w.head].t <= now - 60 do
    w.total = w.total - w[w.head].n
    w[w.head] = nil
    w.head = w.head + 1
  end
end
local function window_push(w, now, n)
  w.tail = w.tail + 1
  w[w.tail] = {t = now, n = n}
  w.total = w.total + n
end
-- True when a read or write (of `bytes`) would exceed TapTap's per-minute limits; otherwise it is counted.
function P.rate_limited(kind, bytes)
  local now = clock.elapsed
  local w, b = windows[kind], windows.bytes
  window_purge(w, now)
  window_purge(b, now)
  local limit = kind == "read" and LIMITS.reads_per_minute or LIMITS.writes_per_minute
  bytes = bytes or 0
  if w.total >= limit or b.total + bytes > LIMITS.bytes_per_minute then
    E.log("WARNING", sformat("platform: cloud %s refused, over TapTap's per-minute limit (%d requests, %d bytes)",
      kind, limit, LIMITS.bytes_per_minute))
    return true
  end
  window_push(w, now, 1)
  if bytes > 0 then window_push(b, now, bytes) end
  return false
end

----------------------------------------------------------------------------------------------------
-- Score-style requests (clientCloud, serverCloud): callbacks in an events table {ok, error, timeout}.
-- `work()` runs at the due frame and returns true, ok-arguments... or false, code, reason.
----------------------------------------------------------------------------------------------------
function P.score_request(service, method, args, events, kind, bytes, work)
  local entry = P.begin(service, method, args)
  local phase = service .. ":" .. method
  local limited = P.rate_limited(kind, bytes)
  local rule = P.injected(service, method)
  entry.due = P.schedule(P.latency, function()
    if rule then
      if rule.timeout then
        P.finish(entry, "timeout", "")
        if events ~= nil and events.timeout ~= nil then P.call_event(phase, events, "timeout")
        else P.call_event(phase, events, "error", CODES.timeout, "timeout") end
      else
        P.finish(entry, "error", sformat("%d %s", rule.code, rule.reason))
        P.call_event(phase, events, "error", rule.code, rule.reason)
      end
      return
    end
    if limited then
      P.finish(entry, "error", sformat("%d send failed", CODES.rate))
      P.call_event(phase, events, "error", CODES.rate, "send failed")
      return
    end
    local res = tpack(work())
    if res[1] then
      local shown = {}
      for i = 2, res.n do shown[i - 1] = res[i] end
      P.finish(entry, "ok", P.text(tunpack(shown, 1, res.n - 1)))
      P.call_event(phase, events, "ok", tunpack(res, 2, res.n))
    else
      P.finish(entry, "error", sformat("%d %s", res[2], res[3]))
      P.call_event(phase, events, "error", res[2], res[3])
    end
  end)
  return entry
end

----------------------------------------------------------------------------------------------------
-- Stored values: strings as they are, everything else as JSON (TapTap's cloud encodes tables as JSON), so a
-- stored value is a copy the game cannot change afterwards, and every read returns a fresh copy.
----------------------------------------------------------------------------------------------------
function P.encode_value(v, fname)
  if type(v) == "string" then return {kind = "string", data = v} end
  local ok, data = E.pcall(E.cjson_encode, v)
  if not ok then P.raise(sformat("%s: the value cannot be stored: %s", fname, E.error_text(data))) end
  return {kind = "json", data = data}
end
function P.decode_value(stored)
  if stored.kind == "string" then return stored.data end
  return E.cjson_decode(stored.data)
end

----------------------------------------------------------------------------------------------------
-- Accounts: the current user and the other players of the world, with their cloud data.
----------------------------------------------------------------------------------------------------
local accounts, account_count = {}, 0
P.accounts = accounts
local function new_account(id)
  local acc = {id = id, nickname = "", old = false, values = {}, iscores = {}, money = {}, nvalues = 0,
    niscores = 0, lists = 0, items = 0, messages = 0}
  accounts[id] = acc
  account_count = account_count + 1
  return acc
end
-- The account of user `id`; created on demand when `create` (false when the world is full).
function P.account(id, create)
  local acc = accounts[id]
  if acc == nil and create then
    if account_count >= LIMITS.users then return nil end
    acc = new_account(id)
  end
  return acc
end
local function seed_account(s)
  local acc = new_account(s.id)
  acc.nickname, acc.old = s.nickname or "", s.old == true
  for _, k in ipairs(E.sorted_keys(s.values or {})) do
    acc.values[k] = P.encode_value(s.values[k], "services")
    acc.nvalues = acc.nvalues + 1
  end
  for _, k in ipairs(E.sorted_keys(s.iscores or {})) do
    acc.iscores[k] = s.iscores[k]
    acc.niscores = acc.niscores + 1
  end
  for _, k in ipairs(E.sorted_keys(s.money or {})) do acc.money[k] = s.money[k] end
  return acc
end
E.on_configure(function(config)
  seed = config.services or {}
  P.latency = seed.network and seed.network.latency_frames or 2
  rules = seed.failures or {}
  local user = seed.user or {id = 10001, nickname = "Player", map_name = ""}
  P.me = user.id
  P.map_name = user.map_name or ""
  seed_account(user)
  for _, p in ipairs(seed.players or {}) do seed_account(p) end
end)

-- Check a key for a write: nil when fine, else code, reason.
function P.key_problem(key)
  if key == "" then return CODES.bad_request, "empty key" end
  if #key > LIMITS.key_bytes then
    return CODES.bad_request, sformat("key longer than %d bytes", LIMITS.key_bytes)
  end
  return nil
end

-- Write operations on one account, each returning true or false, code, reason; `undo` (a list) collects what
-- reverts them, so a batch is applied whole or not at all.
local function set_field(acc, table_name, count_name, key, value, undo)
  local t = acc[table_name]
  local old = t[key]
  if old == nil and value ~= nil and acc[count_name] >= LIMITS.keys_per_user then
    return false, CODES.too_large, sformat("more than %d keys", LIMITS.keys_per_user)
  end
  t[key] = value
  local delta = (old == nil and value ~= nil) and 1 or ((old ~= nil and value == nil) and -1 or 0)
  acc[count_name] = acc[count_name] + delta
  if undo then
    undo[#undo + 1] = function() t[key] = old; acc[count_name] = acc[count_name] - delta end
  end
  return true
end
function P.op_set(acc, key, stored, undo)
  local c, r = P.key_problem(key)
  if c then return false, c, r end
  if stored ~= nil and #stored.data > LIMITS.value_bytes then
    return false, CODES.too_large, sformat("value of %d bytes (most %d)", #stored.data, LIMITS.value_bytes)
  end
  return set_field(acc, "values", "nvalues", key, stored, undo)
end
function P.op_set_int(acc, key, n, undo)
  local c, r = P.key_problem(key)
  if c then return false, c, r end
  return set_field(acc, "iscores", "niscores", key, n, undo)
end
function P.op_add(acc, key, delta, undo)
  local c, r = P.key_problem(key)
  if c then return false, c, r end
  return set_field(acc, "iscores", "niscores", key, (acc.iscores[key] or 0) + delta, undo)
end
function P.op_delete(acc, key, undo, which)
  if which ~= "iscores" then set_field(acc, "values", "nvalues", key, nil, undo) end
  if which ~= "values" then set_field(acc, "iscores", "niscores", key, nil, undo) end
  return true
end
-- Run ops (functions taking `undo`) in order; on the first failure revert everything and report it.
function P.apply_all(ops)
  local undo = {}
  for _, op in ipairs(ops) do
    local ok, code, reason = op(undo)
    if not ok then
      for i = #undo, 1, -1 do undo[i]() end
      return false, code, reason
    end
  end
  return true
end

-- Fresh tables of an account's values and iscores, for `keys` (all keys when nil).
function P.read(acc, keys)
  local values, iscores = {}, {}
  if acc == nil then return values, iscores end
  local list = keys
  if list == nil then
    list = E.sorted_keys(acc.values)
    for _, k in ipairs(E.sorted_keys(acc.iscores)) do if acc.values[k] == nil then list[#list + 1] = k end end
  end
  for _, k in ipairs(list) do
    local stored = acc.values[k]
    if stored ~= nil then values[k] = P.decode_value(stored) end
    local n = acc.iscores[k]
    if n ~= nil then iscores[k] = n end
  end
  return values, iscores
end

----------------------------------------------------------------------------------------------------
-- Rank lists: by score (descending unless ascending is asked), ties by user id ascending.
----------------------------------------------------------------------------------------------------
function P.ranking(key, ascending)
  local rows = {}
  for _, id in ipairs(E.sorted_keys(accounts)) do
    local score = accounts[id].iscores[key]
    if score ~= nil then rows[#rows + 1] = {id = id, score = score} end
  end
  tsort(rows, function(a, b)
    if a.score ~= b.score then
      if ascending then return a.score < b.score end
      return a.score > b.score
    end
    return a.id < b.id
  end)
  return rows
end
-- The rank-list item TapTap returns for one row: iscore/score hold the rank key and the extra keys asked for.
function P.rank_item(row, key, extra)
  local keys = {key}
  for _, k in ipairs(extra or {}) do keys[#keys + 1] = k end
  local values, iscores = P.read(accounts[row.id], keys)
  return {userId = row.id, player = row.id, iscore = iscores, score = values, sscore = {}}
end
function P.user_rank(id, key)
  for i, row in ipairs(P.ranking(key, false)) do
    if row.id == id then return i, row.score end
  end
  return nil, nil
end

-- Virtual wall time: the epoch plus simulated seconds; as TapTap's services print it (UTC here).
function P.now() return E.host.config.epoch + mfloor(clock.elapsed) end
function P.time_text() return E.os.date("!%Y-%m-%d %H:%M:%S", P.now()) end

----------------------------------------------------------------------------------------------------
-- For the battery harness (engine/lua/harness.lua): read-only views and direct writes that log nothing.
----------------------------------------------------------------------------------------------------
function P.view(id)
  local acc = accounts[id or P.me]
  if acc == nil then return nil end
  local values, iscores = P.read(acc)
  local money = {}
  for k, v in next, acc.money do money[k] = v end
  return {user_id = acc.id, nickname = acc.nickname, values = values, iscores = iscores, money = money}
end
function P.calls(service)
  local out = {}
  for _, e in ipairs(calls) do
    if service == nil or e.service == service then
      out[#out + 1] = {seq = e.seq, frame = e.frame, service = e.service, method = e.method, args = e.args,
        due = e.due, outcome = e.outcome, result = e.result}
    end
  end
  return out
end
function P.harness_set(id, key, value, as_int)
  if type(key) ~= "string" then error("cloud_set: the key must be a string", 3) end
  local acc = P.account(id or P.me, true)
  if acc == nil then error("the platform world is full", 3) end
  local ok, _, reason
  if value == nil then ok = P.op_delete(acc, key)
  elseif as_int then ok, _, reason = P.op_set_int(acc, key, P.check_int(value, "cloud_set_int", 2))
  else ok, _, reason = P.op_set(acc, key, P.encode_value(value, "cloud_set")) end
  if not ok then error("cloud: " .. reason, 3) end
end
