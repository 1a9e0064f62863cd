-- File and FileSystem over the game's files (59_files.lua): the deliverable's folder, read a file at a time when the
-- game opens it, under an overlay of what the game writes.  Saves work within a run; nothing touches the disk.
-- User and preference folders are virtual paths under "/user/".
local error, type, tostring, setmetatable, ipairs, pairs = error, type, tostring, setmetatable, ipairs, pairs
local ssub, sfind, sgsub, sbyte, schar, spack, sunpack = string.sub, string.find, string.gsub, string.byte,
  string.char, string.pack, string.unpack
local FILE_READ, FILE_WRITE, FILE_READWRITE = 0, 1, 2
local USER_DIR = "/user/"

local clean = E.clean_path

-- Numbers and strings from the game, converted as tolua converts them (lua_tonumber, lua_tostring); anything else
-- is the game's error, at the game's line (level 3: the helper, the API function, the game).
local mtype, mtointeger, mfloor = math.type, math.tointeger, math.floor
local function arg_error(n, fname, expected, v)
  local mt = E.dgetmt(v)
  local got = mt and type(mt.__name) == "string" and mt.__name or type(v)
  error(string.format("bad argument #%d to '%s' (%s expected, got %s)", n, fname, expected, got), 4)
end
-- An integer from a number: truncated toward zero; NaN is 0, and beyond 64 bits the nearest 64-bit integer.
local function int_arg(v, fname, n)
  if mtype(v) == "integer" then return v end
  if type(v) == "string" then v = tonumber(v) end
  if type(v) ~= "number" then arg_error(n, fname, "number", v) end
  if mtype(v) == "integer" then return v end
  if v ~= v then return 0 end
  if v >= 9.2233720368547758e18 then return math.maxinteger end
  if v <= -9.2233720368547758e18 then return math.mininteger end
  return mtointeger(v >= 0 and mfloor(v) or -mfloor(-v))
end
local function num_arg(v, fname, n)
  if type(v) == "number" then return v end
  local x = type(v) == "string" and tonumber(v) or nil
  if x == nil then arg_error(n, fname, "number", v) end
  return x
end
local function str_arg(v, fname, n)
  local t = type(v)
  if t == "string" then return v end
  if t == "number" then return tostring(v) end
  arg_error(n, fname, "string", v)
end

local File = class("File")
local function new_file(rec) return E.new_object("File", rec) end
-- An open File reading `data`; `held` bytes of the game folder's files it holds until closed (59_files.lua).
function E.open_memory_file(name, data, held)
  return new_file({name = name, data = data, pos = 0, mode = FILE_READ, open = true, held = held or 0})
end
local function frec(self)
  local r = E.REC[self]
  local mt = E.dgetmt(self)
  if r == nil or mt == nil or mt.__name ~= "File" then error("invalid 'self' in call to File method", 3) end
  return r
end
local function close(r)
  if r.open and r.mode ~= FILE_READ then E.fs_write(r.name, r.data) end
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
  r.name, r.mode, r.pos = name, mode, 0
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
  local r = {name = "", data = nil, pos = 0, mode = FILE_READ, open = false, held = 0}
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
F.Flush = function(self) local r = frec(self); if r.open and r.mode ~= FILE_READ then E.fs_write(r.name, r.data) end end
F.IsOpen = function(self) return frec(self).open end
F.GetName = function(self) return frec(self).name end
F.GetMode = function(self) return frec(self).mode end
F.GetSize = function(self) local d = frec(self).data; return d and #d or 0 end
F.GetPosition = function(self) return frec(self).pos end
F.Seek = function(self, p)
  local r = frec(self)
  r.pos = math.max(0, math.min(int_arg(p, "Seek", 1), r.data and #r.data or 0))
  return r.pos
end
F.IsEof = function(self) local r = frec(self); return r.data == nil or r.pos >= #r.data end
F.GetChecksum = function(self)
  local d = frec(self).data or ""
  local h = 0
  for i = 1, #d do h = (sbyte(d, i) + (h << 6) + (h << 16) - h) & 0xffffffff end
  return h
end
local function read(r, n)
  if not r.open or r.data == nil then return "" end
  local s = ssub(r.data, r.pos + 1, r.pos + n)
  r.pos = r.pos + #s
  return s
end
local function write(r, s)
  if not r.open or r.mode == FILE_READ then return 0 end
  local d = r.data or ""
  r.data = ssub(d, 1, r.pos) .. s .. ssub(d, r.pos + #s + 1)
  r.pos = r.pos + #s
  E.fs_write(r.name, r.data)
  return #s
end
F.ReadString = function(self)
  local r = frec(self)
  if not r.open or r.data == nil then return "" end
  local stop = sfind(r.data, "\0", r.pos + 1, true)
  local s
  if stop then s = ssub(r.data, r.pos + 1, stop - 1); r.pos = stop
  else s = ssub(r.data, r.pos + 1); r.pos = #r.data end
  return s
end
F.ReadLine = function(self)
  local r = frec(self)
  if not r.open or r.data == nil then return "" end
  local stop = sfind(r.data, "\n", r.pos + 1, true)
  local s
  if stop then s = ssub(r.data, r.pos + 1, stop - 1); r.pos = stop
  else s = ssub(r.data, r.pos + 1); r.pos = #r.data end
  return (sgsub(s, "\r$", ""))
end
F.Read = function(self, n) return read(frec(self), math.max(0, int_arg(n, "Read", 1))) end
F.ReadBuffer = function(self) local r = frec(self); return read(r, #(r.data or "") - r.pos) end
F.ReadFileID = function(self) return read(frec(self), 4) end
F.ReadInt = function(self) local s = read(frec(self), 4); if #s < 4 then return 0 end; return (sunpack("<i4", s)) end
F.ReadUInt = function(self) local s = read(frec(self), 4); if #s < 4 then return 0 end; return (sunpack("<I4", s)) end
F.ReadFloat = function(self) local s = read(frec(self), 4); if #s < 4 then return 0.0 end; return (sunpack("<f", s)) end
F.ReadBool = function(self) local s = read(frec(self), 1); return s ~= "" and sbyte(s) ~= 0 end
F.ReadByte = function(self) local s = read(frec(self), 1); return s ~= "" and sbyte(s) or 0 end
F.WriteString = function(self, s) return write(frec(self), tostring(s) .. "\0") > 0 end
F.WriteLine = function(self, s) return write(frec(self), tostring(s) .. "\n") > 0 end
F.Write = function(self, s) return write(frec(self), tostring(s)) end
F.WriteFileID = function(self, s) return write(frec(self), ssub(tostring(s) .. "    ", 1, 4)) > 0 end
-- the low bits of the integer, as C's conversions to a narrower type keep them
F.WriteInt = function(self, v) return write(frec(self), spack("<I4", int_arg(v, "WriteInt", 1) & 0xffffffff)) > 0 end
F.WriteUInt = function(self, v) return write(frec(self), spack("<I4", int_arg(v, "WriteUInt", 1) & 0xffffffff)) > 0 end
F.WriteFloat = function(self, v) return write(frec(self), spack("<f", num_arg(v, "WriteFloat", 1))) > 0 end
F.WriteBool = function(self, v) return write(frec(self), v and "\1" or "\0") > 0 end
F.WriteByte = function(self, v) return write(frec(self), schar(int_arg(v, "WriteByte", 1) & 255)) > 0 end
F.WriteBuffer = function(self, s) return write(frec(self), tostring(s)) > 0 end

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
