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
M.Play = function(self, sound, frequency, gain, panning)
  local c = comp_rec(self)
  c.sound = sound
  c.playing = sound ~= nil
  c.position = 0.0
  c.play_count = (c.play_count or 0) + 1
  if frequency then c.Frequency = frequency end
  if gain then c.Gain = gain end
  if panning then c.Panning = panning end
end
M.Stop = function(self) local c = comp_rec(self); c.playing = false end
M.StopImmediate = M.Stop   -- no declick fade to skip: there is no sound
M.IsFadingIn = function() return false end
M.IsFadingOut = function() return false end
M.SetDeclickEnabled = function(self, enable) comp_rec(self).declick = enable and true or false end
M.GetDeclickEnabled = function(self) return comp_rec(self).declick == true end
M.IsPlaying = function(self) return comp_rec(self).playing end
M.GetSound = function(self) return comp_rec(self).sound end
M.GetTimePosition = function(self) return comp_rec(self).position end
M.Seek = function(self, t) comp_rec(self).position = t end

-- Advance playing sources: a non-looping sound stops at its length; AutoRemoveMode applies then.
function E.update_sound_sources(scene, step)
  -- the playing sources of this scene, in component-id order (the order a walk of scene.component_ids took)
  local playing, kept = {}, 0
  for i = 1, #sources do
    local c = sources[i]
    if not c.removed and not (c.node and c.node.removed) then
      kept = kept + 1
      sources[kept] = c
      if c.playing and c.sound and c.node and scene.component_ids[c.id] == c then playing[#playing + 1] = c end
    end
  end
  for i = #sources, kept + 1, -1 do sources[i] = nil end
  if #playing > 1 then table.sort(playing, function(a, b) return a.id < b.id end) end
  for _, c in ipairs(playing) do
    if c.playing and c.sound then
      c.position = c.position + step
      local snd = REC[c.sound]
      if snd and not snd.looped and snd.length and snd.length > 0 and c.position >= snd.length then
        c.playing = false
        if c.AutoRemoveMode == 1 then E.remove_component(c)
        elseif c.AutoRemoveMode == 2 and c.node then c.node.proxy:Remove() end
      end
    end
  end
end

local SS3 = class("SoundSource3D")
E.COMPONENT_FACTORIES.SoundSource3D = E.simple_properties(SS3, {NearDistance = 0.0, FarDistance = 100.0,
  InnerAngle = 360.0, OuterAngle = 360.0, RolloffFactor = 2.0}, init)
SS3.methods.SetDistanceAttenuation = function(self, near, far, rolloff)
  local c = comp_rec(self)
  c.NearDistance, c.FarDistance, c.RolloffFactor = near, far, rolloff
end
SS3.methods.SetAngleAttenuation = function(self, inner, outer)
  local c = comp_rec(self)
  c.InnerAngle, c.OuterAngle = inner, outer
end
E.COMPONENT_FACTORIES.SoundListener = E.simple_properties(class("SoundListener"), {})

local Audio = class("Audio")
local astate = {gains = {}, listener = nil, paused = {}}
local A = Audio.methods
A.SetMasterGain = function(_, t, g) astate.gains[tostring(t)] = g end
A.GetMasterGain = function(_, t) return astate.gains[tostring(t)] or 1.0 end
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
A.GetMixRate = function() return 44100 end
-- Every sound source of every scene (2D and 3D), scenes in creation order, each scene's by component id.
A.GetSoundSources = function()
  local out = {}
  for _, scene in ipairs(E.scenes) do
    local ids = {}
    for id, c in pairs(scene.component_ids) do
      if c.type_name == "SoundSource" or c.type_name == "SoundSource3D" then ids[#ids + 1] = id end
    end
    table.sort(ids)
    for _, id in ipairs(ids) do out[#out + 1] = scene.component_ids[id].proxy end
  end
  return out
end
A.GetInterpolation = function() return true end
A.IsStereo = function() return true end
A.SetMode = function() return true end
GLOBALS.audio = E.new_object("Audio")
FUNCTIONS.GetAudio = function() return GLOBALS.audio end
E.audio_state = astate
