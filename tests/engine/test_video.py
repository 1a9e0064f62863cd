"""VideoPlayer and VideoTexture headless: container headers read defensively, playback on the virtual clock.

The MP4 and WebM files here are headers built with struct (no media data): the engine reads the duration and
picture size they declare and plays nothing. Hostile variants must fail to open, never crash or hang.
"""

from __future__ import annotations

import os
import random
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from lupa.lua54 import LuaError

from engine import Engine, RunRequest, run_evidence, run_in_subprocess
from engine.testing import lua

STOPPED, PLAYING, PAUSED, ENDED = 0, 1, 2, 3
SUCCESS, NO_DECODER, NOT_FOUND, OPEN_FAILED, TEXTURE_FAILED, CANCELLED = range(6)
STEP = 1 / 60

# ---------------------------------------------------------------------------------------------------------------
# container builders
# ---------------------------------------------------------------------------------------------------------------
IDENTITY = struct.pack(">9I", 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)


def box(kind: bytes, payload: bytes) -> bytes:
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def large_box(kind: bytes, payload: bytes) -> bytes:
    """A box with size 1 and a 64-bit size after the type."""
    return struct.pack(">I", 1) + kind + struct.pack(">Q", 16 + len(payload)) + payload


def full_box(kind: bytes, version: int, payload: bytes) -> bytes:
    return box(kind, bytes([version, 0, 0, 0]) + payload)


def mvhd(timescale: int, duration: int, version: int = 0) -> bytes:
    rest = struct.pack(">IH10x", 0x10000, 0x100) + IDENTITY + bytes(24) + struct.pack(">I", 2)
    if version == 0:
        return full_box(b"mvhd", 0, struct.pack(">IIII", 0, 0, timescale, duration) + rest)
    return full_box(b"mvhd", 1, struct.pack(">QQIQ", 0, 0, timescale, duration) + rest)


def tkhd(width: int, height: int, version: int = 0, track_id: int = 1) -> bytes:
    head = struct.pack(">IIIII" if version == 0 else ">QQIIQ", 0, 0, track_id, 0, 0)
    tail = bytes(8) + struct.pack(">hhhH", 0, 0, 0, 0) + IDENTITY + struct.pack(">II", width << 16, height << 16)
    return full_box(b"tkhd", version, head + tail)


def trak(handler: bytes, width: int, height: int, version: int = 0) -> bytes:
    hdlr = full_box(b"hdlr", 0, bytes(4) + handler + bytes(12) + b"handler\0")
    return box(b"trak", tkhd(width, height, version) + box(b"mdia", hdlr))


def mp4(seconds: float = 10.0, width: int = 1280, height: int = 720, *, timescale: int = 1000,
        version: int = 0, brand: bytes = b"isom", moov_last: bool = False, tracks: bytes | None = None) -> bytes:
    ftyp = box(b"ftyp", brand + struct.pack(">I", 0x200) + brand + b"mp41")
    moov = box(b"moov", mvhd(timescale, round(seconds * timescale), version)
               + (tracks if tracks is not None else trak(b"vide", width, height, version)))
    mdat = box(b"mdat", bytes(64))
    return ftyp + (mdat + moov if moov_last else moov + mdat)


def vint_size(n: int) -> bytes:
    return bytes([0x80 | n]) if n < 0x7F else b"\x01" + n.to_bytes(7, "big")


def el(element_id: int, payload: bytes) -> bytes:
    return element_id.to_bytes((element_id.bit_length() + 7) // 8, "big") + vint_size(len(payload)) + payload


def uint(n: int) -> bytes:
    return n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big")


def webm(duration_ms: float | None = 12500.0, width: int = 640, height: int = 360, *, doc: bytes = b"webm",
         scale: int = 1_000_000, unknown_segment: bool = False, duration_bytes: bytes | None = None) -> bytes:
    header = el(0x1A45DFA3, el(0x4286, uint(1)) + el(0x4282, doc))
    info = el(0x2AD7B1, uint(scale))
    if duration_bytes is not None:
        info += el(0x4489, duration_bytes)
    elif duration_ms is not None:
        info += el(0x4489, struct.pack(">d", duration_ms))
    audio = el(0xAE, el(0xD7, uint(1)) + el(0x83, uint(2)))
    video = el(0xAE, el(0xD7, uint(2)) + el(0x83, uint(1)) + el(0xE0, el(0xB0, uint(width)) + el(0xBA, uint(height))))
    body = el(0x114D9B74, bytes(4)) + el(0x1549A966, info) + el(0x1654AE6B, audio + video) + el(0x1F43B675, bytes(8))
    if unknown_segment:
        return header + bytes.fromhex("18538067") + b"\x01" + b"\xff" * 7 + body
    return header + el(0x18538067, body)


# ---------------------------------------------------------------------------------------------------------------
# engines over games with binary files
# ---------------------------------------------------------------------------------------------------------------
PRELUDE = """
LOG = {}
function L(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  LOG[#LOG + 1] = time:GetFrameNumber() .. " " .. table.concat(parts, " ")
end
"""

MakeDir = Callable[..., Path]


@pytest.fixture
def game_dir(tmp_path: Path) -> MakeDir:
    """game_dir(start_body, files) -> a game folder whose Start() runs start_body, with binary files."""
    counter = {"n": 0}

    def make(start_body: str = "", files: dict[str, bytes] | None = None, extra: str = "") -> Path:
        counter["n"] += 1
        root = tmp_path / f"game{counter['n']}"
        (root / "scripts").mkdir(parents=True)
        (root / "scripts" / "main.lua").write_text(PRELUDE + extra + "\nfunction Start()\n" + start_body + "\nend\n")
        for rel, data in (files or {}).items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        return root

    return make


MakeEngine = Callable[..., Engine]


@pytest.fixture
def game(game_dir: MakeDir) -> MakeEngine:
    def make(start_body: str = "", files: dict[str, bytes] | None = None, extra: str = "") -> Engine:
        engine = Engine(game_dir(start_body, files, extra))
        engine.start()
        return engine

    return make


def videos(engine: Engine) -> list[dict[str, Any]]:
    return engine.plain(engine.E.harness.videos()) or []


def game_log(engine: Engine) -> list[str]:
    return lua("return LOG", engine) or []


def probe(engine: Engine, data: bytes) -> Any:
    """The engine's reading of a file: its info as a dict, or the reason it cannot be opened."""
    packed = engine.runtime.eval("function(f, d) return {f(d)} end")(engine.E.probe_video, data)
    info, why = packed[1], packed[2]
    return engine.plain(info) if info is not None else str(why)


# ---------------------------------------------------------------------------------------------------------------
# container headers
# ---------------------------------------------------------------------------------------------------------------


def test_mp4_header_gives_duration_and_the_video_tracks_size(game: MakeEngine) -> None:
    engine = game()
    info = probe(engine, mp4(10.5, 1280, 720))
    assert info == {"container": "mp4", "duration": 10.5, "width": 1280, "height": 720, "sized": True}
    # version 1 boxes, 64-bit sizes, the movie header after the media data, QuickTime brand
    v1 = mp4(3.25, 1920, 1080, version=1, timescale=90000, moov_last=True, brand=b"qt  ")
    assert probe(engine, v1) == {"container": "mov", "duration": 3.25, "width": 1920, "height": 1080, "sized": True}
    big = box(b"ftyp", b"isom" + bytes(4)) + large_box(b"moov", mvhd(600, 1200) + trak(b"vide", 320, 240))
    assert probe(engine, big)["duration"] == 2.0
    # the picture size is the 'vide' track's, not that of an earlier track with a size (a text track)
    tracks = trak(b"text", 640, 480) + trak(b"soun", 0, 0) + trak(b"vide", 854, 480)
    assert probe(engine, mp4(1.0, tracks=tracks))["width"] == 854
    # audio only: no picture
    assert probe(engine, mp4(4.0, tracks=trak(b"soun", 0, 0)))["width"] == 0
    # a last box of size 0 runs to the end of the file
    tail = box(b"ftyp", b"isom" + bytes(4)) + struct.pack(">I", 0) + b"moov" + mvhd(1000, 500) + trak(b"vide", 2, 2)
    assert probe(engine, tail)["duration"] == 0.5


def test_mp4_unknown_and_fragmented_durations(game: MakeEngine) -> None:
    engine = game()
    assert probe(engine, mp4(tracks=trak(b"vide", 8, 8)).replace(
        struct.pack(">II", 1000, 10000), struct.pack(">II", 1000, 0xFFFFFFFF)))["duration"] == 0
    fragmented = box(b"ftyp", b"iso5" + bytes(4)) + box(b"moov", mvhd(1000, 0) + trak(b"vide", 640, 360) + box(
        b"mvex", full_box(b"mehd", 0, struct.pack(">I", 7500))))
    assert probe(engine, fragmented)["duration"] == 7.5


def test_webm_and_matroska_headers(game: MakeEngine) -> None:
    engine = game()
    assert probe(engine, webm()) == {"container": "webm", "duration": 12.5, "width": 640, "height": 360,
                                     "sized": True}
    assert probe(engine, webm(2000.0, 100, 50, doc=b"matroska", unknown_segment=True))["duration"] == 2.0
    assert probe(engine, webm(500.0, scale=2_000_000))["duration"] == 1.0
    assert probe(engine, webm(duration_bytes=struct.pack(">f", 1500.0)))["duration"] == 1.5
    assert probe(engine, webm(None))["duration"] == 0
    assert probe(engine, webm(float("nan")))["duration"] == 0
    assert probe(engine, webm(-5.0))["duration"] == 0
    ogg = probe(engine, b"OggS" + bytes(60))
    assert ogg == {"container": "ogg", "duration": 0, "width": 0, "height": 0, "sized": False}


@pytest.mark.parametrize(("data", "reason"), [
    (b"", "not a video container"),
    (b"just some text, not a video at all", "not a video container"),
    (box(b"ftyp", b"isom" + bytes(4)) + box(b"mdat", bytes(16)), "no moov box"),
    (box(b"ftyp", b"isom" + bytes(4)) + struct.pack(">I", 4000) + b"moov" + bytes(20), "overruns its parent"),
    (box(b"ftyp", b"isom" + bytes(4)) + struct.pack(">I", 4) + b"moov", "overruns its parent"),
    (box(b"ftyp", b"isom" + bytes(4)) + struct.pack(">I", 1) + b"moov" + struct.pack(">Q", 2**63 + 5),
     "overruns its parent"),
    (box(b"ftyp", b"isom" + bytes(4)) + box(b"moov", trak(b"vide", 1, 1)), "no mvhd box"),
    (box(b"ftyp", b"isom" + bytes(4)) + box(b"moov", full_box(b"mvhd", 0, bytes(8))), "mvhd box too short"),
    (box(b"ftyp", b"isom" + bytes(4)) + box(b"moov", full_box(b"mvhd", 7, bytes(200))), "unknown version"),
    (box(b"ftyp", b"isom" + bytes(4)) + box(b"moov", mvhd(0, 100)), "timescale is 0"),
    (box(b"ftyp", b"isom" + bytes(4)) + box(b"moov", mvhd(1000, 1) + box(b"trak", full_box(b"tkhd", 0, bytes(10)))),
     "tkhd box too short"),
    (box(b"ftyp", b"isom" + bytes(4)) + b"\0\0\0", "truncated box header"),
    (box(b"ftyp", b"isom" + bytes(4)) + box(b"free", b"") * 100_001 + box(b"moov", mvhd(1, 1)), "more than 100000"),
    (webm()[:30], "overruns its parent"),
    (el(0x1A45DFA3, el(0x4282, b"webm")) + b"\x00\x00\x00\x00", "invalid element id"),
    (el(0x1A45DFA3, el(0x4282, b"webm")) + bytes.fromhex("18538067") + b"\x00", "invalid element size"),
    (webm(doc=b"mkvx"), "not WebM or Matroska"),
    (el(0x1A45DFA3, el(0x4282, b"webm")), "no Segment"),
    (webm(duration_bytes=bytes(3)), "invalid Duration"),
    (webm(scale=0), "invalid TimestampScale"),
    (b"\x1a\x45\xdf\xa3" + b"\x01" + b"\xff" * 7 + el(0xA3, bytes(4)) * 100_001, "more than 100000 elements"),
], ids=lambda v: v if isinstance(v, str) else None)
def test_malformed_and_hostile_headers_fail_to_open(game: MakeEngine, data: bytes, reason: str) -> None:
    result = probe(game(), data)
    assert isinstance(result, str) and reason in result, result


def test_truncations_and_corruptions_never_raise(game: MakeEngine) -> None:
    """Every prefix of valid files, and 400 seeded byte corruptions, either open or fail: no Lua error, no hang."""
    engine = game()
    samples = [mp4(2.0, 64, 32), mp4(2.0, 64, 32, version=1, moov_last=True), webm(), webm(unknown_segment=True)]
    rng = random.Random(20261201)
    outcomes = {"opened": 0, "refused": 0}
    for sample in samples:
        variants = [sample[:n] for n in range(len(sample))]
        for _ in range(100):
            mutated = bytearray(sample)
            for _ in range(rng.randint(1, 4)):
                mutated[rng.randrange(len(mutated))] = rng.randrange(256)
            variants.append(bytes(mutated))
        for data in variants:
            result = probe(engine, data)
            outcomes["opened" if isinstance(result, dict) else "refused"] += 1
            if isinstance(result, dict):
                assert result["duration"] >= 0 and result["width"] >= 0 and result["height"] >= 0
    assert outcomes["opened"] > 0 and outcomes["refused"] > 0


# ---------------------------------------------------------------------------------------------------------------
# loading
# ---------------------------------------------------------------------------------------------------------------


def test_load_reads_the_game_file_and_sizes_the_texture(game: MakeEngine) -> None:
    engine = game("""
      p = VideoPlayer:new()
      L("load", p:Load("videos/intro.mp4"), p:IsReady(), p.ready, p:GetState(), p:GetDuration(), p.duration)
      L("size", p:GetVideoWidth(), p.videoHeight, p:GetTexture():GetWidth(), p.texture.height)
      L("tex", tolua.type(p:GetTexture()), p.texture:GetVideoWidth(), p.texture.videoHeight)
      q = VideoPlayer()
      L("sized", q:Load("clip.webm", 256, 128), q:GetVideoWidth(), q.texture.width, q.texture.height)
      L("half", q:Load("clip.webm", 300), q.texture.width, q.texture.height)
      r = VideoPlayer:new()
      L("ogg", r:Load("Data/anim.ogv"), r:GetDuration(), r:GetVideoWidth(), r:GetTexture():GetWidth())
    """, {"videos/intro.mp4": mp4(10.5, 1280, 720), "clip.webm": webm(), "Data/anim.ogv": b"OggS" + bytes(40)})
    assert game_log(engine) == [
        "0 load true true true 0 10.5 10.5",
        "0 size 1280 720 1280 720",
        "0 tex VideoTexture 1280 720",
        "0 sized true 640 256 128",
        "0 half true 300 360",
        "0 ogg true 0.0 1920 1920",
    ]
    assert [(v["source"], v["container"], v["result_name"]) for v in videos(engine)] == [
        ("videos/intro.mp4", "mp4", "VIDEO_LOAD_SUCCESS"), ("clip.webm", "webm", "VIDEO_LOAD_SUCCESS"),
        ("Data/anim.ogv", "ogg", "VIDEO_LOAD_SUCCESS")]


@pytest.mark.parametrize(("source", "args", "code", "message"), [
    ("https://example.com/video.mp4", "", NOT_FOUND, "never uses a network"),
    ("uuid://B_J0gVyL", "", NOT_FOUND, "never uses a network"),
    ("file:///etc/passwd", "", NOT_FOUND, "never uses a network"),
    ("videos/missing.mp4", "", NOT_FOUND, "no such file"),
    ("", "", NOT_FOUND, "empty source"),
    ("../outside.mp4", "", NOT_FOUND, "no such file"),
    ("notes.mp4", "", OPEN_FAILED, "not a video container"),
    ("bad.mp4", "", OPEN_FAILED, "no moov box"),
    ("ok.mp4", ", 0, 720", TEXTURE_FAILED, "texture size 0x720"),
    ("ok.mp4", ", 1280, 20000", TEXTURE_FAILED, "outside 1..16384"),
    ("ok.mp4", ", 0/0, 720", TEXTURE_FAILED, "texture size -1x720"),
    ("ok.mp4", ", 1e300, 5", TEXTURE_FAILED, "texture size 1e+300x5"),
])
def test_load_failures_have_the_documented_results(game: MakeEngine, source: str, args: str, code: int,
                                                   message: str) -> None:
    files = {"notes.mp4": b"hello", "bad.mp4": box(b"ftyp", b"isom" + bytes(4)), "ok.mp4": mp4()}
    engine = game(f"""
      p = VideoPlayer:new()
      L("sync", p:Load("{source}"{args}), p:IsReady(), p:GetDuration(), p:GetVideoWidth(), p:GetTexture())
      q = VideoPlayer:new()
      L("async", q:AsyncLoad("{source}"{args or ", nil, nil"}, function(code) L("code", code, q:IsReady()) end))
    """, files)
    engine.run_frames(3)
    assert game_log(engine) == ["0 sync false false 0.0 0 nil", "0 async true", f"2 code {code} false"]
    assert videos(engine)[0]["result"] == code
    errors = [e["message"] for e in engine.report().log if e["level"] == "ERROR"]
    assert len(errors) == 2 and all(message in e and "VideoPlayer: cannot load" in e for e in errors), errors
    assert engine.report().outcome == "clean"


def test_async_load_answers_two_frames_later_and_honours_an_early_play(game: MakeEngine) -> None:
    engine = game("""
      p = VideoPlayer:new()
      p:SetVolume(0.5); p:SetLoop(true); p:SetPlaybackRate(2.0)
      L("start", p:AsyncLoad("v.mp4", 1280, 720, function(code)
        L("cb", code, p:IsReady(), p:IsPlaying(), p:GetCurrentTime(), p:IsAsyncLoading())
      end), p:IsAsyncLoading(), p.asyncLoading, p:IsReady(), p:GetTexture())
      p:Play()
      L("after play", p:GetState(), p:IsPlaying())
    """, extra="""
      function HandleUpdate() L("update", p:IsReady(), p:GetState(), p:GetCurrentTime()) end
      SubscribeToEvent("Update", "HandleUpdate")
    """, files={"v.mp4": mp4(4.0)})
    engine.run_frames(4)
    assert game_log(engine) == [
        "0 start true true true false nil",
        "0 after play 0 false",
        "1 update false 0 0.0",
        "2 cb 0 true true 0.0 false",
        "2 update true 1 0.0",
        f"3 update true 1 {2 * STEP:.14g}",   # Lua's tostring: 14 significant digits
        f"4 update true 1 {4 * STEP:.14g}",
    ]
    [v] = videos(engine)
    assert (v["volume"], v["loop"], v["rate"], v["loading"]) == (0.5, True, 2.0, False)


def test_a_new_load_cancels_the_pending_one(game: MakeEngine) -> None:
    engine = game("""
      p = VideoPlayer:new()
      p:AsyncLoad("a.mp4", nil, nil, function(code) L("a", code) end)
      p:Play()
      p:AsyncLoad("b.webm", nil, nil, function(code) L("b", code, p:IsPlaying()) end)
      q = VideoPlayer:new()
      q:AsyncLoad("a.mp4", nil, nil, function(code) L("qa", code) end)
      L("sync", q:Load("b.webm"), q:IsAsyncLoading(), q:GetVideoWidth())
    """, {"a.mp4": mp4(), "b.webm": webm()})
    engine.run_frames(2)
    assert game_log(engine) == ["0 sync true false 640", "2 a 5", "2 b 0 false", "2 qa 5"]
    assert [v["source"] for v in videos(engine)] == ["b.webm", "b.webm"]


def test_pause_or_stop_while_loading_forgets_the_early_play(game: MakeEngine) -> None:
    engine = game("""
      a, b, c = VideoPlayer:new(), VideoPlayer:new(), VideoPlayer:new()
      for _, p in ipairs({a, b, c}) do p:AsyncLoad("v.mp4"); p:Play() end
      b:Pause(); c:Stop()
    """, {"v.mp4": mp4()})
    engine.run_frames(2)
    assert [(v["state_name"], v["ready"]) for v in videos(engine)] == [
        ("VIDEO_PLAYING", True), ("VIDEO_STOPPED", True), ("VIDEO_STOPPED", True)]


def test_callback_errors_are_recorded_and_the_other_answers_still_arrive(game: MakeEngine) -> None:
    engine = game("""
      local p, q = VideoPlayer:new(), VideoPlayer:new()
      p:AsyncLoad("v.mp4", 16, 16, function() error("boom") end)
      q:AsyncLoad("v.mp4", 16, 16, function(code) L("q", code) end)
    """, {"v.mp4": mp4()})
    engine.run_frames(2)
    assert game_log(engine) == ["2 q 0"]
    report = engine.report()
    assert report.outcome == "lua_error"
    assert [(e["phase"], e["frame"], "boom" in e["message"]) for e in report.errors] == [
        ("VideoPlayer:AsyncLoad callback", 2, True)]


# ---------------------------------------------------------------------------------------------------------------
# playback on the virtual clock
# ---------------------------------------------------------------------------------------------------------------


def test_playback_follows_the_frame_step_and_rate(game: MakeEngine) -> None:
    engine = game("""
      p = VideoPlayer:new(); p:Load("v.mp4"); p:Play()
    """, {"v.mp4": mp4(10.0)})
    t = lambda: lua("return p:GetCurrentTime()", engine)  # noqa: E731
    engine.run_frames(60)
    assert t() == pytest.approx(1.0, abs=1e-12)
    lua("p:SetPlaybackRate(2.0)", engine)
    engine.run_frames(30)
    assert t() == pytest.approx(2.0, abs=1e-12)
    lua("p:Pause()", engine)
    engine.run_frames(30)
    assert t() == pytest.approx(2.0, abs=1e-12)
    assert lua("return {p:GetState(), p:IsPlaying(), p.playing, p.state}", engine) == [PAUSED, False, False, PAUSED]
    lua("p.playbackRate = 0.5; p:Play()", engine)
    engine.run_frames(60)
    assert t() == pytest.approx(2.5, abs=1e-12)
    lua("p:Seek(7.25)", engine)
    assert t() == 7.25
    engine.run_frames(6)
    assert t() == pytest.approx(7.3, abs=1e-12)
    lua("p:Stop()", engine)
    assert lua("return {p:GetState(), p:GetCurrentTime()}", engine) == [STOPPED, 0.0]
    engine.run_frames(10)
    assert t() == 0.0


def test_reaching_the_duration_ends_playback_and_play_restarts(game: MakeEngine) -> None:
    engine = game("""
      p = VideoPlayer:new(); p:Load("v.mp4"); p:Play()
    """, {"v.mp4": mp4(2.0)})
    engine.run_frames(119)
    assert lua("return {p:GetState(), p:GetCurrentTime() < 2.0}", engine) == [PLAYING, True]
    engine.run_frames(1)
    assert lua("return {p:GetState(), p:GetCurrentTime(), p:IsPlaying()}", engine) == [ENDED, 2.0, False]
    engine.run_frames(30)
    assert lua("return {p:GetState(), p:GetCurrentTime()}", engine) == [ENDED, 2.0]
    lua("p:SetLoop(true)", engine)   # looping does not revive an ended video
    engine.run_frames(1)
    assert lua("return p:GetState()", engine) == ENDED
    lua("p:Play()", engine)
    assert lua("return {p:GetState(), p:GetCurrentTime()}", engine) == [PLAYING, 0.0]
    lua("p:SetLoop(false); p:Pause(); p:Seek(99)", engine)
    assert lua("return {p:GetState(), p:GetCurrentTime()}", engine) == [PAUSED, 2.0]
    lua("p:Play()", engine)
    engine.run_frames(1)
    assert lua("return p:GetState()", engine) == ENDED
    lua("p:Seek(1.0)", engine)   # seeking back from the end pauses there
    assert lua("return {p:GetState(), p:GetCurrentTime()}", engine) == [PAUSED, 1.0]


def test_looping_wraps_and_counts_loops(game: MakeEngine) -> None:
    engine = game("""
      p = VideoPlayer:new(); p:Load("v.webm"); p:SetLoop(true); p:Play()
    """, {"v.webm": webm(1500.0)})
    engine.run_frames(120)
    [v] = videos(engine)
    assert (v["state"], v["loops"], v["loop"]) == (PLAYING, 1, True)
    assert v["time"] == pytest.approx(0.5, abs=1e-9)
    lua("p:SetPlaybackRate(4.0)", engine)
    engine.run_frames(50)   # 0.5 + 50 frames x 4/60 s = 3.8333 s: two more wraps of 1.5 s
    [v] = videos(engine)
    assert (v["state"], v["loops"]) == (PLAYING, 3)
    assert v["time"] == pytest.approx(3.5 / 3 - 1 / 3, abs=1e-9)


def test_unknown_duration_plays_on_and_never_ends(game: MakeEngine) -> None:
    engine = game("""p = VideoPlayer:new(); p:Load("v.ogv"); p:Play()""", {"v.ogv": b"OggS" + bytes(40)})
    engine.run_frames(600)
    assert lua("return {p:GetState(), p:GetDuration()}", engine) == [PLAYING, 0.0]
    assert lua("return p:GetCurrentTime()", engine) == pytest.approx(10.0, abs=1e-9)


def test_setters_clamp_and_properties_mirror_getters(game: MakeEngine) -> None:
    engine = game("""p = VideoPlayer:new(); p:Load("v.mp4")""", {"v.mp4": mp4(5.0)})
    assert lua("""
      local out = {}
      p:SetPlaybackRate(10); out[#out + 1] = p:GetPlaybackRate()
      p.playbackRate = 0.01; out[#out + 1] = p.playbackRate
      p:SetPlaybackRate(0/0); out[#out + 1] = p:GetPlaybackRate()
      p:SetVolume(2); out[#out + 1] = p:GetVolume()
      p.volume = -1; out[#out + 1] = p.volume
      p:SetMuted(1); out[#out + 1] = p:IsMuted()
      p.muted = false; out[#out + 1] = p.muted
      p:SetLoop(true); out[#out + 1] = p.looping
      p:Seek(-3); out[#out + 1] = p.currentTime
      p:Seek(1/0); out[#out + 1] = p.currentTime
      p:Seek(4.5); out[#out + 1] = p:GetCurrentTime()
      return out
    """, engine) == [4.0, 0.25, 0.25, 1.0, 0.0, True, False, True, 0.0, 0.0, 4.5]
    # a read-only property assigned: tolua++ keeps the value beside the object, and it hides the property when read
    assert lua("p.currentTime = 1; return {p.currentTime, p:GetCurrentTime()}", engine) == [1, 4.5]
    with pytest.raises(LuaError, match=r"bad argument #1 to 'Seek' \(number expected, got string\)"):
        lua("p:Seek('1')", engine)
    with pytest.raises(LuaError, match=r"bad argument #1 to 'Load' \(string expected, got nil\)"):
        lua("p:Load()", engine)
    with pytest.raises(LuaError, match=r"bad argument #4 to 'AsyncLoad' \(function expected, got number\)"):
        lua("p:AsyncLoad('v.mp4', 1, 1, 5)", engine)
    with pytest.raises(LuaError, match="invalid 'self' in call to VideoPlayer:Play"):
        lua("p.Play({})", engine)
    with pytest.raises(LuaError, match="invalid 'self' in call to VideoTexture:Initialize"):
        lua("VideoTexture.Initialize(Node(), 4, 4)", engine)


def test_controls_before_any_load_do_nothing(game: MakeEngine) -> None:
    engine = game("""
      p = VideoPlayer:new()
      p:Play(); p:Seek(3); p:Pause(); p:Stop(); p:Update()
      L(p:GetState(), p:IsPlaying(), p:IsReady(), p:GetCurrentTime(), p:GetDuration(), p:GetTexture(),
        p:IsAsyncLoading())
    """)
    engine.run_frames(5)
    assert game_log(engine) == ["0 0 false false 0.0 0.0 nil false"]
    assert videos(engine) == []


def test_update_uploads_the_current_frame_into_the_texture(game: MakeEngine) -> None:
    engine = game("""
      p = VideoPlayer:new(); p:Load("v.mp4"); p:Play()
    """, {"v.mp4": mp4(5.0, 640, 360)})
    [v] = videos(engine)
    assert (v.get("frame_time"), v["uploads"], v["updates"]) == (None, 0, 0)
    engine.run_frames(30)
    lua("p:Update(); p:Update()", engine)
    [v] = videos(engine)
    assert v["frame_time"] == pytest.approx(0.5) and v["uploads"] == 1 and v["updates"] == 2
    lua("p:Pause()", engine)
    engine.run_frames(10)
    lua("p:Update()", engine)
    [v] = videos(engine)
    assert v["uploads"] == 1 and v["updates"] == 3
    assert lua("""
      local t = p:GetTexture(); t:NotifyUpdate()
      local vt = VideoTexture:new()
      return {vt:GetWidth(), vt:Initialize(320, 200), vt:GetWidth(), vt.height, vt:Initialize(0, 5), vt:GetWidth()}
    """, engine) == [0, True, 320, 200, False, 320]


def test_nanovg_draws_the_video_texture_by_its_source(game: MakeEngine) -> None:
    engine = game("""
      vg = nvgCreate(1)
      p = VideoPlayer:new(); p:Load("videos/intro.mp4", 1280, 720); p:Play()
      SubscribeToEvent(vg, "NanoVGRender", function()
        nvgBeginFrame(vg, 1280, 720, 1)
        if p:IsReady() then
          img = img or nvgCreateVideo(vg, p:GetTexture())
          nvgBeginPath(vg); nvgRect(vg, 0, 0, 640, 360)
          nvgFillPaint(vg, nvgImagePattern(vg, 0, 0, 640, 360, 0, img, 1)); nvgFill(vg)
        end
        nvgEndFrame(vg)
      end)
    """, {"videos/intro.mp4": mp4(3.0)})
    engine.run_frames(2)
    drawn = engine.plain(engine.E.harness.drawn_at(100, 100))
    assert [(d["kind"], d["image_name"], d["bounds"]) for d in drawn] == [
        ("fill", "videos/intro.mp4", [0, 0, 640, 360])]
    assert lua("return {nvgImageSize(vg, img)}", engine) == [1280, 720]


# ---------------------------------------------------------------------------------------------------------------
# bounds, battery view and determinism
# ---------------------------------------------------------------------------------------------------------------


def test_players_and_pending_loads_are_bounded(game: MakeEngine) -> None:
    engine = game(files={"v.mp4": mp4()})
    with pytest.raises(LuaError, match="more than 256 VideoPlayers"):
        lua("for i = 1, 300 do VideoPlayer:new():Load('v.mp4') end", engine)
    assert len(videos(engine)) == 256
    engine = game(files={"v.mp4": mp4()})
    with pytest.raises(LuaError, match="more than 1024 video loads are waiting"):
        lua("local p = VideoPlayer:new(); for i = 1, 2000 do p:AsyncLoad('v.mp4') end", engine)
    engine.run_frames(2)
    [v] = videos(engine)
    assert v["ready"] is True


def test_a_steady_stream_of_async_loads_stays_bounded(game: MakeEngine) -> None:
    engine = game("""p = VideoPlayer:new(); n = 0""", {"v.mp4": mp4()}, extra="""
      function HandleUpdate() p:AsyncLoad("v.mp4", 8, 8, function(c) if c == 0 then n = n + 1 end end) end
      SubscribeToEvent("Update", "HandleUpdate")
    """)
    engine.run_frames(1200)
    assert lua("return n", engine) == 0   # every load is replaced by the next before it completes
    assert engine.report().outcome == "clean"


BATTERY = """
local h = harness
h.start()
h.run(1.0)
h.key_down(KEY_SPACE); h.run_frames(1); h.key_up(KEY_SPACE)
h.run(3.0)
requirement("R1", function(check)
  local v = h.videos()[1]
  check.equal("state", v.state_name, "VIDEO_ENDED")
  check.near("time", v.time, 2.5, 1e-9)
  check.equal("uploads", v.uploads > 100, true)
end)
requirement("R2", function(check)
  local v = h.videos()[2]
  check.equal("loops", v.loops, 4)                  -- 241 frames x 1.5/60 s = 6.025 s of a 1.5 s video
  check.near("time", v.time, 0.025, 1e-9)
end)
"""

GAME = """
function Start()
  a = VideoPlayer:new()
  a:AsyncLoad("a.mp4", 640, 360, function(code) print("a loaded", code) end)
  b = VideoPlayer:new(); b:Load("b.webm"); b:SetLoop(true); b:SetPlaybackRate(1.5); b:Play()
  SubscribeToEvent("Update", function()
    a:Update(); b:Update()
    if input:GetKeyPress(KEY_SPACE) then a:Play() end
  end)
end
"""


def test_battery_view_and_bit_identical_evidence_across_processes(game_dir: MakeDir, tmp_path: Path) -> None:
    root = game_dir(files={"a.mp4": mp4(2.5), "b.webm": webm(1500.0)})
    (root / "scripts" / "main.lua").write_text(GAME)
    battery = tmp_path / "main.lua"
    battery.write_text(BATTERY)
    request = RunRequest(game_dir=str(root), battery=str(battery))
    first, second = run_in_subprocess(request), run_in_subprocess(request)
    assert first["outcome"] == "clean", first["errors"]
    assert [r["passed"] for r in first["requirements"]] == [True, True], first["requirements"]
    assert run_evidence(first)["digest"] == run_evidence(second)["digest"]


# ---------------------------------------------------------------------------------------------------------------
# TapTap's urhox-libs/Video widget, unmodified (URHOX_DEVKIT: a folder holding urhox-libs/; skipped without it)
# ---------------------------------------------------------------------------------------------------------------
WIDGET_GAME = """
local UI = require("urhox-libs/UI")
local Video = require("urhox-libs/Video")
events = {}
function Start()
  UI.Init({ fonts = { { family = "sans", weights = { normal = "Fonts/MiSans-Regular.ttf" } } }, scale = 1 })
  player = Video.VideoPlayer {
    id = "player", src = "videos/intro.mp4", width = "100%", height = "100%", autoPlay = true,
    textureWidth = 1280, textureHeight = 720,
    onReady = function() events[#events + 1] = "ready@" .. time:GetFrameNumber() end,
    onEnded = function() events[#events + 1] = "ended@" .. time:GetFrameNumber() end,
    onTimeUpdate = function(_, t, d) last_update = {t, d} end,
  }
  UI.SetRoot(UI.Panel { width = "100%", height = "100%", children = { player } })
end
"""


def test_urhox_libs_video_widget_plays_a_local_file(game_dir: MakeDir) -> None:
    root = os.environ.get("URHOX_DEVKIT", "")
    if not root or not (Path(root) / "urhox-libs" / "Video" / "init.lua").is_file():
        pytest.skip("URHOX_DEVKIT is not set to a folder holding TapTap's urhox-libs/ (the UrhoX dev kit)")
    folder = game_dir(files={"videos/intro.mp4": mp4(2.0, 1920, 1080)})
    (folder / "scripts" / "main.lua").write_text(WIDGET_GAME)
    engine = Engine(folder, lib_dirs=[Path(root)])
    engine.start()
    engine.run_frames(60)
    [v] = videos(engine)
    assert (v["state_name"], v["texture_width"], v["video_width"]) == ("VIDEO_PLAYING", 1280, 1920)
    assert v["time"] == pytest.approx(58 * STEP) and v["updates"] >= 58
    [video] = [d for d in engine.plain(engine.E.harness.drawn()) if d.get("image_name")]
    assert video["image_name"] == "videos/intro.mp4"
    assert video["bounds"] == pytest.approx([0, 0, 1280, 720])   # 16:9 "contain" in a 1280 x 720 screen
    engine.run_frames(120)
    assert lua("return events", engine) == ["ready@2", "ended@122"]
    t, d = lua("return last_update", engine)   # the widget reports progress at most every 0.1 s
    assert 1.9 < t <= 2.0 and d == 2.0
    assert engine.report().outcome == "clean"
