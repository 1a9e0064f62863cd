-- Serializable attributes by name, as far as attribute animation needs them (62_value_animation.lua): Urho3D names
-- an animated attribute the way its RegisterObject does ("Position", "Brightness Multiplier", "Is Enabled"), and
-- refuses an animation whose value type is not the attribute's.  Each entry: {Variant type name, setter, getter},
-- the setter and getter being the class's own Lua methods, so an attribute set by an animation goes exactly where
-- the game's own call would.  An attribute Urho3D has but this table lacks is loud missing API, never ignored.
local ipairs, type = ipairs, type

-- A UI element's "Texture": a resource reference, as Urho3D's SetTextureAttr/GetTextureAttr convert it (the
-- setter and getter are functions here, taking the element's proxy).
local TEXTURE_REF = {"ResourceRef",
  function(proxy, ref)
    local t = ref.type
    local type_name = type(t) == "table" and t.name_ or nil
    proxy:SetTexture(E.get_resource(type_name ~= nil and type_name ~= "" and type_name or "Texture2D", ref.name))
  end,
  function(proxy)
    local tex = proxy:GetTexture()
    return E.ResourceRef_new("Texture2D", tex and tex:GetName() or "")
  end}

local ATTRIBUTES = {
  Node = {
    ["Is Enabled"] = {"Bool", "SetEnabled", "IsEnabled"},
    ["Name"] = {"String", "SetName", "GetName"},
    ["Position"] = {"Vector3", "SetPosition", "GetPosition"},
    ["Rotation"] = {"Quaternion", "SetRotation", "GetRotation"},
    ["Scale"] = {"Vector3", "SetScale", "GetScale"},
  },
  Component = {
    ["Is Enabled"] = {"Bool", "SetEnabled", "IsEnabled"},
  },
  Drawable = {
    ["Cast Shadows"] = {"Bool", "SetCastShadows", "GetCastShadows"},
    ["Draw Distance"] = {"Float", "SetDrawDistance", "GetDrawDistance"},
    ["Shadow Distance"] = {"Float", "SetShadowDistance", "GetShadowDistance"},
    ["LOD Bias"] = {"Float", "SetLodBias", "GetLodBias"},
    ["Max Lights"] = {"Int", "SetMaxLights", "GetMaxLights"},
  },
  Light = {
    ["Light Type"] = {"Int", "SetLightType", "GetLightType"},
    ["Color"] = {"Color", "SetColor", "GetColor"},
    ["Specular Intensity"] = {"Float", "SetSpecularIntensity", "GetSpecularIntensity"},
    ["Brightness Multiplier"] = {"Float", "SetBrightness", "GetBrightness"},
    ["Temperature"] = {"Float", "SetTemperature", "GetTemperature"},
    ["Radius"] = {"Float", "SetRadius", "GetRadius"},
    ["Length"] = {"Float", "SetLength", "GetLength"},
    ["Range"] = {"Float", "SetRange", "GetRange"},
    ["Spot FOV"] = {"Float", "SetFov", "GetFov"},
    ["Spot Aspect Ratio"] = {"Float", "SetAspectRatio", "GetAspectRatio"},
    ["Per Vertex"] = {"Bool", "SetPerVertex", "GetPerVertex"},
    ["Fade Distance"] = {"Float", "SetFadeDistance", "GetFadeDistance"},
    ["Shadow Fade Distance"] = {"Float", "SetShadowFadeDistance", "GetShadowFadeDistance"},
    ["Shadow Intensity"] = {"Float", "SetShadowIntensity", "GetShadowIntensity"},
    ["Shadow Resolution"] = {"Float", "SetShadowResolution", "GetShadowResolution"},
  },
  Camera = {
    ["Near Clip"] = {"Float", "SetNearClip", "GetNearClip"},
    ["Far Clip"] = {"Float", "SetFarClip", "GetFarClip"},
    ["FOV"] = {"Float", "SetFov", "GetFov"},
    ["Aspect Ratio"] = {"Float", "SetAspectRatio", "GetAspectRatio"},
    ["Orthographic"] = {"Bool", "SetOrthographic", "IsOrthographic"},
    ["Orthographic Size"] = {"Float", "SetOrthoSize", "GetOrthoSize"},
    ["Zoom"] = {"Float", "SetZoom", "GetZoom"},
    ["LOD Bias"] = {"Float", "SetLodBias", "GetLodBias"},
  },
  Zone = {
    ["Ambient Color"] = {"Color", "SetAmbientColor", "GetAmbientColor"},
    ["Fog Color"] = {"Color", "SetFogColor", "GetFogColor"},
    ["Fog Start"] = {"Float", "SetFogStart", "GetFogStart"},
    ["Fog End"] = {"Float", "SetFogEnd", "GetFogEnd"},
    ["Fog Height"] = {"Float", "SetFogHeight", "GetFogHeight"},
    ["Fog Height Scale"] = {"Float", "SetFogHeightScale", "GetFogHeightScale"},
    ["Priority"] = {"Int", "SetPriority", "GetPriority"},
  },
  Text3D = {
    ["Text"] = {"String", "SetText", "GetText"},
    ["Font Size"] = {"Float", "SetFontSize", "GetFontSize"},
    ["Color"] = {"Color", "SetColor", "GetColor"},
    ["Opacity"] = {"Float", "SetOpacity", "GetOpacity"},
    ["Row Spacing"] = {"Float", "SetRowSpacing", "GetRowSpacing"},
    ["Word Wrap"] = {"Bool", "SetWordwrap", "GetWordwrap"},
    ["Width"] = {"Int", "SetWidth", "GetWidth"},
  },
  SoundSource = {
    ["Frequency"] = {"Float", "SetFrequency", "GetFrequency"},
    ["Gain"] = {"Float", "SetGain", "GetGain"},
    ["Attenuation"] = {"Float", "SetAttenuation", "GetAttenuation"},
    ["Panning"] = {"Float", "SetPanning", "GetPanning"},
  },
  UIElement = {
    ["Name"] = {"String", "SetName", "GetName"},
    ["Position"] = {"IntVector2", "SetPosition", "GetPosition"},
    ["Size"] = {"IntVector2", "SetSize", "GetSize"},
    ["Min Size"] = {"IntVector2", "SetMinSize", "GetMinSize"},
    ["Max Size"] = {"IntVector2", "SetMaxSize", "GetMaxSize"},
    ["Opacity"] = {"Float", "SetOpacity", "GetOpacity"},
    ["Color"] = {"Color", "SetColor", "GetColor"},
    ["Priority"] = {"Int", "SetPriority", "GetPriority"},
    ["Is Enabled"] = {"Bool", "SetEnabled", "IsEnabled"},
    ["Is Visible"] = {"Bool", "SetVisible", "IsVisible"},
  },
  BorderImage = {
    ["Texture"] = TEXTURE_REF,
    ["Image Rect"] = {"IntRect", "SetImageRect", "GetImageRect"},
    ["Border"] = {"IntRect", "SetBorder", "GetBorder"},
  },
  Sprite = {
    ["Texture"] = TEXTURE_REF,
    ["Image Rect"] = {"IntRect", "SetImageRect", "GetImageRect"},
  },
  Text = {
    ["Text"] = {"String", "SetText", "GetText"},
    ["Row Spacing"] = {"Float", "SetRowSpacing", "GetRowSpacing"},
    ["Word Wrap"] = {"Bool", "SetWordwrap", "GetWordwrap"},
  },
}
E.ATTRIBUTES = ATTRIBUTES

-- The class whose attributes a record has: "Node" for nodes (and scenes), the component or UI element type.
local function class_of(t)
  if t.kind == "node" then return "Node" end
  return t.type_name
end

-- The attribute `name` of record `t`: {vtype =, set = function(proxy, value), get = function(proxy)}, or nil and
-- the class name (for the caller's error).
function E.find_attribute(t, name)
  local cls = class_of(t)
  for _, decl in ipairs(E.lineage(cls)) do
    local row = ATTRIBUTES[decl.name] and ATTRIBUTES[decl.name][name]
    if row then
      local setter, getter = row[2], row[3]
      if type(setter) == "function" then return {name = name, vtype = row[1], set = setter, get = getter} end
      return {name = name, vtype = row[1],
              set = function(proxy, value) return proxy[setter](proxy, value) end,
              get = function(proxy) return proxy[getter](proxy) end}
    end
  end
  return nil, cls
end


-- Argument checks of the animation classes (62-64_*.lua): a wrong type is a clear error at the game's line.
local function arg_error(n, fname, expected, v)
  local mt = E.dgetmt(v)
  local got = mt and type(mt.__name) == "string" and mt.__name or type(v)
  E.raise_at_game(string.format("bad argument #%d to '%s' (%s expected, got %s)", n, fname, expected, got))
end
E.anim_arg_error = arg_error
function E.anim_number(v, n, fname)
  if type(v) ~= "number" then arg_error(n, fname, "number", v) end
  return v
end
-- An unsigned index as tolua converts a number (truncated); negative, NaN and huge ones are out of every range.
function E.anim_index(v, n, fname)
  if type(v) ~= "number" then arg_error(n, fname, "number", v) end
  if v ~= v or v < 0 or v >= 4294967296 then return 4294967295 end
  return math.tointeger(v >= 0 and math.floor(v) or 0)
end
function E.anim_string(v, n, fname)
  if type(v) ~= "string" then arg_error(n, fname, "string", v) end
  return v
end
-- An attribute name must be a string (Urho3D's binding takes a String).
function E.attribute_name(name, what) return E.anim_string(name, 1, what) end
