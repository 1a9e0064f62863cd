-- Localization (Urho3D's Resource/Localization.h): strings by id and language, loaded from JSON, one current
-- language. A multiple-language file maps each id to an object of language -> text; a single-language file maps
-- each id to its text, under a language the caller names. Languages are kept in the order they were first seen
-- (Urho3D's JSONObject iterates in insertion order, 62_json.lua keeps it); the first multiple-language load makes
-- the first language current, and a single-language load does not (as Urho3D: until SetLanguage, Get then finds no
-- current language and returns the id). Every refusal is Urho3D's warning in the log, never an error.
local type, ipairs, tostring = type, ipairs, tostring
local REC, STRING, OBJECT = E.REC, E.JSON_STRING, E.JSON_OBJECT

local L = class("Localization")
local LM = L.methods
local loc = {languages = {}, index = -1, strings = {}}   -- strings[language][id] = text

local function warn(text) E.log("WARNING", "Localization::" .. text) end
local function num_languages() return #loc.languages end
local function index_of(language)
  for i, name in ipairs(loc.languages) do
    if name == language then return i - 1 end
  end
  return -1
end
local function current()
  if loc.index == -1 then return nil end
  return loc.languages[loc.index + 1]
end
local function put(language, id, text, what)
  local texts = loc.strings[language]
  if texts == nil then texts = {}; loc.strings[language] = texts end
  if texts[id] ~= nil then
    warn(what .. ": override translation, string ID=\"" .. id .. "\", language=\"" .. language .. "\"")
  end
  texts[id] = text
  if index_of(language) == -1 then loc.languages[#loc.languages + 1] = language end
end

-- the JSON tree's node of a JSONValue argument, or nil
local function node_of(value)
  local r = REC[value]
  return r and r.kind == "json" and r.node or nil
end

local function load_multiple(root)
  if root == nil or root.t ~= OBJECT then return end
  for _, id in ipairs(root.v.keys) do
    local value = root.v.map[id]
    if id == "" then
      warn("LoadMultipleLanguageJSON(source): string ID is empty")
    elseif value.t == OBJECT then
      for _, language in ipairs(value.v.keys) do
        local text = value.v.map[language]
        text = text.t == STRING and text.v or ""
        if language == "" then
          warn("LoadMultipleLanguageJSON(source): language name is empty, string ID=\"" .. id .. "\"")
        elseif text == "" then
          warn("LoadMultipleLanguageJSON(source): translation is empty, string ID=\"" .. id .. "\", language=\""
            .. language .. "\"")
        else
          put(language, id, text, "LoadMultipleLanguageJSON(source)")
          if loc.index == -1 then loc.index = 0 end
        end
      end
    else
      warn("LoadMultipleLanguageJSON(source): failed to load values, string ID=\"" .. id .. "\"")
    end
  end
end

local function load_single(root, language)
  if root == nil or root.t ~= OBJECT then return end
  for _, id in ipairs(root.v.keys) do
    local value = root.v.map[id]
    if id == "" then
      warn("LoadSingleLanguageJSON(source, language): string ID is empty")
    elseif value.t == STRING then
      if value.v == "" then
        warn("LoadSingleLanguageJSON(source, language): translation is empty, string ID=\"" .. id
          .. "\", language=\"" .. language .. "\"")
      else
        put(language, id, value.v, "LoadSingleLanguageJSON(source, language)")
      end
    else
      warn("LoadSingleLanguageJSON(source, language): failed to load value, string ID=\"" .. id
        .. "\", language=\"" .. language .. "\"")
    end
  end
end

LM.GetNumLanguages = function() return num_languages() end
LM.GetLanguageIndex = function(_, language)
  if language == nil then return loc.index end
  language = tostring(language)
  if language == "" then
    warn("GetLanguageIndex(language): language name is empty")
    return -1
  end
  if num_languages() == 0 then
    warn("GetLanguageIndex(language): no loaded languages")
    return -1
  end
  return index_of(language)
end
LM.GetLanguage = function(_, index)
  if index == nil then
    local name = current()
    if name == nil then warn("GetLanguage(): no loaded languages"); return "" end
    return name
  end
  if num_languages() == 0 then warn("GetLanguage(index): no loaded languages"); return "" end
  if type(index) ~= "number" or index < 0 or index >= num_languages() then
    warn("GetLanguage(index): index out of range")
    return ""
  end
  return loc.languages[index // 1 + 1]
end
local function set_index(index)
  if num_languages() == 0 then warn("SetLanguage(index): no loaded languages"); return end
  if index < 0 or index >= num_languages() then warn("SetLanguage(index): index out of range"); return end
  if index ~= loc.index then
    loc.index = index
    E.send_event("ChangeLanguage", {}, GLOBALS.localization)
  end
end
LM.SetLanguage = function(_, language)
  if type(language) == "number" then return set_index(language // 1) end
  language = tostring(language)
  if language == "" then warn("SetLanguage(language): language name is empty"); return end
  if num_languages() == 0 then warn("SetLanguage(language): no loaded languages"); return end
  local index = index_of(language)
  if index == -1 then warn("SetLanguage(language): language not found"); return end
  set_index(index)
end
LM.Get = function(_, id)
  id = tostring(id)
  if id == "" then return "" end
  if num_languages() == 0 then
    warn("Get(id): no loaded languages")
    return id
  end
  local language = current()
  local texts = loc.strings[language or ""]
  local text = texts and texts[id]
  if text == nil then
    if language == nil then warn("GetLanguage(): no loaded languages") end
    warn("Get(\"" .. id .. "\") not found translation, language=\"" .. (language or "") .. "\"")
    return id
  end
  return text
end
LM.Reset = function()
  loc.languages, loc.index, loc.strings = {}, -1, {}
end
LM.LoadJSON = function(_, source) load_multiple(node_of(source)) end
LM.LoadJSONFile = function(_, name, language)
  local file = E.get_resource("JSONFile", name)
  if file == nil then return end
  if language == nil or language == "" then
    load_multiple(E.json_root(file))
  else
    load_single(E.json_root(file), tostring(language))
  end
end
-- UrhoX: the device's language.  Headless there is no device: always "en", so a run does not depend on the machine.
LM.GetSystemLanguage = function() return "en" end

GLOBALS.localization = E.new_object("Localization")
FUNCTIONS.GetLocalization = function() return GLOBALS.localization end
