-- Techniques and their passes, the rest of Material, and the Texture base class (Urho3D's Graphics/Technique.h,
-- Material.h, Texture.h and the Texture2D/2DArray/3D/Cube sizes), kept as state: nothing compiles shaders or draws.
--
-- A technique is a resource; one read from a file (the game's own Techniques/*.xml, or a stock one whose content the
-- engine ships) carries the passes the file declares, with the attributes Urho3D reads of them. Pass names map to
-- indices as Urho3D assigns them: the eight built-in passes first, then every new name in the order the run first
-- uses it. A material's techniques are entries with a quality level and a LOD distance; with shader defines set
-- the material hands out a copy of the technique whose passes carry the defines, one copy per technique and
-- define pair, as Urho3D does.
local type, ipairs, pairs, tostring, setmetatable = type, ipairs, pairs, tostring, setmetatable
local slower, sformat = string.lower, string.format
local mmax, mmin = math.max, math.min
local REC = E.REC
local int_arg, num_arg, str_arg = E.tolua_int, E.tolua_number, E.tolua_string
local config = E.host.config
-- Urho3D's text conversions (61_xml.lua, loaded after this file)
local T = setmetatable({}, {__index = function(_, k) return E.urho_text[k] end})

local function bool_arg(v) return v ~= nil and v ~= false end
-- a C `unsigned` parameter: the integer modulo 2^32
local function uint_arg(v, fname, n) return int_arg(v, fname, n) & 0xffffffff end

----------------------------------------------------------------------------------------------------
-- Pass
----------------------------------------------------------------------------------------------------
local BLEND_REPLACE, CMP_ALWAYS, CMP_LESS, CMP_LESSEQUAL = 0, 0, 3, 4
local LIGHTING_UNLIT, LIGHTING_PERVERTEX, LIGHTING_PERPIXEL = 0, 1, 2
local MAX_CULLMODES = 3   -- a pass's "use the material's cull mode"
local BLEND_NAMES = {"replace", "add", "multiply", "alpha", "addalpha", "premulalpha", "invdestalpha", "subtract",
                     "subtractalpha"}
local COMPARE_NAMES = {"always", "equal", "notequal", "less", "lessequal", "greater", "greaterequal"}
local LIGHTING_NAMES = {"unlit", "pervertex", "perpixel"}
local CULL_NAMES = {"none", "ccw", "cw"}
-- GetStringListIndex: the 0-based position of `name` in `list`, else `default`
local function list_index(name, list, default)
  for i, n in ipairs(list) do if n == name then return i - 1 end end
  return default
end

-- Pass indices: the built-in passes, then each new (lower-cased) name in the order of first use.
local pass_indices = {base = 0, alpha = 1, material = 2, deferred = 3, light = 4, litbase = 5, litalpha = 6,
                      shadow = 7}
local num_pass_indices = 8
local function pass_index(name)
  local lower = slower(name)
  local index = pass_indices[lower]
  if index == nil then
    index = num_pass_indices
    pass_indices[lower] = index
    num_pass_indices = num_pass_indices + 1
  end
  return index, lower
end

local PassImpl = class("Pass")
local function new_pass(name)
  local index, lower = pass_index(name)
  local lighting = LIGHTING_UNLIT
  if index == 0 or index == 1 or index == 2 or index == 3 then
    lighting = LIGHTING_PERVERTEX
  elseif index == 4 or index == 5 or index == 6 then
    lighting = LIGHTING_PERPIXEL
  end
  return E.new_object("Pass", {kind = "pass", name = lower, index = index, blend = BLEND_REPLACE,
    cull = MAX_CULLMODES, depth_test = CMP_LESSEQUAL, lighting = lighting, alpha_to_coverage = false,
    depth_write = true, desktop = false, vs = "", ps = "", vs_defines = "", ps_defines = "", vs_excludes = "",
    ps_excludes = ""})
end
local function prec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "pass" then E.raise_at_game("invalid 'self' in call to Pass method") end
  return r
end
local PM = PassImpl.methods
local function pass_int(field, fname)
  PM["Set" .. fname] = function(self, v) prec(self)[field] = int_arg(v, "Set" .. fname, 1) end
  PM["Get" .. fname] = function(self) return prec(self)[field] end
end
local function pass_bool(field, fname, getter)
  PM["Set" .. fname] = function(self, v) prec(self)[field] = bool_arg(v) end
  PM[getter or ("Get" .. fname)] = function(self) return prec(self)[field] end
end
local function pass_string(field, fname)
  PM["Set" .. fname] = function(self, v) prec(self)[field] = str_arg(v, "Set" .. fname, 1) end
  PM["Get" .. fname] = function(self) return prec(self)[field] end
end
pass_int("blend", "BlendMode")
pass_int("cull", "CullMode")
pass_int("depth_test", "DepthTestMode")
pass_int("lighting", "LightingMode")
pass_bool("depth_write", "DepthWrite")
pass_bool("alpha_to_coverage", "AlphaToCoverage")
pass_string("vs", "VertexShader")
pass_string("ps", "PixelShader")
pass_string("vs_defines", "VertexShaderDefines")
pass_string("ps_defines", "PixelShaderDefines")
pass_string("vs_excludes", "VertexShaderDefineExcludes")
pass_string("ps_excludes", "PixelShaderDefineExcludes")
PM.SetIsDesktop = function(self, v) prec(self).desktop = bool_arg(v) end
PM.IsDesktop = function(self) return prec(self).desktop end
PM.GetName = function(self) return prec(self).name end
PM.GetIndex = function(self) return prec(self).index end
PM.ReleaseShaders = function(self) prec(self) end   -- no shader variations are ever built

local PASS_FIELDS = {"blend", "cull", "depth_test", "lighting", "alpha_to_coverage", "depth_write", "desktop", "vs",
                     "ps", "vs_defines", "ps_defines", "vs_excludes", "ps_excludes"}

----------------------------------------------------------------------------------------------------
-- Technique
----------------------------------------------------------------------------------------------------
local TechImpl = class("Technique")
local function trec(self)
  local r = REC[self]
  if r == nil or r.type_name ~= "Technique" then E.raise_at_game("invalid 'self' in call to Technique method") end
  return r
end
E.resource_init("Technique", function(r)
  r.passes, r.desktop, r.define_clones = {}, false, {}
end)
-- Whether the device runs desktop-only passes: Urho3D builds for Android, iOS and tvOS have mobile graphics.
local function desktop_support()
  local p = tostring(config.platform)
  return p ~= "Android" and p ~= "iOS" and p ~= "tvOS"
end
local function get_pass(r, name)
  local index = pass_indices[slower(name)]
  return index and r.passes[index + 1] or nil
end
local function create_pass(r, name)
  local old = get_pass(r, name)
  if old then return old end
  local pass = new_pass(name)
  r.passes[REC[pass].index + 1] = pass
  return pass
end
-- the passes in index order (the list may have holes)
local function pass_list(r)
  local out, n = {}, 0
  for k in pairs(r.passes) do if k > n then n = k end end   -- the highest index (order not observed)
  for i = 1, n do
    if r.passes[i] then out[#out + 1] = r.passes[i] end
  end
  return out
end
local TM = TechImpl.methods
TM.SetIsDesktop = function(self, v) trec(self).desktop = bool_arg(v) end
TM.IsDesktop = function(self) return trec(self).desktop end
TM.IsSupported = function(self) return not trec(self).desktop or desktop_support() end
TM.CreatePass = function(self, name) return create_pass(trec(self), str_arg(name, "CreatePass", 1)) end
TM.RemovePass = function(self, name)
  local r = trec(self)
  local index = pass_indices[slower(str_arg(name, "RemovePass", 1))]
  if index ~= nil then r.passes[index + 1] = nil end
end
TM.ReleaseShaders = function(self) trec(self) end
TM.HasPass = function(self, name) return get_pass(trec(self), str_arg(name, "HasPass", 1)) ~= nil end
TM.GetPass = function(self, name) return get_pass(trec(self), str_arg(name, "GetPass", 1)) end
TM.GetSupportedPass = function(self, name)
  local pass = get_pass(trec(self), str_arg(name, "GetSupportedPass", 1))
  if pass and (not REC[pass].desktop or desktop_support()) then return pass end
  return nil
end
TM.GetNumPasses = function(self) return #pass_list(trec(self)) end
TM.GetPassTypes = function(self)
  local out = {}
  for i, p in ipairs(pass_list(trec(self))) do out[i] = REC[p].name end
  return out
end
TM.GetPasses = function(self) return pass_list(trec(self)) end
local function clone_technique(src, name)
  local t = E.make_resource("Technique", name, nil)
  local r = REC[t]
  r.desktop = src.desktop
  for _, p in ipairs(pass_list(src)) do
    local from = REC[p]
    local to = REC[create_pass(r, from.name)]
    for _, k in ipairs(PASS_FIELDS) do to[k] = from[k] end
  end
  return t
end
TM.Clone = function(self, name)
  local r = trec(self)
  return clone_technique(r, name == nil and "" or str_arg(name, "Clone", 1))
end
-- Technique::CloneWithDefines: the technique itself without defines, else its cached copy with them appended
local function with_defines(tech, vs, ps)
  if vs == "" and ps == "" then return tech end
  local r = REC[tech]
  local key = vs .. "\0" .. ps
  local clone = r.define_clones[key]
  if clone == nil then
    clone = clone_technique(r, r.name)
    for _, p in ipairs(pass_list(REC[clone])) do
      local pr = REC[p]
      if vs ~= "" then pr.vs_defines = pr.vs_defines .. " " .. vs end
      if ps ~= "" then pr.ps_defines = pr.ps_defines .. " " .. ps end
    end
    r.define_clones[key] = clone
  end
  return clone
end

-- Reading a technique file: the root's shared shaders and defines, then each named <pass>.
E.resource_loader("Technique", function(r, data, name)
  local root, err = E.xml_parse(data)
  if root == nil then return false, "Could not parse XML data from " .. name .. ": " .. err end
  local a = root.attrs
  if a.desktop ~= nil then r.desktop = T.bool(a.desktop) end
  local vs, ps = a.vs or "", a.ps or ""
  local vs_defines, ps_defines = a.vsdefines or "", a.psdefines or ""
  if vs_defines ~= "" then vs_defines = vs_defines .. " " end
  if ps_defines ~= "" then ps_defines = ps_defines .. " " end
  for _, node in ipairs(E.xml_children(root, "pass")) do
    local pa = node.attrs
    if pa.name == nil then
      E.log("ERROR", "Missing pass name")
    else
      local p = REC[create_pass(r, pa.name)]
      if pa.desktop ~= nil then p.desktop = T.bool(pa.desktop) end
      if pa.vs ~= nil then p.vs, p.vs_defines = pa.vs, pa.vsdefines or ""
      else p.vs, p.vs_defines = vs, vs_defines .. (pa.vsdefines or "") end
      if pa.ps ~= nil then p.ps, p.ps_defines = pa.ps, pa.psdefines or ""
      else p.ps, p.ps_defines = ps, ps_defines .. (pa.psdefines or "") end
      p.vs_excludes, p.ps_excludes = pa.vsexcludes or "", pa.psexcludes or ""
      if pa.lighting ~= nil then p.lighting = list_index(slower(pa.lighting), LIGHTING_NAMES, LIGHTING_UNLIT) end
      if pa.blend ~= nil then p.blend = list_index(slower(pa.blend), BLEND_NAMES, BLEND_REPLACE) end
      if pa.cull ~= nil then p.cull = list_index(slower(pa.cull), CULL_NAMES, MAX_CULLMODES) end
      if pa.depthtest ~= nil then
        local dt = slower(pa.depthtest)
        p.depth_test = dt == "false" and CMP_ALWAYS or list_index(dt, COMPARE_NAMES, CMP_LESS)
      end
      if pa.depthwrite ~= nil then p.depth_write = T.bool(pa.depthwrite) end
      if pa.alphatocoverage ~= nil then p.alpha_to_coverage = T.bool(pa.alphatocoverage) end
    end
  end
  return true
end)

----------------------------------------------------------------------------------------------------
-- Material: the members 60_resources.lua leaves out, and Urho3D's defaults for a new material
----------------------------------------------------------------------------------------------------
local MA = IMPL.Material.methods
local CULL_CCW, QUALITY_LOW = 1, 0
local DEFAULT_TECHNIQUE = "Techniques/NoTexture.xml"
local function mrec(self)
  local r = REC[self]
  if r == nil or r.type_name ~= "Material" then E.raise_at_game("invalid 'self' in call to Material method") end
  return r
end
local V2, V4 = E.Vector2_new, function(x, y, z, w) return E.IMPL.Vector4.new(x, y, z, w) end
local function set_param(r, name, value) r.params[name] = E.variant_of(value) end
-- Material::ResetToDefaults: what a new material holds
local base_init = E.resource_init_of("Material")
E.resource_init("Material", function(r, proxy, meta)
  base_init(r, proxy, meta)
  r.cull, r.shadow_cull = CULL_CCW, CULL_CCW
  r.tech_quality, r.tech_lod = {}, {}
  if not (meta and (meta.techniques or meta.from_game)) then
    r.techniques[1] = DEFAULT_TECHNIQUE   -- Renderer's default technique, looked up when asked for
  end
  set_param(r, "UOffset", V4(1.0, 0.0, 0.0, 0.0))
  set_param(r, "VOffset", V4(0.0, 1.0, 0.0, 0.0))
  set_param(r, "MatDiffColor", V4(1.0, 1.0, 1.0, 1.0))
  set_param(r, "MatEmissiveColor", E.Vector3_new(0.0, 0.0, 0.0))
  set_param(r, "MatEnvMapColor", E.Vector3_new(1.0, 1.0, 1.0))
  set_param(r, "MatSpecColor", V4(0.0, 0.0, 0.0, 1.0))
  set_param(r, "Roughness", 0.5)
  set_param(r, "Metallic", 0.0)
  r.specular, r.line_aa, r.alpha_to_coverage = false, false, false
  r.vs_defines, r.ps_defines = "", ""
  r.uv_offset, r.uv_tiling, r.uv_speed, r.tex_rotation = V2(0.0, 0.0), V2(1.0, 1.0), V2(0.0, 0.0), 0.0
  r.surface_textures = {}
end)

-- technique entries: index 1..n of r.techniques, each a Technique, a stock name, or false (no technique)
MA.SetNumTechniques = function(self, n)
  local r = mrec(self)
  n = uint_arg(n, "SetNumTechniques", 1)
  if n == 0 then return end
  n = mmin(n, 1024)
  for i = #r.techniques + 1, n do r.techniques[i] = false end
  for i = #r.techniques, n + 1, -1 do r.techniques[i], r.tech_quality[i], r.tech_lod[i] = nil, nil, nil end
end
MA.SetTechnique = function(self, index, tech, quality, lod)
  local r = mrec(self)
  index = uint_arg(index, "SetTechnique", 1)
  -- beyond the end: ignored, as in Urho3D; but a game's material file (whose techniques the engine does not read)
  -- takes technique 0, as every material Urho3D loads has at least one
  if index >= #r.techniques and not (index == 0 and #r.techniques == 0) then return end
  r.techniques[index + 1] = tech or false
  r.tech_quality[index + 1] = quality == nil and QUALITY_LOW or int_arg(quality, "SetTechnique", 3)
  r.tech_lod[index + 1] = lod == nil and 0.0 or num_arg(lod, "SetTechnique", 4)
end
local function original_technique(r, i)
  local t = r.techniques[i]
  if type(t) == "string" then return E.get_resource("Technique", t, true) end
  return t or nil
end
MA.GetTechnique = function(self, index)
  local r = mrec(self)
  local t = original_technique(r, uint_arg(index or 0, "GetTechnique", 1) + 1)
  if t == nil then return nil end
  return with_defines(t, r.vs_defines, r.ps_defines)
end
MA.GetNumTechniques = function(self) return #mrec(self).techniques end
MA.GetPass = function(self, index, name)
  local tech = MA.GetTechnique(self, index)
  return tech and TM.GetPass(tech, name) or nil
end
-- Material::SortTechniques: by LOD distance, then quality level, both descending; a stable order for ties
MA.SortTechniques = function(self)
  local r = mrec(self)
  local entries = {}
  for i = 1, #r.techniques do
    entries[i] = {r.techniques[i], r.tech_quality[i] or QUALITY_LOW, r.tech_lod[i] or 0.0, i}
  end
  table.sort(entries, function(a, b)
    if a[3] ~= b[3] then return a[3] > b[3] end
    if a[2] ~= b[2] then return a[2] > b[2] end
    return a[4] < b[4]
  end)
  for i, e in ipairs(entries) do r.techniques[i], r.tech_quality[i], r.tech_lod[i] = e[1], e[2], e[3] end
end
MA.SetVertexShaderDefines = function(self, d) mrec(self).vs_defines = str_arg(d, "SetVertexShaderDefines", 1) end
MA.SetPixelShaderDefines = function(self, d) mrec(self).ps_defines = str_arg(d, "SetPixelShaderDefines", 1) end
MA.GetVertexShaderDefines = function(self) return mrec(self).vs_defines end
MA.GetPixelShaderDefines = function(self) return mrec(self).ps_defines end
MA.ReleaseShaders = function(self) mrec(self) end
MA.MarkForAuxView = function(self, frame) mrec(self).aux_view_frame = uint_arg(frame, "MarkForAuxView", 1) end

-- MatSpecColor decides whether the material is specular (its RGB above zero), as Urho3D tracks it
local function spec_of(v)
  if v.type_ == "Vector3" or v.type_ == "Vector4" then
    local c = v.value_
    return c.x > 0.0 or c.y > 0.0 or c.z > 0.0
  end
  return nil
end
MA.SetShaderParameter = function(self, name, value)
  local r = mrec(self)
  name = str_arg(name, "SetShaderParameter", 1)
  local v = E.variant_of(value)
  r.params[name] = v
  if name == "MatSpecColor" then
    local s = spec_of(v)
    if s ~= nil then r.specular = s end
  end
end
MA.RemoveShaderParameter = function(self, name)
  local r = mrec(self)
  name = str_arg(name, "RemoveShaderParameter", 1)
  r.params[name] = nil
  if name == "MatSpecColor" then r.specular = false end
end
MA.GetSpecular = function(self) return mrec(self).specular end

-- depth bias: a copy in and out, clamped as BiasParameters::Validate clamps it
local function bias(c, s, n) return E.IMPL.BiasParameters.new(c, s, n) end
MA.SetDepthBias = function(self, b)
  if not E.is(b, "BiasParameters") then
    E.raise_at_game("bad argument #1 to 'SetDepthBias' (BiasParameters expected)")
  end
  mrec(self).depth_bias = bias(mmin(mmax(b.constantBias, -1.0), 1.0), mmin(mmax(b.slopeScaledBias, -16.0), 16.0),
                               mmax(b.normalOffset, 0.0))
end
MA.GetDepthBias = function(self)
  local b = mrec(self).depth_bias
  if b == nil then return bias(0.0, 0.0, 0.0) end
  return bias(b.constantBias, b.slopeScaledBias, b.normalOffset)
end
MA.SetAlphaToCoverage = function(self, v) mrec(self).alpha_to_coverage = bool_arg(v) end
MA.GetAlphaToCoverage = function(self) return mrec(self).alpha_to_coverage end
MA.SetLineAntiAlias = function(self, v) mrec(self).line_aa = bool_arg(v) end
MA.GetLineAntiAlias = function(self) return mrec(self).line_aa end

-- UV transform: Material::SetUVTransform's matrix (repeat, then rotation about the texture's centre, then offset),
-- kept in the UOffset and VOffset shader parameters; rotation in degrees. UrhoX's tiling, offset and rotation
-- members are the same three inputs, each kept and the parameters recomputed from all three.
local function apply_uv(r)
  local rad = math.rad(r.tex_rotation)
  local c, s = math.cos(rad), math.sin(rad)
  local rx, ry = r.uv_tiling.x, r.uv_tiling.y
  -- rotation about (0.5, 0.5): rows (c, s, tx) and (-s, c, ty)
  local tx, ty = 0.5 - 0.5 * (c + s), 0.5 - 0.5 * (-s + c)
  set_param(r, "UOffset", V4(rx * c, rx * s, 0.0, rx * tx + r.uv_offset.x))
  set_param(r, "VOffset", V4(ry * -s, ry * c, 0.0, ry * ty + r.uv_offset.y))
end
local function vec2_arg(v, fname, n)
  if not E.is(v, "Vector2") then E.raise_at_game(sformat("bad argument #%d to '%s' (Vector2 expected)", n, fname)) end
  return V2(v.x, v.y)
end
MA.SetUVTransform = function(self, offset, rotation, rep)
  local r = mrec(self)
  offset = vec2_arg(offset, "SetUVTransform", 1)
  rotation = num_arg(rotation, "SetUVTransform", 2)
  if type(rep) == "number" then rep = V2(rep, rep) else rep = vec2_arg(rep, "SetUVTransform", 3) end
  r.uv_offset, r.tex_rotation, r.uv_tiling = offset, rotation, rep
  apply_uv(r)
end
MA.SetUVTiling = function(self, v) local r = mrec(self); r.uv_tiling = vec2_arg(v, "SetUVTiling", 1); apply_uv(r) end
MA.SetUVOffset = function(self, v) local r = mrec(self); r.uv_offset = vec2_arg(v, "SetUVOffset", 1); apply_uv(r) end
MA.SetTexRotation = function(self, v)
  local r = mrec(self)
  r.tex_rotation = num_arg(v, "SetTexRotation", 1)
  apply_uv(r)
end
MA.SetUVSpeed = function(self, v) mrec(self).uv_speed = vec2_arg(v, "SetUVSpeed", 1) end
MA.GetUVTiling = function(self) local v = mrec(self).uv_tiling; return V2(v.x, v.y) end
MA.GetUVOffset = function(self) local v = mrec(self).uv_offset; return V2(v.x, v.y) end
MA.GetUVSpeed = function(self) local v = mrec(self).uv_speed; return V2(v.x, v.y) end
MA.GetTexRotation = function(self) return mrec(self).tex_rotation end

-- UrhoX's surface shader and named surface textures: state only
MA.SetSurfaceShader = function(self, shader)
  mrec(self).surface_shader = shader
  return true
end
MA.GetSurfaceShader = function(self) return mrec(self).surface_shader end
MA.SetSurfaceTexture = function(self, name, tex)
  mrec(self).surface_textures[str_arg(name, "SetSurfaceTexture", 1)] = tex or nil
  return true
end
MA.GetSurfaceTexture = function(self, name)
  return mrec(self).surface_textures[str_arg(name, "GetSurfaceTexture", 1)]
end

local base_clone = MA.Clone
MA.Clone = function(self, name)
  local src = mrec(self)
  local m = base_clone(self, name == nil and "" or str_arg(name, "Clone", 1))
  local r = REC[m]
  for i = #r.techniques, 1, -1 do r.techniques[i] = nil end
  for i = 1, #src.techniques do
    r.techniques[i], r.tech_quality[i], r.tech_lod[i] = src.techniques[i], src.tech_quality[i], src.tech_lod[i]
  end
  r.vs_defines, r.ps_defines = src.vs_defines, src.ps_defines
  r.depth_bias, r.alpha_to_coverage, r.line_aa = src.depth_bias, src.alpha_to_coverage, src.line_aa
  r.occlusion, r.specular, r.render_order = src.occlusion, src.specular, src.render_order
  r.uv_offset, r.uv_tiling, r.uv_speed, r.tex_rotation = src.uv_offset, src.uv_tiling, src.uv_speed, src.tex_rotation
  r.surface_shader = src.surface_shader
  for _, k in ipairs(E.sorted_keys(src.surface_textures)) do r.surface_textures[k] = src.surface_textures[k] end
  return m
end

----------------------------------------------------------------------------------------------------
-- Texture: the base class's state and level arithmetic (Urho3D's OpenGL backend, whose format numbers the engine
-- reports: 30_core.lua), for Texture2D, Texture2DArray, Texture3D and TextureCube alike
----------------------------------------------------------------------------------------------------
local TEXTURE_STATIC, TEXTURE_DYNAMIC, TEXTURE_RENDERTARGET, TEXTURE_DEPTHSTENCIL = 0, 1, 2, 3
local FILTER_NEAREST, FILTER_DEFAULT, ADDRESS_WRAP, ADDRESS_CLAMP = 0, 5, 0, 2
-- the record types that are textures: Texture's subclasses in the registry (VideoTexture among them), found once each
local TEXTURE_TYPES = setmetatable({}, {__index = function(known, type_name)
  local found = false
  for _, decl in ipairs(E.REGISTRY.classes[type_name] and E.lineage(type_name) or {}) do
    if decl.name == "Texture" then found = true end
  end
  known[type_name] = found
  return found
end})
-- bytes per pixel row of `width` pixels by format; block formats by their 4x4 (8x4) blocks
local ROW_BYTES = {[0x1906] = 1, [0x1909] = 1, [0x190A] = 2, [0x1907] = 3, [0x1908] = 4, [0x88F0] = 4,
  [0x822C] = 4, [0x822F] = 4, [0x822E] = 4, [0x8229] = 1, [0x822B] = 2, [0x822D] = 2, [0x805B] = 8, [0x881A] = 8,
  [0x8814] = 16}
local BLOCK_BYTES = {[0x83F1] = {4, 8}, [0x83F2] = {4, 16}, [0x83F3] = {4, 16}, [0x8D64] = {4, 8},
  [0x9274] = {4, 8}, [0x9278] = {4, 16}, [0x8C00] = {4, 8}, [0x8C02] = {4, 8}, [0x8C01] = {8, 8}, [0x8C03] = {8, 8}}

local function xrec(self)
  local r = REC[self]
  if r == nil or not TEXTURE_TYPES[r.type_name] then E.raise_at_game("invalid 'self' in call to Texture method") end
  if r.tex == nil then
    r.tex = {filter = FILTER_DEFAULT, address = {ADDRESS_WRAP, ADDRESS_WRAP, ADDRESS_WRAP}, anisotropy = 0,
      mips_to_skip = {2, 1, 0}, border = E.Color_new(1.0, 1.0, 1.0, 1.0), multi_sample = 1, srgb = false,
      auto_resolve = false, requested_levels = 0, depth = (r.width and 1 or 0), format = 0}
    -- the record's older fields (a file's size, Texture2D's first setters)
    if r.filter ~= nil then r.tex.filter = r.filter end
    for coord = 0, 2 do
      if r["address" .. coord] ~= nil then r.tex.address[coord + 1] = r["address" .. coord] end
    end
  end
  return r, r.tex
end
E.texture_rec = xrec
local function check_levels(w, h, d, requested)
  local levels = 1
  while w > 1 or h > 1 or d > 1 do
    levels = levels + 1
    w = w > 1 and (w >> 1) or 1
    h = h > 1 and (h >> 1) or 1
    d = d > 1 and (d >> 1) or 1
  end
  if requested == 0 or levels < requested then return levels end
  return requested
end
local function levels_of(r, t)
  if t.levels == nil then
    local w, h = r.width or 0, r.height or 0
    if w <= 0 or h <= 0 then return 0 end
    t.levels = check_levels(w, h, 1, t.requested_levels)   -- a texture read from a file: its whole chain
  end
  return t.levels
end
local function row_size(t, width)
  local per = ROW_BYTES[t.format]
  if per then return (width * per) & 0xffffffff end
  local block = BLOCK_BYTES[t.format]
  if block then return (((width + block[1] - 1) & 0xffffffff) // block[1]) * block[2] end
  return 0
end
local function is_compressed(t) return BLOCK_BYTES[t.format] ~= nil end

local TX = class("Texture").methods
local tex_methods = {}
tex_methods.GetWidth = function(self) return xrec(self).width or 0 end
tex_methods.GetHeight = function(self) return xrec(self).height or 0 end
tex_methods.GetFormat = function(self) local _, t = xrec(self); return t.format end
tex_methods.IsCompressed = function(self) local _, t = xrec(self); return is_compressed(t) end
tex_methods.GetLevels = function(self) return levels_of(xrec(self)) end
tex_methods.GetUsage = function(self) return xrec(self).usage or TEXTURE_STATIC end
tex_methods.SetNumLevels = function(self, levels)
  local r, t = xrec(self)
  levels = uint_arg(levels, "SetNumLevels", 1)
  t.requested_levels = (r.usage or 0) > TEXTURE_RENDERTARGET and 1 or levels
end
tex_methods.SetFilterMode = function(self, m)
  local r, t = xrec(self)
  t.filter = int_arg(m, "SetFilterMode", 1)
  r.filter = t.filter
end
tex_methods.GetFilterMode = function(self) local _, t = xrec(self); return t.filter end
tex_methods.SetAddressMode = function(self, coord, mode)
  local r, t = xrec(self)
  coord, mode = int_arg(coord, "SetAddressMode", 1), int_arg(mode, "SetAddressMode", 2)
  if coord < 0 or coord > 2 then return end
  t.address[coord + 1] = mode
  r["address" .. coord] = mode
end
tex_methods.GetAddressMode = function(self, coord)
  local _, t = xrec(self)
  coord = int_arg(coord, "GetAddressMode", 1)
  return t.address[coord + 1] or ADDRESS_WRAP
end
tex_methods.SetAnisotropy = function(self, v)
  local _, t = xrec(self)
  t.anisotropy = uint_arg(v, "SetAnisotropy", 1)
end
tex_methods.GetAnisotropy = function(self) local _, t = xrec(self); return t.anisotropy end
tex_methods.SetBorderColor = function(self, c)
  local _, t = xrec(self)
  if not E.is(c, "Color") then E.raise_at_game("bad argument #1 to 'SetBorderColor' (Color expected)") end
  t.border = E.Color_new(c.r, c.g, c.b, c.a)
end
tex_methods.GetBorderColor = function(self)
  local _, t = xrec(self)
  return E.Color_new(t.border.r, t.border.g, t.border.b, t.border.a)
end
tex_methods.SetSRGB = function(self, v) local _, t = xrec(self); t.srgb = bool_arg(v) end   -- the device supports sRGB
tex_methods.GetSRGB = function(self) local _, t = xrec(self); return t.srgb end
tex_methods.SetBackupTexture = function(self, tex) local _, t = xrec(self); t.backup = tex or nil end
tex_methods.GetBackupTexture = function(self) local _, t = xrec(self); return t.backup end
tex_methods.GetMultiSample = function(self) local _, t = xrec(self); return t.multi_sample end
tex_methods.GetAutoResolve = function(self) local _, t = xrec(self); return t.auto_resolve end
tex_methods.IsResolveDirty = function(self) xrec(self); return false end   -- nothing renders into it
tex_methods.GetLevelsDirty = function(self) xrec(self); return false end
tex_methods.SetMipsToSkip = function(self, quality, to_skip)
  local _, t = xrec(self)
  quality, to_skip = int_arg(quality, "SetMipsToSkip", 1), int_arg(to_skip, "SetMipsToSkip", 2) & 0xffffffff
  if quality < 0 or quality > 2 then return end
  local m = t.mips_to_skip
  m[quality + 1] = to_skip
  for i = 2, 3 do if m[i] > m[i - 1] then m[i] = m[i - 1] end end
end
tex_methods.GetMipsToSkip = function(self, quality)
  local _, t = xrec(self)
  quality = int_arg(quality, "GetMipsToSkip", 1)
  if quality < 0 or quality > 2 then return 0 end
  local v = t.mips_to_skip[quality + 1]
  return v >= 0x80000000 and v - 0x100000000 or v   -- read back as a C int
end
local function level_size(key)
  return function(self, level)
    local r, t = xrec(self)
    level = uint_arg(level, "GetLevel", 1)
    if level > levels_of(r, t) then return 0 end
    return mmax((r[key] or 0) >> level, 1)
  end
end
tex_methods.GetLevelWidth = level_size("width")
tex_methods.GetLevelHeight = level_size("height")
tex_methods.GetRowDataSize = function(self, width)
  local _, t = xrec(self)
  return row_size(t, int_arg(width, "GetRowDataSize", 1))
end
tex_methods.GetDataSize = function(self, width, height)
  local _, t = xrec(self)
  width, height = int_arg(width, "GetDataSize", 1), int_arg(height, "GetDataSize", 2)
  local rows = is_compressed(t) and (((height + 3) & 0xffffffff) >> 2) or height
  return (row_size(t, width) * rows) & 0xffffffff
end
tex_methods.GetComponents = function(self)
  local r, t = xrec(self)
  local w = r.width or 0
  if w == 0 or is_compressed(t) then return 0 end
  return row_size(t, w) // w
end
for name, fn in pairs(tex_methods) do TX[name] = fn end
-- Texture2D's own versions in 60_resources.lua give way to these (the most derived implementation wins)
local T2 = IMPL.Texture2D.methods
for _, name in ipairs({"GetWidth", "GetHeight", "GetUsage", "SetFilterMode", "SetAddressMode", "SetNumLevels"}) do
  T2[name] = tex_methods[name]
end

-- Creating the texture at a size: Urho3D's mip level rules (Texture*::Create on OpenGL)
local function create_levels(r, t, depth)
  local usage = r.usage or 0
  if usage == TEXTURE_DEPTHSTENCIL or usage == TEXTURE_DYNAMIC then
    t.requested_levels = 1
  elseif usage == TEXTURE_RENDERTARGET and t.requested_levels ~= 1 then
    t.requested_levels = 0
  end
  t.levels = check_levels(r.width, r.height, depth, t.requested_levels)
end
local function size_error(msg)
  E.log("ERROR", msg)
  return false
end
local function usage_arg(u, fname, n) return u == nil and TEXTURE_STATIC or int_arg(u, fname, n) end
T2.SetSize = function(self, w, h, format, usage, multi_sample, auto_resolve)
  local r, t = xrec(self)
  w, h = int_arg(w, "SetSize", 1), int_arg(h, "SetSize", 2)
  format, usage = uint_arg(format, "SetSize", 3), usage_arg(usage, "SetSize", 4)
  multi_sample = multi_sample == nil and 1 or int_arg(multi_sample, "SetSize", 5)
  auto_resolve = auto_resolve == nil and true or bool_arg(auto_resolve)
  if w <= 0 or h <= 0 then return size_error("Zero or negative texture dimensions") end
  multi_sample = mmin(mmax(multi_sample, 1), 16)
  if multi_sample == 1 then
    auto_resolve = false
  elseif usage < TEXTURE_RENDERTARGET then
    return size_error("Multisampling is only supported for rendertarget or depth-stencil textures")
  end
  if multi_sample > 1 and not auto_resolve then t.requested_levels = 1 end
  r.surface = nil
  r.usage = usage
  if usage >= TEXTURE_RENDERTARGET then
    t.address[1], t.address[2], t.filter = ADDRESS_CLAMP, ADDRESS_CLAMP, FILTER_NEAREST
    r.address0, r.address1, r.filter = ADDRESS_CLAMP, ADDRESS_CLAMP, FILTER_NEAREST
  end
  r.width, r.height, t.format, t.depth, t.multi_sample, t.auto_resolve = w, h, format, 1, multi_sample, auto_resolve
  create_levels(r, t, 1)
  return true
end

local function texture_new(type_name) return function() return E.make_resource(type_name, "", nil) end end
local TA, T3, TC = class("Texture2DArray"), class("Texture3D"), class("TextureCube")
TA.new, T3.new, TC.new = texture_new("Texture2DArray"), texture_new("Texture3D"), texture_new("TextureCube")

TA.methods.SetLayers = function(self, layers) local r = xrec(self); r.layers = uint_arg(layers, "SetLayers", 1) end
TA.methods.GetLayers = function(self) return xrec(self).layers or 0 end
TA.methods.SetSize = function(self, layers, w, h, format, usage)
  local r, t = xrec(self)
  layers, w, h = uint_arg(layers, "SetSize", 1), int_arg(w, "SetSize", 2), int_arg(h, "SetSize", 3)
  format, usage = uint_arg(format, "SetSize", 4), usage_arg(usage, "SetSize", 5)
  if w <= 0 or h <= 0 then return size_error("Zero or negative texture array size") end
  if usage == TEXTURE_DEPTHSTENCIL then return size_error("Depth-stencil usage not supported for texture arrays") end
  r.surface = nil
  r.usage = usage
  if usage == TEXTURE_RENDERTARGET then t.filter = FILTER_NEAREST end
  r.width, r.height, t.format, t.depth = w, h, format, 1
  if layers ~= 0 then r.layers = layers end
  create_levels(r, t, 1)
  return true
end
TA.methods.GetRenderSurface = function(self)
  local r = xrec(self)
  if (r.usage or 0) ~= TEXTURE_RENDERTARGET then return nil end
  if r.surface == nil then r.surface = IMPL.RenderSurface.new(self) end
  return r.surface
end

T3.methods.SetSize = function(self, w, h, d, format, usage)
  local r, t = xrec(self)
  w, h, d = int_arg(w, "SetSize", 1), int_arg(h, "SetSize", 2), int_arg(d, "SetSize", 3)
  format, usage = uint_arg(format, "SetSize", 4), usage_arg(usage, "SetSize", 5)
  if w <= 0 or h <= 0 or d <= 0 then return size_error("Zero or negative 3D texture dimensions") end
  if usage >= TEXTURE_RENDERTARGET then
    return size_error("Rendertarget or depth-stencil usage not supported for 3D textures")
  end
  r.usage = usage
  r.width, r.height, t.depth, t.format = w, h, d, format
  if usage == TEXTURE_DYNAMIC then t.requested_levels = 1 end
  t.levels = check_levels(w, h, d, t.requested_levels)
  return true
end

local MAX_CUBEMAP_FACES = 6
TC.methods.SetSize = function(self, size, format, usage, multi_sample)
  local r, t = xrec(self)
  size, format = int_arg(size, "SetSize", 1), uint_arg(format, "SetSize", 2)
  usage = usage_arg(usage, "SetSize", 3)
  multi_sample = multi_sample == nil and 1 or int_arg(multi_sample, "SetSize", 4)
  if size <= 0 then return size_error("Zero or negative cube texture size") end
  if usage == TEXTURE_DEPTHSTENCIL then return size_error("Depth-stencil usage not supported for cube textures") end
  multi_sample = mmin(mmax(multi_sample, 1), 16)
  if multi_sample > 1 and usage < TEXTURE_RENDERTARGET then
    return size_error("Multisampling is only supported for rendertarget cube textures")
  end
  r.faces = nil
  r.usage = usage
  if usage == TEXTURE_RENDERTARGET then t.filter = FILTER_NEAREST end
  r.width, r.height, t.depth, t.format = size, size, 1, format
  t.multi_sample, t.auto_resolve = multi_sample, multi_sample > 1
  create_levels(r, t, 1)
  return true
end
TC.methods.GetRenderSurface = function(self, face)
  local r = xrec(self)
  face = int_arg(face, "GetRenderSurface", 1)
  if face < 0 or face >= MAX_CUBEMAP_FACES or (r.usage or 0) ~= TEXTURE_RENDERTARGET then return nil end
  if r.faces == nil then r.faces = {} end
  if r.faces[face + 1] == nil then r.faces[face + 1] = IMPL.RenderSurface.new(self) end
  return r.faces[face + 1]
end
