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

-- Urho3D core's other cache settings, kept as state (packages are not searched: there are none headless).
local cache_settings = {search_packages_first = true, finish_ms = 5}
CA.SetSearchPackagesFirst = function(_, v) cache_settings.search_packages_first = v and true or false end
CA.GetSearchPackagesFirst = function() return cache_settings.search_packages_first end
CA.SetFinishBackgroundResourcesMs = function(_, ms)
  cache_settings.finish_ms = math.max(E.tolua_int(ms, "SetFinishBackgroundResourcesMs", 1), 1)
end
CA.GetFinishBackgroundResourcesMs = function() return cache_settings.finish_ms end
-- A directory name as the cache keeps it: a trailing slash, relative to the current directory (the game's folder,
-- ""), "/./" folded, trimmed.
CA.SanitateResourceDirName = function(_, name)
  local p = E.clean_path(E.tolua_string(name, "SanitateResourceDirName", 1))
  if p ~= "" and ssub(p, -1) ~= "/" then p = p .. "/" end
  p = sgsub(p, "/%./", "/")
  return (p:match("^%s*(.-)%s*$"))
end

-- Resource:Load and Resource:Save (Resource.cpp): a resource reloaded in place from a stream or a file (the types
-- whose content the engine reads), and saved to one (an Image as PNG, or by a file name's extension; XMLFile and
-- JSONFile as text).  A type Urho3D cannot save logs so; one it can but the engine cannot is missing API.
local RELOADABLE = {XMLFile = true, JSONFile = true, Image = true, Sound = true, SpriteSheet2D = true}
local UNSAVABLE = {Resource = true, ResourceWithMetadata = true, Sound = true, SpriteSheet2D = true, Sprite2D = true,
  AnimationSet2D = true, TmxFile2D = true, Texture2D = true, Texture3D = true, TextureCube = true,
  Texture2DArray = true, Font = true, Technique = true, Shader = true, PListFile = true}
local function res_rec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "resource" then E.raise_at_game("invalid 'self' (a Resource was expected)") end
  return r
end
RM.Load = function(self, source)
  local r = res_rec(self)
  local loader = content_loaders[r.type_name]
  if not RELOADABLE[r.type_name] or loader == nil then
    return E.missing("Resource:Load (" .. r.type_name .. " content is not loaded headless)")
  end
  local data, name = E.resource_source_bytes(source, "Load")
  if data == nil then return false end
  local held = r.held
  r.held = 0
  local ok, why = loader(r, data, name)
  r.held = held
  if not ok then
    if why then E.log("ERROR", why) end
    return false
  end
  r.size = #data
  return true
end
local function text_of(r)
  if r.type_name == "XMLFile" then return E.xml_write(r.doc, "\t") end
  return E.json_write(r.root, "\t")
end
RM.Save = function(self, dest)
  local r = res_rec(self)
  local path
  if type(dest) == "string" then
    if r.type_name == "Image" then return E.image_save_file(self, dest) end
    path = E.clean_path(dest)
    if path == "" then return false end
  elseif type(dest) == "number" then
    return RM.Save(self, tostring(dest))
  end
  if UNSAVABLE[r.type_name] then
    if path then E.fs_write(path, "") end   -- the file opens before the resource refuses
    E.log("ERROR", "Save not supported for " .. r.type_name)
    return false
  end
  local data
  if r.type_name == "Image" then data = E.image_png(self)
  elseif r.type_name == "XMLFile" or r.type_name == "JSONFile" then data = text_of(r)
  else return E.missing("Resource:Save (" .. r.type_name .. " is not saved headless)") end
  if path then
    E.fs_write(path, data or "")
    return data ~= nil
  end
  if data == nil then return false end
  return IMPL.Serializer.methods.Write(dest, data) == #data
end

-- ResourceWithMetadata: named Variant values, listed in the order first added.
local RWM = class("ResourceWithMetadata").methods
local function metadata(self)
  local r = res_rec(self)
  if r.metadata == nil then r.metadata, r.metadata_keys = {}, {} end
  return r
end
RWM.AddMetadata = function(self, name, value)
  local r = metadata(self)
  name = E.tolua_string(name, "AddMetadata", 1)
  if r.metadata[name] == nil then r.metadata_keys[#r.metadata_keys + 1] = name end
  r.metadata[name] = E.variant_of(value)
end
RWM.RemoveMetadata = function(self, name)
  local r = metadata(self)
  name = E.tolua_string(name, "RemoveMetadata", 1)
  if r.metadata[name] == nil then return end
  r.metadata[name] = nil
  for i, k in ipairs(r.metadata_keys) do
    if k == name then table.remove(r.metadata_keys, i); break end
  end
end
RWM.RemoveAllMetadata = function(self)
  local r = metadata(self)
  r.metadata, r.metadata_keys = {}, {}
end
RWM.GetMetadata = function(self, name)
  return metadata(self).metadata[E.tolua_string(name, "GetMetadata", 1)] or E.Variant_new("None", nil)
end
RWM.HasMetadata = function(self) return #metadata(self).metadata_keys > 0 end

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
-- Sound (Audio/Sound.cpp): its format and size are state; the samples themselves are never kept (nothing is mixed
-- headless), so a sound costs its header's worth of memory.  A stock sound is known from its metadata (16-bit PCM
-- for a .wav, compressed for the .ogg); a game's .wav is read through its RIFF header as Urho3D reads it, a game's
-- other files load raw (8-bit mono at 44100 Hz unless a <name>.xml beside it says otherwise, as Urho3D's
-- LoadParameters), except .ogg and .mp3, which load as compressed sounds of unknown length (not decoded headless).
local SOUND_IP_SAFETY = 4   -- bytes Urho3D keeps past the end of a sound's data for interpolation
local f32 = E.MATH.f32
local Sound = class("Sound")
local SM = Sound.methods
local function sound_rec(self)
  local r = REC[self]
  if r == nil or r.type_name ~= "Sound" then E.raise_at_game("invalid 'self' (a Sound was expected)") end
  return r
end
local function sound_defaults(r)
  r.data_size, r.frequency, r.sixteen, r.stereo, r.compressed = 0, 44100, false, false, false
  r.compressed_length, r.looped, r.loop_start, r.loop_end = 0.0, false, 0, 0
end
local function sample_size(r)
  local n = 1
  if r.sixteen then n = n * 2 end
  if r.stereo then n = n * 2 end
  return n
end
-- Seconds of sound, as Urho3D computes them in single precision: data bytes / sample bytes / frequency.
local function sound_length(r)
  if r.compressed then return r.compressed_length end
  if r.frequency == 0 then return 0.0 end
  return f32(f32(r.data_size / sample_size(r)) / r.frequency)
end
E.sound_length = sound_length
-- The sound plays until its length (false: the length is not known headless, a game's compressed file).
E.sound_length_known = function(r) return r.length_known ~= false end
E.resource_init("Sound", function(r, proxy, meta)
  sound_defaults(r)
  r.proxy = proxy
  if meta == nil or meta.from_game or meta.length_seconds == nil then return end
  -- a stock sound, from its metadata: .wav files are 16-bit PCM, the .ogg compressed
  r.frequency, r.stereo, r.sixteen = meta.frequency or 44100, (meta.channels or 1) > 1, true
  if slower(ssub(r.name, -4)) == ".ogg" then
    r.compressed, r.compressed_length, r.data_size = true, f32(meta.length_seconds), meta.size or 0
  else
    r.data_size = math.floor(meta.length_seconds * r.frequency * sample_size(r) + 0.5) & -sample_size(r)
  end
  r.loop_end = r.data_size
end)

local function set_size(r, n)
  if n == 0 then return end
  r.data_size, r.compressed, r.size = n, false, n + SOUND_IP_SAFETY
  r.length_known = nil
  r.looped, r.loop_start, r.loop_end = false, 0, n   -- SetLooped(false)
end
-- The header of a WAV file (RIFF, a "fmt " chunk of PCM, a "data" chunk), walked as Urho3D walks it: chunks
-- before "fmt " and before "data" are skipped by their declared length.  (ok, or false and nothing changed.)
local function load_wav(r, data)
  local n = #data
  local function u32(pos) if pos + 3 > n then return 0 end; return (string.unpack("<I4", data, pos)) end
  local function u16(pos) if pos + 1 > n then return 0 end; return (string.unpack("<I2", data, pos)) end
  if ssub(data, 1, 4) ~= "RIFF" or ssub(data, 9, 12) ~= "WAVE" then return false end
  local pos = 13   -- 1-based position of the next chunk header
  while true do
    local id, len = ssub(data, pos, pos + 3), u32(pos + 4)
    pos = pos + 8
    if id == "fmt " then break end
    pos = pos + len
    if len == 0 or pos - 1 >= n then return false end
  end
  local format, channels, frequency, bits = u16(pos), u16(pos + 2), u32(pos + 4), u16(pos + 14)
  local fmt_len = u32(pos - 4)
  pos = pos + fmt_len   -- the rest of a longer format chunk is skipped
  if format ~= 1 then return false end
  local data_len
  while true do
    local id, len = ssub(data, pos, pos + 3), u32(pos + 4)
    pos = pos + 8
    if id == "data" then data_len = len; break end
    pos = pos + len
    if len == 0 or pos - 1 >= n then return false end
  end
  set_size(r, data_len)
  r.frequency, r.sixteen, r.stereo, r.compressed = frequency, bits == 16, channels == 2, false
  return true
end
local function wav_error(name) E.log("ERROR", "Could not read WAV data from " .. tostring(name)) end

-- Urho3D's LoadParameters: <name>.xml beside a loaded sound may set its format and loop.
local function load_sound_parameters(r, name)
  local xml_name = (sgsub(name, "%.[^%./]*$", "")) .. ".xml"
  local path = E.find_game_file(xml_name)
  local text = path and E.fs_read(path) or nil
  if text == nil then return end
  local root = E.xml_parse(text)
  if root == nil then return end
  for _, el in ipairs(root.children) do
    local a = el.attrs
    if el.name == "format" and not r.compressed then
      if a.frequency then r.frequency = FUNCTIONS.ToInt(a.frequency) & 0xffffffff end
      if a.sixteenbit then r.sixteen = FUNCTIONS.ToBool(a.sixteenbit) end
      if a["16bit"] then r.sixteen = FUNCTIONS.ToBool(a["16bit"]) end
      if a.stereo then r.stereo = FUNCTIONS.ToBool(a.stereo) end
    elseif el.name == "loop" then
      if a.enable then SM.SetLooped(r.proxy, FUNCTIONS.ToBool(a.enable)) end
      if a.start and a["end"] then
        SM.SetLoop(r.proxy, FUNCTIONS.ToInt(a.start) & 0xffffffff, FUNCTIONS.ToInt(a["end"]) & 0xffffffff)
      end
    end
  end
end

-- Sound:BeginLoad by the file's extension: the samples are not kept, so the file's bytes are given back at once.
E.resource_loader("Sound", function(r, data, name)
  if r.held and r.held > 0 then
    E.files_release(r.held)
    r.held = 0
  end
  local ext = slower(name:match("(%.[^%./]*)$") or "")
  if ext == ".ogg" or ext == ".mp3" then
    r.compressed, r.data_size, r.sixteen, r.length_known = true, #data, true, false
    r.size = #data
    return true
  end
  if ext == ".wav" then
    if not load_wav(r, data) then return false, "Could not read WAV data from " .. tostring(name) end
  else
    set_size(r, #data)
  end
  load_sound_parameters(r, name)
  return true
end)

Sound.new = function() return make_resource("Sound", "", nil) end

local function uint_arg(v, fname, i) return E.tolua_int(v, fname, i) & 0xffffffff end
-- The bytes a Deserializer (or a file of that name) holds from its position on, and its name; nil when the file does
-- not open (logged as File::Open logs it).
local function source_bytes(source, fname)
  if type(source) == "string" then
    local path = E.clean_path(source)
    local data = E.fs_read(path)
    if data == nil then
      local found = E.find_game_file(path)
      data = found and E.fs_read(found)
    end
    if data == nil then
      E.log("ERROR", "Could not open file " .. path)
      return nil
    end
    return data, path
  end
  local data = E.stream_read(source, 1 << 40, fname)
  return data, IMPL.Deserializer.methods.GetName(source)
end
E.resource_source_bytes = source_bytes

-- Urho3D sizes the sound by the whole stream and reads from its position: false when that is not all of it.
SM.LoadRaw = function(self, source)
  local r = sound_rec(self)
  local data = source_bytes(source, "LoadRaw")
  if data == nil then return false end
  local total = type(source) == "string" and #data or IMPL.Deserializer.methods.GetSize(source)
  set_size(r, total)
  return #data == total
end
SM.LoadWav = function(self, source)
  local r = sound_rec(self)
  local data, name = source_bytes(source, "LoadWav")
  if data == nil then return false end
  if not load_wav(r, data) then
    wav_error(name)
    return false
  end
  return true
end
SM.SetSize = function(self, n) set_size(sound_rec(self), uint_arg(n, "SetSize", 1)) end
SM.SetFormat = function(self, frequency, sixteen, stereo)
  local r = sound_rec(self)
  r.frequency = uint_arg(frequency, "SetFormat", 1)
  r.sixteen, r.stereo, r.compressed = sixteen and true or false, stereo and true or false, false
  r.length_known = nil
end
SM.SetLoop = function(self, repeat_offset, end_offset)
  local r = sound_rec(self)
  repeat_offset, end_offset = uint_arg(repeat_offset, "SetLoop", 1), uint_arg(end_offset, "SetLoop", 2)
  if not r.compressed then
    -- within the data, aligned down to whole samples
    local mask = -sample_size(r)
    r.loop_start = math.min(repeat_offset, r.data_size) & mask
    r.loop_end = math.min(end_offset, r.data_size) & mask
  end
  r.looped = true
end
SM.SetLooped = function(self, enable)
  local r = sound_rec(self)
  if enable then return SM.SetLoop(self, 0, r.data_size) end
  r.looped = false
  if not r.compressed then r.loop_end = r.data_size end
end
SM.FixInterpolation = function(self) sound_rec(self) end   -- it fixes up sample bytes, which are not kept here
SM.GetLength = function(self) return sound_length(sound_rec(self)) end
SM.GetDataSize = function(self) return sound_rec(self).data_size end
SM.GetSampleSize = function(self) return sample_size(sound_rec(self)) end
SM.GetFrequency = function(self) return f32(sound_rec(self).frequency) end
SM.GetIntFrequency = function(self) return sound_rec(self).frequency end
SM.IsLooped = function(self) return sound_rec(self).looped end
SM.IsSixteenBit = function(self) return sound_rec(self).sixteen end
SM.IsStereo = function(self) return sound_rec(self).stereo end
SM.IsCompressed = function(self) return sound_rec(self).compressed end
