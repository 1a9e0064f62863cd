-- UrhoX's AimOffset: procedural aiming of the upper body. After the frame's animations are applied it turns a list
-- of bones (a spine, typically) by shares of an aim pitch and yaw, so a character looks where it aims whatever its
-- animation plays. TapTap documents it only by its annotations and its use in the dev kit's 3D character template
-- ("after the animation plays, it rotates the spine bones"; a pitch and a yaw weight per bone summing to about 1;
-- limits; a smoothing speed; a yaw compensation); the rules below are this engine's reading of that
-- (docs/animation.md, "AimOffset"):
--   * the target angles (degrees) are clamped to +-maxPitch and +-maxYaw; the current angles move toward them by
--     min(1, smoothSpeed * timeStep) of the way each frame (a speed of 0 takes the target at once);
--   * each bone, found by name below the component's node, turns by yaw * yawWeight about the node's up axis and by
--     pitch * pitchWeight about its right axis (world space, yaw after pitch); the yaw is first reduced by
--     yawCompensation;
--   * the turn is applied on the scene's SceneDrawableUpdateFinished, after the octree applied the animations, as
--     IK solves (64_ik.lua); a bone no animation moved since keeps its pose from before the last turn, so turns
--     never accumulate;
--   * `stabilize` and its parent count are kept as state (their effect is undocumented); a disabled component (or
--     one on a disabled node) turns nothing.
local ipairs, tostring, setmetatable, sformat = ipairs, tostring, setmetatable, string.format
local mmin, mmax, rad, sin, cos = math.min, math.max, math.rad, math.sin, math.cos
local REC = E.REC
local qmul = E.qmul
local Qmt = class("Quaternion").mt
local NM = IMPL.Node.methods
local AO = class("AimOffset")
local M = AO.methods

local function aim_rec(self) return E.typed_comp_rec(self, "AimOffset") end
local function num(v, fname, n) return E.tolua_number(v, fname, n) end
local function quat(w, x, y, z) return setmetatable({w = w, x = x, y = y, z = z}, Qmt) end
-- the rotation by `degrees` about the unit axis (x, y, z), as w, x, y, z
local function axis_angle(degrees, x, y, z)
  local h = rad(degrees) * 0.5
  local s = sin(h)
  return cos(h), x * s, y * s, z * s
end
local function clamp(v, limit) return mmax(-limit, mmin(limit, v)) end

local function apply(c, time_step)
  if not c.enabled or c.removed or c.node == nil or not c.node.enabled then return end
  local target_pitch, target_yaw = clamp(c.target_pitch, c.max_pitch), clamp(c.target_yaw, c.max_yaw)
  local k = c.smooth_speed > 0 and mmin(1.0, c.smooth_speed * time_step) or 1.0
  c.pitch = c.pitch + (target_pitch - c.pitch) * k
  c.yaw = c.yaw + (target_yaw - c.yaw) * k
  local pitch, yaw = c.pitch, c.yaw - c.yaw_compensation
  local owner = c.node.proxy
  local frame = NM.GetWorldRotation(owner)
  -- the node's up and right axes in world space
  local ux, uy, uz = E.qrot(frame.w, frame.x, frame.y, frame.z, 0, 1, 0)
  local rx, ry, rz = E.qrot(frame.w, frame.x, frame.y, frame.z, 1, 0, 0)
  for _, b in ipairs(c.bones) do
    local bone = NM.GetChild(owner, b.name, true)
    if bone ~= nil then
      local now = NM.GetRotation(bone)
      local last = c.applied[b.name]
      -- a bone still where the last turn left it has no new pose of its own: turn from the pose before that turn
      local base = now
      if last and last.after.w == now.w and last.after.x == now.x and last.after.y == now.y and last.after.z == now.z
      then base = last.before end
      NM.SetRotation(bone, base)
      local pw, px, py, pz = axis_angle(pitch * b.pitch, rx, ry, rz)
      local yw, yx, yy, yz = axis_angle(yaw * b.yaw, ux, uy, uz)
      local tw, tx, ty, tz = qmul(yw, yx, yy, yz, pw, px, py, pz)
      local cur = NM.GetWorldRotation(bone)
      local ww, wx, wy, wz = qmul(tw, tx, ty, tz, cur.w, cur.x, cur.y, cur.z)
      NM.SetWorldRotation(bone, quat(ww, wx, wy, wz))
      c.applied[b.name] = {before = base, after = NM.GetRotation(bone)}
    end
  end
end

local function subscribe(c)
  E.unsubscribe(c, false, "SceneDrawableUpdateFinished")
  local scene = c.node and c.node.scene
  if scene and not c.removed then
    E.subscribe(c, nil, scene.proxy, "SceneDrawableUpdateFinished", function(_, data)
      local step = data and data["TimeStep"]
      apply(c, step and step:GetFloat() or E.clock.step)
    end)
  end
end

E.COMPONENT_FACTORIES.AimOffset = function(c)
  c.bones, c.applied = {}, {}
  c.target_pitch, c.target_yaw, c.pitch, c.yaw = 0.0, 0.0, 0.0, 0.0
  c.max_pitch, c.max_yaw, c.smooth_speed, c.yaw_compensation = 90.0, 90.0, 0.0, 0.0
  c.stabilize, c.stabilize_parents = false, 0
  c.on_scene_set = subscribe
  c.on_scene_removed = function(x) E.unsubscribe(x, false, "SceneDrawableUpdateFinished") end
  c.on_removed = function(x) E.unsubscribe_all(x) end
  subscribe(c)
end

M.AddBone = function(self, name, pitch_weight, yaw_weight)
  local c = aim_rec(self)
  name = E.tolua_string(name, "AddBone", 1)
  pitch_weight = num(pitch_weight, "AddBone", 2)
  yaw_weight = yaw_weight == nil and pitch_weight or num(yaw_weight, "AddBone", 3)
  for _, b in ipairs(c.bones) do
    if b.name == name then b.pitch, b.yaw = pitch_weight, yaw_weight; return end
  end
  c.bones[#c.bones + 1] = {name = name, pitch = pitch_weight, yaw = yaw_weight}
end
M.RemoveBone = function(self, name)
  local c = aim_rec(self)
  name = E.tolua_string(name, "RemoveBone", 1)
  for i, b in ipairs(c.bones) do
    if b.name == name then table.remove(c.bones, i); c.applied[name] = nil; return end
  end
end
M.ClearBones = function(self) local c = aim_rec(self); c.bones, c.applied = {}, {} end
M.GetNumBones = function(self) return #aim_rec(self).bones end
M.SetTargetPitch = function(self, v) aim_rec(self).target_pitch = num(v, "SetTargetPitch", 1) end
M.SetTargetYaw = function(self, v) aim_rec(self).target_yaw = num(v, "SetTargetYaw", 1) end
M.SetTargetAngles = function(self, pitch, yaw)
  local c = aim_rec(self)
  c.target_pitch, c.target_yaw = num(pitch, "SetTargetAngles", 1), num(yaw, "SetTargetAngles", 2)
end
M.GetTargetPitch = function(self) return aim_rec(self).target_pitch end
M.GetTargetYaw = function(self) return aim_rec(self).target_yaw end
M.SetMaxPitch = function(self, v) aim_rec(self).max_pitch = mmax(0.0, num(v, "SetMaxPitch", 1)) end
M.SetMaxYaw = function(self, v) aim_rec(self).max_yaw = mmax(0.0, num(v, "SetMaxYaw", 1)) end
M.GetMaxPitch = function(self) return aim_rec(self).max_pitch end
M.GetMaxYaw = function(self) return aim_rec(self).max_yaw end
M.SetSmoothSpeed = function(self, v) aim_rec(self).smooth_speed = mmax(0.0, num(v, "SetSmoothSpeed", 1)) end
M.GetSmoothSpeed = function(self) return aim_rec(self).smooth_speed end
M.SetYawCompensation = function(self, v) aim_rec(self).yaw_compensation = num(v, "SetYawCompensation", 1) end
M.GetYawCompensation = function(self) return aim_rec(self).yaw_compensation end
M.SetStabilize = function(self, v) aim_rec(self).stabilize = v and true or false end
M.IsStabilize = function(self) return aim_rec(self).stabilize end
M.SetStabilizeParentCount = function(self, v)
  aim_rec(self).stabilize_parents = mmax(0, E.tolua_int(v, "SetStabilizeParentCount", 1))
end
M.GetStabilizeParentCount = function(self) return aim_rec(self).stabilize_parents end
-- the component's own enabled state (Component's, with its event): a disabled AimOffset turns nothing
M.SetEnabled = function(self, v) aim_rec(self); IMPL.Component.methods.SetEnabled(self, v) end
M.IsEnabled = function(self) return aim_rec(self).enabled end
M.DebugPrintBones = function(self)
  local c = aim_rec(self)
  for i, b in ipairs(c.bones) do
    E.log("INFO", sformat("AimOffset bone %d: %s pitch %s yaw %s", i - 1, b.name, tostring(b.pitch), tostring(b.yaw)))
  end
end
