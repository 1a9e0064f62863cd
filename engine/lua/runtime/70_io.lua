-- File and FileSystem over the game's files (59_files.lua): the deliverable's folder, read a file at a time when the
-- game opens it, under an overlay of what the game writes.  Saves work within a run; nothing touches the disk.
-- User and preference folders are virtual paths under "/user/".
local type, tostring, ipairs = type, tostring, ipairs
local ssub, sfind, sgsub, sbyte = string.sub, string.find, string.gsub, string.byte
local FILE_READ, FILE_WRITE = 0, 1
local USER_DIR = "/user/"

local clean = E.clean_path

-- Numbers and strings from the game, converted as tolua converts them (58_serializer.lua).
local str_arg = E.tolua_string

-- A File's record: {name, path (where its bytes go: Open's name; SetName changes only the name), data (nil when
-- closed), pos, mode, open, held}.  Its typed reads and writes are Urho3D's Serializer and Deserializer
-- (58_serializer.lua).
local File = class("File")
local function new_file(rec) return E.new_object("File", rec) end
-- An open File reading `data`; `held` bytes of the game folder's files it holds until closed (59_files.lua).
function E.open_memory_file(name, data, held)
  return new_file({name = name, path = name, data = data, pos = 0, mode = FILE_READ, open = true, held = held or 0})
end
local function frec(self)
  local r = E.REC[self]
  local mt = E.dgetmt(self)
  if r == nil or mt == nil or mt.__name ~= "File" then E.raise_at_game("invalid 'self' in call to File method") end
  return r
end
local function close(r)
  if r.open and r.mode ~= FILE_READ then E.fs_write(r.path, r.data) end
  if r.held > 0 then
    E.files_release(r.held)
    r.held = 0
  end
  r.open = false
end
local function do_open(r, name, mode)
  if r.open then close(r) end
  name = clean(name)
  mode = mode or FILE_READ
  r.name, r.path, r.mode, r.pos = name, name, mode, 0
  if mode == FILE_READ then
    local data, held = E.fs_read_held(name)
    if data == nil then
      local path = E.find_game_file(name)
      if path ~= nil then data, held = E.fs_read_held(path) end
    end
    if data == nil then
      E.log("ERROR", "Could not open file " .. name)
      r.open, r.data = false, nil
      return false
    end
    r.data, r.open, r.held = data, true, held
  elseif mode == FILE_WRITE then
    r.data, r.open = "", true
    E.fs_write(name, "")
  else
    r.data, r.open = E.fs_read(name) or "", true
    E.fs_write(name, r.data)
  end
  return true
end
File.new = function(a, b, c)
  local r = {name = "", path = "", data = nil, pos = 0, mode = FILE_READ, open = false, held = 0}
  local f = new_file(r)
  -- File(), File(name, mode) or File(context, name, mode)
  if type(a) == "string" then do_open(r, a, b)
  elseif type(b) == "string" then do_open(r, b, c) end
  return f
end
local F = File.methods
F.Open = function(self, name, mode) return do_open(frec(self), name, mode) end
F.Close = function(self) close(frec(self)) end
F.Dispose = F.Close   -- UrhoX: release the file now rather than at collection; its data is kept as Close keeps it
F.delete = F.Close    -- tolua's delete (Urho3D's samples delete the File cache:GetFile returned): closes it
F.Flush = function(self) local r = frec(self); if r.open and r.mode ~= FILE_READ then E.fs_write(r.path, r.data) end end
F.IsOpen = function(self) return frec(self).open end
F.GetName = function(self) return frec(self).name end
F.SetName = function(self, name) frec(self).name = str_arg(name, "SetName", 1) end
F.GetMode = function(self) return frec(self).mode end
F.IsPackaged = function(self) frec(self); return false end   -- no PackageFile opens here
F.GetHandle = function(self) if frec(self).open then return self end; return nil end   -- opaque: non-nil when open
F.GetChecksum = function(self)
  local r = frec(self)
  if not r.open or r.mode == FILE_WRITE then return 0 end   -- as Urho3D's File
  local d = r.data or ""
  local h = 0
  for i = 1, #d do h = (sbyte(d, i) + (h << 6) + (h << 16) - h) & 0xffffffff end
  return h
end
E.install_serializer("File", {
  rec = frec,
  -- Urho3D's File: a closed file reads and writes nothing silently; the wrong mode logs an error.
  readable = function(r)
    if not r.open or r.data == nil then return false end
    if r.mode == FILE_WRITE then E.log("ERROR", "File not opened for reading"); return false end
    return true
  end,
  writable = function(r)
    if not r.open or r.data == nil then return false end
    if r.mode == FILE_READ then E.log("ERROR", "File not opened for writing"); return false end
    return true
  end,
  written = function(r) E.fs_write(r.path, r.data) end,
})

local FS = class("FileSystem")
local FM = FS.methods
local function is_dir(path)
  path = clean(path)
  if path == "" or path == "/" or path == USER_DIR then return true end
  if ssub(path, -1) ~= "/" then path = path .. "/" end
  return E.fs_dirs[path] == true or E.fs_folder_exists(path)
end
E.fs_dirs = {[USER_DIR] = true}
FM.FileExists = function(_, p) p = clean(p); return E.fs_exists(p) or E.find_game_file(p) ~= nil end
FM.DirExists = function(_, p) return is_dir(p) end
FM.CreateDir = function(_, p)
  p = clean(p)
  if ssub(p, -1) ~= "/" then p = p .. "/" end
  E.fs_dirs[p] = true
  return true
end
FM.Delete = function(_, p) return E.fs_delete(clean(p)) end
FM.Rename = function(_, a, b)
  a, b = clean(a), clean(b)
  local data = E.fs_read(a)
  if data == nil then return false end
  E.fs_delete(a)
  E.fs_write(b, data)
  return true
end
FM.Copy = function(_, a, b)
  a, b = clean(a), clean(b)
  local data = E.fs_read(a)
  if data == nil then return false end
  E.fs_write(b, data)
  return true
end
FM.GetProgramDir = function() return "" end
FM.GetCurrentDir = function() return "" end
FM.SetCurrentDir = function() return true end
FM.GetUserDocumentsDir = function() return USER_DIR end
FM.GetAppPreferencesDir = function(_, org, app) return USER_DIR .. tostring(org) .. "/" .. tostring(app) .. "/" end
FM.GetTemporaryDir = function() return "/tmp/" end
FM.GetLastModifiedTime = function() return E.host.config.epoch end
FM.SetLastModifiedTime = function() return true end
FM.CheckAccess = function() return true end
FM.SystemCommand = function() return -1 end
FM.SystemRun = function() return -1 end
FM.SystemOpen = function() return false end
FM.ScanDir = function(_, path, filter, flags, recursive)
  path = clean(path)
  if path ~= "" and ssub(path, -1) ~= "/" then path = path .. "/" end
  if filter ~= nil then filter = str_arg(filter, "ScanDir", 2) end
  -- "*.ext" matches the extension; the game's text is matched literally, never as a Lua pattern
  local pattern = filter and filter ~= "*" and filter ~= "*.*" and
    ("%." .. sgsub(sgsub(filter, "^%*%.", ""), "%p", "%%%0") .. "$")
  local out = {}
  for _, k in ipairs(E.fs_list(path)) do
    local rest = ssub(k, #path + 1)
    if (recursive or not sfind(rest, "/", 1, true)) and (not pattern or sfind(rest, pattern)) then
      out[#out + 1] = rest
    end
  end
  return out
end
GLOBALS.fileSystem = E.new_object("FileSystem")
FUNCTIONS.GetFileSystem = function() return GLOBALS.fileSystem end
FUNCTIONS.GetPath = function(p) p = clean(p); return (p:match("^(.*/)") or "") end
FUNCTIONS.GetFileName = function(p) p = clean(p); local n = p:match("([^/]*)$"); return (n:gsub("%.[^%.]*$", "")) end
FUNCTIONS.GetExtension = function(p, lower)
  local e = clean(p):match("(%.[^%./]*)$") or ""
  if lower ~= false then e = e:lower() end
  return e
end
FUNCTIONS.GetFileNameAndExtension = function(p, lower)
  local n = clean(p):match("([^/]*)$")
  if lower then n = n:lower() end
  return n
end
FUNCTIONS.ReplaceExtension = function(p, ext)
  return (clean(p):gsub("%.[^%./]*$", "")) .. str_arg(ext, "ReplaceExtension", 2)
end
FUNCTIONS.AddTrailingSlash = function(p) p = clean(p); if p ~= "" and ssub(p, -1) ~= "/" then p = p .. "/" end; return p end
FUNCTIONS.RemoveTrailingSlash = function(p) return (clean(p):gsub("/$", "")) end
FUNCTIONS.GetParentPath = function(p) return (clean(p):gsub("/$", ""):match("^(.*/)") or "") end
FUNCTIONS.GetInternalPath = function(p) return clean(p) end
FUNCTIONS.GetNativePath = function(p) return clean(p) end
FUNCTIONS.IsAbsolutePath = function(p) return ssub(clean(p), 1, 1) == "/" end
