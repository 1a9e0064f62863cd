-- Video containers: the duration and picture size a file's header declares, read without decoding anything.
--
-- E.probe_video(data) -> info | nil, reason.  info = {container, duration (seconds, 0 = unknown), width, height
-- (pixels, 0 = no video track), sized (false: the container's picture size is not read)}.
--   MP4 / QuickTime (ISO base media): moov/mvhd timescale and duration (moov/mvex/mehd for fragmented files
--     whose mvhd says 0), and the video track's tkhd width and height (the trak whose mdia/hdlr is 'vide').
--   WebM / Matroska (EBML): Segment/Info TimestampScale and Duration, the first video TrackEntry's PixelWidth and
--     PixelHeight; the walk stops at the first Cluster.
--   Ogg: recognised, nothing read (duration 0, picture size unknown).
-- Files are hostile: nesting depth, the number of boxes/elements visited and every size are bounded, and any
-- size that overruns its parent makes the file malformed (nil, reason), never a crash or a long loop.
local type = type
local sunpack, ssub, sbyte, sformat, sgsub = string.unpack, string.sub, string.byte, string.format, string.gsub
local huge = math.huge

local LIMITS = {depth = 8, elements = 100000}
E.VIDEO_PROBE_LIMITS = LIMITS

-- A box or element name fit for a message: printable ASCII, anything else as '?'.
local function printable(s) return (sgsub(s, "[^%w%p ]", "?")) end

-- A picture dimension as declared (an 8-byte EBML integer may wrap negative): 0 when absent or nonsense.
local function pixels(v)
  if v == nil or v < 0 then return 0 end
  return v
end

local function finite_seconds(x)
  if x ~= x or x == huge or x < 0 then return 0 end
  return x
end

----------------------------------------------------------------------------------------------------
-- ISO base media (MP4, MOV): boxes of [size:u32][type:4cc] (size 1: a u64 follows; size 0: to the parent's end)
----------------------------------------------------------------------------------------------------
local BMFF_FIRST = {ftyp = true, styp = true, moov = true, mdat = true, free = true, skip = true, wide = true,
  pnot = true, pdin = true}
local STOP = {}   -- returned by a visitor: the walk is over, nothing is wrong

local function probe_bmff(data)
  local visited = 0
  -- Visit each box of data[pos, stop) (1-based, stop exclusive) as visit(type, body, finish, depth).
  local function boxes(pos, stop, depth, visit)
    if depth > LIMITS.depth then return sformat("boxes nested deeper than %d", LIMITS.depth) end
    while pos < stop do
      if stop - pos < 8 then return sformat("truncated box header at byte %d", pos - 1) end
      visited = visited + 1
      if visited > LIMITS.elements then return sformat("more than %d boxes", LIMITS.elements) end
      local size, kind = sunpack(">I4c4", data, pos)
      local header = 8
      if size == 1 then
        if stop - pos < 16 then return sformat("truncated box header at byte %d", pos - 1) end
        size = sunpack(">i8", data, pos + 8)
        header = 16
      elseif size == 0 then
        size = stop - pos
      end
      if size < header or size > stop - pos then
        return sformat("box '%s' at byte %d overruns its parent", printable(kind), pos - 1)
      end
      local result = visit(kind, pos + header, pos + size, depth)
      if result ~= nil then return result end
      pos = pos + size
    end
    return nil
  end

  local info = {container = "mp4", duration = 0, width = 0, height = 0, sized = true}
  local timescale, duration, fragment_duration
  local moov_seen = false
  local video_track, first_sized

  -- A full box's version, or nil when the body is shorter than its version needs.
  local function version_of(body, finish, need0, need1)
    if finish - body < 4 then return nil end
    local v = sbyte(data, body)
    if v == 0 and finish - body >= need0 then return 0 end
    if v == 1 and finish - body >= need1 then return 1 end
    return nil
  end

  local function trak(body, finish, depth)
    local track = {}
    local err = boxes(body, finish, depth + 1, function(k, b, f, d)
      if k == "tkhd" then
        local v = version_of(b, f, 84, 96)
        if v == nil then return "tkhd box too short or of an unknown version" end
        local at = b + (v == 0 and 76 or 88)
        local w, h = sunpack(">I4I4", data, at)
        track.width, track.height = w >> 16, h >> 16
      elseif k == "mdia" then
        return boxes(b, f, d + 1, function(k2, b2, f2)
          if k2 == "hdlr" then
            if f2 - b2 < 12 then return "hdlr box too short" end
            track.handler = ssub(data, b2 + 8, b2 + 11)
          end
          return nil
        end)
      end
      return nil
    end)
    if err ~= nil then return err end
    if track.width ~= nil then
      if track.handler == "vide" and video_track == nil then video_track = track end
      if first_sized == nil and track.width > 0 and track.height > 0 then first_sized = track end
    end
    return nil
  end

  local function moov(body, finish, depth)
    return boxes(body, finish, depth + 1, function(kind, b, f, d)
      if kind == "mvhd" then
        local v = version_of(b, f, 20, 32)
        if v == nil then return "mvhd box too short or of an unknown version" end
        if v == 0 then timescale, duration = sunpack(">I4I4", data, b + 12)
        else timescale, duration = sunpack(">I4i8", data, b + 20) end
        if (v == 0 and duration == 0xFFFFFFFF) or duration < 0 then duration = 0 end   -- all ones: unknown
      elseif kind == "trak" then
        return trak(b, f, d)
      elseif kind == "mvex" then
        return boxes(b, f, d + 1, function(k2, b2, f2)
          if k2 == "mehd" then
            local v = version_of(b2, f2, 8, 12)
            if v == nil then return "mehd box too short or of an unknown version" end
            fragment_duration = v == 0 and sunpack(">I4", data, b2 + 4) or sunpack(">i8", data, b2 + 4)
          end
          return nil
        end)
      end
      return nil
    end)
  end

  local err = boxes(1, #data + 1, 1, function(kind, body, finish, depth)
    if kind == "ftyp" and finish - body >= 4 and ssub(data, body, body + 3) == "qt  " then info.container = "mov" end
    if kind == "moov" then
      moov_seen = true
      local e = moov(body, finish, depth)
      if e ~= nil then return e end
      return STOP
    end
    return nil
  end)
  if err ~= nil and err ~= STOP then return nil, err end
  if not moov_seen then return nil, "no moov box (the movie header)" end
  if timescale == nil then return nil, "no mvhd box in moov" end
  if timescale == 0 then return nil, "mvhd timescale is 0" end
  if duration == 0 and fragment_duration ~= nil and fragment_duration > 0 then duration = fragment_duration end
  info.duration = finite_seconds(duration / timescale)
  local track = video_track or first_sized
  if track ~= nil then info.width, info.height = track.width, track.height end
  return info
end

----------------------------------------------------------------------------------------------------
-- EBML (WebM, Matroska): elements of [id: vint, marker kept][size: vint] (all ones: unknown size)
----------------------------------------------------------------------------------------------------
local ID_EBML, ID_DOCTYPE, ID_SEGMENT, ID_INFO, ID_SCALE, ID_DURATION = 0x1A45DFA3, 0x4282, 0x18538067,
  0x1549A966, 0x2AD7B1, 0x4489
local ID_TRACKS, ID_ENTRY, ID_TYPE, ID_VIDEO, ID_WIDTH, ID_HEIGHT, ID_CLUSTER = 0x1654AE6B, 0xAE, 0x83, 0xE0,
  0xB0, 0xBA, 0x1F43B675

-- A variable-length integer at pos: value, next position, all value bits set; nil when invalid or past stop.
local function vint(data, pos, stop, keep_marker, max_len)
  if pos >= stop then return nil end
  local b = sbyte(data, pos)
  local len, mask = 1, 0x80
  while len <= max_len and b & mask == 0 do len, mask = len + 1, mask >> 1 end
  if len > max_len or pos + len > stop then return nil end
  local v = keep_marker and b or b & (mask - 1)
  local ones = (b & (mask - 1)) == mask - 1
  for i = 1, len - 1 do
    local c = sbyte(data, pos + i)
    v = (v << 8) | c
    ones = ones and c == 0xFF
  end
  return v, pos + len, ones
end

local function probe_ebml(data)
  local visited = 0
  local function elements(pos, stop, depth, visit)
    if depth > LIMITS.depth then return sformat("elements nested deeper than %d", LIMITS.depth) end
    while pos < stop do
      visited = visited + 1
      if visited > LIMITS.elements then return sformat("more than %d elements", LIMITS.elements) end
      local id, p1 = vint(data, pos, stop, true, 4)
      if id == nil then return sformat("invalid element id at byte %d", pos - 1) end
      local size, p2, unknown = vint(data, p1, stop, false, 8)
      if size == nil then return sformat("invalid element size at byte %d", p1 - 1) end
      local finish
      if unknown then finish = stop
      elseif size > stop - p2 then return sformat("element 0x%X at byte %d overruns its parent", id, pos - 1)
      else finish = p2 + size end
      local result = visit(id, p2, finish, depth)
      if result ~= nil then return result end
      pos = finish
    end
    return nil
  end
  local function uint(body, finish)
    local n = finish - body
    if n > 8 then return nil end
    local v = 0
    for i = 0, n - 1 do v = (v << 8) | sbyte(data, body + i) end
    return v
  end
  local function float(body, finish)
    local n = finish - body
    if n == 0 then return 0.0 end
    if n == 4 then return (sunpack(">f", data, body)) end
    if n == 8 then return (sunpack(">d", data, body)) end
    return nil
  end

  local info = {container = "matroska", duration = 0, width = 0, height = 0, sized = true}
  local doc_type, header_seen, segment_seen
  local scale, raw_duration = 1000000, nil
  local have_info, have_tracks, video = false, false, nil

  local function track_entry(body, finish, depth)
    local entry = {}
    local err = elements(body, finish, depth + 1, function(id, b, f, d)
      if id == ID_TYPE then entry.type = uint(b, f)
      elseif id == ID_VIDEO then
        return elements(b, f, d + 1, function(id2, b2, f2)
          if id2 == ID_WIDTH then entry.width = uint(b2, f2)
          elseif id2 == ID_HEIGHT then entry.height = uint(b2, f2) end
          return nil
        end)
      end
      return nil
    end)
    if err ~= nil then return err end
    if video == nil and entry.type == 1 then video = entry end
    return nil
  end

  local function segment(body, finish, depth)
    return elements(body, finish, depth + 1, function(id, b, f, d)
      if id == ID_INFO then
        have_info = true
        local err = elements(b, f, d + 1, function(id2, b2, f2)
          if id2 == ID_SCALE then
            scale = uint(b2, f2)
            if scale == nil or scale == 0 then return "invalid TimestampScale" end
          elseif id2 == ID_DURATION then
            raw_duration = float(b2, f2)
            if raw_duration == nil then return "invalid Duration" end
          end
          return nil
        end)
        if err ~= nil then return err end
      elseif id == ID_TRACKS then
        have_tracks = true
        local err = elements(b, f, d + 1, function(id2, b2, f2, d2)
          if id2 == ID_ENTRY then return track_entry(b2, f2, d2) end
          return nil
        end)
        if err ~= nil then return err end
      elseif id == ID_CLUSTER then
        return STOP
      end
      if have_info and have_tracks then return STOP end
      return nil
    end)
  end

  local err = elements(1, #data + 1, 1, function(id, body, finish, depth)
    if not header_seen then
      if id ~= ID_EBML then return "the file does not start with an EBML header" end
      header_seen = true
      return elements(body, finish, depth + 1, function(id2, b2, f2)
        if id2 == ID_DOCTYPE then doc_type = sgsub(ssub(data, b2, f2 - 1), "%z+$", "") end
        return nil
      end)
    end
    if id == ID_SEGMENT then
      segment_seen = true
      local e = segment(body, finish, depth)
      if e ~= nil then return e end
      return STOP
    end
    return nil
  end)
  if err ~= nil and err ~= STOP then return nil, err end
  doc_type = doc_type or "matroska"
  if doc_type ~= "webm" and doc_type ~= "matroska" then
    return nil, sformat("EBML document type '%s' is not WebM or Matroska", printable(doc_type))
  end
  if not segment_seen then return nil, "no Segment element" end
  info.container = doc_type
  if raw_duration ~= nil then info.duration = finite_seconds(raw_duration * scale / 1e9) end
  if video ~= nil then info.width, info.height = pixels(video.width), pixels(video.height) end
  return info
end

-- The container's header facts, or nil and why the file cannot be opened.
function E.probe_video(data)
  if type(data) ~= "string" then return nil, "not a file" end
  if #data >= 8 and BMFF_FIRST[ssub(data, 5, 8)] then return probe_bmff(data) end
  if ssub(data, 1, 4) == "\x1A\x45\xDF\xA3" then return probe_ebml(data) end
  if ssub(data, 1, 4) == "OggS" then
    return {container = "ogg", duration = 0, width = 0, height = 0, sized = false}
  end
  return nil, "not a video container the engine knows (MP4, MOV, WebM, Matroska, Ogg)"
end
