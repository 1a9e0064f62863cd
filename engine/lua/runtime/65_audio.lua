-- Audio: sources keep their state (playing, gain, looped, sound) with no sound output.
local ipairs, setmetatable, tostring = ipairs, setmetatable, tostring
local comp_rec, REC = E.comp_rec, E.REC
local SS = class("SoundSource")
-- Every sound source ever made, in creation order: the frame advances these, not every component of the scene.
local sources = {}
local init = E.simple_properties(SS, {Gain = 1.0, Attenuation = 1.0, Panning = 0.0, Frequency = 0.0,
  AutoRemoveMode = 0, SoundType = "Effect"}, function(c)
    c.playing = false; c.position = 0.0
    sources[#sources + 1] = c
  end)
E.COMPONENT_FACTORIES.SoundSource = init
local M = SS.methods
local f32 = E.MATH.f32
local function clamp(v, lo, hi) if v < lo then return lo elseif v > hi then return hi end; return v end
local num = E.tolua_number
local astate = {gains = {Master = 1.0}, gain_order = {"Master"}, listener = nil, paused = {}, stereo = true,
  mix_rate = 44100, interpolation = true}

-- Urho3D's setters clamp: frequency to [0, 535232] Hz, gain to >= 0, attenuation to [0, 1], panning to [-1, 1].
M.SetFrequency = function(self, v) comp_rec(self).Frequency = f32(clamp(num(v, "SetFrequency", 1), 0.0, 535232.0)) end
M.SetGain = function(self, v) comp_rec(self).Gain = f32(math.max(num(v, "SetGain", 1), 0.0)) end
M.SetAttenuation = function(self, v) comp_rec(self).Attenuation = f32(clamp(num(v, "SetAttenuation", 1), 0.0, 1.0)) end
M.SetPanning = function(self, v) comp_rec(self).Panning = f32(clamp(num(v, "SetPanning", 1), -1.0, 1.0)) end
-- the master type is not a type of sound a source can have: Urho3D ignores it
M.SetSoundType = function(self, t)
  t = E.tolua_string(t, "SetSoundType", 1)
  if t ~= "Master" then comp_rec(self).SoundType = t end
end

-- Play: a source with no frequency takes its sound's; a sound with no data (or none) stops the source and forgets
-- its sound.  A sound that starts arms SoundFinished, sent on the first update that finds the source not playing.
M.Play = function(self, sound, frequency, gain, panning)
  local c = comp_rec(self)
  if frequency ~= nil then M.SetFrequency(self, frequency) end
  if gain ~= nil then M.SetGain(self, gain) end
  if panning ~= nil then M.SetPanning(self, panning) end
  local snd = sound ~= nil and REC[sound] or nil
  if snd ~= nil and c.Frequency == 0.0 then c.Frequency = f32(snd.frequency or 44100) end
  c.position = 0.0
  c.play_count = (c.play_count or 0) + 1
  if snd ~= nil and (snd.compressed or (snd.data_size or 1) > 0) then
    c.sound, c.playing, c.send_finished = sound, true, true
  else
    c.sound, c.playing = nil, false
  end
end
-- Stop leaves SoundFinished armed (Urho3D clears it only when sending it), so a sound stopped by the game is
-- reported finished on the next update too.
M.Stop = function(self) local c = comp_rec(self); c.playing = false; c.position = 0.0 end
M.StopImmediate = M.Stop   -- no declick fade to skip: there is no sound
M.IsFadingIn = function() return false end
M.IsFadingOut = function() return false end
M.SetDeclickEnabled = function(self, enable) comp_rec(self).declick = enable and true or false end
M.GetDeclickEnabled = function(self) return comp_rec(self).declick == true end
M.IsPlaying = function(self) return comp_rec(self).playing end
M.GetSound = function(self) return comp_rec(self).sound end
M.GetTimePosition = function(self) return comp_rec(self).position end
-- Seek: clamped to the sound; an uncompressed sound's position is set in whole samples (restarting a stopped
-- source, as Urho3D's play-position setter does); a compressed one seeks only while it plays.
M.Seek = function(self, t)
  local c = comp_rec(self)
  local snd = c.sound and REC[c.sound]
  if snd == nil then return end
  t = num(t, "Seek", 1)
  local len = E.sound_length(snd)
  if E.sound_length_known(snd) then t = clamp(t, 0.0, len) end
  if snd.compressed then
    if c.playing then c.position = f32(t) end
    return
  end
  local bytes_per_second = f32((snd.sixteen and 2 or 1) * (snd.stereo and 2 or 1) * snd.frequency)
  if bytes_per_second <= 0 then return end
  local pos = math.tointeger(math.floor(f32(t * bytes_per_second))) or 0
  if snd.sixteen and pos % 2 == 1 then pos = pos + 1 end
  local stop = snd.looped and snd.loop_end or snd.data_size
  pos = clamp(pos, 0, stop)
  c.position, c.playing = f32(pos / bytes_per_second), true
end

local SOUND_FINISHED_REMOVE = {[1] = "component", [2] = "node"}   -- AutoRemoveMode: REMOVE_COMPONENT, REMOVE_NODE
local function effective(c) return c.enabled ~= false and c.node ~= nil and c.node.enabled ~= false end

-- One source's update (Urho3D's SoundSource::Update with no audio output: the time position advances by the step
-- scaled by the source's frequency over the sound's; a looped sound wraps, any other stops at its length).
local function update_source(c, step)
  if c.calculate_attenuation then c.calculate_attenuation(c) end
  if not effective(c) then return end
  if c.playing and c.sound then
    local snd = REC[c.sound]
    if snd and E.sound_length_known(snd) then
      local freq = snd.frequency or 0
      local advance = freq > 0 and f32(f32(f32(step) * c.Frequency) / freq) or math.huge
      c.position = f32(c.position + advance)
      local len = E.sound_length(snd)
      if c.position >= len then
        if snd.looped and len > 0 then c.position = f32(c.position - len)
        elseif snd.looped then c.position = 0.0
        else c.playing, c.position = false, 0.0 end
      end
    elseif snd then
      c.position = f32(c.position + step)   -- a compressed file of the game's: its length is not known headless
    end
  end
  if not c.playing and c.send_finished then
    c.send_finished = false
    local node = c.node
    E.send_event("SoundFinished", {Node = node.proxy, SoundSource = c.proxy, Sound = c.sound}, node.proxy)
    if c.removed then return end
    local mode = SOUND_FINISHED_REMOVE[c.AutoRemoveMode]
    if mode == "component" then E.remove_component(c)
    elseif mode == "node" and c.node then c.node.proxy:Remove() end
  end
end

-- The sources of this scene the audio subsystem holds, newest first (Urho3D updates its list backwards so a source
-- may remove itself); a source of a paused sound type is not updated.
function E.update_sound_sources(scene, step)
  local kept = 0
  for i = 1, #sources do
    local c = sources[i]
    if not c.removed and not (c.node and c.node.removed) then
      kept = kept + 1
      sources[kept] = c
    end
  end
  for i = #sources, kept + 1, -1 do sources[i] = nil end
  local due = {}
  for i = kept, 1, -1 do
    local c = sources[i]
    if not c.detached and c.node and scene.component_ids[c.id] == c then due[#due + 1] = c end
  end
  for _, c in ipairs(due) do
    if not c.removed and not astate.paused[c.SoundType] then update_source(c, step) end
  end
end

local SS3 = class("SoundSource3D")
local MIN_ROLLOFF, FULL_ANGLE = 0.1, 360.0
local M_RADTODEG = 180.0 / math.pi

-- Urho3D's SoundSource3D::CalculateAttenuation: the distance to the audio's listener (in the listener's frame)
-- attenuates between the near and far distances by the rolloff power, the direction sets the panning, and a cone
-- narrower than 360 degrees attenuates by the angle from the source's forward axis.  No listener, a disabled one,
-- or one in another scene: silence.
local function calculate_attenuation(c)
  if c.node == nil then c.Attenuation = 0.0; return end
  local listener = astate.listener
  local lc = listener and REC[listener]
  local ok = lc and not lc.removed and lc.node and effective(lc)
  if ok and lc.node.scene ~= nil and lc.node.scene ~= c.node.scene then ok = false end
  if not ok then c.Attenuation = 0.0; return end
  local lnode, node = lc.node.proxy, c.node.proxy
  local lpos, pos = lnode:GetWorldPosition(), node:GetWorldPosition()
  local rel = lnode:GetWorldRotation():Inverse() * (pos - lpos)
  local distance = rel:Length()
  local near, far, rolloff = c.NearDistance, c.FarDistance, c.RolloffFactor
  local interval = f32(far - near)
  local att
  if interval > 0.0 then
    att = f32((1.0 - f32(clamp(f32(distance - near), 0.0, interval) / interval)) ^ rolloff)
  else
    att = distance <= near and 1.0 or 0.0
  end
  c.Panning = f32(rel:Normalized().x)
  if c.InnerAngle < FULL_ANGLE and c.OuterAngle > 0.0 then
    local back = node:GetWorldRotation():Inverse() * (lpos - pos)
    local dot = clamp(E.Vector3_new(0, 0, 1):DotProduct(back:Normalized()), -1.0, 1.0)
    local angle = f32(f32(math.acos(dot) * M_RADTODEG) * 2.0)
    local angle_interval = math.max(f32(c.OuterAngle - c.InnerAngle), 0.0)
    local angle_att = 1.0
    if angle_interval > 0.0 then
      if angle > c.InnerAngle then
        angle_att = f32((1.0 - f32(clamp(f32(angle - c.InnerAngle), 0.0, angle_interval) / angle_interval)) ^ rolloff)
      end
    else
      angle_att = angle <= c.InnerAngle and 1.0 or 0.0
    end
    att = f32(att * angle_att)
  end
  c.Attenuation = att
end

E.COMPONENT_FACTORIES.SoundSource3D = E.simple_properties(SS3, {NearDistance = 0.0, FarDistance = 100.0,
  InnerAngle = 360.0, OuterAngle = 360.0, RolloffFactor = 2.0}, function(c)
    init(c)
    c.calculate_attenuation = calculate_attenuation
  end)
local M3 = SS3.methods
-- Urho3D's setters clamp: distances to >= 0, the rolloff to >= 0.1, angles to [0, 360].
M3.SetNearDistance = function(self, v) comp_rec(self).NearDistance = f32(math.max(num(v, "SetNearDistance", 1), 0.0)) end
M3.SetFarDistance = function(self, v) comp_rec(self).FarDistance = f32(math.max(num(v, "SetFarDistance", 1), 0.0)) end
M3.SetRolloffFactor = function(self, v)
  comp_rec(self).RolloffFactor = f32(math.max(num(v, "SetRolloffFactor", 1), MIN_ROLLOFF))
end
M3.SetInnerAngle = function(self, v) comp_rec(self).InnerAngle = f32(clamp(num(v, "SetInnerAngle", 1), 0.0, FULL_ANGLE)) end
M3.SetOuterAngle = function(self, v) comp_rec(self).OuterAngle = f32(clamp(num(v, "SetOuterAngle", 1), 0.0, FULL_ANGLE)) end
M3.SetDistanceAttenuation = function(self, near, far, rolloff)
  M3.SetNearDistance(self, near)
  M3.SetFarDistance(self, far)
  M3.SetRolloffFactor(self, rolloff)
end
M3.SetAngleAttenuation = function(self, inner, outer)
  M3.SetInnerAngle(self, inner)
  M3.SetOuterAngle(self, outer)
end
M3.CalculateAttenuation = function(self) calculate_attenuation(comp_rec(self)) end
E.COMPONENT_FACTORIES.SoundListener = E.simple_properties(class("SoundListener"), {})

local Audio = class("Audio")
local A = Audio.methods
-- Master gains by type (Master is there from the start, at full gain), clamped to [0, 1] as Urho3D's.
A.SetMasterGain = function(_, t, g)
  t = E.tolua_string(t, "SetMasterGain", 1)
  if astate.gains[t] == nil then astate.gain_order[#astate.gain_order + 1] = t end
  astate.gains[t] = f32(clamp(num(g, "SetMasterGain", 2), 0.0, 1.0))
end
A.GetMasterGain = function(_, t) return astate.gains[tostring(t)] or 1.0 end
A.HasMasterGain = function(_, t) return astate.gains[tostring(t)] ~= nil end
A.SetListener = function(_, l) astate.listener = l end
A.GetListener = function() return astate.listener end
A.PauseSoundType = function(_, t) astate.paused[tostring(t)] = true end
A.ResumeSoundType = function(_, t) astate.paused[tostring(t)] = nil end
A.ResumeAll = function() astate.paused = {} end
A.IsSoundTypePaused = function(_, t) return astate.paused[tostring(t)] == true end
A.IsInitialized = function() return true end
A.IsPlaying = function() return true end
A.Play = function() return true end
A.Stop = function() end
-- SetMode: the mix rate clamped to [11025, 48000] Hz as Urho3D's; the (virtual) device gives what was asked.
A.SetMode = function(_, _buffer_ms, mix_rate, stereo, interpolation)
  astate.mix_rate = math.tointeger(clamp(E.tolua_int(mix_rate, "SetMode", 2), 11025, 48000))
  astate.stereo = stereo and true or false
  astate.interpolation = interpolation ~= false
  return true
end
A.GetMixRate = function() return astate.mix_rate end
A.GetInterpolation = function() return astate.interpolation end
A.IsStereo = function() return astate.stereo end
-- Bytes of one output sample: 16-bit, times two channels in stereo.
A.GetSampleSize = function() return astate.stereo and 4 or 2 end
-- Stop every source (of every scene) playing this sound.
A.StopSound = function(_, sound)
  for _, c in ipairs(sources) do
    if not c.removed and not c.detached and c.sound ~= nil and c.sound == sound then M.Stop(c.proxy) end
  end
end
-- The audio's own list: RemoveSoundSource takes a source out of it (no longer updated: it neither advances nor
-- finishes), AddSoundSource puts it back.
A.RemoveSoundSource = function(_, source)
  local c = source ~= nil and REC[source]
  if c and c.kind == "component" then c.detached = true end
end
A.AddSoundSource = function(_, source)
  local c = source ~= nil and REC[source]
  if c and c.kind == "component" then c.detached = nil end
end
-- Every sound source of every scene (2D and 3D), scenes in creation order, each scene's by component id.
A.GetSoundSources = function()
  local out = {}
  for _, scene in ipairs(E.scenes) do
    local ids = {}
    for id, c in pairs(scene.component_ids) do
      if (c.type_name == "SoundSource" or c.type_name == "SoundSource3D") and not c.detached then ids[#ids + 1] = id end
    end
    table.sort(ids)
    for _, id in ipairs(ids) do out[#out + 1] = scene.component_ids[id].proxy end
  end
  return out
end
GLOBALS.audio = E.new_object("Audio")
FUNCTIONS.GetAudio = function() return GLOBALS.audio end
E.audio_state = astate
