-- Scene files, part 1: the attribute tables.  For each class whose objects scene files carry (Node, Scene, the
-- components the engine implements), the attributes Urho3D registers for files, in its order: name, kind, default
-- as Urho3D prints it, and the engine's getter and setter.  An attribute the engine keeps no state for has neither:
-- its value is kept as text on the object (`file_attrs`) and saved back as it came.  Part 2 (69_scene_files.lua)
-- reads and writes files with these tables; docs/resources.md describes both.
local type, tostring, tonumber, ipairs = type, tostring, tonumber, ipairs
local slower, smatch, ssub, tconcat, mtointeger = string.lower, string.match, string.sub, table.concat, math.tointeger
local REC = E.REC
local T, S = E.urho_text, E.urho_string

----------------------------------------------------------------------------------------------------
-- Attribute kinds: text -> value for the setter, value from the getter -> text
----------------------------------------------------------------------------------------------------
local function int32(v)
  v = T.to_integer(v) & 0xffffffff
  if v >= 0x80000000 then v = v - 0x100000000 end
  return v
end
local KIND = {
  bool = {T.bool, S.bool},
  int = {T.int, function(v) return S.int(int32(v)) end},
  uint = {T.uint, function(v) return S.int(T.to_integer(v) & 0xffffffff) end},
  -- a mask Urho3D registers as int but keeps unsigned: -1 in the file, 0xffffffff to the setter
  mask = {function(s) return T.int(s) & 0xffffffff end, function(v) return S.int(int32(v)) end},
  float = {T.float, function(v) return S.float(E.MATH.f32(tonumber(v) or 0)) end},
  string = {tostring, tostring},
  vector2 = {T.vector2, S.vector2},
  vector3 = {T.vector3, S.vector3},
  vector4 = {T.vector4, S.vector4},
  quaternion = {T.quaternion, S.quaternion},
  color = {T.color, S.color},
  rect = {T.rect, S.rect},
  intrect = {T.intrect, S.intrect},
  intvector2 = {T.intvector2, S.intvector2},
}

-- An attribute: {name, kind, default text, getter, setter[, enum names]}; getter and setter are method names of the
-- class, or functions (record, proxy[, value]); none keeps the text (see above).
local function attrs(...) return {...} end
local B, I, U, M, F, STR, V2, V3, V4, Q, C, R = "bool", "int", "uint", "mask", "float", "string", "vector2",
  "vector3", "vector4", "quaternion", "color", "rect"
local ENABLED = {"Is Enabled", B, "true", "IsEnabled", "SetEnabled"}
local function concat(...)
  local out = {}
  for _, list in ipairs({...}) do for _, a in ipairs(list) do out[#out + 1] = a end end
  return out
end
local function without(list, names)
  local out = {}
  for _, a in ipairs(list) do if not names[a[1]] then out[#out + 1] = a end end
  return out
end

-- The engine's implementation of a method of `type_name` (its class or a base), or nil.
local function impl_method(type_name, name)
  local d = E.REGISTRY.classes[type_name]
  while d do
    local impl = IMPL[d.name]
    local fn = impl and rawget(impl.methods, name)
    if fn then return fn end
    d = d.base and E.REGISTRY.classes[d.base]
  end
  return nil
end

-- Resource references: "Type;Name"; the getter gives the resource (or nil), the setter takes it.
local function ref_text(res, type_name)
  if res == nil then return type_name .. ";" end
  local r = REC[res]
  return type_name .. ";" .. (r and r.name or "")
end
local function ref_value(text, type_name)
  local t, name = smatch(text, "^([^;]*);(.*)$")
  if t == nil or name == "" then return nil end
  return E.get_resource(t ~= "" and t or type_name, name)
end

local DRAWABLE = attrs(
  {"Max Lights", I, "0", "GetMaxLights", "SetMaxLights"},
  {"View Mask", M, "-1", "GetViewMask", "SetViewMask"},
  {"Light Mask", M, "-1", "GetLightMask", "SetLightMask"},
  {"Shadow Mask", M, "-1", "GetShadowMask", "SetShadowMask"},
  {"Zone Mask", U, "4294967295", "GetZoneMask", "SetZoneMask"})

-- StaticModel's "Material": a ResourceRefList, one material per geometry.
local function materials_get(c, proxy)
  local n = math.max(impl_method(c.type_name, "GetNumGeometries")(proxy) or 0, 1)
  local get = impl_method(c.type_name, "GetMaterial")
  local names = {}
  for i = 0, n - 1 do
    local m = get(proxy, i)
    names[#names + 1] = m and REC[m] and REC[m].name or ""
  end
  while #names > 0 and names[#names] == "" do names[#names] = nil end
  return "Material;" .. tconcat(names, ";")
end
local function materials_set(c, proxy, text)
  local set = impl_method(c.type_name, "SetMaterial")
  local i = 0
  for name in (ssub(text, (text:find(";", 1, true) or #text) + 1) .. ";"):gmatch("([^;]*);") do
    if name ~= "" then set(proxy, i, E.get_resource("Material", name)) end
    i = i + 1
  end
end

local STATIC_MODEL = concat(attrs(
  ENABLED,
  {"Model", "ref:Model", "Model;", "GetModel", "SetModel"},
  {"Material", "text", "Material;", materials_get, materials_set},
  {"Is Occluder", B, "false", "IsOccluder", "SetOccluder"},
  {"Can Be Occluded", B, "true", "IsOccludee", "SetOccludee"},
  {"Cast Shadows", B, "false", "GetCastShadows", "SetCastShadows"},
  {"Draw Distance", F, "0", "GetDrawDistance", "SetDrawDistance"},
  {"Shadow Distance", F, "0", "GetShadowDistance", "SetShadowDistance"},
  {"LOD Bias", F, "1", "GetLodBias", "SetLodBias"}),
  DRAWABLE,
  attrs({"Occlusion LOD Level", M, "-1", "GetOcclusionLodLevel", "SetOcclusionLodLevel"}))

local function zone_box(index)
  return function(c, proxy)
    local b = impl_method("Zone", "GetBoundingBox")(proxy)
    return index == 1 and b.min or b.max
  end, function(c, proxy, v)
    local b = impl_method("Zone", "GetBoundingBox")(proxy)
    local lo, hi = b.min, b.max
    if index == 1 then lo = v else hi = v end
    impl_method("Zone", "SetBoundingBox")(proxy, E.BoundingBox_new(lo.x, lo.y, lo.z, hi.x, hi.y, hi.z))
  end
end
local zone_min_get, zone_min_set = zone_box(1)
local zone_max_get, zone_max_set = zone_box(2)

local SOUND_SOURCE = attrs(
  ENABLED,
  {"Sound", "ref:Sound", "Sound;", "GetSound", function(c, proxy, res) c.file_sound = res end},
  {"Type", STR, "Effect", "GetSoundType", "SetSoundType"},
  {"Frequency", F, "0", "GetFrequency", "SetFrequency"},
  {"Gain", F, "1", "GetGain", "SetGain"},
  {"Attenuation", F, "1", "GetAttenuation", "SetAttenuation"},
  {"Panning", F, "0", "GetPanning", "SetPanning"},
  {"Is Playing", B, "false", "IsPlaying", function(c, proxy, v)
    if v and c.file_sound then impl_method(c.type_name, "Play")(proxy, c.file_sound) end
  end},
  {"Autoremove Mode", "enum", "Disabled", "GetAutoRemoveMode", "SetAutoRemoveMode", {"Disabled", "Component", "Node"}},
  {"Play Position", I, "0"})
local COLLISION_SHAPE_2D = attrs(
  {"Trigger", B, "false", "IsTrigger", "SetTrigger"},
  {"Category Bits", I, "0", "GetCategoryBits", "SetCategoryBits"},
  {"Mask Bits", I, "0", "GetMaskBits", "SetMaskBits"},
  {"Group Index", I, "0", "GetGroupIndex", "SetGroupIndex"},
  {"Density", F, "0", "GetDensity", "SetDensity"},
  {"Friction", F, "0.2", "GetFriction", "SetFriction"},
  {"Restitution", F, "0", "GetRestitution", "SetRestitution"})

local ATTRIBUTES = {
  Octree = attrs({"Bounding Box Min", V3, "-1000 -1000 -1000"}, {"Bounding Box Max", V3, "1000 1000 1000"},
    {"Number of Levels", I, "8"}),
  DebugRenderer = attrs({"Line Antialias", B, "false", "GetLineAntiAlias", "SetLineAntiAlias"}),
  Camera = attrs(
    ENABLED,
    {"Near Clip", F, "0.1", "GetNearClip", "SetNearClip"},
    {"Far Clip", F, "1000", "GetFarClip", "SetFarClip"},
    {"FOV", F, "45", "GetFov", "SetFov"},
    {"Aspect Ratio", F, "1", "GetAspectRatio", "SetAspectRatio"},
    {"Fill Mode", "enum", "Solid", "GetFillMode", "SetFillMode", {"Solid", "Wireframe", "Point"}},
    {"Auto Aspect Ratio", B, "true", "GetAutoAspectRatio", "SetAutoAspectRatio"},
    {"Orthographic", B, "false", "IsOrthographic", "SetOrthographic"},
    {"Orthographic Size", F, "20", "GetOrthoSize", "SetOrthoSize"},
    {"Zoom", F, "1", "GetZoom", "SetZoom"},
    {"LOD Bias", F, "1", "GetLodBias", "SetLodBias"},
    {"View Mask", M, "-1", "GetViewMask", "SetViewMask"},
    {"View Override Flags", U, "0", "GetViewOverrideFlags", "SetViewOverrideFlags"},
    {"Projection Offset", V2, "0 0", "GetProjectionOffset", "SetProjectionOffset"},
    {"Reflection Plane", V4, "0 1 0 0"},
    {"Clip Plane", V4, "0 1 0 0"},
    {"Use Reflection", B, "false", "GetUseReflection", "SetUseReflection"},
    {"Use Clipping", B, "false", "GetUseClipping", "SetUseClipping"}),
  Light = attrs(
    ENABLED,
    {"Light Type", "enum", "Point", "GetLightType", "SetLightType", {"Directional", "Spot", "Point"}},
    {"Color", C, "1 1 1 1", "GetColor", "SetColor"},
    {"Specular Intensity", F, "1", "GetSpecularIntensity", "SetSpecularIntensity"},
    {"Brightness Multiplier", F, "1", "GetBrightness", "SetBrightness"},
    {"Temperature", F, "6590", "GetTemperature", "SetTemperature"},
    {"Use Physical Values", B, "false", "GetUsePhysicalValues", "SetUsePhysicalValues"},
    {"Radius", F, "0", "GetRadius", "SetRadius"},
    {"Length", F, "0", "GetLength", "SetLength"},
    {"Range", F, "10", "GetRange", "SetRange"},
    {"Spot FOV", F, "30", "GetFov", "SetFov"},
    {"Spot Aspect Ratio", F, "1", "GetAspectRatio", "SetAspectRatio"},
    {"Attenuation Texture", "ref:Texture2D", "Texture2D;", "GetRampTexture", "SetRampTexture"},
    {"Light Shape Texture", "ref:Texture2D", "Texture2D;", "GetShapeTexture", "SetShapeTexture"},
    {"Can Be Occluded", B, "true", "IsOccludee", "SetOccludee"},
    {"Cast Shadows", B, "false", "GetCastShadows", "SetCastShadows"},
    {"Per Vertex", B, "false", "GetPerVertex", "SetPerVertex"},
    {"Draw Distance", F, "0", "GetDrawDistance", "SetDrawDistance"},
    {"Fade Distance", F, "0", "GetFadeDistance", "SetFadeDistance"},
    {"Shadow Distance", F, "0", "GetShadowDistance", "SetShadowDistance"},
    {"Shadow Fade Distance", F, "0", "GetShadowFadeDistance", "SetShadowFadeDistance"},
    {"Shadow Intensity", F, "0", "GetShadowIntensity", "SetShadowIntensity"},
    {"Shadow Resolution", F, "1", "GetShadowResolution", "SetShadowResolution"},
    {"Focus To Scene", B, "true"}, {"Non-uniform View", B, "true"}, {"Auto-Reduce Size", B, "true"},
    {"CSM Splits", V4, "1000 0 0 0"}, {"CSM Fade Start", F, "0.8"}, {"CSM Bias Auto Adjust", F, "1"},
    {"View Size Quantize", F, "0.5"}, {"View Size Minimum", F, "3"}, {"Depth Constant Bias", F, "0.0002"},
    {"Depth Slope Bias", F, "0.5"}, {"Normal Offset", F, "0"},
    {"Near/Farclip Ratio", F, "0.002", "GetShadowNearFarRatio", "SetShadowNearFarRatio"},
    {"Max Extrusion", F, "1000"},
    {"View Mask", M, "-1", "GetViewMask", "SetViewMask"},
    {"Light Mask", M, "-1", "GetLightMask", "SetLightMask"}),
  Zone = attrs(
    ENABLED,
    {"Bounding Box Min", V3, "-10 -10 -10", zone_min_get, zone_min_set},
    {"Bounding Box Max", V3, "10 10 10", zone_max_get, zone_max_set},
    {"Ambient Color", C, "0.1 0.1 0.1 1", "GetAmbientColor", "SetAmbientColor"},
    {"Fog Color", C, "0 0 0 1", "GetFogColor", "SetFogColor"},
    {"Fog Start", F, "250", "GetFogStart", "SetFogStart"},
    {"Fog End", F, "1000", "GetFogEnd", "SetFogEnd"},
    {"Fog Height", F, "0", "GetFogHeight", "SetFogHeight"},
    {"Fog Height Scale", F, "0.5", "GetFogHeightScale", "SetFogHeightScale"},
    {"Height Fog Mode", B, "false", "GetHeightFog", "SetHeightFog"},
    {"Override Mode", B, "false", "GetOverride", "SetOverride"},
    {"Ambient Gradient", B, "false", "GetAmbientGradient", "SetAmbientGradient"},
    {"Priority", I, "0", "GetPriority", "SetPriority"},
    {"Zone Texture", "ref:TextureCube", "TextureCube;", "GetZoneTexture", "SetZoneTexture"},
    {"Light Mask", M, "-1", "GetLightMask", "SetLightMask"},
    {"Shadow Mask", M, "-1", "GetShadowMask", "SetShadowMask"},
    {"Zone Mask", U, "4294967295", "GetZoneMask", "SetZoneMask"}),
  StaticModel = STATIC_MODEL,
  Skybox = STATIC_MODEL,
  StaticModelGroup = concat(STATIC_MODEL, attrs({"Instance Nodes", "text", ""})),
  BillboardSet = concat(attrs(
    ENABLED,
    {"Material", "ref:Material", "Material;", "GetMaterial", "SetMaterial"},
    {"Relative Position", B, "true", "IsRelative", "SetRelative"},
    {"Relative Scale", B, "true", "IsScaled", "SetScaled"},
    {"Sort By Distance", B, "false", "IsSorted", "SetSorted"},
    {"Fixed Screen Size", B, "false", "IsFixedScreenSize", "SetFixedScreenSize"},
    {"Can Be Occluded", B, "true", "IsOccludee", "SetOccludee"},
    {"Cast Shadows", B, "false", "GetCastShadows", "SetCastShadows"},
    {"Face Camera Mode", "enum", "Rotate XYZ", "GetFaceCameraMode", "SetFaceCameraMode",
      {"None", "Rotate XYZ", "Rotate Y", "LookAt XYZ", "LookAt Y", "LookAt Mixed", "Direction"}},
    {"Min Angle", F, "0", "GetMinAngle", "SetMinAngle"},
    {"Draw Distance", F, "0", "GetDrawDistance", "SetDrawDistance"},
    {"Shadow Distance", F, "0", "GetShadowDistance", "SetShadowDistance"},
    {"Animation LOD Bias", F, "1", "GetAnimationLodBias", "SetAnimationLodBias"}),
    DRAWABLE, attrs({"Billboards", "text", ""})),
  SoundSource = SOUND_SOURCE,
  SoundSource3D = concat(without(SOUND_SOURCE, {Attenuation = true, Panning = true}), attrs(
    {"Near Distance", F, "0", "GetNearDistance", "SetNearDistance"},
    {"Far Distance", F, "100", "GetFarDistance", "SetFarDistance"},
    {"Inner Angle", F, "360", "GetInnerAngle", "SetInnerAngle"},
    {"Outer Angle", F, "360", "GetOuterAngle", "SetOuterAngle"},
    {"Rolloff Factor", F, "2", "GetRolloffFactor", "SetRolloffFactor"})),
  SoundListener = attrs(ENABLED),
  PhysicsWorld = attrs(
    {"Gravity", V3, "0 -9.81 0", "GetGravity", "SetGravity"},
    {"Physics FPS", I, "60", "GetFps", "SetFps"},
    {"Max Substeps", I, "0", "GetMaxSubSteps", "SetMaxSubSteps"},
    {"Solver Iterations", I, "10", "GetNumIterations", "SetNumIterations"},
    {"Net Max Angular Vel.", F, "100", "GetMaxNetworkAngularVelocity", "SetMaxNetworkAngularVelocity"},
    {"Interpolation", B, "true", "GetInterpolation", "SetInterpolation"},
    {"Internal Edge Utility", B, "true", "GetInternalEdge", "SetInternalEdge"},
    {"Split Impulse", B, "false", "GetSplitImpulse", "SetSplitImpulse"}),
  RigidBody = attrs(
    ENABLED,
    {"Physics Rotation", Q, "1 0 0 0", "GetRotation", "SetRotation"},
    {"Physics Position", V3, "0 0 0", "GetPosition", "SetPosition"},
    {"Mass", F, "0", "GetMass", "SetMass"},
    {"Friction", F, "0.5", "GetFriction", "SetFriction"},
    {"Anisotropic Friction", V3, "1 1 1", "GetAnisotropicFriction", "SetAnisotropicFriction"},
    {"Rolling Friction", F, "0", "GetRollingFriction", "SetRollingFriction"},
    {"Restitution", F, "0", "GetRestitution", "SetRestitution"},
    {"Linear Velocity", V3, "0 0 0", "GetLinearVelocity", "SetLinearVelocity"},
    {"Angular Velocity", V3, "0 0 0", "GetAngularVelocity", "SetAngularVelocity"},
    {"Linear Factor", V3, "1 1 1", "GetLinearFactor", "SetLinearFactor"},
    {"Angular Factor", V3, "1 1 1", "GetAngularFactor", "SetAngularFactor"},
    {"Linear Damping", F, "0", "GetLinearDamping", "SetLinearDamping"},
    {"Angular Damping", F, "0", "GetAngularDamping", "SetAngularDamping"},
    {"Linear Rest Threshold", F, "0.8", "GetLinearRestThreshold", "SetLinearRestThreshold"},
    {"Angular Rest Threshold", F, "1", "GetAngularRestThreshold", "SetAngularRestThreshold"},
    {"Collision Layer", M, "1", "GetCollisionLayer", "SetCollisionLayer"},
    {"Collision Mask", M, "-1", "GetCollisionMask", "SetCollisionMask"},
    {"Contact Threshold", F, "1e+30", "GetContactProcessingThreshold", "SetContactProcessingThreshold"},
    {"CCD Radius", F, "0", "GetCcdRadius", "SetCcdRadius"},
    {"CCD Motion Threshold", F, "0", "GetCcdMotionThreshold", "SetCcdMotionThreshold"},
    {"Collision Event Mode", "enum", "When Active", "GetCollisionEventMode", "SetCollisionEventMode",
      {"Never", "When Active", "Always"}},
    {"Use Gravity", B, "true", "GetUseGravity", "SetUseGravity"},
    {"Is Kinematic", B, "false", "IsKinematic", "SetKinematic"},
    {"Is Trigger", B, "false", "IsTrigger", "SetTrigger"},
    {"Gravity Override", V3, "0 0 0", "GetGravityOverride", "SetGravityOverride"}),
  CollisionShape = attrs(
    ENABLED,
    {"Shape Type", "enum", "Box", "GetShapeType", "SetShapeType", {"Box", "Sphere", "StaticPlane", "Cylinder",
      "Capsule", "Cone", "TriangleMesh", "ConvexHull", "Terrain", "GImpactMesh"}},
    {"Size", V3, "1 1 1", "GetSize", "SetSize"},
    {"Offset Position", V3, "0 0 0", "GetPosition", "SetPosition"},
    {"Offset Rotation", Q, "1 0 0 0", "GetRotation", "SetRotation"},
    {"Model", "ref:Model", "Model;", "GetModel", "SetModel"},
    {"LOD Level", I, "0", "GetLodLevel", "SetLodLevel"},
    {"Collision Margin", F, "0.04", "GetMargin", "SetMargin"},
    {"CustomGeometry ComponentID", U, "0"}),
  PhysicsWorld2D = attrs(
    {"Draw Shape", B, "false", "GetDrawShape", "SetDrawShape"},
    {"Draw Joint", B, "false", "GetDrawJoint", "SetDrawJoint"},
    {"Draw Aabb", B, "false", "GetDrawAabb", "SetDrawAabb"},
    {"Draw Pair", B, "false", "GetDrawPair", "SetDrawPair"},
    {"Draw CenterOfMass", B, "false", "GetDrawCenterOfMass", "SetDrawCenterOfMass"},
    {"Allow Sleeping", B, "false", "GetAllowSleeping", "SetAllowSleeping"},
    {"Warm Starting", B, "false", "GetWarmStarting", "SetWarmStarting"},
    {"Continuous Physics", B, "true", "GetContinuousPhysics", "SetContinuousPhysics"},
    {"Sub Stepping", B, "false", "GetSubStepping", "SetSubStepping"},
    {"Gravity", V2, "0 -9.81", "GetGravity", "SetGravity"},
    {"Auto Clear Forces", B, "false", "GetAutoClearForces", "SetAutoClearForces"},
    {"Velocity Iterations", I, "8", "GetVelocityIterations", "SetVelocityIterations"},
    {"Position Iterations", I, "3", "GetPositionIterations", "SetPositionIterations"}),
  RigidBody2D = attrs(
    ENABLED,
    {"Body Type", "enum", "Static", "GetBodyType", "SetBodyType", {"Static", "Kinematic", "Dynamic"}},
    {"Mass", F, "0", "GetMass", "SetMass"},
    {"Inertia", F, "0", "GetInertia", "SetInertia"},
    {"Mass Center", V2, "0 0", "GetMassCenter", "SetMassCenter"},
    {"Use Fixture Mass", B, "true", "GetUseFixtureMass", "SetUseFixtureMass"},
    {"Linear Damping", F, "0", "GetLinearDamping", "SetLinearDamping"},
    {"Angular Damping", F, "0", "GetAngularDamping", "SetAngularDamping"},
    {"Allow Sleep", B, "true", "IsAllowSleep", "SetAllowSleep"},
    {"Fixed Rotation", B, "false", "IsFixedRotation", "SetFixedRotation"},
    {"Bullet", B, "false", "IsBullet", "SetBullet"},
    {"Gravity Scale", F, "1", "GetGravityScale", "SetGravityScale"},
    {"Awake", B, "true", "IsAwake", "SetAwake"},
    {"Linear Velocity", V2, "0 0", "GetLinearVelocity", "SetLinearVelocity"},
    {"Angular Velocity", F, "0", "GetAngularVelocity", "SetAngularVelocity"}),
  CollisionBox2D = concat(attrs(
    ENABLED,
    {"Size", V2, "0.01 0.01", "GetSize", "SetSize"},
    {"Center", V2, "0 0", "GetCenter", "SetCenter"},
    {"Angle", F, "0", "GetAngle", "SetAngle"}), COLLISION_SHAPE_2D),
  CollisionCircle2D = concat(attrs(
    ENABLED,
    {"Radius", F, "0.01", "GetRadius", "SetRadius"},
    {"Center", V2, "0 0", "GetCenter", "SetCenter"}), COLLISION_SHAPE_2D),
  StaticSprite2D = attrs(
    ENABLED,
    {"Layer", I, "0", "GetLayer", "SetLayer"},
    {"Order in Layer", I, "0", "GetOrderInLayer", "SetOrderInLayer"},
    {"View Mask", M, "-1", "GetViewMask", "SetViewMask"},
    {"Sprite", "ref:Sprite2D", "Sprite2D;", "GetSprite", "SetSprite"},
    {"Blend Mode", "enum", "alpha", "GetBlendMode", "SetBlendMode", {"replace", "add", "multiply", "alpha", "addalpha",
      "premulalpha", "invdestalpha", "subtract", "subtractalpha"}},
    {"Flip X", B, "false", "GetFlipX", "SetFlipX"},
    {"Flip Y", B, "false", "GetFlipY", "SetFlipY"},
    {"Color", C, "1 1 1 1", "GetColor", "SetColor"},
    {"Custom material", "ref:Material", "Material;", "GetCustomMaterial", "SetCustomMaterial"},
    {"Hot Spot", V2, "0.5 0.5", "GetHotSpot", "SetHotSpot"},
    {"Use Hot Spot", B, "false", "GetUseHotSpot", "SetUseHotSpot"},
    {"Draw Rectangle", R, "0 0 0 0", "GetDrawRect", "SetDrawRect"},
    {"Use Draw Rectangle", B, "false", "GetUseDrawRect", "SetUseDrawRect"},
    {"Texture Rectangle", R, "0 0 0 0", "GetTextureRect", "SetTextureRect"},
    {"Use Texture Rectangle", B, "false", "GetUseTextureRect", "SetUseTextureRect"}),
  -- the object type makes the script object, as LuaScriptInstance::SetScriptObjectType does (its Start runs then)
  LuaScriptInstance = attrs(ENABLED, {"Script File", "text", "LuaFile;"},
    {"Script Object Type", STR, "", function(c) return c.script_object and c.script_object.class_name or "" end,
      function(c, _, name) if name ~= "" then E.set_script_object_type(c, name) end end},
    {"Script Data", "text", ""}),
}
E.SCENE_ATTRIBUTES = ATTRIBUTES

-- Particles and 2D animation (65_particles.lua, 65_particles2d.lua, 65_spriter.lua).  The emitter's live particles
-- and billboards ("Particles", "Billboards") are kept as text: a loaded emitter starts empty.
local function field(name)
  return function(c) return c[name] end, function(c, _, v) c[name] = v end
end
local emitting_get, emitting_set = field("emitting")
local period_get, period_set = field("period_timer")
local emission_get, emission_set = field("emission_timer")
ATTRIBUTES.ParticleEmitter = concat(attrs(
  ENABLED,
  {"Effect", "ref:ParticleEffect", "ParticleEffect;", "GetEffect", "SetEffect"},
  {"Can Be Occluded", B, "true", "IsOccludee", "SetOccludee"},
  {"Cast Shadows", B, "false", "GetCastShadows", "SetCastShadows"},
  {"Draw Distance", F, "0", "GetDrawDistance", "SetDrawDistance"},
  {"Shadow Distance", F, "0", "GetShadowDistance", "SetShadowDistance"},
  {"Animation LOD Bias", F, "1", "GetAnimationLodBias", "SetAnimationLodBias"},
  {"Is Emitting", B, "true", emitting_get, emitting_set},
  {"Period Timer", F, "0", period_get, period_set},
  {"Emission Timer", F, "0", emission_get, emission_set},
  {"Autoremove Mode", "enum", "Disabled", "GetAutoRemoveMode", "SetAutoRemoveMode", {"Disabled", "Component", "Node"}}),
  DRAWABLE, attrs(
  {"Particles", "text", ""},
  {"Billboards", "text", ""},
  {"Serialize Particles", B, "true", "GetSerializeParticles", "SetSerializeParticles"}))
local BLEND_NAMES = {"replace", "add", "multiply", "alpha", "addalpha", "premulalpha", "invdestalpha", "subtract",
  "subtractalpha"}
ATTRIBUTES.ParticleEmitter2D = attrs(
  ENABLED,
  {"Layer", I, "0", "GetLayer", "SetLayer"},
  {"Order in Layer", I, "0", "GetOrderInLayer", "SetOrderInLayer"},
  {"View Mask", M, "-1", "GetViewMask", "SetViewMask"},
  {"Particle Effect", "ref:ParticleEffect2D", "ParticleEffect2D;", "GetEffect", "SetEffect"},
  {"Sprite ", "ref:Sprite2D", "Sprite2D;", "GetSprite", "SetSprite"},   -- Urho2D's name, with its trailing space
  {"Blend Mode", "enum", "alpha", "GetBlendMode", "SetBlendMode", BLEND_NAMES},
  {"Is Emitting", B, "true", "IsEmitting", "SetEmitting"})
ATTRIBUTES.StretchableSprite2D = concat(ATTRIBUTES.StaticSprite2D, attrs(
  {"Border", "intrect", "0 0 0 0", "GetBorder", "SetBorder"}))
local animated = {}
for _, a in ipairs(ATTRIBUTES.StaticSprite2D) do
  if a[1] ~= "Sprite" then animated[#animated + 1] = a end
end
ATTRIBUTES.AnimatedSprite2D = concat(animated, attrs(
  {"Speed", F, "1", "GetSpeed", "SetSpeed"},
  {"Entity", STR, "", "GetEntity", "SetEntity"},
  {"Animation Set", "ref:AnimationSet2D", "AnimationSet2D;", "GetAnimationSet", "SetAnimationSet"},
  {"Animation", STR, "", "GetAnimation", function(c, proxy, name)   -- SetAnimationAttr: the current loop mode
    impl_method("AnimatedSprite2D", "SetAnimation")(proxy, name, c.loop_mode)
  end},
  {"Loop Mode", "enum", "Default", "GetLoopMode", "SetLoopMode", {"Default", "ForceLooped", "ForceClamped"}}))

-- Tile maps (65_tilemap2d.lua): loading the file makes the layers' nodes, which are temporary and never saved
ATTRIBUTES.TileMap2D = attrs(ENABLED, {"Tmx File", "ref:TmxFile2D", "TmxFile2D;", "GetTmxFile", "SetTmxFile"})

----------------------------------------------------------------------------------------------------
-- Node and Scene attributes
----------------------------------------------------------------------------------------------------
local NM = IMPL.Node.methods
-- Variables: a VariantMap keyed by StringHash; the scene's "Variable Names" name some of the hashes.
local function vars_get(r)
  local values = {}
  for _, k in ipairs(r.var_order) do
    if r.vars[k] ~= nil then values[type(k) == "string" and E.sdbm(k) or k] = r.vars[k] end
  end
  return values, r.var_order
end
local function var_names_of(r)
  local scene = r.scene
  local names = {}
  for name in ((scene and scene.var_names or "") .. ";"):gmatch("([^;]*);") do
    if name ~= "" then names[E.sdbm(name)] = name end
  end
  return names
end
local function vars_set(r, values, order)
  r.vars, r.var_order = {}, {}
  for _, k in ipairs(order) do
    r.vars[k] = values[k]
    r.var_order[#r.var_order + 1] = k
  end
end
local NODE_ATTRIBUTES = attrs(
  {"Is Enabled", B, "true", function(r) return r.enabled_prev end, function(r, proxy, v) NM.SetEnabled(proxy, v) end},
  {"Name", STR, "", function(r) return r.name end, function(r, proxy, v) NM.SetName(proxy, v) end},
  {"Tags", "tags", ""},
  {"Position", V3, "0 0 0", function(r, proxy) return NM.GetPosition(proxy) end,
    function(r, proxy, v) NM.SetPosition(proxy, v) end},
  {"Rotation", Q, "1 0 0 0", function(r, proxy) return NM.GetRotation(proxy) end,
    function(r, proxy, v) NM.SetRotation(proxy, v) end},
  {"Scale", V3, "1 1 1", function(r, proxy) return NM.GetScale(proxy) end,
    function(r, proxy, v) NM.SetScale(proxy, v) end},
  {"Variables", "vars", ""})
local SM = IMPL.Scene.methods
local function counter(field) return function(r) return r[field] end, function(r, _, v) r[field] = v end end
local SCENE_ATTRIBUTES = attrs(
  {"Name", STR, "", function(r) return r.name end, function(r, proxy, v) NM.SetName(proxy, v) end},
  {"Time Scale", F, "1", function(r) return r.time_scale end, function(r, proxy, v) SM.SetTimeScale(proxy, v) end},
  {"Smoothing Constant", F, "50", function(r) return r.smoothing_constant end,
    function(r, proxy, v) SM.SetSmoothingConstant(proxy, v) end},
  {"Snap Threshold", F, "5", function(r) return r.snap_threshold end,
    function(r, proxy, v) SM.SetSnapThreshold(proxy, v) end},
  {"Elapsed Time", F, "0", function(r) return r.elapsed end, function(r, proxy, v) SM.SetElapsedTime(proxy, v) end},
  {"Next Replicated Node ID", U, "1", counter("next_node")},
  {"Next Replicated Component ID", U, "1", counter("next_component")},
  {"Next Local Node ID", U, "16777216", counter("next_local_node")},
  {"Next Local Component ID", U, "16777216", counter("next_local_component")},
  {"Variables", "vars", ""},
  {"Variable Names", STR, "", function(r) return r.var_names or "" end, function(r, _, v) r.var_names = v end})

-- The attribute table of an object record, and whether it saves its defaults (nodes do, components do not).
local function table_of(r)
  if r.kind == "node" then return r.is_scene and SCENE_ATTRIBUTES or NODE_ATTRIBUTES, true end
  return ATTRIBUTES[r.type_name], false
end

----------------------------------------------------------------------------------------------------
-- Reading and writing one attribute's value as text (and as structured data for tags and variables)
----------------------------------------------------------------------------------------------------
local function accessor(r, fn, name)
  if type(fn) == "function" then return fn end
  if type(fn) ~= "string" then return nil end
  local method = impl_method(r.type_name or r.class_name, fn)
  if method == nil then return nil end
  return function(_, proxy, ...) return method(proxy, ...) end
end
local function enum_index(names, text)
  local l = slower(text)
  for i, n in ipairs(names) do if slower(n) == l then return i - 1 end end
  return nil
end

-- The attribute's value on r as Urho3D writes it in XML: text, or for tags and variables a table.
local function current(r, a)
  local kind = a[2]
  if kind == "tags" then return r.tags end
  if kind == "vars" then return {vars_get(r)} end
  local get = accessor(r, a[4], a[1])
  local raw = r.file_attrs and r.file_attrs[a[1]]
  if get == nil then return raw end
  local v = get(r, r.proxy)
  if kind == "text" then return v end
  if kind == "enum" then return a[6][(mtointeger(v) or 0) + 1] or a[6][1] end
  local rt = smatch(kind, "^ref:(.*)$")
  if rt then return ref_text(v, rt) end
  if v == nil then return raw end
  return KIND[kind][2](v)
end

-- Set attribute `a` on r from text; false when the value is an unknown enum name.
local function apply(r, a, text, where)
  local kind = a[2]
  local set = accessor(r, a[5], a[1])
  if set == nil then
    r.file_attrs = r.file_attrs or {}
    r.file_attrs[a[1]] = text
    return
  end
  local v
  if kind == "text" then v = text
  elseif kind == "enum" then
    v = enum_index(a[6], text)
    if v == nil then
      E.log("WARNING", "Unknown enum value " .. text .. " in attribute " .. a[1])
      return
    end
  else
    local rt = smatch(kind, "^ref:(.*)$")
    if rt then v = ref_value(text, rt) else v = KIND[kind][1](text) end
  end
  set(r, r.proxy, v)
end

-- Serializable::LoadXML's search: from the attribute after the last match, round the table once.
local function finder(list)
  local start = 1
  return function(name)
    local n = #list
    for step = 0, n - 1 do
      local i = (start - 1 + step) % n + 1
      if list[i][1] == name then
        start = i % n + 1
        return list[i]
      end
    end
    return nil
  end
end


-- Node:Clone copies the 2D sprites' and tile maps' attributes as Urho3D's clone does: each attribute's value read
-- from the original and set on the clone in the table's order (values, not their text; value types copied).
local function clone_attributes(src, dst)
  for _, a in ipairs(ATTRIBUTES[src.type_name] or {}) do
    local get, set = accessor(src, a[4], a[1]), accessor(dst, a[5], a[1])
    if get and set then set(dst, dst.proxy, E.copy_value(get(src, src.proxy))) end
  end
end
for _, name in ipairs({"StaticSprite2D", "StretchableSprite2D", "AnimatedSprite2D", "TileMap2D"}) do
  local make = E.COMPONENT_FACTORIES[name]
  E.COMPONENT_FACTORIES[name] = function(c)
    make(c)
    c.clone_into = clone_attributes
  end
end

E.scene_attr = {table_of = table_of, current = current, apply = apply, finder = finder, enum_index = enum_index,
  vars_get = vars_get, vars_set = vars_set, var_names_of = var_names_of, KIND = KIND, impl_method = impl_method}
