-- The TapTap SDK globals (sdk, lobby, GetUserNickname) and HTTP (http:Create()) as deterministic fakes over the
-- world of 88_platform.lua: ads end with their scripted outcome after their scripted delay, nicknames come from
-- the world's accounts, and HTTP requests get the world's scripted responses; an unscripted URL is an error,
-- never a network access.
local type, ipairs, tostring, tonumber, next = type, ipairs, tostring, tonumber, next
local sformat, sgsub, sbyte, slower, mceil = string.format, string.gsub, string.byte, string.lower, math.ceil
local P, LIMITS, CODES = E.platform, E.platform.LIMITS, E.platform.CODES
local rec = E.platform.rec   -- checks the class of self
local clock = E.clock

----------------------------------------------------------------------------------------------------
-- sdk: rewarded video ads, vibration, the host's exit-button rectangle.
----------------------------------------------------------------------------------------------------
local ad, sdk_seed   -- the world's ad and sdk (E.configure, at the end of this file)
local AD_RESULTS = {
  completed = {success = true, msg = "embed success"},
  cancelled = {success = false, msg = "embed manual close"},
  unsupported = {success = false, msg = "unsupported platform"},
}
local ads_shown = 0
local Sdk = class("Sdk")
local S = Sdk.methods
-- sdk:ShowRewardVideoAd(callback); the callback gets {success, msg, extra} when the ad ends.  The dot form
-- sdk.ShowRewardVideoAd(callback) is accepted too.
S.ShowRewardVideoAd = function(self, callback)
  if type(self) == "function" and callback == nil then callback = self
  else rec(self, "Sdk") end
  P.check_callback(callback, "ShowRewardVideoAd", 1)
  ads_shown = ads_shown + 1
  local outcomes = ad.outcomes
  local outcome = outcomes[ads_shown] or outcomes[#outcomes]
  local entry = P.begin("sdk", "ShowRewardVideoAd", "")
  local rule = P.injected("sdk", "ShowRewardVideoAd")
  entry.due = P.schedule(ad.delay_frames, function()
    local result
    if rule then
      result = {success = false, msg = rule.reason, extra = ""}
      P.finish(entry, "error", rule.reason)
    else
      local r = AD_RESULTS[outcome]
      result = {success = r and r.success or false, msg = r and r.msg or ad.message, extra = ""}
      P.finish(entry, result.success and "ok" or "error", outcome)
    end
    P.call("sdk:ShowRewardVideoAd", callback, result)
  end)
end
local VIBRATIONS = {light = true, medium = true, heavy = true}
S.VibrateShort = function(self, kind)
  rec(self, "Sdk")
  local accepted = sdk_seed.vibrate == true and VIBRATIONS[kind == nil and "medium" or kind] == true
  local entry = P.begin("sdk", "VibrateShort", P.text(kind))
  P.finish(entry, "ok", tostring(accepted))
  return accepted
end
S.VibrateLong = function(self)
  rec(self, "Sdk")
  local accepted = sdk_seed.vibrate == true
  local entry = P.begin("sdk", "VibrateLong", "")
  P.finish(entry, "ok", tostring(accepted))
  return accepted
end
-- Normalised {left, top, right, bottom} of the host's exit button, or nil when the world has none.
S.GetNativeExitMenuRect = function(self)
  rec(self, "Sdk")
  local r = sdk_seed.exit_menu_rect
  if r == nil then return nil end
  return {left = r[1], top = r[2], right = r[3], bottom = r[4]}
end
GLOBALS.sdk = E.new_object("Sdk", {})

----------------------------------------------------------------------------------------------------
-- lobby and GetUserNickname: the current user's id and nicknames of the world's accounts.
----------------------------------------------------------------------------------------------------
-- Nicknames of `ids` (numbers or numeric strings): every id gets an entry, "" when the world has no such user.
local function nicknames(ids)
  local out = {}
  for i, id in ipairs(ids) do
    local acc = P.account(id)
    out[i] = {userId = id, nickname = acc and acc.nickname or ""}
  end
  return out
end
local function id_list(ids, fname)
  if type(ids) ~= "table" then
    P.raise(sformat("bad argument #1 to '%s' (table of user ids expected, got %s)", fname, type(ids)))
  end
  local out, n = {}, 0
  for i = 1, LIMITS.nickname_ids + 1 do
    local v = ids[i]
    if v == nil then break end
    n = n + 1
    out[n] = P.check_int(tonumber(v) or 0, fname, 1)
  end
  return out, n > LIMITS.nickname_ids
end

local Lobby = class("Lobby")
Lobby.methods.GetMyUserId = function(self)
  rec(self, "Lobby")
  return P.me
end
local next_request = 0
-- lobby:GetUserNickname(userIds) -> request id; the answer is a UserNicknameResponse event on a later frame.
Lobby.methods.GetUserNickname = function(self, ids)
  rec(self, "Lobby")
  local list, too_many = id_list(ids, "GetUserNickname")
  next_request = next_request + 1
  local request = next_request
  local entry = P.begin("lobby", "GetUserNickname", P.text(list))
  local rule = P.injected("lobby", "GetUserNickname")
  entry.due = P.schedule(P.latency, function()
    local data = {RequestId = request, Success = false, Nicknames = "", ErrorCode = 0}
    if rule or too_many then
      data.ErrorCode = rule and rule.code or CODES.failure
      P.finish(entry, "error", tostring(data.ErrorCode))
    else
      data.Success = true
      data.Nicknames = E.cjson_encode({nicknames = nicknames(list)})
      P.finish(entry, "ok", P.clip(data.Nicknames, LIMITS.log_text))
    end
    E.send_event("UserNicknameResponse", data)
  end)
  return request
end
GLOBALS.lobby = E.new_object("Lobby", {})

-- GetUserNickname{userIds = {...}, onSuccess = function(nicknames) end, onError = function(code) end}
FUNCTIONS.GetUserNickname = function(options)
  if type(options) ~= "table" then
    E.error(sformat("bad argument #1 to 'GetUserNickname' (table expected, got %s)", type(options)), 2)
  end
  local raw = options.userIds
  if type(raw) ~= "table" or raw[1] == nil then
    E.log("ERROR", "[UserInfo] userIds is required")
    return
  end
  local list, too_many = id_list(raw, "GetUserNickname")
  local on_success, on_error = options.onSuccess, options.onError
  local entry = P.begin("lobby", "GetUserNickname", P.text(list))
  local rule = P.injected("lobby", "GetUserNickname")
  entry.due = P.schedule(P.latency, function()
    if rule or too_many then
      local code = rule and (rule.timeout and CODES.timeout or rule.code) or CODES.failure
      P.finish(entry, rule and rule.timeout and "timeout" or "error", tostring(code))
      P.call("GetUserNickname", on_error, code)
      return
    end
    local result = nicknames(list)
    P.finish(entry, "ok", P.text(result))
    P.call("GetUserNickname", on_success, result)
  end)
end

----------------------------------------------------------------------------------------------------
-- HTTP: http:Create() builds an HttpClient; Send() is answered from the world's [[http]] rules.
----------------------------------------------------------------------------------------------------
local METHOD_NAMES = {[0] = "GET", [1] = "POST", [2] = "PUT", [3] = "DELETE", [4] = "PATCH"}
local STATUS_TEXT = {[200] = "OK", [201] = "Created", [202] = "Accepted", [204] = "No Content",
  [301] = "Moved Permanently", [302] = "Found", [304] = "Not Modified", [400] = "Bad Request",
  [401] = "Unauthorized", [403] = "Forbidden", [404] = "Not Found", [405] = "Method Not Allowed",
  [408] = "Request Timeout", [409] = "Conflict", [413] = "Payload Too Large", [429] = "Too Many Requests",
  [500] = "Internal Server Error", [502] = "Bad Gateway", [503] = "Service Unavailable",
  [504] = "Gateway Timeout"}
local http_rules = {}   -- the world's http (E.configure, at the end of this file)
local rule_uses = {}
local in_flight = {}     -- request record -> true, while waiting for its answer
local in_flight_count = 0

-- The first rule for this method and URL with uses left (`times`), or nil.
local function match_rule(method, url)
  for i, r in ipairs(http_rules) do
    local hit = r.method == method and (r.url == url or (r.prefix ~= nil and url:sub(1, #r.prefix) == r.prefix))
    if hit and (r.times == nil or (rule_uses[i] or 0) < r.times) then
      rule_uses[i] = (rule_uses[i] or 0) + 1
      return r
    end
  end
  return nil
end

local Response = class("HttpResponse")
local R = Response.methods
R.GetStatusCode = function(self) return rec(self, "HttpResponse").status end
R.GetStatusText = function(self) return rec(self, "HttpResponse").status_text end
R.IsSuccess = function(self) local r = rec(self, "HttpResponse"); return r.status >= 200 and r.status < 300 end
R.GetDataAsString = function(self) return rec(self, "HttpResponse").body end
R.GetHeader = function(self, name)
  local r = rec(self, "HttpResponse")
  return r.headers[slower(tostring(name))] or ""
end
R.GetDownloadedBytes = function(self) return #rec(self, "HttpResponse").body end
R.GetTotalBytes = function(self) return #rec(self, "HttpResponse").body end
R.GetProgress = function(self) rec(self, "HttpResponse"); return 1.0 end
local function new_response(rule)
  local headers = {}
  for _, k in ipairs(E.sorted_keys(rule.headers or {})) do headers[slower(k)] = rule.headers[k] end
  return E.new_object("HttpResponse", {status = rule.status, status_text = STATUS_TEXT[rule.status] or "",
    body = rule.body or "", headers = headers})
end

local function url_encode(s)
  return (sgsub(tostring(s), "[^%w%-%._~]", function(c) return sformat("%%%02X", sbyte(c)) end))
end

local Client = class("HttpClient")
local C = Client.methods
local function setter(name, field, check)
  C[name] = function(self, value)
    local r = rec(self, "HttpClient")
    r[field] = check(value, name)
    return self
  end
end
local function string_arg(v, fname)
  if type(v) ~= "string" then
    P.raise(sformat("bad argument #1 to '%s' (string expected, got %s)", fname, type(v)))
  end
  return v
end
setter("SetUrl", "url", string_arg)
setter("SetBody", "body", function(v, fname)
  string_arg(v, fname)
  if #v > LIMITS.http_body_bytes then
    P.raise(sformat("%s: a body of %d bytes (the grader allows %d)", fname, #v, LIMITS.http_body_bytes))
  end
  return v
end)
setter("SetContentType", "content_type", string_arg)
setter("SetMethod", "method", function(v, fname)
  local n = P.check_int(v, fname, 1)
  if METHOD_NAMES[n] == nil then P.raise(sformat("bad argument #1 to '%s' (an HTTP_* method)", fname)) end
  return n
end)
setter("SetTimeout", "timeout_ms", function(v, fname) return P.check_int(v, fname, 1) end)
setter("OnSuccess", "on_success", function(v, fname) return P.check_callback(v, fname, 1) end)
setter("OnError", "on_error", function(v, fname) return P.check_callback(v, fname, 1) end)
setter("OnProgress", "on_progress", function(v, fname) return P.check_callback(v, fname, 1) end)
local MAX_HEADERS = 64
C.AddHeader = function(self, key, value)
  local r = rec(self, "HttpClient")
  string_arg(key, "AddHeader")
  string_arg(value, "AddHeader")
  if #r.headers >= MAX_HEADERS then E.error(sformat("AddHeader: more than %d headers", MAX_HEADERS), 2) end
  r.headers[#r.headers + 1] = {key, value}
  return self
end
C.AddQuery = function(self, key, value)
  local r = rec(self, "HttpClient")
  string_arg(key, "AddQuery")
  if #r.query >= MAX_HEADERS then E.error(sformat("AddQuery: more than %d parameters", MAX_HEADERS), 2) end
  r.query[#r.query + 1] = url_encode(key) .. "=" .. url_encode(value)
  return self
end
local function full_url(r)
  if #r.query == 0 then return r.url end
  return r.url .. (r.url:find("?", 1, true) and "&" or "?") .. table.concat(r.query, "&")
end
local function finish_request(request)
  if in_flight[request] then
    in_flight[request] = nil
    in_flight_count = in_flight_count - 1
  end
end
-- Send(): answered at a later frame by the first matching [[http]] rule; OnSuccess for 2xx, OnError otherwise.
C.Send = function(self)
  local r = rec(self, "HttpClient")
  local method, url = METHOD_NAMES[r.method], full_url(r)
  if in_flight_count >= LIMITS.http_pending then
    E.error(sformat("grader: more than %d HTTP requests in flight", LIMITS.http_pending), 2)
  end
  local entry = P.begin("http", "Send", r.body ~= "" and P.text(method, url, r.body) or P.text(method, url))
  local failure = P.injected("http", "Send")
  local rule = failure == nil and match_rule(method, url) or nil
  local latency = rule and rule.latency_frames or P.latency
  local timeout_frames = r.timeout_ms and r.timeout_ms > 0 and mceil(r.timeout_ms / 1000 / clock.step) or nil
  local timed_out = timeout_frames ~= nil and timeout_frames < latency
  if timed_out then latency = timeout_frames end
  local request = {client = self, cancelled = false}
  r.current = request
  in_flight[request] = true
  in_flight_count = in_flight_count + 1
  local on_success, on_error, on_progress = r.on_success, r.on_error, r.on_progress
  entry.due = P.schedule(latency, function()
    finish_request(request)
    if request.cancelled then P.finish(entry, "cancelled", ""); return end
    if failure or timed_out then
      local code = failure and failure.code or 0
      local reason = failure and (failure.timeout and "timeout" or failure.reason) or "timeout"
      P.finish(entry, (timed_out or failure.timeout) and "timeout" or "error", sformat("%d %s", code, reason))
      P.call("HttpClient:OnError", on_error, self, code, reason)
      return
    end
    if rule == nil then
      local message = sformat("grader: no scripted response for %s %s (the grader never uses the network)",
        method, url)
      E.log("WARNING", message)
      P.finish(entry, "error", "0 " .. message)
      P.call("HttpClient:OnError", on_error, self, 0, message)
      return
    end
    if rule.error ~= nil then
      P.finish(entry, "error", "0 " .. rule.error)
      P.call("HttpClient:OnError", on_error, self, 0, rule.error)
      return
    end
    local ok = rule.status >= 200 and rule.status < 300
    P.finish(entry, ok and "ok" or "error", P.text(rule.status, rule.body))
    if ok then
      P.call("HttpClient:OnProgress", on_progress, self, #rule.body, #rule.body)
      P.call("HttpClient:OnSuccess", on_success, self, new_response(rule))
    else
      P.call("HttpClient:OnError", on_error, self, rule.status, STATUS_TEXT[rule.status] or tostring(rule.status))
    end
  end)
end
C.Cancel = function(self)
  local r = rec(self, "HttpClient")
  if r.current then
    r.current.cancelled = true
    finish_request(r.current)
  end
end

-- Urho3D's own client, Network:MakeHttpRequest(url, verb, headers, postData): answered from the same [[http]] rules
-- at a later frame.  Until then the request is HTTP_INITIALIZING; then HTTP_ERROR (an injected failure, an
-- `error` rule, no rule: Urho3D's request reports a failed connection, not a status) or the rule's body to read as
-- a Deserializer, HTTP_OPEN while unread bytes remain and HTTP_CLOSED after (the whole answer has arrived).
local HTTP_INITIALIZING, HTTP_ERROR, HTTP_OPEN, HTTP_CLOSED = 0, 1, 2, 3
local Request = class("HttpRequest")
local Q = Request.methods
local function request_rec(self) return rec(self, "HttpRequest") end
local function request_state(r)
  if r.state == HTTP_OPEN and r.pos >= #r.data then r.state = HTTP_CLOSED end
  return r.state
end
Q.GetURL = function(self) return request_rec(self).url end
Q.GetVerb = function(self) return request_rec(self).verb end
Q.GetError = function(self) return request_rec(self).error end
Q.GetState = function(self) return request_state(request_rec(self)) end
Q.GetAvailableSize = function(self) local r = request_rec(self); return #r.data - r.pos end
Q.IsOpen = function(self) return request_state(request_rec(self)) == HTTP_OPEN end
Q.IsEof = function(self)
  local r = request_rec(self)
  return r.state ~= HTTP_INITIALIZING and r.pos >= #r.data
end
E.install_serializer("HttpRequest", {
  rec = request_rec,
  readable = function(r) return r.state == HTTP_OPEN or r.state == HTTP_CLOSED end,
  writable = function() return false end,
})

class("Network").methods.MakeHttpRequest = function(self, url, verb, headers, post_data)
  url = string_arg(url, "MakeHttpRequest")
  verb = (verb == nil or verb == "") and "GET" or string_arg(verb, "MakeHttpRequest")
  post_data = post_data == nil and "" or string_arg(post_data, "MakeHttpRequest")
  if #post_data > LIMITS.http_body_bytes then
    P.raise(sformat("MakeHttpRequest: a body of %d bytes (the grader allows %d)", #post_data, LIMITS.http_body_bytes))
  end
  if in_flight_count >= LIMITS.http_pending then
    E.error(sformat("grader: more than %d HTTP requests in flight", LIMITS.http_pending), 2)
  end
  local method = verb:upper()
  local entry = P.begin("http", "MakeHttpRequest", post_data ~= "" and P.text(method, url, post_data)
    or P.text(method, url))
  local failure = P.injected("http", "MakeHttpRequest")
  local rule = failure == nil and match_rule(method, url) or nil
  local r = {url = url, verb = verb, state = HTTP_INITIALIZING, error = "", data = "", pos = 0}
  local request = {cancelled = false}
  in_flight[request] = true
  in_flight_count = in_flight_count + 1
  entry.due = P.schedule(rule and rule.latency_frames or P.latency, function()
    finish_request(request)
    local message
    if failure then
      message = failure.timeout and "timeout" or failure.reason
    elseif rule == nil then
      message = sformat("grader: no scripted response for %s %s (the grader never uses the network)", method, url)
      E.log("WARNING", message)
    elseif rule.error ~= nil then
      message = rule.error
    end
    if message then
      r.state, r.error = HTTP_ERROR, message
      P.finish(entry, failure and failure.timeout and "timeout" or "error", message)
    else
      r.state, r.data = HTTP_OPEN, rule.body or ""
      P.finish(entry, "ok", P.text(rule.status, rule.body))
    end
  end)
  return E.new_object("HttpRequest", r)
end

local Manager = class("HttpManager")
Manager.methods.Create = function(self)
  rec(self, "HttpManager")
  return E.new_object("HttpClient", {url = "", method = 0, body = "", headers = {}, query = {}})
end
Manager.methods.CancelAllRequests = function(self)
  rec(self, "HttpManager")
  local requests = {}
  for request in next, in_flight do requests[#requests + 1] = request end
  for _, request in ipairs(requests) do
    request.cancelled = true
    finish_request(request)
  end
end
Manager.methods.GetActiveRequestCount = function(self)
  rec(self, "HttpManager")
  return in_flight_count
end
GLOBALS.http = E.new_object("HttpManager", {})
FUNCTIONS.GetHttp = function() return GLOBALS.http end

E.on_configure(function(config)
  local seed = config.services or {}
  ad = seed.ad or {outcomes = {"completed"}, delay_frames = 60, message = "ad failed to load"}
  sdk_seed = seed.sdk or {vibrate = true}
  http_rules = seed.http or {}
end)
