-- VideoPlayer and VideoTexture, headless (docs/video.md).  Sources are the game's own files: their container
-- header gives the duration and picture size (66_media_probe.lua); nothing is decoded and nothing is fetched,
-- so URLs and uuid:// references fail to load.  Playback runs on the engine's virtual clock: while a player
-- plays, its time advances by the frame's step times its rate at the start of every frame (after BeginFrame,
-- before input and Update), whether or not the game calls Update(); Update() uploads "the frame at the current
-- time" into the texture, which is what the texture then records.  AsyncLoad answers on a later frame.
local error, type, pairs, ipairs = error, type, pairs, ipairs
local sformat, sfind, ssub, tmove = string.format, string.find, string.sub, table.move
local mfloor, mtype, huge = math.floor, math.type, math.huge
local REC, clock = E.REC, E.clock

local VS = E.REGISTRY.enums.VideoState.values
local LR = E.REGISTRY.enums.VideoLoadResult.values
local STOPPED, PLAYING, PAUSED, ENDED = VS.VIDEO_STOPPED, VS.VIDEO_PLAYING, VS.VIDEO_PAUSED, VS.VIDEO_ENDED
local SUCCESS, NOT_FOUND, OPEN_FAILED, TEXTURE_FAILED, CANCELLED = LR.VIDEO_LOAD_SUCCESS,
  LR.VIDEO_LOAD_ERROR_SOURCE_NOT_FOUND, LR.VIDEO_LOAD_ERROR_OPEN_FAILED, LR.VIDEO_LOAD_ERROR_TEXTURE_FAILED,
  LR.VIDEO_LOAD_ERROR_CANCELLED
local STATE_NAMES, RESULT_NAMES = {}, {}
for name, value in pairs(VS) do STATE_NAMES[value] = name end
for name, value in pairs(LR) do RESULT_NAMES[value] = name end

-- Bounds on what a game can grow, and the engine's fixed choices (docs/video.md lists them).
local LIMITS = {
  players = 256,          -- players that have ever loaded a source (the engine keeps them to advance their clocks)
  pending = 1024,         -- AsyncLoad answers waiting for their frame
  texture_size = 16384,   -- largest texture side, in pixels
  source_in_log = 200,    -- bytes of a source quoted in a log message
}
E.VIDEO_LIMITS = LIMITS
local LOAD_LATENCY = 2    -- frames from AsyncLoad to its answer
local DEFAULT_W, DEFAULT_H = 1920, 1080
local MIN_RATE, MAX_RATE = 0.25, 4.0

local players = {}        -- every player that has loaded a source, in the order it first did
local queue, head = {}, 1 -- AsyncLoad answers in call order (constant latency: due frames never decrease)
local created = 0

-- A wrong argument is a Lua error in the game's call, as the C++ bindings raise it (level: the game's frame).
local function bad_arg(n, fname, expected, got, level)
  error(sformat("bad argument #%d to '%s' (%s expected, got %s)", n, fname, expected, type(got)), level or 3)
end
local function rec(self, fname)
  local p = REC[self]
  if p == nil or p.kind ~= "video_player" then error(sformat("invalid 'self' in call to %s", fname), 3) end
  return p
end
local function number_arg(v, n, fname)
  if type(v) ~= "number" then bad_arg(n, fname, "number", v, 4) end
  return v
end
local function clip_source(s)
  if #s <= LIMITS.source_in_log then return s end
  return ssub(s, 1, LIMITS.source_in_log) .. "..."
end
-- A requested texture side: nil (not given), or the integer C++ would receive (truncated; -1 when not finite).
local function side_arg(v, n, fname)
  if v == nil then return nil end
  if type(v) ~= "number" then bad_arg(n, fname, "number", v, 4) end
  if mtype(v) == "integer" then return v end
  if v ~= v or v == huge or v == -huge then return -1 end
  return v >= 0 and mfloor(v) or -mfloor(-v)
end

----------------------------------------------------------------------------------------------------
-- VideoTexture: a Texture2D whose size is the player's texture size; it records the frame last uploaded.
----------------------------------------------------------------------------------------------------
local VT = class("VideoTexture")
local function valid_side(n) return n ~= nil and n > 0 and n <= LIMITS.texture_size end
local function init_texture(r, w, h)
  r.width, r.height = w, h
  r.video_width, r.video_height = r.video_width or 0, r.video_height or 0
  r.uploads, r.notifications = r.uploads or 0, r.notifications or 0
end
VT.new = function()
  local t = E.make_resource("VideoTexture", "", nil)
  init_texture(REC[t], 0, 0)
  return t
end
local VTM = VT.methods
local function texture_rec(self, fname)
  local r = REC[self]
  if r == nil or r.kind ~= "resource" then error(sformat("invalid 'self' in call to VideoTexture:%s", fname), 3) end
  return r
end
VTM.Initialize = function(self, w, h)
  local r = texture_rec(self, "Initialize")
  w, h = side_arg(w, 1, "Initialize"), side_arg(h, 2, "Initialize")
  if not (valid_side(w) and valid_side(h)) then return false end
  init_texture(r, w, h)
  return true
end
VTM.NotifyUpdate = function(self)
  local r = texture_rec(self, "NotifyUpdate")
  r.notifications = (r.notifications or 0) + 1
end
VTM.GetVideoWidth = function(self) return texture_rec(self, "GetVideoWidth").video_width or 0 end
VTM.GetVideoHeight = function(self) return texture_rec(self, "GetVideoHeight").video_height or 0 end

----------------------------------------------------------------------------------------------------
-- loading
----------------------------------------------------------------------------------------------------
-- Open `source` for a texture of w x h (nil: the video's size, else 1920 x 1080): code, info, texture w, h, why.
local function open(source, w, h)
  if source == "" then return NOT_FOUND, nil, 0, 0, "empty source" end
  if sfind(source, "^%a[%w+.-]*://") then
    return NOT_FOUND, nil, 0, 0, "remote sources (URLs, uuid:// references) are not available: the grader " ..
      "engine plays only the game's own files and never uses a network"
  end
  local path = E.find_game_file(source)
  local data = path and E.fs_read(path)
  if data == nil then return NOT_FOUND, nil, 0, 0, "no such file in the game folder" end
  local info, why = E.probe_video(data)
  if info == nil then return OPEN_FAILED, nil, 0, 0, why end
  local tw = w or (info.sized and info.width > 0 and info.width) or DEFAULT_W
  local th = h or (info.sized and info.height > 0 and info.height) or DEFAULT_H
  if not (valid_side(tw) and valid_side(th)) then
    return TEXTURE_FAILED, nil, 0, 0, sformat("texture size %sx%s is outside 1..%d", tw, th, LIMITS.texture_size)
  end
  info.path = path
  return SUCCESS, info, tw, th
end

local function register(p)
  if p.registered then return end
  if #players >= LIMITS.players then
    error(sformat("grader: more than %d VideoPlayers loaded a source (the engine's bound)", LIMITS.players), 3)
  end
  p.registered = true
  players[#players + 1] = p
end

-- Apply the outcome of a load to the player.
local function finish_load(p, source, code, info, tw, th, why)
  p.source, p.result, p.time, p.loops = source, code, 0.0, 0
  p.t0, p.f0 = 0.0, clock.frame
  local play = p.pending_play
  p.pending_play = false
  if code ~= SUCCESS then
    p.ready, p.state, p.duration, p.video_width, p.video_height, p.container = false, STOPPED, 0.0, 0, 0, nil
    E.log("ERROR", sformat("VideoPlayer: cannot load '%s': %s (%s)", clip_source(source), why, RESULT_NAMES[code]))
    return
  end
  p.ready, p.duration, p.container, p.path = true, info.duration + 0.0, info.container, info.path
  if info.sized then p.video_width, p.video_height = info.width, info.height
  else p.video_width, p.video_height = tw, th end
  if p.texture == nil then p.texture = E.make_resource("VideoTexture", source, nil) end
  local t = REC[p.texture]
  t.name = source
  init_texture(t, tw, th)
  t.video_width, t.video_height, t.frame_time = p.video_width, p.video_height, nil
  p.state = play and PLAYING or STOPPED
end

-- A new load replaces a pending one: the old callback is answered VIDEO_LOAD_ERROR_CANCELLED at its frame.
local function cancel_pending(p)
  local pending = p.loading
  if pending ~= nil then
    pending.cancelled = true
    p.loading = nil
  end
  p.pending_play = false
end

local function deliver(frame)
  while head <= #queue and queue[head].due <= frame do
    local entry = queue[head]
    queue[head] = false
    head = head + 1
    local code = CANCELLED
    if not entry.cancelled then
      local p = entry.player
      p.loading = nil
      local info, tw, th, why
      code, info, tw, th, why = open(entry.source, entry.width, entry.height)
      finish_load(p, entry.source, code, info, tw, th, why)
    end
    if entry.callback ~= nil then E.protected("VideoPlayer:AsyncLoad callback", entry.callback, code) end
  end
  if head > #queue then queue, head = {}, 1
  elseif head > 256 then   -- a steady stream of loads: drop the answered slots
    local n = #queue - head + 1
    tmove(queue, head, #queue, 1)
    for i = n + 1, #queue do queue[i] = nil end
    head = 1
  end
end

----------------------------------------------------------------------------------------------------
-- the clock
----------------------------------------------------------------------------------------------------
-- Re-anchor a player's clock at the current frame (after a seek, a rate change, a play).
local function anchor(p) p.t0, p.f0 = p.time, clock.frame end

local function advance(p, frame, step)
  if p.state ~= PLAYING then return end
  local t = p.t0 + (frame - p.f0) * step * p.rate
  local d = p.duration
  if d > 0 and t >= d then
    if p.loop then
      local k = mfloor(t / d)
      t = t - k * d
      if t < 0 then t = 0.0 end
      p.loops = p.loops + k
      p.time = t
      anchor(p)
      return
    end
    t = d
    p.state = ENDED
  end
  p.time = t
end

local function tick()
  local frame, step = clock.frame, clock.step
  for i = 1, #players do advance(players[i], frame, step) end
  if head <= #queue then deliver(frame) end
end
local process_input = E.process_input
E.process_input = function(...)
  if players[1] ~= nil or head <= #queue then tick() end
  return process_input(...)
end

----------------------------------------------------------------------------------------------------
-- VideoPlayer
----------------------------------------------------------------------------------------------------
local VP = class("VideoPlayer")
VP.new = function()
  created = created + 1
  return E.new_object("VideoPlayer", {kind = "video_player", id = created, state = STOPPED, time = 0.0, t0 = 0.0,
    f0 = 0, duration = 0.0, rate = 1.0, volume = 1.0, muted = false, loop = false, ready = false,
    pending_play = false, video_width = 0, video_height = 0, result = nil, updates = 0, loops = 0})
end
local M = VP.methods

M.Load = function(self, source, w, h)
  local p = rec(self, "VideoPlayer:Load")
  if type(source) ~= "string" then bad_arg(1, "Load", "string", source) end
  w, h = side_arg(w, 2, "Load"), side_arg(h, 3, "Load")
  cancel_pending(p)
  register(p)
  local code, info, tw, th, why = open(source, w, h)
  finish_load(p, source, code, info, tw, th, why)
  return code == SUCCESS
end

M.AsyncLoad = function(self, source, w, h, callback)
  local p = rec(self, "VideoPlayer:AsyncLoad")
  if type(source) ~= "string" then bad_arg(1, "AsyncLoad", "string", source) end
  w, h = side_arg(w, 2, "AsyncLoad"), side_arg(h, 3, "AsyncLoad")
  if callback ~= nil and type(callback) ~= "function" then bad_arg(4, "AsyncLoad", "function", callback) end
  if #queue - head + 1 >= LIMITS.pending then
    error(sformat("grader: more than %d video loads are waiting for their answer", LIMITS.pending), 2)
  end
  cancel_pending(p)
  register(p)
  local entry = {player = p, source = source, width = w, height = h, callback = callback,
    due = clock.frame + LOAD_LATENCY, cancelled = false}
  queue[#queue + 1] = entry
  p.loading = entry
  p.source, p.ready, p.state, p.time, p.duration, p.result = source, false, STOPPED, 0.0, 0.0, nil
  p.video_width, p.video_height = 0, 0
  return true
end

M.IsAsyncLoading = function(self) return rec(self, "VideoPlayer:IsAsyncLoading").loading ~= nil end

M.Play = function(self)
  local p = rec(self, "VideoPlayer:Play")
  if p.loading ~= nil then p.pending_play = true; return end
  if not p.ready or p.state == PLAYING then return end
  if p.state == ENDED then p.time = 0.0 end
  p.state = PLAYING
  anchor(p)
end

M.Pause = function(self)
  local p = rec(self, "VideoPlayer:Pause")
  if p.loading ~= nil then p.pending_play = false; return end
  if p.state == PLAYING then p.state = PAUSED end
end

M.Stop = function(self)
  local p = rec(self, "VideoPlayer:Stop")
  p.pending_play = false
  if not p.ready then return end
  p.state, p.time = STOPPED, 0.0
  anchor(p)
end

M.Seek = function(self, t)
  local p = rec(self, "VideoPlayer:Seek")
  number_arg(t, 1, "Seek")
  if not p.ready or t ~= t or t == huge or t == -huge then return end
  if t < 0 then t = 0.0 end
  if p.duration > 0 and t > p.duration then t = p.duration end
  p.time = t + 0.0
  if p.state == ENDED and (p.duration <= 0 or t < p.duration) then p.state = PAUSED end
  anchor(p)
end

M.SetVolume = function(self, v)
  local p = rec(self, "VideoPlayer:SetVolume")
  number_arg(v, 1, "SetVolume")
  if v ~= v then return end
  p.volume = v < 0 and 0.0 or v > 1 and 1.0 or v + 0.0
end
M.SetMuted = function(self, muted) rec(self, "VideoPlayer:SetMuted").muted = muted and true or false end
M.SetLoop = function(self, loop) rec(self, "VideoPlayer:SetLoop").loop = loop and true or false end
M.SetPlaybackRate = function(self, rate)
  local p = rec(self, "VideoPlayer:SetPlaybackRate")
  number_arg(rate, 1, "SetPlaybackRate")
  if rate ~= rate then return end
  anchor(p)
  p.rate = rate < MIN_RATE and MIN_RATE or rate > MAX_RATE and MAX_RATE or rate + 0.0
end

M.GetVolume = function(self) return rec(self, "VideoPlayer:GetVolume").volume end
M.IsMuted = function(self) return rec(self, "VideoPlayer:IsMuted").muted end
M.IsLooping = function(self) return rec(self, "VideoPlayer:IsLooping").loop end
M.GetPlaybackRate = function(self) return rec(self, "VideoPlayer:GetPlaybackRate").rate end
M.GetCurrentTime = function(self) return rec(self, "VideoPlayer:GetCurrentTime").time end
M.GetDuration = function(self) return rec(self, "VideoPlayer:GetDuration").duration end
M.GetState = function(self) return rec(self, "VideoPlayer:GetState").state end
M.IsPlaying = function(self) return rec(self, "VideoPlayer:IsPlaying").state == PLAYING end
M.IsReady = function(self) return rec(self, "VideoPlayer:IsReady").ready end
M.GetTexture = function(self) return rec(self, "VideoPlayer:GetTexture").texture end
M.GetVideoWidth = function(self) return rec(self, "VideoPlayer:GetVideoWidth").video_width end
M.GetVideoHeight = function(self) return rec(self, "VideoPlayer:GetVideoHeight").video_height end

-- Upload the frame at the current time into the texture (recorded as the texture's frame time).
M.Update = function(self)
  local p = rec(self, "VideoPlayer:Update")
  p.updates = p.updates + 1
  local t = p.ready and p.texture and REC[p.texture]
  if t and t.frame_time ~= p.time then
    t.frame_time = p.time
    t.uploads = t.uploads + 1
  end
end

----------------------------------------------------------------------------------------------------
-- the battery's view (harness.lua: h.videos())
----------------------------------------------------------------------------------------------------
function E.video_players()
  local out = {}
  for i, p in ipairs(players) do
    local t = p.texture and REC[p.texture]
    out[i] = {id = p.id, source = p.source, state = p.state, state_name = STATE_NAMES[p.state], time = p.time,
      duration = p.duration, ready = p.ready, playing = p.state == PLAYING, loading = p.loading ~= nil,
      result = p.result, result_name = p.result and RESULT_NAMES[p.result], container = p.container,
      video_width = p.video_width, video_height = p.video_height, rate = p.rate, volume = p.volume,
      muted = p.muted, loop = p.loop, loops = p.loops, updates = p.updates,
      texture_width = t and t.width or 0, texture_height = t and t.height or 0,
      frame_time = t and t.frame_time, uploads = t and t.uploads or 0}
  end
  return out
end
