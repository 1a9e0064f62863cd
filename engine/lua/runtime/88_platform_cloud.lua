-- clientCloud (and its old name clientScore): the current user's cloud variables and the rank lists, as a
-- deterministic fake over the world of 88_platform.lua.  values are written by Set (any JSON-able value), iscores
-- by SetInt/Add (integers, the only ones rank lists sort); callbacks come in an events table {ok, error, timeout}.
local type, ipairs, rawset = type, ipairs, rawset
local sformat = string.format
local P, LIMITS, CODES = E.platform, E.platform.LIMITS, E.platform.CODES
local rec = E.platform.rec   -- checks the class of self
local SERVICE = "clientCloud"

local function me() return P.account(P.me, true) end

local CC = class("ClientCloud")
local M = CC.methods
M.Get = function(self, key, events)
  rec(self, "ClientCloud")
  P.check_key(key, "Get", 1)
  P.check_events(events, "Get", 2)
  P.score_request(SERVICE, "Get", P.text(key), events, "read", 0, function()
    local values, iscores = P.read(P.account(P.me), {key})
    return true, values, iscores
  end)
end
M.Set = function(self, key, value, events)
  rec(self, "ClientCloud")
  P.check_key(key, "Set", 1)
  P.check_events(events, "Set", 3)
  local stored = value ~= nil and P.encode_value(value, "clientCloud:Set") or nil
  local shown = stored and (stored.kind == "string" and P.text(key, value) or P.text(key) .. ", " .. stored.data)
    or P.text(key, nil)
  P.score_request(SERVICE, "Set", P.clip(shown, LIMITS.log_text), events, "write", stored and #stored.data or 0,
    function()
      local ok, code, reason = P.op_set(me(), key, stored)
      if not ok then return false, code, reason end
      return true
    end)
end
local function int_writer(name, op)
  return function(self, key, value, events)
    rec(self, "ClientCloud")
    P.check_key(key, name, 1)
    local n = P.check_int(value, name, 2)
    P.check_events(events, name, 3)
    P.score_request(SERVICE, name, P.text(key, n), events, "write", 8, function()
      local ok, code, reason = op(me(), key, n)
      if not ok then return false, code, reason end
      return true
    end)
  end
end
M.SetInt = int_writer("SetInt", P.op_set_int)
M.Add = int_writer("Add", P.op_add)

-- BatchGet(): Key(k)... then Fetch(events) -> ok(values, iscores) for those keys.
local BG = class("ClientCloudBatchGet")
M.BatchGet = function(self)
  rec(self, "ClientCloud")
  return E.new_object("ClientCloudBatchGet", {keys = {}, overflow = false})
end
BG.methods.Key = function(self, key)
  local r = rec(self, "ClientCloudBatchGet")
  P.check_key(key, "Key", 1)
  if #r.keys < LIMITS.batch_ops then r.keys[#r.keys + 1] = key else r.overflow = true end
  return self
end
BG.methods.Fetch = function(self, events)
  local r = rec(self, "ClientCloudBatchGet")
  P.check_events(events, "Fetch", 1)
  local keys = {}
  for i, k in ipairs(r.keys) do keys[i] = k end
  local overflow = r.overflow
  P.score_request(SERVICE, "BatchGet:Fetch", P.text(keys), events, "read", 0, function()
    if overflow then return false, CODES.rate, sformat("more than %d keys in one batch", LIMITS.batch_ops) end
    local values, iscores = P.read(P.account(P.me), keys)
    return true, values, iscores
  end)
end

-- BatchSet(): Set/SetInt/Add/Delete... then Save(description, events): applied whole or not at all.
local BS = class("ClientCloudBatchSet")
M.BatchSet = function(self)
  rec(self, "ClientCloud")
  return E.new_object("ClientCloudBatchSet", {ops = {}, shown = {}, bytes = 0, overflow = false})
end
-- Append one operation (a function of `undo`) and its rendering to a batch record; the batch's size is bounded.
function P.batch_append(r, op, shown, bytes)
  if #r.ops >= LIMITS.batch_ops then r.overflow = true; return end
  r.ops[#r.ops + 1] = op
  r.shown[#r.shown + 1] = shown
  r.bytes = r.bytes + (bytes or 8)
end
local function batch_writer(name, fn)
  BS.methods[name] = function(self, key, value)
    local r = rec(self, "ClientCloudBatchSet")
    P.check_key(key, name, 1)
    fn(r, key, value)
    return self
  end
end
batch_writer("Set", function(r, key, value)
  local stored = value ~= nil and P.encode_value(value, "ClientCloudBatchSet:Set") or nil
  P.batch_append(r, function(undo) return P.op_set(me(), key, stored, undo) end,
    "Set " .. P.text(key), stored and #stored.data or 0)
end)
batch_writer("SetInt", function(r, key, value)
  local n = P.check_int(value, "SetInt", 2)
  P.batch_append(r, function(undo) return P.op_set_int(me(), key, n, undo) end, "SetInt " .. P.text(key, n))
end)
batch_writer("Add", function(r, key, value)
  local n = P.check_int(value, "Add", 2)
  P.batch_append(r, function(undo) return P.op_add(me(), key, n, undo) end, "Add " .. P.text(key, n))
end)
batch_writer("Delete", function(r, key)
  P.batch_append(r, function(undo) return P.op_delete(me(), key, undo) end, "Delete " .. P.text(key))
end)
-- The logged form of a batch: its description and its operations.
function P.batch_text(description, r)
  return P.clip(P.text(description) .. ", {" .. table.concat(r.shown, "; ") .. "}", LIMITS.log_text)
end
-- Take a batch's operations out of its record and submit them as one request.
function P.save_batch(service, method, r, description, events)
  local ops, overflow, args, bytes = r.ops, r.overflow, P.batch_text(description, r), r.bytes
  r.ops, r.shown, r.bytes, r.overflow = {}, {}, 0, false
  P.score_request(service, method, args, events, "write", bytes, function()
    if overflow then return false, CODES.rate, sformat("more than %d operations in one batch", LIMITS.batch_ops) end
    local ok, code, reason = P.apply_all(ops)
    if not ok then return false, code, reason end
    return true
  end)
end
BS.methods.Save = function(self, description, events)
  local r = rec(self, "ClientCloudBatchSet")
  P.check_events(events, "Save", 2)
  P.save_batch(SERVICE, "BatchSet:Save", r, description, events)
end

-- Rank lists.  GetRankList(key, start, count, [orderAsc,] events, extraKey...): start counts from 0.
M.GetRankList = function(self, key, start, count, a4, a5, ...)
  rec(self, "ClientCloud")
  P.check_key(key, "GetRankList", 1)
  start = P.check_int(start, "GetRankList", 2)
  count = P.check_int(count, "GetRankList", 3)
  local ascending, events, extra
  if type(a4) == "table" then
    events, extra = a4, {a5, ...}
    if a5 == nil then extra = {} end
  else
    ascending, events, extra = a4 == true, a5, {...}
  end
  P.check_events(events, "GetRankList", 5)
  for i, k in ipairs(extra) do P.check_key(k, "GetRankList", 5 + i) end
  P.score_request(SERVICE, "GetRankList", P.text(key, start, count, ascending == true, extra), events, "read", 0,
    function()
      if start < 0 or count < 0 then return false, CODES.bad_request, "start and count must not be negative" end
      if count > LIMITS.rank_count then
        return false, CODES.bad_request, sformat("count above %d", LIMITS.rank_count)
      end
      local rows, out = P.ranking(key, ascending), {}
      for i = start + 1, start + count do
        if rows[i] == nil then break end
        out[#out + 1] = P.rank_item(rows[i], key, extra)
      end
      return true, out
    end)
end
M.GetUserRank = function(self, user_id, key, events)
  rec(self, "ClientCloud")
  local id = P.check_uid(user_id, "GetUserRank", 1)
  P.check_key(key, "GetUserRank", 2)
  P.check_events(events, "GetUserRank", 3)
  P.score_request(SERVICE, "GetUserRank", P.text(id, key), events, "read", 0, function()
    local rank, score = P.user_rank(id, key)
    return true, rank, score
  end)
end
M.GetRankTotal = function(self, key, events)
  rec(self, "ClientCloud")
  P.check_key(key, "GetRankTotal", 1)
  P.check_events(events, "GetRankTotal", 2)
  P.score_request(SERVICE, "GetRankTotal", P.text(key), events, "read", 0, function()
    return true, #P.ranking(key, false)
  end)
end

local client_cloud = E.new_object("ClientCloud", {})
E.on_configure(function()   -- the world's player (88_platform.lua's configure step runs first)
  rawset(client_cloud, "userId", P.me)
  rawset(client_cloud, "mapName", P.map_name)
end)
GLOBALS.clientCloud = client_cloud
GLOBALS.clientScore = client_cloud
