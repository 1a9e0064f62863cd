"""Resources in breadth: Sound as Urho3D's (format, WAV header, loop points), SoundSource playback in simulated time
with SoundFinished, SoundSource3D attenuation, the Audio subsystem's lists and gains; Image regions, resampling and
saved files; SpriteSheet2D; Resource Load/Save and metadata; the cache's settings."""

from __future__ import annotations

import struct
import zlib

import pytest

from engine.testing import lua, new_engine


def wav(frequency: int = 22050, bits: int = 16, channels: int = 1, size: int = 44100, extra_chunk: bool = True,
        fmt_extra: bytes = b"") -> bytes:
    fmt = struct.pack("<HHIIHH", 1, channels, frequency, frequency * channels * bits // 8, channels * bits // 8,
                      bits) + fmt_extra
    body = b"WAVE"
    if extra_chunk:
        body += b"LIST" + struct.pack("<I", 4) + b"info"
    body += b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", size) + b"\0" * size
    return b"RIFF" + struct.pack("<I", len(body)) + body


def errors(engine) -> list[str]:
    return [e["message"] for e in engine.report().log if e["level"] == "ERROR"]


SOUND_FILES = {
    "Sounds/voice.wav": wav(),
    "Sounds/stereo8.wav": wav(frequency=8000, bits=8, channels=2, size=1600, extra_chunk=False, fmt_extra=b"\0\0"),
    "Sounds/bad.wav": b"RIFF\0\0\0\0WAVEdata\0\0\0\0",
    "Sounds/blip.raw": b"\1" * 3000,
    "Sounds/blip.xml": '<sound><format frequency="1000" sixteenbit="true" /><loop enable="true" /></sound>',
}


def test_sound_format_from_wav_headers_raw_files_and_code() -> None:
    engine = new_engine(files=SOUND_FILES)
    out = lua("""
    local v = cache:GetResource("Sound", "Sounds/voice.wav")
    local s = cache:GetResource("Sound", "Sounds/stereo8.wav")
    local b = cache:GetResource("Sound", "Sounds/blip.raw")
    local stock = cache:GetResource("Sound", "Sounds/BigExplosion.wav")
    local out = {
      {v.length, v.dataSize, v.sampleSize, v.frequency, v.intFrequency, v.sixteenBit, v.stereo, v.compressed},
      {s.length, s.dataSize, s.sampleSize, s.frequency, s.sixteenBit, s.stereo},
      -- blip.xml beside the raw file: 1000 Hz, 16-bit, looped over the whole data
      {b.length, b.dataSize, b.sampleSize, b.looped},
      {stock.dataSize, stock.sampleSize, stock.length},
      cache:GetResource("Sound", "Sounds/bad.wav") == nil,
    }
    local n = Sound()
    out[#out + 1] = {n.length, n.dataSize, n.frequency, n.sixteenBit, n.looped}
    n:SetSize(4410); n:SetFormat(11025, true, true)
    n:SetLoop(5, 4409)   -- aligned down to whole 4-byte samples
    out[#out + 1] = {n.length, n.dataSize, n.sampleSize, n.memoryUse, n.looped}
    n:SetSize(0)         -- ignored, as Urho3D
    n.looped = false
    out[#out + 1] = {n.dataSize, n.looped}
    local f = File("Sounds/voice.wav", FILE_READ)
    local w = Sound()
    out[#out + 1] = {w:LoadWav(f), w.length, w.frequency}
    f:Close()
    out[#out + 1] = {w:LoadRaw("Sounds/blip.raw"), w.dataSize, w:LoadWav("Sounds/bad.wav"), w.dataSize}
    return out
    """, engine)
    assert out == [
        [1.0, 44100, 2, 22050.0, 22050, True, False, False],
        [0.10000000149011612, 1600, 2, 8000.0, False, True],
        [1.5, 3000, 2, True],
        [113152, 2, pytest.approx(1.282902, abs=1e-6)],
        True,
        [0.0, 0, 44100.0, False, False],
        [0.10000000149011612, 4410, 4, 4414, True],
        [4410, False],
        [True, 1.0, 22050.0],
        [True, 3000, False, 3000],
    ]
    assert errors(engine) == ["Could not read WAV data from Sounds/bad.wav"] * 2


def test_sound_finished_is_sent_when_a_sound_ends_and_auto_removes_after() -> None:
    engine = new_engine("""
    events = {}
    function Start()
      scene_ = Scene()
      local a = scene_:CreateChild("a")
      local b = scene_:CreateChild("b")
      shot = Sound(); shot:SetSize(100); shot:SetFormat(1000, false, false)   -- 0.1 s
      loop = Sound(); loop:SetSize(100); loop:SetFormat(1000, false, false); loop.looped = true
      first = a:CreateComponent("SoundSource")
      second = b:CreateComponent("SoundSource")
      looping = b:CreateComponent("SoundSource")
      first:Play(shot)
      second:Play(shot, 2000)          -- twice the sound's frequency: over in half the time
      second.autoRemoveMode = REMOVE_COMPONENT
      looping:Play(loop)
      SubscribeToEvent("SoundFinished", function(_, data)
        local source = data["SoundSource"]:GetPtr()
        events[#events + 1] = {data["Node"]:GetPtr().name, source == first and "first" or "second",
                               data["Sound"]:GetPtr() == shot, source:GetNode() ~= nil}
      end)
    end
    """)
    engine.start()
    out = lua("return {first.frequency, second.frequency, first.playing, first.timePosition}", engine)
    assert out == [1000.0, 2000.0, True, 0.0]
    engine.run_frames(3)   # 3 / 60 s: the faster source has played its 0.05 s
    out = lua("""return {#events, first.timePosition, second.playing, second.timePosition,
                         scene_:GetChild("b"):GetNumComponents()}""", engine)
    assert out == [1, pytest.approx(0.05, abs=1e-6), False, 0.0, 1]
    assert lua("return events", engine) == [["b", "second", True, True]]
    engine.run_frames(4)
    out = lua("return {events, first.playing, first.timePosition, looping.playing, looping.timePosition}", engine)
    assert out[0] == [["b", "second", True, True], ["a", "first", True, True]]
    assert out[1:4] == [False, 0.0, True]
    assert out[4] == pytest.approx(7 / 60 - 0.1, abs=1e-5)   # the looped sound wrapped
    # Stop leaves the event armed, as Urho3D: it is sent on the next update; playing nothing arms nothing
    lua("looping:Stop(); first:Play(nil)", engine)
    engine.run_frames(1)
    out = lua("return {#events, events[3][2], first:GetSound() == nil, looping.timePosition}", engine)
    assert out == [3, "second", True, 0.0]


def test_paused_types_and_sources_taken_from_the_audio_do_not_advance() -> None:
    engine = new_engine("""
    function Start()
      scene_ = Scene()
      snd = Sound(); snd:SetSize(1000); snd:SetFormat(1000, false, false)
      music = scene_:CreateChild("m"):CreateComponent("SoundSource")
      music.soundType = SOUND_MUSIC
      music:Play(snd)
      fx = scene_:CreateChild("f"):CreateComponent("SoundSource")
      fx:Play(snd)
      other = scene_:CreateChild("o"):CreateComponent("SoundSource")
      other:Play(snd)
      audio:PauseSoundType(SOUND_MUSIC)
      audio:RemoveSoundSource(other)
    end
    """)
    engine.start()
    engine.run_frames(6)
    out = lua("""
    local before = {music.timePosition, fx.timePosition, other.timePosition, #audio:GetSoundSources()}
    audio:AddSoundSource(other)
    audio:StopSound(snd)
    return {before, music.playing, fx.playing, other.playing, #audio:GetSoundSources()}
    """, engine)
    assert out == [[0.0, pytest.approx(0.1, abs=1e-6), 0.0, 2], False, False, False, 3]


def test_audio_gains_mode_and_setter_clamps() -> None:
    engine = new_engine()
    out = lua("""
    local out = {audio:HasMasterGain(SOUND_MASTER), audio:HasMasterGain(SOUND_MUSIC), audio.sampleSize}
    audio:SetMasterGain(SOUND_MUSIC, 1.5)
    out[#out + 1] = {audio:HasMasterGain(SOUND_MUSIC), audio:GetMasterGain(SOUND_MUSIC)}
    audio:SetMode(100, 96000, false)
    out[#out + 1] = {audio.mixRate, audio.stereo, audio.sampleSize}
    local s = Scene():CreateChild("s"):CreateComponent("SoundSource3D")
    s.gain = -1; s.panning = 3; s.frequency = 1e9; s.soundType = SOUND_MASTER
    s.rolloffFactor = 0; s.innerAngle = 400; s.nearDistance = -5
    out[#out + 1] = {s.gain, s.panning, s.frequency, s.soundType, s.rolloffFactor, s.innerAngle, s.nearDistance}
    return out
    """, engine)
    assert out == [True, False, 4, [True, 1.0], [48000, False, 2],
                   [0.0, 1.0, 535232.0, "Effect", pytest.approx(0.1), 360.0, 0.0]]


def test_sound_source_3d_attenuation_from_the_listener() -> None:
    engine = new_engine()
    out = lua("""
    local scene = Scene()
    local ln = scene:CreateChild("listener")
    audio.listener = ln:CreateComponent("SoundListener")
    local sn = scene:CreateChild("source")
    sn.position = Vector3(30, 0, 40)               -- 50 units away, to the listener's right and ahead
    local s = sn:CreateComponent("SoundSource3D")
    local out = {s.attenuation}
    s:SetDistanceAttenuation(10, 110, 1)
    s:CalculateAttenuation()
    out[#out + 1] = {s.attenuation, s.panning}
    s.rolloffFactor = 2
    s:CalculateAttenuation()
    out[#out + 1] = s.attenuation
    ln.rotation = Quaternion(0, 90, 0)            -- the listener turned right: the source now ahead-left
    s:CalculateAttenuation()
    out[#out + 1] = s.panning
    -- a cone: the listener 60 degrees off the source's forward axis is 120 degrees into a 90..180 cone
    ln.rotation = Quaternion()
    sn.position = Vector3(0, 0, 0)
    ln.position = Vector3(math.sin(math.rad(60)) * 10, 0, math.cos(math.rad(60)) * 10)
    s:SetDistanceAttenuation(0, 100, 2)
    s:SetAngleAttenuation(90, 180)
    s:CalculateAttenuation()
    out[#out + 1] = s.attenuation
    s.farDistance = 0                              -- no interval: in (1) or out (0) of the near distance
    s:CalculateAttenuation()
    out[#out + 1] = s.attenuation
    audio.listener = nil
    s.farDistance = 100
    s:CalculateAttenuation()
    out[#out + 1] = s.attenuation
    return out
    """, engine)
    assert out[0] == 1.0
    assert out[1] == [pytest.approx(0.6), pytest.approx(0.6)]
    assert out[2] == pytest.approx(0.36)
    assert out[3] == pytest.approx(-0.8)
    assert out[4] == pytest.approx(0.81 * (1 - 30 / 90) ** 2, abs=1e-5)
    assert out[5:] == [0.0, 0.0]


def image_from(code_pixels: str, width: int, height: int, comps: int) -> str:
    return f"""
    local function make()
      local img = Image(); img:SetSize({width}, {height}, {comps})
      for y = 0, {height} - 1 do for x = 0, {width} - 1 do img:SetPixelInt(x, y, {code_pixels}) end end
      return img
    end
    """


PATTERN = image_from("(x * 40) | ((y * 100) << 8) | (7 << 16) | (((x + y) * 60) << 24)", 3, 2, 4)


def test_image_subimage_setsubimage_and_resize() -> None:
    engine = new_engine()
    out = lua(PATTERN + """
    local img = make()
    local sub = img:GetSubimage(IntRect(1, 0, 3, 2))
    local out = {{sub.width, sub.height, sub.components, sub:GetPixelInt(0, 0), sub:GetPixelInt(1, 1)}}
    out[#out + 1] = {img:GetSubimage(IntRect(2, 0, 4, 1)) == nil, img:GetSubimage(IntRect(1, 1, 1, 2)) == nil}
    -- the same size: copied; another size: the source stretched over the region
    local dot = Image(); dot:SetSize(1, 1, 4); dot:SetPixelInt(0, 0, 0x11223344)
    local copy = make()
    out[#out + 1] = {copy:SetSubimage(dot, IntRect(2, 1, 3, 2)), copy:GetPixelInt(2, 1), copy:GetPixelInt(1, 1)}
    out[#out + 1] = {copy:SetSubimage(dot, IntRect(0, 0, 2, 1)), copy:GetPixelInt(0, 0), copy:GetPixelInt(1, 0),
                     copy:GetPixelInt(2, 0)}
    local grey = Image(); grey:SetSize(1, 1, 1)
    out[#out + 1] = {copy:SetSubimage(grey, IntRect(0, 0, 1, 1)), copy:SetSubimage(dot, IntRect(0, 0, 4, 1))}
    -- Resize samples corner to corner with Urho3D's bilinear read
    local ok = img:Resize(5, 3)
    local px = {}
    for y = 0, 2 do for x = 0, 4 do px[#px + 1] = string.format("%08x", img:GetPixelInt(x, y)) end end
    out[#out + 1] = {ok, img.width, img.height, img.memoryUse, px}
    out[#out + 1] = {img:Resize(0, 3), Image():Resize(2, 2), img:Resize(5000, 4000), img.width}
    return out
    """, engine)
    assert out[0] == [2, 2, 4, 0x3c070028, 0xb4076450]
    assert out[1] == [True, True]
    assert out[2] == [True, 0x11223344, 0x78076428]
    assert out[3] == [True, 0x11223344, 0x11223344, 0x78070050]
    assert out[4] == [False, False]
    # every value checked against Urho3D's resize, restated in C with single-precision colours
    assert out[5] == [True, 5, 3, 60, [
        "00070000", "0f07000a", "3c070028", "69070046", "78070050",
        "1e073200", "2d07320a", "5a073228", "87073246", "96073250",
        "3c076400", "4b07640a", "78076428", "a5076446", "b4076450"]]
    assert out[6] == [False, False, False, 5]
    assert errors(engine) == [
        "Can not get subimage from image  with invalid region",
        "Can not get subimage from image  with invalid region",
        "Can not set subimage in image  with different number of components",
        "Can not set subimage in image  with invalid region",
        "Resize: 5000x4000 is too large headless (limit 16777216 pixels)",
    ]


def test_image_trilinear_reads_between_slices() -> None:
    engine = new_engine()
    out = lua("""
    local vol = Image(); vol:SetSize(1, 1, 2, 1)
    vol:SetPixelInt(0, 0, 1, 255)
    local flat = Image(); flat:SetSize(2, 1, 1); flat:SetPixelInt(1, 0, 255)
    -- z = 0.75 reaches the last slice, where Urho3D reads slice 0 bilinearly
    return {vol:GetPixelTrilinear(0, 0, 0.5).r, vol:GetPixelTrilinear(0, 0, 0.75).r, vol:GetPixelTrilinear(0, 0, 0.1).r,
            flat:GetPixelTrilinear(0.5, 0, 0.9).r, vol:GetPixelTrilinear(0, 0, 0.5).a}
    """, engine)
    assert out == [0.5, 0.0, 0.0, 0.5, 1.0]


def test_image_color_lut_from_a_png_strip() -> None:
    engine = new_engine()
    out = lua("""
    local strip = Image(); strip:SetSize(256, 16, 3)
    for y = 0, 15 do for x = 0, 255 do
      strip:SetPixelInt(x, y, (x % 16) * 16 | ((y * 16) << 8) | ((x // 16 * 16) << 16))
    end end
    strip:SavePNG("lut.png")
    local rgba = Image(); rgba:SetSize(256, 16, 4); rgba:SavePNG("rgba.png")
    local lut = Image()
    return {lut:LoadColorLUT("lut.png"), lut.width, lut.height, lut.depth, lut.components, lut:GetPixelInt(3, 5, 7),
            lut:GetPixelInt(15, 15, 15), lut:LoadColorLUT("rgba.png"), lut:Resize(5000, 5000)}
    """, engine)
    assert out == [True, 16, 16, 16, 3, 0xff705030, 0xfff0f0f0, False, False]
    assert errors(engine) == ["Invalid image format, can not load image", "Resize not supported for 3D images"]


def saved(engine, name: str) -> bytes:
    hexed = lua(f"""
    local f = File("{name}", FILE_READ)
    local b = {{}}
    while not f:IsEof() do b[#b + 1] = string.format("%02x", f:ReadUByte()) end
    f:Close()
    return table.concat(b)
    """, engine)
    return bytes.fromhex(hexed)


def png_pixels(data: bytes) -> tuple[int, int, int, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0] == zlib.crc32(kind + body)
        if kind == b"IHDR":
            header = body
        if kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour = struct.unpack(">IIBB", header[:10])
    assert depth == 8
    raw = zlib.decompress(idat)
    stride = len(raw) // height
    assert all(raw[y * stride] == 0 for y in range(height))
    return width, height, colour, b"".join(raw[y * stride + 1:(y + 1) * stride] for y in range(height))


def test_image_saves_png_bmp_tga_dds_through_the_file_layer() -> None:
    engine = new_engine()
    out = lua("""
    local rgba = Image(); rgba:SetSize(4, 2, 4)
    local px = {{0xff0000ff, 0xff0000ff, 0x8000ff00, 0x00ff0000}, {0xc81e140a, 0x643c3228, 0x643c3228, 0x643c3228}}
    for y = 0, 1 do for x = 0, 3 do rgba:SetPixelInt(x, y, px[y + 1][x + 1]) end end
    local rgb = Image(); rgb:SetSize(3, 2, 3)
    local q = {{0x030201, 0x030201, 0x030201}, {0x070809, 0x040506, 0x070809}}
    for y = 0, 1 do for x = 0, 2 do rgb:SetPixelInt(x, y, q[y + 1][x + 1]) end end
    return {rgba:SavePNG("shots/a.png"), rgba:SaveBMP("shots/a.bmp"), rgba:SaveTGA("shots/a.tga"),
            rgba:SaveDDS("shots/a.dds"), rgb:SaveBMP("shots/b.bmp"), rgb:SaveTGA("shots/b.tga"),
            rgb:SaveDDS("shots/b.dds"), Image():SavePNG("shots/empty.png"), rgba:Save("shots/c.bmp"),
            fileSystem:FileExists("shots/b.dds")}
    """, engine)
    assert out == [True, True, True, True, True, True, False, False, True, True]
    # BMP and TGA byte for byte as stb_image_write (Urho3D's writer) gives them for the same pixels
    assert saved(engine, "shots/a.bmp").hex() == (
        "424d4e0000000000000036000000280000000400000002000000010018000000000000000000000000000000000000000000"
        "000000004f0f3fb313abb313abb313ab0000ff0000ff7f807fff00ff")
    assert saved(engine, "shots/c.bmp") == saved(engine, "shots/a.bmp")
    assert saved(engine, "shots/a.tga").hex() == (
        "00000a000000000000000000040002002008011e140ac83c322864813c322864810000ffff0100ff0080ff000000")
    assert saved(engine, "shots/b.bmp").hex() == (
        "424d4e0000000000000036000000280000000300000002000000010018000000000000000000000000000000000000000000"
        "00000000070809040506070809000000030201030201030201000000")
    assert saved(engine, "shots/b.tga").hex() == "00000a000000000000000000030002001800000708090104050607080982030201"
    width, height, colour, pixels = png_pixels(saved(engine, "shots/a.png"))
    assert (width, height, colour) == (4, 2, 6)
    assert pixels.hex() == "ff0000ffff0000ff00ff00800000ff000a141ec828323c6428323c6428323c64"
    dds = saved(engine, "shots/a.dds")
    assert dds[:4] == b"DDS " and len(dds) == 4 + 124 + 32
    assert struct.unpack("<7I", dds[4:32]) == (124, 0x21007, 2, 4, 0, 0, 1)
    assert struct.unpack("<8I", dds[76:108]) == (32, 0x41, 0, 32, 0xff, 0xff00, 0xff0000, 0xff000000)
    assert dds[128:] == pixels
    assert saved(engine, "shots/b.dds") == b""          # the file opened before the refusal
    assert errors(engine) == ["Can not save image with 3 components to DDS", "Can not save zero-sized image "]


def test_image_save_jpg_is_missing_api() -> None:
    engine = new_engine()
    out = lua("""
    local img = Image(); img:SetSize(1, 1, 3)
    return {pcall(img.SaveJPG, img, "x.jpg", 90), pcall(img.Save, img, "x.jpeg")}
    """, engine)
    assert out[:2] == [False, False]
    assert engine.report().missing_api == ["Image:SaveJPG", "Image:SaveJPG (JPEG files are not encoded headless)"]


SHEET_FILES = {
    "Sheets/hero.xml": '<TextureAtlas imagePath="hero.png"><SubTexture name="idle" x="0" y="0" width="32" '
                       'height="48"/><SubTexture name="run" x="32" y="0" width="20" height="40" frameX="-4" '
                       'frameY="-6" frameWidth="30" frameHeight="50"/></TextureAtlas>',
    "Sheets/hero.json": '{"imagePath": "hero.png", "subtextures": [{"name": "jump", "x": 4, "y": 8, "width": 10, '
                        '"height": 20, "frameX": 1, "frameY": 2, "frameWidth": 12, "frameHeight": 22}]}',
    "Sheets/hero.png": b"\x89PNG\r\n\x1a\n",
    "Sheets/lost.xml": '<TextureAtlas imagePath="lost.png"/>',
    "Sheets/wrong.xml": "<atlas/>",
}


def test_sprite_sheets_from_xml_json_and_code() -> None:
    engine = new_engine(files=SHEET_FILES)
    out = lua("""
    local orc = cache:GetResource("SpriteSheet2D", "Urho2D/Orc/Orc.xml")
    local head = orc:GetSprite("orc_0001_head")
    local out = {{orc.texture.name, head.name, tostring(head.rectangle), tostring(head.hotSpot),
                  head.spriteSheet == orc, head.texture == orc.texture}}
    local hero = cache:GetResource("SpriteSheet2D", "Sheets/hero.xml")
    local run = hero:GetSprite("run")
    out[#out + 1] = {hero.texture.name, tostring(hero:GetSprite("idle").rectangle), tostring(run.rectangle),
                     tostring(run.hotSpot), tostring(run.offset), hero:GetSprite("none") == nil}
    local js = cache:GetResource("SpriteSheet2D", "Sheets/hero.json")
    local jump = js:GetSprite("jump")
    out[#out + 1] = {tostring(jump.rectangle), tostring(jump.hotSpot), tostring(jump.offset)}
    -- DefineSprite: a new name only, on the sheet's texture at the time
    hero:DefineSprite("run", IntRect(0, 0, 1, 1))
    hero:DefineSprite("extra", IntRect(1, 2, 3, 4), Vector2(0, 1))
    local tex = Texture2D()
    hero.texture = tex
    hero:DefineSprite("late", IntRect(0, 0, 8, 8))
    out[#out + 1] = {tostring(hero:GetSprite("run").rectangle), tostring(hero:GetSprite("extra").hotSpot),
                     hero:GetSprite("extra").texture.name, hero:GetSprite("late").texture == tex}
    out[#out + 1] = {cache:GetResource("SpriteSheet2D", "Sheets/lost.xml") == nil,
                     cache:GetResource("SpriteSheet2D", "Sheets/wrong.xml") == nil}
    return out
    """, engine)
    assert out == [
        ["Urho2D/Orc/Orc_Atlas.png", "orc_0001_head", "0 291 109 417", "0.5 0.5", True, True],
        ["Sheets/hero.png", "0 0 32 48", "32 0 52 40", "0.55 0.525", "-4 -6", True],
        ["4 8 14 28", "0.7 0.35", "1 2"],
        ["32 0 52 40", "0 1", "Sheets/hero.png", True],
        [True, True],
    ]
    assert errors(engine) == ["Could not find resource Sheets/lost.png", "Could not load texture Sheets/lost.png",
                              "Invalid sprite sheet"]


def test_resource_load_and_save_in_place_and_metadata() -> None:
    engine = new_engine(files={"data/a.xml": '<root x="1"/>', "data/b.json": '{"k": 5}', "data/c.png": b"GIF89a"})
    out = lua("""
    local x = XMLFile()
    local out = {x:Load("data/a.xml"), x:GetRoot():GetInt("x"), x:Load("data/none.xml")}
    local f = File("data/b.json", FILE_READ)
    local j = JSONFile()
    out[#out + 1] = {j:Load(f), j:GetRoot():Get("k"):GetInt()}
    f:Close()
    local img = Image(); img:SetSize(2, 1, 3); img:SetPixelInt(1, 0, 0x00ff8040)
    local vb = VectorBuffer()
    local copy = Image()
    out[#out + 1] = {img:Save(vb), vb:Seek(0), copy:Load(vb), copy.width, copy:GetPixelInt(1, 0)}
    out[#out + 1] = {copy:Load("data/c.png"), pcall(copy.GetPixel, copy, 0, 0)}
    local snd = Sound()
    out[#out + 1] = {snd:Save("data/s.raw"), fileSystem:FileExists("data/s.raw"), snd:HasMetadata()}
    snd:AddMetadata("tempo", 120); snd:AddMetadata("name", "x"); snd:AddMetadata("tempo", 90)
    out[#out + 1] = {snd:HasMetadata(), snd:GetMetadata("tempo"):GetInt(), snd:GetMetadata("name"):GetString(),
                     snd:GetMetadata("none"):IsEmpty()}
    snd:RemoveMetadata("tempo"); snd:RemoveMetadata("none")
    out[#out + 1] = {snd:HasMetadata(), snd:GetMetadata("tempo"):IsEmpty()}
    snd:RemoveAllMetadata()
    out[#out + 1] = snd:HasMetadata()
    return out
    """, engine)
    assert out[:3] == [True, 1, False]
    assert out[3] == [True, 5]
    assert out[4] == [True, 0, True, 2, 0xffff8040]
    assert out[5][:2] == [True, False]
    assert out[6:] == [[False, True, False], [True, 90, "x", True], [True, True], False]
    assert errors(engine) == ["Could not open file data/none.xml", "Save not supported for Sound"]


def test_cache_settings_and_system_language() -> None:
    engine = new_engine()
    out = lua("""
    local out = {cache.searchPackagesFirst, cache.finishBackgroundResourcesMs}
    cache.searchPackagesFirst = false
    cache.finishBackgroundResourcesMs = -3
    out[#out + 1] = {cache.searchPackagesFirst, cache.finishBackgroundResourcesMs,
                     cache:SanitateResourceDirName("./Data/./sub"), cache:SanitateResourceDirName("Data/")}
    out[#out + 1] = localization:GetSystemLanguage()
    return out
    """, engine)
    assert out == [True, 5, [False, 1, "Data/sub/", "Data/"], "en"]


def test_xml_and_json_files_save_to_a_stream_as_to_a_file_name() -> None:
    engine = new_engine("function Start() end", {})
    engine.start()
    out = lua("""
    local x = XMLFile(); x:CreateRoot("a"):SetAttribute("k", "v")
    local vb = VectorBuffer(); local ok = x:Save(vb)
    x:Save("named.xml")
    local f = File("named.xml", FILE_READ); local named = f:ReadString(); f:Close()
    vb:Seek(0)
    local j = JSONFile(); j:FromString('{"a": 1}')
    local vj = VectorBuffer(); local okj = j:Save(vj); vj:Seek(0)
    return {ok, vb:ReadString(), named, okj, vj:ReadString()}
    """, engine)
    assert out[0] is True and out[3] is True
    assert out[1] == out[2] and '<a k="v"' in out[1]
    assert out[4].replace(" ", "").replace("\t", "").replace("\n", "") == '{"a":1}'
