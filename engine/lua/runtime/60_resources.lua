-- ResourceCache: Urho3D's stock resources (names and headless metadata from engine/data/resources.json)
-- and the deliverable's own files (59_files.lua).  A missing resource logs an error and returns nil, as in Urho3D.
local error, type, setmetatable, ipairs, pairs, tostring = error, type, setmetatable, ipairs, pairs, tostring
local sformat, slower, ssub, sgsub = string.format, string.lower, string.sub, string.gsub
local REC = E.REC
local STOCK = E.host.resources or {}
local RESOURCE_PREFIXES = {"", "assets/", "Data/", "resources/", "Resources/"}

local function normalize(name)
  name = sgsub(tostring(name or ""), "\\", "/")
  name = sgsub(name, "^%./", "")
  return name
end

-- The path of the game's file for a resource name, or nil (its bytes are read by whoever needs them).
function E.find_game_file(name)
  name = normalize(name)
  for _, prefix in ipairs(RESOURCE_PREFIXES) do
    if E.fs_exists(prefix .. name) then return prefix .. name end
  end
  return nil
end

local TYPE_ALIASES = {Texture = "Texture2D", Image = "Texture2D", Sprite2D = "Texture2D"}
local cache_by_key = {}
local resource_classes = {}
-- fn(record, proxy, meta) initialises every new resource of the type (from a file, the stock set, or new()); it
-- returns false for a file that is not one of its type (having logged why). meta.from_game: a file of the game's.
function E.resource_init(type_name, fn) resource_classes[type_name] = fn end
function E.resource_init_of(type_name) return resource_classes[type_name] end

local Resource = class("Resource")
local RM = Resource.methods
RM.GetName = function(self) return E.rec(self).name end
RM.GetNameHash = function(self) return E.StringHash_new(E.rec(self).name) end
RM.GetMemoryUse = function(self) return E.rec(self).size or 0 end

local function make_resource(type_name, name, meta)
  if IMPL[type_name] == nil or E.REGISTRY.classes[type_name] == nil then type_name = "Resource" end
  local proxy = setmetatable({}, IMPL[type_name].mt)
  local r = {kind = "resource", type_name = type_name, name = name, size = meta and meta.size or 0}
  REC[proxy] = r
  if meta and meta.bounding_box then
    local b = meta.bounding_box
    r.bbox = {b.min[1], b.min[2], b.min[3], b.max[1], b.max[2], b.max[3]}
    r.num_geometries = meta.num_geometries or 1
  end
  if meta and meta.width then r.width, r.height = meta.width, meta.height end
  if meta and meta.length_seconds then r.length = meta.length_seconds; r.frequency = meta.frequency end
  local init = resource_classes[type_name]
  if init and init(r, proxy, meta) == false then return nil end   -- a file that is not one (its init logged why)
  return proxy
end
E.make_resource = make_resource

-- Types whose content the engine reads from the game's file (XMLFile, JSONFile, Model): loader(record, data, name)
-- -> ok, or false and the error Urho3D logs for it (nil when the loader logged it).
-- A resource of another type from the game folder is known by its name and size; its bytes are never read.
local content_loaders = {}
function E.resource_loader(type_name, fn) content_loaders[type_name] = fn end
-- Content the engine ships for some stock names (engine/data/stock/: this project's own files), by name.
local STOCK_CONTENT = E.host.stock_content or {}
function E.stock_content(name) return STOCK_CONTENT[name] end

local function release(res)
  local r = REC[res]
  if r and r.held and r.held > 0 then
    E.files_release(r.held)
    r.held = 0
  end
end

local function load_content(type_name, name, loader, data, held, from_game)
  local res = make_resource(type_name, name, {size = #data, from_game = from_game})
  if res == nil then
    if held > 0 then E.files_release(held) end
    return nil
  end
  local r = REC[res]
  r.held = held
  local ok, why = loader(r, data, name)
  if not ok then
    release(res)
    if why then E.log("ERROR", why) end
    return nil
  end
  return res
end

local function get_resource(type_name, name, quiet)
  if E.is(type_name, "StringHash") then type_name = type_name.name_ end
  type_name = tostring(type_name)
  name = normalize(name)
  if name == "" then return nil end
  local key = type_name .. "|" .. name
  local cached = cache_by_key[key]
  if cached ~= nil then return cached end
  local meta = STOCK[name]
  local loader = content_loaders[type_name]
  local path = E.find_game_file(name)
  local res
  if path ~= nil and loader then   -- a game's own XML, JSON or model file is read even under a stock name
    local data, held = E.fs_read_held(path)
    if data == nil then return nil end
    res = load_content(type_name, name, loader, data, held, true)
    if res == nil then return nil end
  elseif meta ~= nil then
    local content = loader and STOCK_CONTENT[name]
    if content ~= nil then
      res = load_content(type_name, name, loader, content, 0, false)
      if res == nil then return nil end
    else
      res = make_resource(type_name, name, meta)
    end
  elseif path ~= nil then
    res = make_resource(type_name, name, {size = E.fs_size(path), from_game = true})
    if res == nil then return nil end
  end
  if res == nil then
    if not quiet then E.log("ERROR", sformat("Could not find resource %s", name)) end
    return nil
  end
  cache_by_key[key] = res
  return res
end
E.get_resource = get_resource

local Cache = class("ResourceCache")
local CA = Cache.methods
CA.GetResource = function(_, type_name, name) return get_resource(type_name, name) end
-- A model file is parsed as it loads (58_geometry.lua); one that does not parse is no resource, as in Urho3D.  The
-- parsed geometry is kept, the file's bytes are not.
E.resource_loader("Model", function(r, data)
  r.data = data
  local ok = E.load_model_file(r)
  r.data = nil
  return ok
end)
CA.GetExistingResource = function(_, type_name, name)
  return cache_by_key[tostring(type_name) .. "|" .. normalize(name)]
end
CA.BackgroundLoadResource = function(_, type_name, name) return get_resource(type_name, name, true) ~= nil end
CA.Exists = function(_, name)
  name = normalize(name)
  return STOCK[name] ~= nil or E.find_game_file(name) ~= nil
end
-- An open File on the resource: the game's file, or a stock file whose content the engine ships.
CA.GetFile = function(_, name)
  name = normalize(name)
  local path = E.find_game_file(name)
  if path == nil then
    local content = STOCK_CONTENT[name]
    if content ~= nil then return E.open_memory_file(name, content, 0) end
    E.log("ERROR", sformat("Could not find resource %s", name))
    return nil
  end
  local data, held = E.fs_read_held(path)
  if data == nil then
    E.log("ERROR", sformat("Could not find resource %s", name))
    return nil
  end
  return E.open_memory_file(path, data, held)
end
CA.AddResourceDir = function() return true end
CA.ReleaseResource = function(_, type_name, name)
  local key = tostring(type_name) .. "|" .. normalize(name)
  local res = cache_by_key[key]
  if res ~= nil then release(res) end
  cache_by_key[key] = nil
end
CA.ReleaseAllResources = function()
  for _, key in ipairs(E.sorted_keys(cache_by_key)) do release(cache_by_key[key]) end
  cache_by_key = {}
end
CA.ReloadResource = function() return true end
CA.SetAutoReloadResources = function() end
CA.GetAutoReloadResources = function() return false end
CA.SetReturnFailedResources = function() end
CA.GetReturnFailedResources = function() return false end
CA.GetNumBackgroundLoadResources = function() return 0 end
CA.GetResourceFileName = function(_, name) return normalize(name) end
CA.GetTotalMemoryUse = function() return 0 end
CA.SetMemoryBudget = function() end
CA.GetMemoryBudget = function() return 0 end
CA.GetMemoryUse = function() return 0 end
CA.GetResourceDirs = function() return {"Data/", "CoreData/"} end
CA.GetPreferredResourceDir = function(_, p) return p end
CA.SanitateResourceName = function(_, n) return normalize(n) end
GLOBALS.cache = E.new_object("ResourceCache")
FUNCTIONS.GetCache = function() return GLOBALS.cache end

-- Material: parameters and textures recorded for assertions.
local Material = class("Material")
resource_classes.Material = function(r, _, meta)
  r.techniques, r.textures, r.params = {}, {}, {}
  r.cull, r.shadow_cull, r.fill = 2, 2, 0
  if meta and meta.techniques then
    for i, t in ipairs(meta.techniques) do r.techniques[i] = t end
  end
end
Material.new = function()
  local m = make_resource("Material", "", nil)
  return m
end
local MA = Material.methods
MA.SetTechnique = function(self, index, tech, quality, lod)
  E.rec(self).techniques[index + 1] = tech
end
MA.GetTechnique = function(self, index)
  local t = E.rec(self).techniques[(index or 0) + 1]
  if type(t) == "string" then return get_resource("Technique", t, true) end
  return t
end
MA.SetNumTechniques = function(self, n) local r = E.rec(self); for i = n + 1, #r.techniques do r.techniques[i] = nil end end
MA.GetNumTechniques = function(self) return #E.rec(self).techniques end
MA.SetTexture = function(self, unit, tex) E.rec(self).textures[unit] = tex end
MA.GetTexture = function(self, unit) return E.rec(self).textures[unit] end
MA.SetShaderParameter = function(self, name, value) E.rec(self).params[name] = E.variant_of(value) end
MA.RemoveShaderParameter = function(self, name) E.rec(self).params[name] = nil end
MA.SetCullMode = function(self, m) E.rec(self).cull = m end
MA.GetCullMode = function(self) return E.rec(self).cull end
MA.SetShadowCullMode = function(self, m) E.rec(self).shadow_cull = m end
MA.GetShadowCullMode = function(self) return E.rec(self).shadow_cull end
MA.SetFillMode = function(self, m) E.rec(self).fill = m end
MA.GetFillMode = function(self) return E.rec(self).fill end
MA.SetRenderOrder = function(self, o) E.rec(self).render_order = o end
MA.GetRenderOrder = function(self) return E.rec(self).render_order or 128 end
MA.SetOcclusion = function(self, v) E.rec(self).occlusion = v end
MA.GetOcclusion = function(self) return E.rec(self).occlusion ~= false end
MA.SetDepthBias = function(self, b) E.rec(self).depth_bias = b end
MA.SetAlphaToCoverage = function(self, v) E.rec(self).alpha_to_coverage = v end
MA.SetLineAntiAlias = function(self, v) E.rec(self).line_aa = v end
MA.SetVertexShaderDefines = function(self, d) E.rec(self).vs_defines = d end
MA.SetPixelShaderDefines = function(self, d) E.rec(self).ps_defines = d end
MA.Clone = function(self, name)
  local src = E.rec(self)
  local m = make_resource("Material", name or src.name, nil)
  local r = REC[m]
  for i, t in ipairs(src.techniques) do r.techniques[i] = t end
  for k, v in pairs(src.textures) do r.textures[k] = v end
  for k, v in pairs(src.params) do r.params[k] = v end
  r.cull, r.shadow_cull, r.fill = src.cull, src.shadow_cull, src.fill
  return m
end

-- Textures, sounds, fonts
local Tex = class("Texture2D")
Tex.new = function() return make_resource("Texture2D", "", nil) end
local function dim(key) return function(self) return E.rec(self)[key] or 0 end end
Tex.methods.GetWidth = dim("width")
Tex.methods.GetHeight = dim("height")
Tex.methods.SetSize = function(self, w, h, _format, usage)
  local r = E.rec(self)
  r.width, r.height, r.usage = w, h, usage or 0
  return true
end
Tex.methods.GetUsage = function(self) return E.rec(self).usage or 0 end
-- A render-target or depth-stencil texture has one render surface (Urho3D makes it with the texture); any other
-- has none.  The surface is state: its viewports, update mode and links, what a battery can assert.
local TEXTURE_RENDERTARGET, SURFACE_UPDATEVISIBLE = 2, 1
local RS = class("RenderSurface")
local function new_surface(parent)
  return E.new_object("RenderSurface", {parent = parent, viewports = {}, update_mode = SURFACE_UPDATEVISIBLE,
                                        queued = false})
end
Tex.methods.GetRenderSurface = function(self)
  local r = E.rec(self)
  if (r.usage or 0) < TEXTURE_RENDERTARGET then return nil end
  if r.surface == nil then r.surface = new_surface(self) end
  return r.surface
end
RS.new = function(parent) return new_surface(parent) end
local RSM = RS.methods
local function parent_rec(self)
  local parent = E.rec(self).parent
  return parent and E.rec(parent) or {}
end
RSM.GetParentTexture = function(self) return E.rec(self).parent end
RSM.GetWidth = function(self) return parent_rec(self).width or 0 end
RSM.GetHeight = function(self) return parent_rec(self).height or 0 end
RSM.GetUsage = function(self) return parent_rec(self).usage or 0 end
RSM.SetNumViewports = function(self, n)
  local list = E.rec(self).viewports
  for i = #list, n + 1, -1 do list[i] = nil end
  for i = #list + 1, n do list[i] = false end
end
RSM.GetNumViewports = function(self) return #E.rec(self).viewports end
RSM.SetViewport = function(self, index, viewport)
  local list = E.rec(self).viewports
  if index >= #list then RSM.SetNumViewports(self, index + 1) end
  list[index + 1] = viewport or false
end
RSM.GetViewport = function(self, index)
  local v = E.rec(self).viewports[index + 1]
  return v or nil
end
RSM.SetUpdateMode = function(self, mode) E.rec(self).update_mode = mode end
RSM.GetUpdateMode = function(self) return E.rec(self).update_mode end
RSM.SetLinkedRenderTarget = function(self, s) E.rec(self).linked_target = s end
RSM.GetLinkedRenderTarget = function(self) return E.rec(self).linked_target end
RSM.SetLinkedDepthStencil = function(self, s) E.rec(self).linked_depth = s end
RSM.GetLinkedDepthStencil = function(self) return E.rec(self).linked_depth end
RSM.QueueUpdate = function(self) E.rec(self).queued = true end
RSM.Release = function() end
RSM.IsResolveDirty = function() return false end
Tex.methods.SetData = function() return true end
Tex.methods.SetFilterMode = function(self, m) E.rec(self).filter = m end
Tex.methods.SetAddressMode = function(self, coord, mode) E.rec(self)["address" .. coord] = mode end
Tex.methods.SetNumLevels = function() end
local Sound = class("Sound")
Sound.methods.GetLength = function(self) return E.rec(self).length or 0.0 end
Sound.methods.GetFrequency = function(self) return E.rec(self).frequency or 44100 end
Sound.methods.SetLooped = function(self, v) E.rec(self).looped = v and true or false end
Sound.methods.IsLooped = function(self) return E.rec(self).looped == true end
Sound.methods.GetIntFrequency = function(self) return math.floor(E.rec(self).frequency or 44100) end
Sound.methods.IsStereo = function() return false end
Sound.methods.IsSixteenBit = function() return true end
Sound.methods.IsCompressed = function() return false end
