-- RenderPath (Urho3D's Graphics/RenderPath.h) as state: the render targets and commands a path holds, loaded from
-- render path XML (the stock RenderPaths/*.xml and PostProcess/*.xml, engine/data/make_stock.py, or the game's
-- own), tagged, enabled and disabled, with their shader parameters, outputs and texture bindings. Nothing renders;
-- a battery can assert which effects a game added and turned on.
--
-- A command or a render target is a proxy whose data fields are plain fields on it (`cmd.tag`, `info.enabled`, as
-- the binding exposes the structs' fields); its texture names, shader parameters, outputs and depth-stencil name
-- are in its record. GetCommand hands out the path's own command (Urho3D returns a pointer into the path), the
-- adders and Clone copy.
local type, ipairs, pairs, tostring, setmetatable, rawget = type, ipairs, pairs, tostring, setmetatable, rawget
local slower, smatch, sgmatch = string.lower, string.match, string.gmatch
local REC = E.REC
-- Urho3D's text conversions (61_xml.lua, loaded after this file)
local T = setmetatable({}, {__index = function(_, k) return E.urho_text[k] end})

local MAX_TEXTURE_UNITS, MAX_RENDERTARGETS = 16, 8
local COMMAND_TYPES = {none = 0, clear = 1, scenepass = 2, quad = 3, forwardlights = 4, lightvolumes = 5,
                       renderui = 6, sendevent = 7}
local SORT_MODES = {fronttoback = 0, backtofront = 1}
local BLEND_MODES = {replace = 0, add = 1, multiply = 2, alpha = 3, addalpha = 4, premulalpha = 5,
                     invdestalpha = 6, subtract = 7, subtractalpha = 8}
local TEXTURE_UNITS = {diffuse = 0, normal = 1, specular = 2, emissive = 3, environment = 4, volume = 5,
                       custom1 = 6, custom2 = 7, lightramp = 8, lightshape = 9, shadowmap = 10, faceselect = 11,
                       indirection = 12, depth = 13, light = 14, zone = 15,
                       diff = 0, albedo = 0, norm = 1, spec = 2, env = 4}
local CLEAR_COLOR, CLEAR_DEPTH, CLEAR_STENCIL = 1, 2, 4
local SIZE_VIEWPORTDIVISOR, SIZE_VIEWPORTMULTIPLIER = 1, 2

local CommandImpl, TargetImpl, PathImpl = class("RenderPathCommand"), class("RenderTargetInfo"), class("RenderPath")

-- Material::ParseShaderParameterValue: a word is a bool, else 1 to 4 numbers a float or a vector
local function shader_parameter_value(text)
  text = smatch(tostring(text or ""), "^%s*(.-)%s*$")
  if smatch(text, "^%a") then return E.Variant_new("Bool", T.bool(text)) end
  local n = 0
  for _ in sgmatch(text, "%S+") do n = n + 1 end
  if n == 1 then return E.Variant_new("Float", T.float(text)) end
  if n == 2 then return E.Variant_new("Vector2", T.vector2(text)) end
  if n == 3 then return E.Variant_new("Vector3", T.vector3(text)) end
  if n == 4 then return E.Variant_new("Vector4", T.vector4(text)) end
  return E.Variant_new("None", nil)
end

local function new_command()
  local cmd = E.new_object("RenderPathCommand", {textures = {}, params = {}, outputs = {{"viewport", 0}},
                                                depth_stencil = ""})
  cmd.tag, cmd.type, cmd.sortMode, cmd.pass, cmd.metadata = "", 0, 0, "", ""
  cmd.vertexShaderName, cmd.pixelShaderName, cmd.vertexShaderDefines, cmd.pixelShaderDefines = "", "", "", ""
  cmd.clearFlags, cmd.clearColor, cmd.clearDepth, cmd.clearStencil = 0, E.IMPL.Color.new(), 0.0, 0
  cmd.blendMode, cmd.enabled, cmd.useFogColor, cmd.markToStencil = 0, true, false, false
  cmd.useLitBase, cmd.vertexLights, cmd.eventName = true, false, ""
  return cmd
end
local COMMAND_FIELDS = {"tag", "type", "sortMode", "pass", "metadata", "vertexShaderName", "pixelShaderName",
  "vertexShaderDefines", "pixelShaderDefines", "clearFlags", "clearColor", "clearDepth", "clearStencil", "blendMode",
  "enabled", "useFogColor", "markToStencil", "useLitBase", "vertexLights", "eventName"}
local function copy_command(src)
  local cmd = new_command()
  for _, k in ipairs(COMMAND_FIELDS) do cmd[k] = rawget(src, k) end
  cmd.clearColor = E.IMPL.Color.new(rawget(src, "clearColor") or E.IMPL.Color.new())
  local from, to = REC[src], REC[cmd]
  for unit, name in pairs(from.textures) do to.textures[unit] = name end
  for name, value in pairs(from.params) do to.params[name] = value end
  to.outputs = {}
  for i, o in ipairs(from.outputs) do to.outputs[i] = {o[1], o[2]} end
  to.depth_stencil = from.depth_stencil
  return cmd
end

local function new_target()
  local info = E.new_object("RenderTargetInfo", {})
  info.name, info.tag, info.format, info.size, info.sizeMode = "", "", 0, E.Vector2_new(0, 0), 0
  info.multiSample, info.autoResolve, info.enabled, info.cubemap = 1, true, true, false
  info.filtered, info.sRGB, info.persistent = false, false, false
  return info
end
local TARGET_FIELDS = {"name", "tag", "format", "sizeMode", "multiSample", "autoResolve", "enabled", "cubemap",
  "filtered", "sRGB", "persistent"}
local function copy_target(src)
  local info = new_target()
  for _, k in ipairs(TARGET_FIELDS) do info[k] = rawget(src, k) end
  local size = rawget(src, "size")
  info.size = E.Vector2_new(size and size.x or 0, size and size.y or 0)
  return info
end

-- loading from an XML element node (61_xml.lua's tree)
local function has(node, name) return node.attrs[name] ~= nil end
local function attr(node, name) return node.attrs[name] or "" end
local function children(node, name) return E.xml_children(node, name) end   -- 61_xml.lua

local function load_target(info, node)
  info.name, info.tag = attr(node, "name"), attr(node, "tag")
  if has(node, "enabled") then info.enabled = T.bool(attr(node, "enabled")) end
  if has(node, "cubemap") then info.cubemap = T.bool(attr(node, "cubemap")) end
  info.format = E.IMPL.Graphics.methods.GetFormat(nil, attr(node, "format"))
  if has(node, "filter") then info.filtered = T.bool(attr(node, "filter")) end
  if has(node, "srgb") then info.sRGB = T.bool(attr(node, "srgb")) end
  if has(node, "persistent") then info.persistent = T.bool(attr(node, "persistent")) end
  if has(node, "size") then info.size = T.vector2(attr(node, "size")) end
  if has(node, "sizedivisor") then
    info.size, info.sizeMode = T.vector2(attr(node, "sizedivisor")), SIZE_VIEWPORTDIVISOR
  elseif has(node, "rtsizedivisor") then
    E.log("WARNING", "Deprecated rtsizedivisor mode used in rendertarget definition")
    info.size, info.sizeMode = T.vector2(attr(node, "rtsizedivisor")), SIZE_VIEWPORTDIVISOR
  elseif has(node, "sizemultiplier") then
    info.size, info.sizeMode = T.vector2(attr(node, "sizemultiplier")), SIZE_VIEWPORTMULTIPLIER
  end
  if has(node, "width") then info.size = E.Vector2_new(T.float(attr(node, "width")), info.size.y) end
  if has(node, "height") then info.size = E.Vector2_new(info.size.x, T.float(attr(node, "height"))) end
  if has(node, "multisample") then
    info.multiSample = math.min(math.max(T.int(attr(node, "multisample")), 1), 16)
  end
  if has(node, "autoresolve") then info.autoResolve = T.bool(attr(node, "autoresolve")) end
end

local function texture_unit(name)
  name = slower(smatch(name, "^%s*(.-)%s*$"))
  local unit = TEXTURE_UNITS[name]
  if unit == nil and #name < 3 then unit = math.min(math.max(T.int(name), 0), MAX_TEXTURE_UNITS - 1) end
  if unit == nil then E.log("ERROR", "Unknown texture unit name " .. name) end
  return unit
end

local function load_command(cmd, node)
  local r = REC[cmd]
  cmd.type = COMMAND_TYPES[slower(attr(node, "type"))] or 0
  cmd.tag = attr(node, "tag")
  if has(node, "enabled") then cmd.enabled = T.bool(attr(node, "enabled")) end
  if has(node, "metadata") then cmd.metadata = attr(node, "metadata") end
  local t = cmd.type
  if t == COMMAND_TYPES.clear then
    if has(node, "color") then
      cmd.clearFlags = cmd.clearFlags | CLEAR_COLOR
      if slower(attr(node, "color")) == "fog" then cmd.useFogColor = true
      else cmd.clearColor = T.color(attr(node, "color")) end
    end
    if has(node, "depth") then
      cmd.clearFlags, cmd.clearDepth = cmd.clearFlags | CLEAR_DEPTH, T.float(attr(node, "depth"))
    end
    if has(node, "stencil") then
      cmd.clearFlags, cmd.clearStencil = cmd.clearFlags | CLEAR_STENCIL, T.int(attr(node, "stencil"))
    end
  elseif t == COMMAND_TYPES.scenepass then
    cmd.pass = attr(node, "pass")
    cmd.sortMode = SORT_MODES[slower(attr(node, "sort"))] or 0
    if has(node, "marktostencil") then cmd.markToStencil = T.bool(attr(node, "marktostencil")) end
    if has(node, "vertexlights") then cmd.vertexLights = T.bool(attr(node, "vertexlights")) end
  elseif t == COMMAND_TYPES.forwardlights then
    cmd.pass = attr(node, "pass")
    if has(node, "uselitbase") then cmd.useLitBase = T.bool(attr(node, "uselitbase")) end
  elseif t == COMMAND_TYPES.lightvolumes or t == COMMAND_TYPES.quad then
    cmd.vertexShaderName, cmd.pixelShaderName = attr(node, "vs"), attr(node, "ps")
    if t == COMMAND_TYPES.quad and has(node, "blend") then cmd.blendMode = BLEND_MODES[slower(attr(node, "blend"))] or 0 end
  elseif t == COMMAND_TYPES.sendevent then
    cmd.eventName = attr(node, "name")
  end
  r.outputs = {{has(node, "output") and attr(node, "output") or "viewport", has(node, "face") and T.int(attr(node, "face")) or 0}}
  if has(node, "depthstencil") then r.depth_stencil = attr(node, "depthstencil") end
  for _, out in ipairs(children(node, "output")) do
    local index = T.int(attr(out, "index"))
    if index >= 0 and index < MAX_RENDERTARGETS then
      for i = #r.outputs + 1, index + 1 do r.outputs[i] = {"", 0} end
      r.outputs[index + 1] = {attr(out, "name"), has(out, "face") and T.int(attr(out, "face")) or 0}
    end
  end
  cmd.vertexShaderDefines, cmd.pixelShaderDefines = attr(node, "vsdefines"), attr(node, "psdefines")
  for _, p in ipairs(children(node, "parameter")) do
    r.params[attr(p, "name")] = shader_parameter_value(attr(p, "value"))
  end
  for _, tex in ipairs(children(node, "texture")) do
    local unit = has(tex, "unit") and texture_unit(attr(tex, "unit")) or 0
    if unit ~= nil and unit < MAX_TEXTURE_UNITS then r.textures[unit] = attr(tex, "name") end
  end
end

-- RenderPathCommand
CommandImpl.new = function() return new_command() end
local CM = CommandImpl.methods
local function crec(self) return E.rec(self, "RenderPathCommand") end
CM.Load = function(self, element)
  local node = E.xml_node(element)
  if node then load_command(self, node) end
end
CM.SetTextureName = function(self, unit, name)
  if unit >= 0 and unit < MAX_TEXTURE_UNITS then crec(self).textures[unit] = tostring(name) end
end
CM.GetTextureName = function(self, unit) return crec(self).textures[unit] or "" end
CM.SetShaderParameter = function(self, name, value) crec(self).params[tostring(name)] = E.variant_of(value) end
CM.RemoveShaderParameter = function(self, name) crec(self).params[tostring(name)] = nil end
CM.GetShaderParameter = function(self, name)
  return crec(self).params[tostring(name)] or E.Variant_new("None", nil)
end
CM.SetNumOutputs = function(self, n)
  local outputs = crec(self).outputs
  n = math.min(math.max(n // 1, 1), MAX_RENDERTARGETS)
  for i = #outputs + 1, n do outputs[i] = {"", 0} end
  for i = #outputs, n + 1, -1 do outputs[i] = nil end
end
local function set_output(self, index, name, face)
  local outputs = crec(self).outputs
  if index < #outputs then
    local o = outputs[index + 1]
    outputs[index + 1] = {name or o[1], face or o[2]}
  elseif index == #outputs and index < MAX_RENDERTARGETS then
    outputs[index + 1] = {name or "", face or 0}
  end
end
CM.SetOutput = function(self, index, name, face) set_output(self, index, tostring(name), face or 0) end
CM.SetOutputName = function(self, index, name) set_output(self, index, tostring(name), nil) end
CM.SetOutputFace = function(self, index, face) set_output(self, index, nil, face) end
CM.SetDepthStencilName = function(self, name) crec(self).depth_stencil = tostring(name) end
CM.GetNumOutputs = function(self) return #crec(self).outputs end
CM.GetOutputName = function(self, index)
  local o = crec(self).outputs[index + 1]
  return o and o[1] or ""
end
CM.GetOutputFace = function(self, index)
  local o = crec(self).outputs[index + 1]
  return o and o[2] or 0
end
CM.GetDepthStencilName = function(self) return crec(self).depth_stencil end

-- RenderTargetInfo
TargetImpl.new = function() return new_target() end
TargetImpl.methods.Load = function(self, element)
  local node = E.xml_node(element)
  if node then load_target(self, node) end
end

-- RenderPath
local function new_path() return E.new_object("RenderPath", {targets = {}, commands = {}}) end
PathImpl.new = function() return new_path() end
local PM = PathImpl.methods
local function prec(self) return E.rec(self, "RenderPath") end
local function append(self, file)
  if file == nil then return false end
  local root = E.xml_root(file)
  if root == nil then return false end
  local r = prec(self)
  for _, node in ipairs(children(root, "rendertarget")) do
    local info = new_target()
    load_target(info, node)
    if smatch(info.name, "%S") then r.targets[#r.targets + 1] = info end
  end
  for _, node in ipairs(children(root, "command")) do
    local cmd = new_command()
    load_command(cmd, node)
    if cmd.type ~= 0 then r.commands[#r.commands + 1] = cmd end
  end
  return true
end
PM.Append = function(self, file) return append(self, file) end
PM.Load = function(self, file)
  local r = prec(self)
  r.targets, r.commands = {}, {}
  return append(self, file)
end
PM.Clone = function(self)
  local r, copy = prec(self), new_path()
  local c = REC[copy]
  for i, info in ipairs(r.targets) do c.targets[i] = copy_target(info) end
  for i, cmd in ipairs(r.commands) do c.commands[i] = copy_command(cmd) end
  return copy
end
-- tags compare case-insensitively, as Urho3D's String::Compare(tag, false)
local function tagged(item, tag) return slower(rawget(item, "tag") or "") == slower(tostring(tag)) end
local function each_tagged(self, tag, fn)
  local r = prec(self)
  for _, info in ipairs(r.targets) do if tagged(info, tag) then fn(info) end end
  for _, cmd in ipairs(r.commands) do if tagged(cmd, tag) then fn(cmd) end end
end
PM.SetEnabled = function(self, tag, active)
  each_tagged(self, tag, function(item) item.enabled = active and true or false end)
end
PM.ToggleEnabled = function(self, tag)
  each_tagged(self, tag, function(item) item.enabled = not rawget(item, "enabled") end)
end
PM.IsEnabled = function(self, tag)
  local found = false
  each_tagged(self, tag, function(item) if rawget(item, "enabled") then found = true end end)
  return found
end
PM.IsAdded = function(self, tag)
  local found = false
  each_tagged(self, tag, function() found = true end)
  return found
end
PM.SetRenderTarget = function(self, index, info)
  local targets = prec(self).targets
  if index < #targets then targets[index + 1] = copy_target(info)
  elseif index == #targets then targets[#targets + 1] = copy_target(info) end
end
PM.AddRenderTarget = function(self, info) local t = prec(self).targets; t[#t + 1] = copy_target(info) end
PM.RemoveRenderTarget = function(self, which)
  local targets = prec(self).targets
  if type(which) == "number" then
    if which >= 0 and which < #targets then table.remove(targets, which // 1 + 1) end
    return
  end
  for i, info in ipairs(targets) do
    if slower(rawget(info, "name")) == slower(tostring(which)) then table.remove(targets, i); return end
  end
end
PM.RemoveRenderTargets = function(self, tag)
  local targets = prec(self).targets
  for i = #targets, 1, -1 do if tagged(targets[i], tag) then table.remove(targets, i) end end
end
PM.SetCommand = function(self, index, command)
  local commands = prec(self).commands
  if index < #commands then commands[index + 1] = copy_command(command)
  elseif index == #commands then commands[#commands + 1] = copy_command(command) end
end
PM.AddCommand = function(self, command) local c = prec(self).commands; c[#c + 1] = copy_command(command) end
PM.InsertCommand = function(self, index, command)
  local commands = prec(self).commands
  if index >= 0 and index <= #commands then table.insert(commands, index // 1 + 1, copy_command(command)) end
end
PM.RemoveCommand = function(self, index)
  local commands = prec(self).commands
  if index >= 0 and index < #commands then table.remove(commands, index // 1 + 1) end
end
PM.RemoveCommands = function(self, tag)
  local commands = prec(self).commands
  for i = #commands, 1, -1 do if tagged(commands[i], tag) then table.remove(commands, i) end end
end
PM.SetShaderParameter = function(self, name, value)
  name = tostring(name)
  for _, cmd in ipairs(prec(self).commands) do
    local params = REC[cmd].params
    if params[name] ~= nil then params[name] = E.variant_of(value) end
  end
end
PM.GetShaderParameter = function(self, name)
  name = tostring(name)
  for _, cmd in ipairs(prec(self).commands) do
    local v = REC[cmd].params[name]
    if v ~= nil then return v end
  end
  return E.Variant_new("None", nil)
end
PM.GetNumRenderTargets = function(self) return #prec(self).targets end
PM.GetNumCommands = function(self) return #prec(self).commands end
PM.GetCommand = function(self, index) return prec(self).commands[index + 1] end

-- A new path loaded from a render path XML file (Renderer:SetDefaultRenderPath(file), Viewport:SetRenderPath(file)).
function E.render_path_from(file)
  local path = new_path()
  append(path, file)
  return path
end
E.render_path_new = new_path
E.render_path_commands = function(path) return REC[path] and REC[path].commands or {} end
