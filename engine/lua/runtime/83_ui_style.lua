-- Native UI, part 5: styles and layout files.  `SetStyle("Name")` / `SetStyleAuto()` look up
-- `<element type="Name">` in the element's style file (its own default style or the nearest ancestor's, as
-- `ui.root.defaultStyle = cache:GetResource("XMLFile", "UI/DefaultStyle.xml")` sets it) and apply it the way
-- Urho3D's UIElement::LoadXML does: a `style` attribute applies that style first, `<attribute name= value=>`
-- entries set attributes in file order, `<element internal="true">` entries style the widget's internal children
-- (matched by type, in order), other `<element>` entries create children.  `ui:LoadLayout` and
-- `UIElement:LoadXML` read layout files the same way.
--
-- A style file is read from the game folder when it is there.  Urho3D's stock UI/DefaultStyle.xml is not
-- shipped: for it the engine uses STOCK_STYLE below, this project's own small table of the sizes and layouts a
-- stock style gives each widget (documented in docs/native-ui.md); it has no image rectangles or colours.
local type, tostring, tonumber, ipairs, pairs, rawget = type, tostring, tonumber, ipairs, pairs, rawget
local sfind, ssub, smatch, sgsub, slower, schar = string.find, string.sub, string.match, string.gsub, string.lower,
  string.char
local mmax = math.max
local REC = E.REC
local urec, opt_rec = E.ui_rec, E.ui_opt_rec
local MAX_STYLE_NESTING = 32
-- Elements one style or layout operation may load: styles that refer to each other (directly or through their
-- children's styles) expand exponentially within the nesting limit, all of it engine work the budget never sees.
local MAX_STYLE_WORK = 20000

----------------------------------------------------------------------------------------------------
-- The stock style table (this project's own numbers) in the shape the XML reader produces
----------------------------------------------------------------------------------------------------
local function attr(name, value) return {name = "attribute", attrs = {name = name, value = value}, children = {}} end
local function el(attrs, ...)
  local node = {name = "element", attrs = attrs, children = {}}
  for i, c in ipairs({...}) do node.children[i] = c end
  return node
end
local function internal(type_name, ...) return el({type = type_name, internal = "true"}, ...) end
local STOCK_STYLE = el({},
  el({type = "BorderImage"}, attr("Texture", "Texture2D;Textures/UI.png")),
  el({type = "Button", style = "BorderImage"}, attr("Border", "3 3 3 3"), attr("Pressed Child Offset", "-1 1")),
  el({type = "CheckBox", style = "BorderImage"}, attr("Min Size", "18 18"), attr("Max Size", "18 18"),
    attr("Border", "3 3 3 3")),
  el({type = "CloseButton", style = "Button", auto = "false"}, attr("Min Size", "18 18"), attr("Max Size", "18 18"),
    attr("Focus Mode", "NotFocusable")),
  el({type = "DropDownList", style = "BorderImage"}, attr("Border", "3 3 3 3"), attr("Layout Mode", "Horizontal"),
    attr("Layout Border", "5 2 5 2"), attr("Pressed Child Offset", "-1 1"),
    el({internal = "true"}, internal("Text")),
    el({type = "Window", internal = "true", popup = "true"}, attr("Layout Border", "3 3 3 3"),
      internal("ListView", attr("Highlight Mode", "Always"), internal("BorderImage", attr("Clip Border", "3 0 3 0"))))),
  el({type = "LineEdit", style = "BorderImage"}, attr("Border", "3 3 3 3"), attr("Clip Border", "2 0 2 0"),
    internal("Text", attr("Vert Alignment", "Center")),
    internal("BorderImage", attr("Size", "3 14"), attr("Priority", "1"), attr("Vert Alignment", "Center"))),
  el({type = "ListView", style = "ScrollView"},
    internal("BorderImage", el({internal = "true"}, attr("Layout Mode", "Vertical")))),
  el({type = "Menu", style = "BorderImage"}, attr("Border", "3 3 3 3")),
  el({type = "ScrollBar"}, attr("Min Size", "14 14"),
    internal("Button", attr("Size", "14 14"), attr("Border", "3 3 3 3")),
    internal("Slider", attr("Size", "14 14")),
    internal("Button", attr("Size", "14 14"), attr("Border", "3 3 3 3"))),
  el({type = "ScrollView"}, internal("ScrollBar", attr("Size", "0 14")), internal("ScrollBar", attr("Size", "14 0")),
    internal("BorderImage", attr("Border", "3 3 3 3"), attr("Clip Border", "2 2 2 2"))),
  el({type = "ProgressBar", style = "BorderImage"}, attr("Size", "16 14"), attr("Border", "3 3 3 3"),
    internal("BorderImage", attr("Border", "3 3 3 3"))),
  el({type = "Slider", style = "BorderImage"}, attr("Size", "14 14"), attr("Border", "3 3 3 3"),
    internal("BorderImage", attr("Border", "3 3 3 3"))),
  el({type = "Window", style = "BorderImage"}, attr("Border", "3 3 3 3"), attr("Resize Border", "6 6 6 6")),
  el({type = "DialogWindow", style = "Window", auto = "false"}, attr("Is Movable", "true")),
  el({type = "ListRow"}, attr("Min Size", "0 18"), attr("Max Size", "2147483647 18"), attr("Layout Mode", "Horizontal")),
  el({type = "Panel", auto = "false"}, attr("Layout Mode", "Vertical"), attr("Layout Spacing", "4")),
  el({type = "HorizontalPanel", auto = "false"}, attr("Layout Mode", "Horizontal"), attr("Layout Spacing", "4")),
  el({type = "Text"}, attr("Font", "Font;Fonts/Anonymous Pro.ttf"), attr("Font Size", "12"),
    attr("Color", "0.85 0.85 0.85")),
  el({type = "ToolTipBorderImage", style = "BorderImage"}, attr("Layout Mode", "Horizontal"),
    attr("Layout Border", "5 2 5 2")),
  el({type = "ToolTipText", style = "Text"}, attr("Font Size", "10")))
E.UI_STOCK_STYLE = STOCK_STYLE
local STOCK_STYLE_NAME = "ui/defaultstyle.xml"
-- An XMLFile resource of that name reads this table (61_xml.lua), as a document of its own.
local function stock_document()
  local doc = E.xml_new_element("#document", nil)
  local function copy(node, parent)
    local n = E.xml_new_element(node.name, parent)
    for _, k in ipairs(E.sorted_keys(node.attrs)) do E.xml_set_attr(n, k, node.attrs[k]) end
    for i, c in ipairs(node.children) do n.children[i] = copy(c, n) end
    return n
  end
  doc.children[1] = copy(STOCK_STYLE, doc)
  return doc
end
E.STOCK_XML_DOCUMENTS["UI/DefaultStyle.xml"] = stock_document

-- The root element of a style or layout file (an XMLFile resource, a File, or a file name), parsed once per File.
local doc_cache = setmetatable({}, {__mode = "k"})
local function parsed(data, name)
  local doc, err = E.xml_parse(data)
  if doc == nil then E.log("ERROR", "Could not parse XML " .. tostring(name) .. ": " .. err) end
  return doc
end
local function document(src)
  if src == nil then return nil end
  if type(src) == "string" then
    local path = E.find_game_file(src)
    local data = path and E.fs_read(path)
    if data ~= nil then return parsed(data, src) end
    if slower(src) == STOCK_STYLE_NAME then return STOCK_STYLE end
    return nil
  end
  local r = REC[src]
  if r == nil then return nil end
  if r.doc then return r.doc.children[1] end   -- an XMLFile
  if doc_cache[r] then return doc_cache[r] end
  local doc
  if r.data then
    doc = parsed(r.data, r.name)
  elseif type(r.name) == "string" and slower(r.name) == STOCK_STYLE_NAME then
    doc = STOCK_STYLE
  end
  doc_cache[r] = doc
  return doc
end
E.ui_document = document

----------------------------------------------------------------------------------------------------
-- Attributes: name -> setter method and value kind
----------------------------------------------------------------------------------------------------
local function numbers(s)
  local out = {}
  for w in tostring(s):gmatch("[^%s]+") do out[#out + 1] = tonumber(w) or 0 end
  return out
end
local function to_bool(s)
  local c = slower(ssub(tostring(s), 1, 1))
  return c == "t" or c == "y" or c == "1"
end
local ENUMS = {
  halign = {left = 0, center = 1, right = 2, custom = 3},
  valign = {top = 0, center = 1, bottom = 2, custom = 3},
  focus = {notfocusable = 0, resetfocus = 1, focusable = 2, focusabledefocusable = 3},
  dragdrop = {disabled = 0, source = 1, target = 2, sourceandtarget = 3},
  layout = {free = 0, horizontal = 1, vertical = 2},
  orientation = {horizontal = 0, vertical = 1},
  highlight = {never = 0, focus = 1, always = 2},
  effect = {none = 0, shadow = 1, stroke = 2},
  blend = {replace = 0, add = 1, multiply = 2, alpha = 3, addalpha = 4, premulalpha = 5, invdestalpha = 6,
    subtract = 7, subtractalpha = 8},
}
local CONVERT = {
  string = function(v) return tostring(v) end,
  int = function(v) return math.tointeger(tonumber(v) or 0) or E.MATH.toint(tonumber(v) or 0) end,
  float = function(v) return (tonumber(v) or 0) + 0.0 end,
  bool = to_bool,
  ivec2 = function(v) local n = numbers(v); return E.IntVector2_new(n[1] or 0, n[2] or 0) end,
  vec2 = function(v) local n = numbers(v); return E.Vector2_new(n[1] or 0, n[2] or 0) end,
  irect = function(v) local n = numbers(v); return E.IntRect_new(n[1] or 0, n[2] or 0, n[3] or 0, n[4] or 0) end,
  color = function(v) local n = numbers(v); return E.Color_new(n[1] or 1, n[2] or 1, n[3] or 1, n[4] or 1) end,
  resource = function(v)
    local t, name = smatch(tostring(v), "^([^;]*);(.*)$")
    if t == nil or name == "" then return nil end
    return E.get_resource(t, name)
  end,
}
local function enum(kind) return function(v) return ENUMS[kind][slower(sgsub(tostring(v), "%s", ""))] end end
local ATTRIBUTES = {
  ["Name"] = {"SetName", "string"}, ["Position"] = {"SetPosition", "vec2"}, ["Size"] = {"SetSize", "ivec2"},
  ["Min Size"] = {"SetMinSize", "ivec2"}, ["Max Size"] = {"SetMaxSize", "ivec2"},
  ["Horiz Alignment"] = {"SetHorizontalAlignment", enum("halign")},
  ["Vert Alignment"] = {"SetVerticalAlignment", enum("valign")},
  ["Min Anchor"] = {"SetMinAnchor", "vec2"}, ["Max Anchor"] = {"SetMaxAnchor", "vec2"},
  ["Min Offset"] = {"SetMinOffset", "ivec2"}, ["Max Offset"] = {"SetMaxOffset", "ivec2"},
  ["Pivot"] = {"SetPivot", "vec2"}, ["Enable Anchor"] = {"SetEnableAnchor", "bool"},
  ["Clip Border"] = {"SetClipBorder", "irect"}, ["Priority"] = {"SetPriority", "int"},
  ["Opacity"] = {"SetOpacity", "float"}, ["Color"] = {"SetColor", "color"},
  ["Is Enabled"] = {"SetEnabled", "bool"}, ["Is Editable"] = {"SetEditable", "bool"},
  ["Is Selected"] = {"SetSelected", "bool"}, ["Is Visible"] = {"SetVisible", "bool"},
  ["Bring To Front"] = {"SetBringToFront", "bool"}, ["Bring To Back"] = {"SetBringToBack", "bool"},
  ["Clip Children"] = {"SetClipChildren", "bool"}, ["Use Derived Opacity"] = {"SetUseDerivedOpacity", "bool"},
  ["Focus Mode"] = {"SetFocusMode", enum("focus")}, ["Drag And Drop Mode"] = {"SetDragDropMode", enum("dragdrop")},
  ["Layout Mode"] = {"SetLayoutMode", enum("layout")}, ["Layout Spacing"] = {"SetLayoutSpacing", "int"},
  ["Layout Border"] = {"SetLayoutBorder", "irect"}, ["Layout Flex Scale"] = {"SetLayoutFlexScale", "vec2"},
  ["Indent"] = {"SetIndent", "int"}, ["Indent Spacing"] = {"SetIndentSpacing", "int"},
  -- BorderImage, Button, CheckBox
  ["Texture"] = {"SetTexture", "resource"}, ["Image Rect"] = {"SetImageRect", "irect"},
  ["Border"] = {"SetBorder", "irect"}, ["Image Border"] = {"SetImageBorder", "irect"},
  ["Hover Image Offset"] = {"SetHoverOffset", "ivec2"}, ["Tiled"] = {"SetTiled", "bool"},
  ["Blend Mode"] = {"SetBlendMode", enum("blend")},
  ["Pressed Image Offset"] = {"SetPressedOffset", "ivec2"}, ["Disabled Image Offset"] = {"SetDisabledOffset", "ivec2"},
  ["Pressed Child Offset"] = {"SetPressedChildOffset", "ivec2"},
  ["Repeat Delay"] = {"SetRepeatDelay", "float"}, ["Repeat Rate"] = {"SetRepeatRate", "float"},
  ["Checked Image Offset"] = {"SetCheckedOffset", "ivec2"}, ["Is Checked"] = {"SetChecked", "bool"},
  -- Text
  ["Font"] = {"SetFont", "resource"}, ["Font Size"] = {"SetFontSize", "float"}, ["Text"] = {"SetText", "string"},
  ["Text Alignment"] = {"SetTextAlignment", enum("halign")}, ["Row Spacing"] = {"SetRowSpacing", "float"},
  ["Word Wrap"] = {"SetWordwrap", "bool"}, ["Text Effect"] = {"SetTextEffect", enum("effect")},
  ["Effect Color"] = {"SetEffectColor", "color"}, ["Selection Color"] = {"SetSelectionColor", "color"},
  ["Hover Color"] = {"SetHoverColor", "color"}, ["Auto Localizable"] = {"SetAutoLocalizable", "bool"},
  -- LineEdit
  ["Max Length"] = {"SetMaxLength", "int"}, ["Is Cursor Movable"] = {"SetCursorMovable", "bool"},
  ["Is Text Selectable"] = {"SetTextSelectable", "bool"}, ["Is Text Copyable"] = {"SetTextCopyable", "bool"},
  ["Cursor Blink Rate"] = {"SetCursorBlinkRate", "float"}, ["Echo Character"] = {"SetEchoCharacter", "int"},
  -- Window
  ["Resize Border"] = {"SetResizeBorder", "irect"}, ["Is Movable"] = {"SetMovable", "bool"},
  ["Is Resizable"] = {"SetResizable", "bool"}, ["Fixed Width Resizing"] = {"SetFixedWidthResizing", "bool"},
  ["Fixed Height Resizing"] = {"SetFixedHeightResizing", "bool"},
  ["Modal Shade Color"] = {"SetModalShadeColor", "color"}, ["Modal Frame Color"] = {"SetModalFrameColor", "color"},
  ["Modal Frame Size"] = {"SetModalFrameSize", "ivec2"},
  -- Slider, ScrollBar, ProgressBar, ScrollView, ListView, Menu, DropDownList, Sprite, ToolTip
  ["Orientation"] = {"SetOrientation", enum("orientation")}, ["Range"] = {"SetRange", "float"},
  ["Value"] = {"SetValue", "float"}, ["Scroll Step"] = {"SetScrollStep", "float"},
  ["Step Factor"] = {"SetStepFactor", "float"}, ["Show Percent Text"] = {"SetShowPercentText", "bool"},
  ["View Position"] = {"SetViewPosition", "ivec2"}, ["Page Step"] = {"SetPageStep", "float"},
  ["Auto Show/Hide Scrollbars"] = {"SetScrollBarsAutoVisible", "bool"},
  ["Scroll Deceleration"] = {"SetScrollDeceleration", "float"},
  ["Scroll Snap Epsilon"] = {"SetScrollSnapEpsilon", "float"},
  ["Auto Disable Children"] = {"SetAutoDisableChildren", "bool"},
  ["Auto Disable Threshold"] = {"SetAutoDisableThreshold", "float"},
  ["Highlight Mode"] = {"SetHighlightMode", enum("highlight")}, ["Multiselect"] = {"SetMultiselect", "bool"},
  ["Hierarchy Mode"] = {"SetHierarchyMode", "bool"}, ["Base Indent"] = {"SetBaseIndent", "int"},
  ["Clear Sel. On Defocus"] = {"SetClearSelectionOnDefocus", "bool"},
  ["Select On Click End"] = {"SetSelectOnClickEnd", "bool"},
  ["Popup Offset"] = {"SetPopupOffset", "ivec2"}, ["Selection"] = {"SetSelection", "int"},
  ["Resize Popup"] = {"SetResizePopup", "bool"}, ["Placeholder Text"] = {"SetPlaceholderText", "string"},
  ["Hot Spot"] = {"SetHotSpot", "ivec2"}, ["Scale"] = {"SetScale", "vec2"}, ["Rotation"] = {"SetRotation", "float"},
  ["Delay"] = {"SetDelay", "float"},
}
E.UI_STYLE_ATTRIBUTES = ATTRIBUTES
local function method(r, name)
  local impl = E.IMPL[r.type_name]
  local bound = impl and impl.bound_methods
  return bound and rawget(bound, name)
end
local function apply_attribute(r, name, value)
  local spec = ATTRIBUTES[name]
  if spec == nil or value == nil then return end
  local fn = method(r, spec[1])
  if fn == nil then return end
  local convert = type(spec[2]) == "function" and spec[2] or CONVERT[spec[2]]
  local v = convert(value)
  if v == nil then return end
  if spec[1] == "SetPosition" and r.vt.SpriteTransform == nil then v = E.IntVector2_new(v.x, v.y) end
  fn(r.proxy, v)
end

----------------------------------------------------------------------------------------------------
-- SetStyle / LoadXML (UIElement::SetStyle, UIElement::LoadXML, Menu::LoadXML)
----------------------------------------------------------------------------------------------------
local set_style, load_xml, load_body
local nesting = 0
local work, overflow = 0, false   -- elements loaded by the running top-level operation; a limit was hit
local active = {}                 -- records whose load_body is running, innermost last
local function default_style(r)
  while r do
    if r.default_style then return r.default_style end
    r = r.parent
  end
  return nil
end
local function find_style(doc, name)
  for _, c in ipairs(doc.children) do
    if c.name == "element" and c.attrs.type == name then return c end
  end
  return nil
end
local function set_style_element(r, elem)
  r.style = elem.attrs.type or ""
  return load_xml(r, elem, nil)
end
function set_style(r, name, file)
  local actual = (name ~= nil and name ~= "") and name or r.type_name
  r.style = actual
  if name == "none" then return true end
  if file == nil then
    file = default_style(r)
    if file == nil then return false end
  else
    r.default_style = file
  end
  r.applied_style_file = file
  local doc = document(file)
  local elem = doc and find_style(doc, actual)
  if elem == nil then return false end
  return set_style_element(r, elem)
end
E.ui_set_style = set_style
-- A top-level style or layout operation (SetStyle, LoadXML, LoadLayout ...) counts its work, and stops loading
-- when a limit is hit; when it fails (a game handler's abort, a setter's error) it leaves no counter behind.
function load_xml(r, elem, style_file)
  if nesting > 0 then return load_body(r, elem, style_file) end
  work, overflow = 0, false
  local ok, res = pcall(load_body, r, elem, style_file)
  for i = #active, 1, -1 do
    active[i].layout_nest = active[i].layout_nest - 1
    active[i] = nil
  end
  nesting, work, overflow = 0, 0, false
  if not ok then error(res, 0) end
  return res
end
function load_body(r, elem, style_file)
  if overflow then return false end
  work = work + 1
  if nesting >= MAX_STYLE_NESTING or work > MAX_STYLE_WORK then
    overflow = true
    if work > MAX_STYLE_WORK then
      E.log("ERROR", "UI style or layout loads more than " .. MAX_STYLE_WORK .. " elements (styles that refer to "
        .. "each other?); loading stopped")
    else
      E.log("ERROR", "UI styles nested deeper than " .. MAX_STYLE_NESTING .. " levels (a style refers to itself?); "
        .. "loading stopped")
    end
    return false
  end
  nesting = nesting + 1
  local style_name = elem.attrs.style
  if style_file then
    if style_name == nil or style_name == "" then style_name = r.type_name end
    set_style(r, style_name, style_file)
  elseif style_name and style_name ~= "" and style_name ~= r.style then
    local f = default_style(r)
    if f then
      local applied = r.style
      set_style(r, style_name, f)
      r.style = applied
    end
  end
  r.layout_nest = r.layout_nest + 1
  active[#active + 1] = r
  local is_menu = r.vt.IsMenu
  local next_internal = 1
  for _, c in ipairs(elem.children) do
    if c.name == "attribute" then
      apply_attribute(r, c.attrs.name, c.attrs.value)
    elseif c.name == "element" then
      local internal_elem = to_bool(c.attrs.internal or "false")
      local popup_elem = is_menu and to_bool(c.attrs.popup or "false")
      local type_name = c.attrs.type
      if type_name == nil or type_name == "" then type_name = "UIElement" end
      local child
      if popup_elem then
        if internal_elem then
          child = r.popup
        else
          local proxy, made = E.new_ui_element(type_name)
          if proxy then
            IMPL.Menu.methods.SetPopup(r.proxy, proxy)
            child = made
          end
        end
      elseif internal_elem then
        for i = next_internal, #r.children do
          local x = r.children[i]
          if x.internal and x.type_name == type_name then
            child = x
            next_internal = i + 1
            break
          end
        end
        if child == nil then
          E.log("WARNING", "Could not find matching internal child element of type " .. type_name .. " in " ..
            r.type_name)
        end
      else
        local index = c.attrs.index and tonumber(c.attrs.index) or nil
        local proxy = IMPL.UIElement.methods.CreateChild(r.proxy, type_name, "", index)
        child = proxy and REC[proxy]
      end
      if child then
        local sf = style_file or default_style(r)
        if popup_elem then child.default_style = sf end
        load_xml(child, c, sf)
      end
    end
  end
  local apply = r.vt.ApplyAttributes
  if apply then apply(r) end
  r.layout_nest = r.layout_nest - 1
  active[#active] = nil
  E.ui_update_layout(r)
  nesting = nesting - 1
  return true
end
E.ui_load_xml = load_xml
-- UIElement::ApplyStyleRecursive: re-apply a style when re-parenting changed which style file applies.
function E.ui_apply_style_recursive(r)
  if r.style ~= "" and r.applied_style_file ~= default_style(r) then
    set_style(r, r.style)
    for _, c in ipairs(r.children) do E.ui_apply_style_recursive(c) end
  end
end

local M = IMPL.UIElement.methods
M.SetStyle = function(self, a, file)
  local r = urec(self)
  if a ~= nil and type(a) ~= "string" then
    error("UIElement:SetStyle(XMLElement) is not supported by the grader engine; pass a style name", 2)
  end
  return set_style(r, a or "", file)
end
M.SetStyleAuto = function(self, file) return set_style(urec(self), "", file) end
M.SetDefaultStyle = function(self, file) urec(self).default_style = file end
-- UIElement:LoadXML(fileName | File | XMLFile): the file's root <element> onto this element.
M.LoadXML = function(self, src)
  local r = urec(self)
  local doc = document(src)
  if doc == nil then
    E.log("ERROR", "Could not load UI element XML " .. tostring(type(src) == "string" and src or "(file)"))
    return false
  end
  return load_xml(r, doc, nil)
end

local UM = IMPL.UI.methods
UM.LoadLayout = function(_, src, style_file)
  local doc = document(src)
  if doc == nil or doc.name ~= "element" then
    E.log("ERROR", "No root UI element in " .. tostring(type(src) == "string" and src or "(file)"))
    return nil
  end
  local type_name = doc.attrs.type
  if type_name == nil or type_name == "" then type_name = "UIElement" end
  local proxy, r = E.new_ui_element(type_name)
  if proxy == nil then return nil end
  style_file = style_file or E.ui_root.default_style
  if style_file then r.default_style = style_file end
  load_xml(r, doc, style_file)
  return proxy
end

----------------------------------------------------------------------------------------------------
-- Argument checks for the UI classes' methods, from their declarations (engine/api/ui.api), made before the
-- method runs as tolua makes them: `self` of the method's class (an element of another type is the game's error,
-- not a record of the wrong shape), numbers where a number is declared (numeric strings converted, as
-- lua_tonumber does; an integer parameter gets C's (int) cast of the double, which on x86 turns NaN, the
-- infinities and out-of-range values into INT_MIN; an unsigned one, named uint... as Image's uintColor, C's
-- conversion to unsigned), value types (IntVector2, IntRect, Color ...) where they are
-- declared, and an overload chosen by what matches (arguments past an overload's last must be nil, as tolua's
-- isnoobj check asks).  Other parameters (strings, booleans, elements, resources) are left to the methods.
-- Without these checks a wrong value failed inside the engine, or was stored and broke a later frame.  The wrapper
-- tail-calls the method, so the method's own errors still name the game's line.
----------------------------------------------------------------------------------------------------
do
  local mtype, mtointeger, tconcat, sformat_, dgetmt = math.type, math.tointeger, table.concat, string.format,
    E.dgetmt
  local CLASSES = E.REGISTRY.classes
  local INT_MIN = -2147483648
  local function c_int(v)
    if mtype(v) == "integer" then
      if v < INT_MIN or v > 2147483647 then return INT_MIN end
      return v
    end
    if v ~= v or v >= 2147483648.0 or v <= -2147483649.0 then return INT_MIN end
    return mtointeger(v >= 0 and math.floor(v) or -math.floor(-v))
  end
  -- An unsigned int parameter (Urho3D names them uint...: Image's uintColor, 0xAABBGGRR): C's conversion to
  -- unsigned, modulo 2^32 (out of any int's range: 0)
  local function c_uint(v)
    if mtype(v) == "integer" then return v & 0xffffffff end
    if v ~= v or v >= 9.2e18 or v <= -9.2e18 then return 0 end
    return mtointeger(v >= 0 and math.floor(v) or -math.floor(-v)) & 0xffffffff
  end
  local function is(v, cname)
    local mt = dgetmt(v)
    return mt ~= nil and mt.__name == cname
  end
  -- ISA[type][class]: `type` is `class` or derives from it
  local ISA = setmetatable({}, {__index = function(t, type_name)
    local set, d = {}, CLASSES[type_name]
    while d ~= nil do
      set[d.name] = true
      d = d.base and CLASSES[d.base]
    end
    t[type_name] = set
    return set
  end})
  local VALUE_CLASSES = {}
  for name, decl in pairs(CLASSES) do if decl.value then VALUE_CLASSES[name] = true end end
  local function kind_of(t)
    if t == "integer" or t == "number" then return t end
    if E.REGISTRY.enums[t] then return "integer" end
    if VALUE_CLASSES[t] then return t end
    return nil
  end
  local function type_name(v)
    local mt = dgetmt(v)
    if mt and type(mt.__name) == "string" then return mt.__name end
    if type(v) == "number" then return "number " .. tostring(v) end
    return type(v)
  end
  local function accepts(p, v)
    if p == nil then return v == nil end
    if p.kind == nil then return true end
    if v == nil then return p.optional end
    if p.kind == "integer" or p.kind == "number" then return type(v) == "number" end
    return is(v, p.kind)
  end
  -- The error for arguments no overload accepts: the first position where the best overloads stop matching.
  local function fail(fname, sigs, most, ...)
    local args = table.pack(...)
    local best, at = nil, 0
    for _, sig in ipairs(sigs) do
      local i = 1
      while i <= most and accepts(sig[i], args[i]) do i = i + 1 end
      if i > at then best, at = {sig}, i elseif i == at then best[#best + 1] = sig end
    end
    local expected, seen = {}, {}
    for _, sig in ipairs(best) do
      local k = sig[at] and (sig[at].kind or "value") or "no value"
      if not seen[k] then seen[k] = true; expected[#expected + 1] = k end
    end
    -- fail is tail-called by the wrapper: level 2 is the game's call
    error(sformat_("bad argument #%d to '%s' (%s expected, got %s)", at, fname, tconcat(expected, " or "),
      type_name(args[at])), 2)
  end
  local function bad_self(self, fname, cname)
    local r = REC[self]
    error(sformat_("invalid 'self' in call to %s:%s (a %s was expected, got %s)", cname, fname, cname,
      r and r.kind == "ui" and r.type_name or type_name(self)), 2)
  end
  local P = {is = is, int = c_int, uint = c_uint, tonumber = tonumber, type = type, fail = fail, bad_self = bad_self,
    REC = REC, ISA = ISA}
  local factories = {}
  local function wrap(cname, fname, impl, decl, check_self)
    local sigs, most, checked = {}, 0, false
    for i, o in ipairs(decl.overloads) do
      local sig = {}
      for j, p in ipairs(o.params) do
        if p.name == "..." then break end
        sig[j] = {kind = kind_of(p.type), optional = p.optional, unsigned = p.name:sub(1, 4) == "uint"}
        if sig[j].kind then checked = true end
      end
      sigs[i] = sig
      if #sig > most then most = #sig end
    end
    if not checked and not check_self then return impl end
    local names, lines, alts = {}, {}, {}
    if check_self then
      lines[1] = "local r = REC[self]\nif r == nil or r.kind ~= 'ui' or not ISA[r.type_name][cname] then " ..
        "return bad_self(self, fname, cname) end"
    end
    local any = false   -- an overload that takes anything: no argument check
    if checked then
      for i = 1, most do
        local a = "a" .. i
        names[i] = a
        local numeric, integer, other, unsigned = false, false, false, false
        for _, sig in ipairs(sigs) do
          local k = sig[i] and sig[i].kind
          if k == "integer" then integer = true elseif k == "number" then numeric = true
          elseif sig[i] and k == nil then other = true end
          if k == "integer" and sig[i].unsigned then unsigned = true end
        end
        if (integer or numeric) and not other then
          lines[#lines + 1] = sformat_("if type(%s) == 'string' then %s = tonumber(%s) or %s end", a, a, a, a)
        end
        if integer and not numeric then
          lines[#lines + 1] = sformat_("if type(%s) == 'number' then %s = %s(%s) end", a, a,
            unsigned and "uint" or "int", a)
        end
      end
      for _, sig in ipairs(sigs) do
        local terms = {}
        for j = 1, most do
          local p, a = sig[j], "a" .. j
          local test
          if p == nil then test = a .. " == nil"
          elseif p.kind == "integer" or p.kind == "number" then test = sformat_("type(%s) == 'number'", a)
          elseif p.kind then test = sformat_("is(%s, %q)", a, p.kind) end
          if test and p and p.optional then test = sformat_("(%s == nil or %s)", a, test) end
          if test then terms[#terms + 1] = test end
        end
        if #terms == 0 then any = true end
        alts[#alts + 1] = "(" .. (#terms > 0 and tconcat(terms, " and ") or "true") .. ")"
      end
    end
    names[#names + 1] = "..."
    local params = tconcat(names, ", ")
    local call = "return impl(self, " .. params .. ")"
    if checked and not any then
      call = "if " .. tconcat(alts, " or ") .. " then " .. call .. " end\nreturn fail(fname, sigs, most, " ..
        params .. ")"
    end
    local src = "local impl, P, cname, fname, sigs, most = ...\n" ..
      "local type, tonumber, is, int, uint, fail, bad_self, REC, ISA = P.type, P.tonumber, P.is, P.int, P.uint, " ..
      "P.fail, P.bad_self, P.REC, P.ISA\nreturn function(self, " .. params .. ")\n" .. tconcat(lines, "\n") .. "\n" ..
      call .. "\nend"
    -- one compiled factory per distinct check (a few dozen), instantiated per method
    local factory = factories[src]
    if factory == nil then
      factory = E.unmetered(load(src, "@engine/runtime/83_ui_style.lua (argument checks)", "t", {}))
      factories[src] = factory
    end
    return factory(impl, P, cname, fname, sigs, most)
  end
  -- The checks go into the tables games call through (bound methods and property setters), after binding;
  -- the engine's own code keeps calling the implementations directly.  The UI's classes get them, and the
  -- resources' (XMLElement, JSONValue ...: 61_xml.lua, 62_json.lua), whose setters take numbers and value types.
  local CHECKED_FILES = {["ui.api"] = true, ["resource.api"] = true}
  E.defer(function()
    local cache = {}   -- implementation -> declaration -> wrapper
    local function checked(cname, mname, fn)
      -- the declaration the game sees for cname, and the class whose implementation fn is
      local decl, owner, d = nil, nil, CLASSES[cname]
      while d ~= nil do
        decl = decl or d.methods[mname]
        if owner == nil and IMPL[d.name] and rawget(IMPL[d.name].methods, mname) == fn then owner = d.name end
        d = d.base and CLASSES[d.base]
      end
      if decl == nil or owner == nil or decl.kind ~= "method" then return fn end
      local by_decl = cache[fn]
      if by_decl == nil then by_decl = {}; cache[fn] = by_decl end
      local w = by_decl[decl]
      if w == nil then
        w = wrap(owner, mname, fn, decl, ISA[owner].UIElement == true)
        by_decl[decl] = w
      end
      return w
    end
    for _, cname in ipairs(E.sorted_keys(CLASSES)) do
      local impl = IMPL[cname]
      if impl and impl.bound_methods and CHECKED_FILES[CLASSES[cname].source] then
        local methods, setters = impl.bound_methods, impl.setters
        for _, mname in ipairs(E.sorted_keys(methods)) do
          local fn = rawget(methods, mname)
          if type(fn) == "function" then rawset(methods, mname, checked(cname, mname, fn)) end
        end
        for _, pname in ipairs(E.sorted_keys(setters or {})) do
          local prop = CLASSES[cname].properties[pname]
          local owner_decl = CLASSES[cname]
          while prop == nil and owner_decl and owner_decl.base do
            owner_decl = CLASSES[owner_decl.base]
            prop = owner_decl and owner_decl.properties[pname]
          end
          if prop and prop.set then setters[pname] = checked(cname, prop.set, setters[pname]) end
        end
      end
    end
  end)
end
