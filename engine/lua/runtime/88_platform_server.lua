-- serverCloud: the server-side cloud over the same world as clientCloud (any user's data), with its money,
-- list, item, message and quota sub-objects and BatchCommit transactions.  The grader runs one process, so
-- serverCloud is there whatever the mode; on a device it exists only in the server (docs/platform.md).
local type, ipairs, rawset, tostring = type, ipairs, rawset, tostring
local sformat = string.format
local P, LIMITS, CODES = E.platform, E.platform.LIMITS, E.platform.CODES
local rec = E.platform.rec   -- checks the class of self
local SERVICE = "serverCloud"

local function full() return false, CODES.too_large, sformat("more than %d accounts", LIMITS.users) end

-- The records behind money, list, item, message and quota, with ids counted from 1 in creation order.
local lists, items, messages, quotas = {}, {}, {}, {}
local next_id = {list = 0, item = 0, message = 0}
local function new_id(kind)
  next_id[kind] = next_id[kind] + 1
  return next_id[kind]
end
local function sorted_records(t, pred)
  local out = {}
  for _, id in ipairs(E.sorted_keys(t)) do
    local r = t[id]
    if pred(r) then out[#out + 1] = r end
  end
  return out
end

local SC = class("ServerCloud")
local M = SC.methods

-- Score operations on any user.
M.Get = function(self, user_id, key, events)
  rec(self, "ServerCloud")
  local id = P.check_uid(user_id, "Get", 1)
  P.check_key(key, "Get", 2)
  P.check_events(events, "Get", 3)
  P.score_request(SERVICE, "Get", P.text(id, key), events, "read", 0, function()
    local values, iscores = P.read(P.account(id), {key})
    return true, values, iscores, {}
  end)
end
M.Set = function(self, user_id, key, value, events)
  rec(self, "ServerCloud")
  local id = P.check_uid(user_id, "Set", 1)
  P.check_key(key, "Set", 2)
  P.check_events(events, "Set", 4)
  local stored = value ~= nil and P.encode_value(value, "serverCloud:Set") or nil
  P.score_request(SERVICE, "Set", P.text(id, key, value), events, "write", stored and #stored.data or 0, function()
    local acc = P.account(id, true)
    if acc == nil then return full() end
    local ok, code, reason = P.op_set(acc, key, stored)
    if not ok then return false, code, reason end
    return true
  end)
end
local function int_writer(name, op)
  return function(self, user_id, key, value, events)
    rec(self, "ServerCloud")
    local id = P.check_uid(user_id, name, 1)
    P.check_key(key, name, 2)
    local n = P.check_int(value, name, 3)
    P.check_events(events, name, 4)
    P.score_request(SERVICE, name, P.text(id, key, n), events, "write", 8, function()
      local acc = P.account(id, true)
      if acc == nil then return full() end
      local ok, code, reason = op(acc, key, n)
      if not ok then return false, code, reason end
      return true
    end)
  end
end
M.SetInt = int_writer("SetInt", P.op_set_int)
M.Add = int_writer("Add", P.op_add)
M.Delete = function(self, user_id, key, events)
  rec(self, "ServerCloud")
  local id = P.check_uid(user_id, "Delete", 1)
  P.check_key(key, "Delete", 2)
  P.check_events(events, "Delete", 3)
  P.score_request(SERVICE, "Delete", P.text(id, key), events, "write", 0, function()
    local acc = P.account(id)
    if acc ~= nil then P.op_delete(acc, key) end
    return true
  end)
end

-- BatchGet(uid):Key(k)...:Fetch(ev) -> ok(scores, iscores, sscores); BatchGet():Player(uid)... -> ok(results).
local BG = class("ServerCloudBatchGet")
M.BatchGet = function(self, user_id)
  rec(self, "ServerCloud")
  local id = user_id ~= nil and P.check_uid(user_id, "BatchGet", 1) or nil
  return E.new_object("ServerCloudBatchGet", {user = id, players = {}, keys = {}, overflow = false})
end
BG.methods.Player = function(self, user_id)
  local r = rec(self, "ServerCloudBatchGet")
  local id = P.check_uid(user_id, "Player", 1)
  if #r.players < LIMITS.batch_ops then r.players[#r.players + 1] = id else r.overflow = true end
  return self
end
BG.methods.Key = function(self, key)
  local r = rec(self, "ServerCloudBatchGet")
  P.check_key(key, "Key", 1)
  if #r.keys < LIMITS.batch_ops then r.keys[#r.keys + 1] = key else r.overflow = true end
  return self
end
BG.methods.Fetch = function(self, events)
  local r = rec(self, "ServerCloudBatchGet")
  P.check_events(events, "Fetch", 1)
  local keys, players, single, overflow = {}, {}, r.user, r.overflow
  for i, k in ipairs(r.keys) do keys[i] = k end
  for i, p in ipairs(r.players) do players[i] = p end
  local multi = #players > 0
  P.score_request(SERVICE, "BatchGet:Fetch", P.text(multi and players or single, keys), events, "read", 0,
    function()
      if overflow then return false, CODES.rate, sformat("more than %d entries in one batch", LIMITS.batch_ops) end
      if multi then
        local results = {}
        for i, id in ipairs(players) do
          local values, iscores = P.read(P.account(id), keys)
          results[i] = {userId = id, score = values, iscore = iscores, sscore = {}}
        end
        return true, results
      end
      if single == nil then return false, CODES.bad_request, "BatchGet() needs a user id or :Player(uid)" end
      local values, iscores = P.read(P.account(single), keys)
      return true, values, iscores, {}
    end)
end

-- BatchSet(uid): Set/SetInt/Add/Delete... then Save(description, events), whole or not at all.
local BS = class("ServerCloudBatchSet")
M.BatchSet = function(self, user_id)
  rec(self, "ServerCloud")
  local id = P.check_uid(user_id, "BatchSet", 1)
  return E.new_object("ServerCloudBatchSet", {user = id, ops = {}, shown = {}, bytes = 0, overflow = false})
end
local function account_or_full(id)
  return P.account(id, true)
end
local function with_account(id, fn)
  return function(undo)
    local acc = account_or_full(id)
    if acc == nil then return full() end
    return fn(acc, undo)
  end
end
BS.methods.Set = function(self, key, value)
  local r = rec(self, "ServerCloudBatchSet")
  P.check_key(key, "Set", 1)
  local stored = value ~= nil and P.encode_value(value, "ServerCloudBatchSet:Set") or nil
  P.batch_append(r, with_account(r.user, function(acc, undo) return P.op_set(acc, key, stored, undo) end),
    "Set " .. P.text(key), stored and #stored.data or 0)
  return self
end
BS.methods.SetInt = function(self, key, value)
  local r = rec(self, "ServerCloudBatchSet")
  P.check_key(key, "SetInt", 1)
  local n = P.check_int(value, "SetInt", 2)
  P.batch_append(r, with_account(r.user, function(acc, undo) return P.op_set_int(acc, key, n, undo) end),
    "SetInt " .. P.text(key, n))
  return self
end
BS.methods.Add = function(self, key, value)
  local r = rec(self, "ServerCloudBatchSet")
  P.check_key(key, "Add", 1)
  local n = P.check_int(value, "Add", 2)
  P.batch_append(r, with_account(r.user, function(acc, undo) return P.op_add(acc, key, n, undo) end),
    "Add " .. P.text(key, n))
  return self
end
BS.methods.Delete = function(self, key)
  local r = rec(self, "ServerCloudBatchSet")
  P.check_key(key, "Delete", 1)
  P.batch_append(r, with_account(r.user, function(acc, undo) return P.op_delete(acc, key, undo) end),
    "Delete " .. P.text(key))
  return self
end
BS.methods.Save = function(self, description, events)
  local r = rec(self, "ServerCloudBatchSet")
  P.check_events(events, "Save", 2)
  P.save_batch(SERVICE, "BatchSet:Save", r, description, events)
end

-- Rank lists: GetRankList(key, start, count, [orderAsc,] events) with start counted from 1.
M.GetRankList = function(self, key, start, count, a4, a5)
  rec(self, "ServerCloud")
  P.check_key(key, "GetRankList", 1)
  start = P.check_int(start, "GetRankList", 2)
  count = P.check_int(count, "GetRankList", 3)
  local ascending, events = false, a4
  if type(a4) ~= "table" then ascending, events = a4 == true, a5 end
  P.check_events(events, "GetRankList", 5)
  P.score_request(SERVICE, "GetRankList", P.text(key, start, count, ascending), events, "read", 0, function()
    if start < 1 or count < 0 then return false, CODES.bad_request, "start counts from 1; count must be >= 0" end
    if count > LIMITS.rank_count then return false, CODES.bad_request, sformat("count above %d", LIMITS.rank_count) end
    local rows, out = P.ranking(key, ascending), {}
    for i = start, start + count - 1 do
      if rows[i] == nil then break end
      out[#out + 1] = P.rank_item(rows[i], key)
    end
    return true, out
  end)
end
M.GetUserRank = function(self, user_id, key, events)
  rec(self, "ServerCloud")
  local id = P.check_uid(user_id, "GetUserRank", 1)
  P.check_key(key, "GetUserRank", 2)
  P.check_events(events, "GetUserRank", 3)
  P.score_request(SERVICE, "GetUserRank", P.text(id, key), events, "read", 0, function()
    local rank, score = P.user_rank(id, key)
    return true, rank, score
  end)
end
M.GetRankTotal = function(self, key, events)
  rec(self, "ServerCloud")
  P.check_key(key, "GetRankTotal", 1)
  P.check_events(events, "GetRankTotal", 2)
  P.score_request(SERVICE, "GetRankTotal", P.text(key), events, "read", 0, function()
    return true, #P.ranking(key, false)
  end)
end
M.IsOldPlayer = function(self, user_id, events)
  rec(self, "ServerCloud")
  local id = P.check_uid(user_id, "IsOldPlayer", 1)
  P.check_events(events, "IsOldPlayer", 2)
  P.score_request(SERVICE, "IsOldPlayer", P.text(id), events, "read", 0, function()
    local acc = P.account(id)
    return true, acc ~= nil and acc.old == true
  end)
end

----------------------------------------------------------------------------------------------------
-- Operations of the sub-objects, shared by their direct calls and by BatchCommit (each takes `undo`).
----------------------------------------------------------------------------------------------------
local function money_add(id, key, amount, undo)
  local acc = account_or_full(id)
  if acc == nil then return full() end
  local c, r = P.key_problem(key)
  if c then return false, c, r end
  local old = acc.money[key]
  acc.money[key] = (old or 0) + amount
  if undo then undo[#undo + 1] = function() acc.money[key] = old end end
  return true
end
local function money_cost(id, key, amount, undo)
  if amount <= 0 then return false, CODES.bad_request, "amount must be > 0" end
  local acc = P.account(id)
  local have = acc and acc.money[key] or 0
  if have < amount then
    return false, CODES.insufficient, sformat("not enough %s: %s < %s", key, tostring(have), tostring(amount))
  end
  return money_add(id, key, -amount, undo)
end
local function list_add(list_id, id, key, stored, undo)
  local acc = account_or_full(id)
  if acc == nil then return full() end
  local c, r = P.key_problem(key)
  if c then return false, c, r end
  if acc.lists >= LIMITS.records_per_user then
    return false, CODES.too_large, sformat("more than %d list entries", LIMITS.records_per_user)
  end
  if #stored.data > LIMITS.value_bytes then return false, CODES.too_large, "value too large" end
  lists[list_id] = {list_id = list_id, user_id = id, key = key, value = stored, time = P.time_text()}
  acc.lists = acc.lists + 1
  if undo then undo[#undo + 1] = function() lists[list_id] = nil; acc.lists = acc.lists - 1 end end
  return true
end
local function list_change(list_id, field, value, undo)
  local entry = lists[list_id]
  if entry == nil then return false, CODES.not_found, sformat("no list entry %s", tostring(list_id)) end
  if field == "value" and #value.data > LIMITS.value_bytes then return false, CODES.too_large, "value too large" end
  if field == "key" then
    local c, r = P.key_problem(value)
    if c then return false, c, r end
  end
  local old = entry[field]
  entry[field] = value
  if undo then undo[#undo + 1] = function() entry[field] = old end end
  return true
end
local function list_delete(list_id, undo)
  local entry = lists[list_id]
  if entry == nil then return false, CODES.not_found, sformat("no list entry %s", tostring(list_id)) end
  local acc = P.account(entry.user_id)
  lists[list_id] = nil
  acc.lists = acc.lists - 1
  if undo then undo[#undo + 1] = function() lists[list_id] = entry; acc.lists = acc.lists + 1 end end
  return true
end
local function list_view(entry)
  return {user_id = entry.user_id, key = entry.key, value = P.decode_value(entry.value), list_id = entry.list_id,
    time = entry.time}
end

-- Quota counters: refreshed when the period of the virtual clock (UTC) changes.
local DAY = 86400
local function period_of(refresh_type, refresh_count)
  local t = P.now()
  local n
  if refresh_type == nil or refresh_type == "" or refresh_type == "none" then return 0
  elseif refresh_type == "hour" then n = t // 3600
  elseif refresh_type == "day" then n = t // DAY
  elseif refresh_type == "week_monday" then n = (t // DAY + 3) // 7   -- 1970-01-01 was a Thursday
  elseif refresh_type == "week_sunday" then n = (t // DAY + 4) // 7
  elseif refresh_type == "month" then
    local d = E.os.date("!*t", t)
    n = d.year * 12 + d.month - 1
  else
    return nil
  end
  return n // (refresh_count or 1)
end
local function quota_of(id, key)
  local q = quotas[id] and quotas[id][key]
  if q ~= nil and q.period ~= period_of(q.refresh_type, q.refresh_count) then q.value = 0 end
  if q ~= nil then q.period = period_of(q.refresh_type, q.refresh_count) end
  return q
end
local function quota_add(id, key, value, limit, refresh_type, refresh_count, undo)
  local c, r = P.key_problem(key)
  if c then return false, c, r end
  if refresh_count ~= nil and refresh_count < 1 then return false, CODES.bad_request, "refreshCount must be >= 1" end
  local period = period_of(refresh_type, refresh_count)
  if period == nil then return false, CODES.bad_request, "unknown refresh type " .. tostring(refresh_type) end
  local q = quota_of(id, key)
  local current = q and q.value or 0
  if current + value > limit then
    return false, CODES.insufficient, sformat("quota %s reached: %d + %d > %d", key, current, value, limit)
  end
  local per_user = quotas[id]
  if per_user == nil then
    if P.account(id, true) == nil then return full() end
    per_user = {}
    quotas[id] = per_user
  end
  local old = per_user[key]
  local copy = old and {value = old.value, limit = old.limit, refresh_type = old.refresh_type,
    refresh_count = old.refresh_count, period = old.period}
  per_user[key] = {value = current + value, limit = limit, refresh_type = refresh_type or "",
    refresh_count = refresh_count or 1, period = period}
  if undo then undo[#undo + 1] = function() per_user[key] = copy end end
  return true
end
local function quota_reset(id, key, undo)
  local per_user = quotas[id]
  local old = per_user and per_user[key]
  if old == nil then return true end
  per_user[key] = nil
  if undo then undo[#undo + 1] = function() per_user[key] = old end end
  return true
end

-- A request on a sub-object whose work is one operation.
local function op_request(method, args, events, kind, bytes, op)
  P.score_request(SERVICE, method, args, events, kind, bytes, function()
    local ok, code, reason = op(nil)
    if not ok then return false, code, reason end
    return true
  end)
end

local Money = class("ServerCloudMoney")
Money.methods.Get = function(self, user_id, events)
  rec(self, "ServerCloudMoney")
  local id = P.check_uid(user_id, "Get", 1)
  P.check_events(events, "Get", 2)
  P.score_request(SERVICE, "money:Get", P.text(id), events, "read", 0, function()
    local acc, out = P.account(id), {}
    if acc then for _, k in ipairs(E.sorted_keys(acc.money)) do out[k] = acc.money[k] end end
    return true, out
  end)
end
local function check_amount(v, fname, n)
  if type(v) ~= "number" then P.check_int(v, fname, n) end
  return v
end
Money.methods.Add = function(self, user_id, key, amount, events)
  rec(self, "ServerCloudMoney")
  local id = P.check_uid(user_id, "Add", 1)
  P.check_key(key, "Add", 2)
  amount = check_amount(amount, "Add", 3)
  P.check_events(events, "Add", 4)
  op_request("money:Add", P.text(id, key, amount), events, "write", 8,
    function(undo) return money_add(id, key, amount, undo) end)
end
Money.methods.Cost = function(self, user_id, key, amount, events)
  rec(self, "ServerCloudMoney")
  local id = P.check_uid(user_id, "Cost", 1)
  P.check_key(key, "Cost", 2)
  amount = check_amount(amount, "Cost", 3)
  P.check_events(events, "Cost", 4)
  op_request("money:Cost", P.text(id, key, amount), events, "write", 8,
    function(undo) return money_cost(id, key, amount, undo) end)
end

local List = class("ServerCloudList")
List.methods.Get = function(self, user_id, key, events)
  rec(self, "ServerCloudList")
  local id = P.check_uid(user_id, "Get", 1)
  P.check_key(key, "Get", 2)
  P.check_events(events, "Get", 3)
  P.score_request(SERVICE, "list:Get", P.text(id, key), events, "read", 0, function()
    local out = {}
    for i, e in ipairs(sorted_records(lists, function(e) return e.user_id == id and e.key == key end)) do
      out[i] = list_view(e)
    end
    return true, out
  end)
end
List.methods.GetById = function(self, list_id, events)
  rec(self, "ServerCloudList")
  list_id = P.check_int(list_id, "GetById", 1)
  P.check_events(events, "GetById", 2)
  P.score_request(SERVICE, "list:GetById", P.text(list_id), events, "read", 0, function()
    local e = lists[list_id]
    return true, e and {list_view(e)} or {}
  end)
end
List.methods.Add = function(self, user_id, key, value, events)
  rec(self, "ServerCloudList")
  local id = P.check_uid(user_id, "Add", 1)
  P.check_key(key, "Add", 2)
  local stored = P.encode_value(value, "ServerCloudList:Add")
  P.check_events(events, "Add", 4)
  local list_id = new_id("list")
  op_request("list:Add", P.text(id, key, value), events, "write", #stored.data,
    function(undo) return list_add(list_id, id, key, stored, undo) end)
  return list_id
end
List.methods.Modify = function(self, list_id, value, events)
  rec(self, "ServerCloudList")
  list_id = P.check_int(list_id, "Modify", 1)
  local stored = P.encode_value(value, "ServerCloudList:Modify")
  P.check_events(events, "Modify", 3)
  op_request("list:Modify", P.text(list_id, value), events, "write", #stored.data,
    function(undo) return list_change(list_id, "value", stored, undo) end)
end
List.methods.ModifyKey = function(self, list_id, key, events)
  rec(self, "ServerCloudList")
  list_id = P.check_int(list_id, "ModifyKey", 1)
  P.check_key(key, "ModifyKey", 2)
  P.check_events(events, "ModifyKey", 3)
  op_request("list:ModifyKey", P.text(list_id, key), events, "write", 8,
    function(undo) return list_change(list_id, "key", key, undo) end)
end
List.methods.Delete = function(self, list_id, events)
  rec(self, "ServerCloudList")
  list_id = P.check_int(list_id, "Delete", 1)
  P.check_events(events, "Delete", 2)
  op_request("list:Delete", P.text(list_id), events, "write", 0,
    function(undo) return list_delete(list_id, undo) end)
end

local Item = class("ServerCloudItem")
local function item_view(it)
  return {item_id = it.item_id, user_id = it.user_id, key = it.key, name = it.name, count = it.count,
    value = P.decode_value(it.value), expire_type = it.expire_type, expire_time = it.expire_time}
end
Item.methods.Get = function(self, user_id, key, events)
  rec(self, "ServerCloudItem")
  local id = P.check_uid(user_id, "Get", 1)
  if type(key) == "table" and events == nil then key, events = nil, key end
  if key ~= nil then P.check_key(key, "Get", 2) end
  P.check_events(events, "Get", 3)
  P.score_request(SERVICE, "item:Get", P.text(id, key), events, "read", 0, function()
    local out = {}
    for i, it in ipairs(sorted_records(items, function(it) return it.user_id == id and (key == nil or it.key == key) end)) do
      out[i] = item_view(it)
    end
    return true, out
  end)
end
Item.methods.Add = function(self, user_id, key, name, count, value, expire_type, expire_time, events)
  rec(self, "ServerCloudItem")
  local id = P.check_uid(user_id, "Add", 1)
  P.check_key(key, "Add", 2)
  P.check_key(name, "Add", 3)
  count = P.check_int(count, "Add", 4)
  local stored = P.encode_value(value, "ServerCloudItem:Add")
  -- the optional arguments may be left out: the events table is the first table after `value`
  if type(expire_type) == "table" then expire_type, expire_time, events = nil, nil, expire_type
  elseif type(expire_time) == "table" then expire_time, events = nil, expire_time end
  P.check_events(events, "Add", 8)
  local item_id = new_id("item")
  op_request("item:Add", P.text(id, key, name, count, value), events, "write", #stored.data, function()
    local acc = account_or_full(id)
    if acc == nil then return full() end
    if count < 1 then return false, CODES.bad_request, "count must be >= 1" end
    if acc.items >= LIMITS.records_per_user then
      return false, CODES.too_large, sformat("more than %d items", LIMITS.records_per_user)
    end
    items[item_id] = {item_id = item_id, user_id = id, key = key, name = name, count = count, value = stored,
      expire_type = expire_type, expire_time = expire_time}
    acc.items = acc.items + 1
    return true
  end)
  return item_id
end
Item.methods.Use = function(self, user_id, item_id, count, events)
  rec(self, "ServerCloudItem")
  local id = P.check_uid(user_id, "Use", 1)
  item_id = P.check_int(item_id, "Use", 2)
  if type(count) == "table" and events == nil then count, events = nil, count end
  count = count == nil and 1 or P.check_int(count, "Use", 3)
  P.check_events(events, "Use", 4)
  op_request("item:Use", P.text(id, item_id, count), events, "write", 0, function()
    local it = items[item_id]
    if it == nil or it.user_id ~= id then return false, CODES.not_found, sformat("no item %d of user %d", item_id, id) end
    if count < 1 or it.count < count then
      return false, CODES.insufficient, sformat("item %d has %d, not %d", item_id, it.count, count)
    end
    it.count = it.count - count
    if it.count == 0 then
      items[item_id] = nil
      local acc = P.account(id)
      acc.items = acc.items - 1
    end
    return true
  end)
end

local Message = class("ServerCloudMessage")
Message.methods.Send = function(self, user_id, key, target, value, events)
  rec(self, "ServerCloudMessage")
  local id = P.check_uid(user_id, "Send", 1)
  P.check_key(key, "Send", 2)
  local to = P.check_uid(target, "Send", 3)
  local stored = P.encode_value(value, "ServerCloudMessage:Send")
  P.check_events(events, "Send", 5)
  P.score_request(SERVICE, "message:Send", P.text(id, key, to, value), events, "write", #stored.data, function()
    local acc = P.account(to, true)
    if acc == nil then return full() end
    if acc.messages >= LIMITS.records_per_user then
      return false, CODES.too_large, sformat("more than %d messages", LIMITS.records_per_user)
    end
    local mid = new_id("message")
    messages[mid] = {message_id = mid, from = id, to = to, key = key, value = stored, read = false,
      time = P.time_text()}
    acc.messages = acc.messages + 1
    return true, 0, ""
  end)
end
Message.methods.Get = function(self, user_id, key, read, events)
  rec(self, "ServerCloudMessage")
  local id = P.check_uid(user_id, "Get", 1)
  P.check_key(key, "Get", 2)
  P.check_events(events, "Get", 4)
  local want_read = read == true
  P.score_request(SERVICE, "message:Get", P.text(id, key, want_read), events, "read", 0, function()
    local out = {}
    local found = sorted_records(messages, function(m) return m.to == id and m.key == key and m.read == want_read end)
    for i, m in ipairs(found) do
      out[i] = {message_id = m.message_id, key = m.key, value = P.decode_value(m.value), time = m.time}
    end
    return true, out
  end)
end
Message.methods.MarkRead = function(self, message_id, events)
  rec(self, "ServerCloudMessage")
  message_id = P.check_int(message_id, "MarkRead", 1)
  P.check_events(events, "MarkRead", 2)
  P.score_request(SERVICE, "message:MarkRead", P.text(message_id), events, "write", 0, function()
    local m = messages[message_id]
    if m == nil then return false, CODES.not_found, sformat("no message %d", message_id) end
    m.read = true
    return true, 0, ""
  end)
end
Message.methods.Delete = function(self, message_id, events)
  rec(self, "ServerCloudMessage")
  message_id = P.check_int(message_id, "Delete", 1)
  P.check_events(events, "Delete", 2)
  P.score_request(SERVICE, "message:Delete", P.text(message_id), events, "write", 0, function()
    local m = messages[message_id]
    if m == nil then return false, CODES.not_found, sformat("no message %d", message_id) end
    messages[message_id] = nil
    local acc = P.account(m.to)
    acc.messages = acc.messages - 1
    return true, true, 0, ""
  end)
end

local Quota = class("ServerCloudQuota")
local function check_refresh(refresh_type, refresh_count, fname, n)
  if refresh_type ~= nil and type(refresh_type) ~= "string" then P.check_key(refresh_type, fname, n) end
  if refresh_count ~= nil then refresh_count = P.check_int(refresh_count, fname, n + 1) end
  return refresh_type, refresh_count
end
Quota.methods.Get = function(self, user_id, key, events)
  rec(self, "ServerCloudQuota")
  local id = P.check_uid(user_id, "Get", 1)
  P.check_key(key, "Get", 2)
  P.check_events(events, "Get", 3)
  P.score_request(SERVICE, "quota:Get", P.text(id, key), events, "read", 0, function()
    local q = quota_of(id, key)
    if q == nil then return true, {} end
    return true, {{key = key, value = q.value, limit = q.limit, refresh_type = q.refresh_type,
      refresh_count = q.refresh_count}}
  end)
end
Quota.methods.Add = function(self, user_id, key, value, limit, refresh_type, refresh_count, events)
  rec(self, "ServerCloudQuota")
  local id = P.check_uid(user_id, "Add", 1)
  P.check_key(key, "Add", 2)
  value = P.check_int(value, "Add", 3)
  limit = P.check_int(limit, "Add", 4)
  if type(refresh_type) == "table" then refresh_type, refresh_count, events = nil, nil, refresh_type
  elseif type(refresh_count) == "table" then refresh_count, events = nil, refresh_count end
  refresh_type, refresh_count = check_refresh(refresh_type, refresh_count, "Add", 5)
  P.check_events(events, "Add", 7)
  op_request("quota:Add", P.text(id, key, value, limit, refresh_type, refresh_count), events, "write", 8,
    function(undo) return quota_add(id, key, value, limit, refresh_type, refresh_count, undo) end)
end
Quota.methods.Reset = function(self, user_id, key, events)
  rec(self, "ServerCloudQuota")
  local id = P.check_uid(user_id, "Reset", 1)
  P.check_key(key, "Reset", 2)
  P.check_events(events, "Reset", 3)
  op_request("quota:Reset", P.text(id, key), events, "write", 0, function(undo) return quota_reset(id, key, undo) end)
end

-- BatchCommit(description): operations on any users and domains, committed whole or not at all.
local Commit = class("ServerCloudCommit")
M.BatchCommit = function(self, description)
  rec(self, "ServerCloud")
  return E.new_object("ServerCloudCommit", {description = description, ops = {}, shown = {}, bytes = 0,
    overflow = false})
end
local CM = Commit.methods
local function commit_op(name, check, make)
  CM[name] = function(self, ...)
    local r = rec(self, "ServerCloudCommit")
    local args = table.pack(check(...))
    P.batch_append(r, make(table.unpack(args, 1, args.n)), name .. " " .. P.text(...))
    return self
  end
end
local function uid_key(fname)
  return function(user_id, key, ...)
    return P.check_uid(user_id, fname, 1), P.check_key(key, fname, 2), ...
  end
end
commit_op("ScoreSet", function(user_id, key, value)
  local id, k = uid_key("ScoreSet")(user_id, key)
  return id, k, value ~= nil and P.encode_value(value, "ServerCloudCommit:ScoreSet") or nil
end, function(id, key, stored)
  return with_account(id, function(acc, undo) return P.op_set(acc, key, stored, undo) end)
end)
commit_op("ScoreSetInt", function(user_id, key, value)
  local id, k = uid_key("ScoreSetInt")(user_id, key)
  return id, k, P.check_int(value, "ScoreSetInt", 3)
end, function(id, key, n)
  return with_account(id, function(acc, undo) return P.op_set_int(acc, key, n, undo) end)
end)
commit_op("ScoreAddInt", function(user_id, key, value)
  local id, k = uid_key("ScoreAddInt")(user_id, key)
  return id, k, P.check_int(value, "ScoreAddInt", 3)
end, function(id, key, n)
  return with_account(id, function(acc, undo) return P.op_add(acc, key, n, undo) end)
end)
-- sscores are deprecated and always empty: writing or deleting one changes nothing.
commit_op("ScoreSetStr", uid_key("ScoreSetStr"), function() return function() return true end end)
commit_op("ScoreDeleteStr", uid_key("ScoreDeleteStr"), function() return function() return true end end)
commit_op("ScoreDelete", uid_key("ScoreDelete"), function(id, key)
  return function(undo)
    local acc = P.account(id)
    if acc then P.op_delete(acc, key, undo, "values") end
    return true
  end
end)
commit_op("ScoreDeleteInt", uid_key("ScoreDeleteInt"), function(id, key)
  return function(undo)
    local acc = P.account(id)
    if acc then P.op_delete(acc, key, undo, "iscores") end
    return true
  end
end)
commit_op("MoneyAdd", function(user_id, key, amount)
  local id, k = uid_key("MoneyAdd")(user_id, key)
  return id, k, check_amount(amount, "MoneyAdd", 3)
end, function(id, key, amount) return function(undo) return money_add(id, key, amount, undo) end end)
commit_op("MoneyCost", function(user_id, key, amount)
  local id, k = uid_key("MoneyCost")(user_id, key)
  return id, k, check_amount(amount, "MoneyCost", 3)
end, function(id, key, amount) return function(undo) return money_cost(id, key, amount, undo) end end)
-- ListAdd returns the commit and the new entry's id (known at once; the entry exists once committed).
CM.ListAdd = function(self, user_id, key, value)
  local r = rec(self, "ServerCloudCommit")
  local id, k = uid_key("ListAdd")(user_id, key)
  local stored = P.encode_value(value, "ServerCloudCommit:ListAdd")
  local list_id = new_id("list")
  P.batch_append(r, function(undo) return list_add(list_id, id, k, stored, undo) end,
    "ListAdd " .. P.text(id, k, value), #stored.data)
  return self, list_id
end
commit_op("ListModify", function(list_id, value)
  return P.check_int(list_id, "ListModify", 1), P.encode_value(value, "ServerCloudCommit:ListModify")
end, function(list_id, stored) return function(undo) return list_change(list_id, "value", stored, undo) end end)
commit_op("ListModifyKey", function(list_id, key)
  return P.check_int(list_id, "ListModifyKey", 1), P.check_key(key, "ListModifyKey", 2)
end, function(list_id, key) return function(undo) return list_change(list_id, "key", key, undo) end end)
commit_op("ListDelete", function(list_id)
  return P.check_int(list_id, "ListDelete", 1)
end, function(list_id) return function(undo) return list_delete(list_id, undo) end end)
commit_op("QuotaAdd", function(user_id, key, value, limit, refresh_type, refresh_count)
  local id, k = uid_key("QuotaAdd")(user_id, key)
  local rt, rc = check_refresh(refresh_type, refresh_count, "QuotaAdd", 5)
  return id, k, P.check_int(value, "QuotaAdd", 3), P.check_int(limit, "QuotaAdd", 4), rt, rc
end, function(id, key, value, limit, rt, rc)
  return function(undo) return quota_add(id, key, value, limit, rt, rc, undo) end
end)
commit_op("QuotaReset", uid_key("QuotaReset"), function(id, key)
  return function(undo) return quota_reset(id, key, undo) end
end)
CM.Commit = function(self, events)
  local r = rec(self, "ServerCloudCommit")
  P.check_events(events, "Commit", 1)
  P.save_batch(SERVICE, "BatchCommit:Commit", r, r.description, events)
end

local server_cloud = E.new_object("ServerCloud", {})
E.on_configure(function() rawset(server_cloud, "mapName", P.map_name) end)   -- the world's map
rawset(server_cloud, "money", E.new_object("ServerCloudMoney", {}))
rawset(server_cloud, "list", E.new_object("ServerCloudList", {}))
rawset(server_cloud, "item", E.new_object("ServerCloudItem", {}))
rawset(server_cloud, "message", E.new_object("ServerCloudMessage", {}))
rawset(server_cloud, "quota", E.new_object("ServerCloudQuota", {}))
GLOBALS.serverCloud = server_cloud

-- For the harness: the server-side records of one user.
function P.server_view(id)
  local out = {lists = {}, items = {}, messages = {}, quotas = {}}
  for i, e in ipairs(sorted_records(lists, function(e) return e.user_id == id end)) do out.lists[i] = list_view(e) end
  for i, it in ipairs(sorted_records(items, function(it) return it.user_id == id end)) do
    out.items[i] = item_view(it)
  end
  for i, m in ipairs(sorted_records(messages, function(m) return m.to == id end)) do
    out.messages[i] = {message_id = m.message_id, from = m.from, key = m.key, value = P.decode_value(m.value),
      read = m.read, time = m.time}
  end
  for _, key in ipairs(E.sorted_keys(quotas[id] or {})) do
    local q = quota_of(id, key)
    out.quotas[key] = {value = q.value, limit = q.limit}
  end
  return out
end
