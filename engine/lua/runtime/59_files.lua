-- The game's files as the engine's modules see them: the deliverable's folder on disk, under an overlay of what the
-- game wrote, renamed and deleted during the run (nothing ever reaches the disk).
--
-- The host lists the folder when the run starts (names and sizes, sorted) and reads a file's bytes only when the
-- game opens or loads it (engine/_files.py), so a project's size costs nothing until its game reads it.  Two bounds:
--   * file_read_budget (the host's): bytes read from the folder in the whole run, each read of a file counting
--     its size;
--   * files_held_limit (here): bytes of the folder's files held at once by open File objects and by loaded XML and
--     JSON resources; closing a file (Close, Dispose, delete) or releasing the resource gives them back.
-- Either raises at the game's line with a message naming the file.  Paths are '/'-separated, relative to the game
-- folder; "/user/..." names the game's virtual user folders (70_io.lua).
local type, pairs, sformat, ssub, ulen, tsort = type, pairs, string.format, string.sub, utf8.len, table.sort
local host, host_call = E.host, E.host_call
local MAX_PATH = 4096
local written = {}   -- path -> the contents the game wrote there during the run
local hidden = {}    -- a deliverable path -> true once the game deleted it or renamed it away
local held = 0       -- bytes of the folder's files held by open files and loaded resources

-- A path as the game wrote it, as the file system functions take it: '/' separators, no leading "./", no "//".
function E.clean_path(path)
  path = string.gsub(tostring(path or ""), "\\", "/")
  path = string.gsub(path, "^%./", "")
  path = string.gsub(path, "//+", "/")
  return path
end

-- A name worth asking the host about: the listing holds UTF-8 names of reasonable length, nothing else.
local function askable(path)
  return type(path) == "string" and #path <= MAX_PATH and ulen(path) ~= nil
end

local function folder_size(path)
  if hidden[path] or not askable(path) then return nil end
  return host_call(host.file_size, path)
end

function E.fs_exists(path) return written[path] ~= nil or folder_size(path) ~= nil end
function E.fs_size(path)
  local w = written[path]
  if w ~= nil then return #w end
  return folder_size(path)
end
-- The deliverable's own file (not one the game wrote) at `path`?
function E.fs_in_folder(path) return written[path] == nil and folder_size(path) ~= nil end

-- The contents at `path`: what the game wrote there, or the deliverable's file read now; nil if neither.
-- A read past the run's file_read_budget raises at the game's line.
function E.fs_read(path)
  local w = written[path]
  if w ~= nil then return w end
  if folder_size(path) == nil then return nil end
  local data, why = host_call(host.file_read, path)
  if data == nil and why ~= nil then E.raise_at_game(why) end
  return data
end

-- Hold `n` bytes of the folder's file `path` for an open file or a loaded resource (raises past the limit).
function E.files_hold(path, n)
  local limit = E.host.config.files_held_limit
  if held + n > limit then
    E.raise_at_game(sformat("grader: %s: holding its %d bytes would take the run past %d bytes of game files held " ..
      "at once (%d held by open files and loaded resources; engine setting files_held_limit)", path, n, limit, held))
  end
  held = held + n
end
function E.files_release(n) held = held - n end
function E.files_held() return held end

-- The contents at `path` for a holder that keeps them (an open file, a loaded resource): (data, bytes held), the
-- bytes held being 0 for the game's own writes; nil when there is no such file.
function E.fs_read_held(path)
  local w = written[path]
  if w ~= nil then return w, 0 end
  local size = folder_size(path)
  if size == nil then return nil end
  E.files_hold(path, size)
  local ok, data = pcall(E.fs_read, path)
  if not ok or data == nil then
    held = held - size
    if not ok then error(data, 0) end
    return nil
  end
  if #data ~= size then held = held + #data - size end   -- the file changed since the listing
  return data, #data
end

function E.fs_write(path, data)
  written[path] = data
  hidden[path] = nil
end
-- Delete `path`; true if there was a file.
function E.fs_delete(path)
  local had = written[path] ~= nil
  written[path] = nil
  if folder_size(path) ~= nil then
    hidden[path] = true
    had = true
  end
  return had
end

-- Every file name under `prefix` ('' or a folder path ending in '/'), the deliverable's and the game's, sorted.
function E.fs_list(prefix)
  local names, seen = {}, {}
  if askable(prefix) then
    local listed = host_call(host.file_list, prefix)
    for i = 1, #listed do
      local n = listed[i]
      if not hidden[n] then
        names[#names + 1] = n
        seen[n] = true
      end
    end
  end
  for n in pairs(written) do
    if ssub(n, 1, #prefix) == prefix and not seen[n] then names[#names + 1] = n end
  end
  tsort(names)
  return names
end

-- Does any file live under the folder `prefix` (ending in '/')?
function E.fs_folder_exists(prefix)
  for n in pairs(written) do
    if ssub(n, 1, #prefix) == prefix then return true end
  end
  if not askable(prefix) or not host_call(host.folder_exists, prefix) then return false end
  for n in pairs(hidden) do
    if ssub(n, 1, #prefix) == prefix then return #E.fs_list(prefix) > 0 end
  end
  return true
end
