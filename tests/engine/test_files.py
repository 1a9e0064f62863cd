"""The game's files: read when the game opens them, bounded by what a run reads and holds, never outside the folder."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import Engine, EngineSettings, RunRequest, run_evidence, run_in_subprocess
from engine._files import GameFolder, list_folder
from engine.testing import lua

MB = 1024 * 1024


def _sparse(path: Path, size: int) -> None:
    """A file of `size` bytes that takes no disk space (a hole with one byte at its end)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        f.seek(size - 1)
        f.write(b"\0")


READS_TWO_SMALL_FILES = """
function Start()
  local f = cache:GetFile("data/config.txt")
  print("config", f:ReadLine(), f:GetSize())
  f:Close()
  local level = cache:GetResource("JSONFile", "data/level.json"):GetRoot()
  print("level", level:Get("name"):GetString(), level:Get("enemies"):GetInt())
  print("art", cache:GetResource("Texture2D", "art/huge.png") ~= nil, fileSystem:FileExists("audio/theme.ogg"))
end
"""


def _big_project(make_game: Callable[..., Path], sizes: dict[str, int]) -> Path:
    game = make_game(READS_TWO_SMALL_FILES, {"data/config.txt": "difficulty=hard\n",
                                              "data/level.json": '{"name": "cave", "enemies": 12}'})
    for rel, size in sizes.items():
        _sparse(game / rel, size)
    return game


def _printed(report: dict) -> list[str]:
    return [e["message"] for e in report["log"] if e["level"] == "INFO"]


def test_a_gigabyte_project_whose_game_reads_two_small_files_runs_within_64_mb(
        make_game: Callable[..., Path]) -> None:
    game = _big_project(make_game, {"art/huge.png": 700 * MB, "audio/theme.ogg": 324 * MB})
    report = run_in_subprocess(RunRequest(game_dir=str(game), seconds=0.2,
                                          settings={"memory_limit": 64 * MB}))
    assert report["outcome"] == "clean", report["errors"]
    assert _printed(report) == ["config\tdifficulty=hard\t16", "level\tcave\t12", "art\ttrue\ttrue"]


def test_a_folder_of_25000_files_runs_and_lists_in_name_order(make_game: Callable[..., Path]) -> None:
    game = make_game("""
function Start()
  local names = fileSystem:ScanDir("sprites/", "*.png", 0, false)
  print(#names, names[1], names[2], names[#names])
  local f = File("sprites/s24999.png", FILE_READ)
  print(f:ReadString())
end
""")
    sprites = game / "sprites"
    sprites.mkdir()
    for i in reversed(range(25_000)):   # created in reverse: the listing must not follow creation (inode) order
        (sprites / f"s{i}.png").write_bytes(b"last" if i == 24_999 else b"")
    report = run_in_subprocess(RunRequest(game_dir=str(game), seconds=0.1))
    assert report["outcome"] == "clean", report["errors"]
    assert _printed(report) == ["25000\ts0.png\ts1.png\ts9999.png", "last"]


def _engine(game: Path, **settings: int) -> Engine:
    return Engine(game, EngineSettings().with_overrides(**settings))


def test_reading_past_the_read_budget_fails_naming_the_file(make_game: Callable[..., Path]) -> None:
    game = make_game("function Start() end", {"data/small.txt": "x" * 100, "data/big.txt": "y" * 5000,
                                              "scripts/lib.lua": "return 1"})
    engine = _engine(game, file_read_budget=4000)
    assert lua("return File('data/small.txt'):GetSize()", engine) == 100
    for code in ("File('data/big.txt')", "cache:GetFile('data/big.txt')"):
        with pytest.raises(Exception, match=r"data/big\.txt: reading its 5000 bytes would take the run past its file "
                                            r"read budget of 4000 bytes \(100 read before; engine setting "
                                            r"file_read_budget\)"):
            lua(code, engine)
    assert engine.folder.bytes_read == 100   # the refused file was not read
    # what the game already read counts, so a run cannot read a small file forever
    tiny = _engine(game, file_read_budget=305)
    lua("for i = 1, 3 do File('data/small.txt'):Close() end", tiny)
    with pytest.raises(Exception, match=r"data/small\.txt: reading its 100 bytes"):
        lua("File('data/small.txt')", tiny)
    with pytest.raises(Exception, match=r"scripts/lib\.lua: reading its 8 bytes .* file_read_budget"):
        lua("require('lib')", tiny)


def test_the_entry_script_past_the_budget_is_a_load_error_not_a_crash(make_game: Callable[..., Path]) -> None:
    game = make_game("function Start() end\n" + "-- padding\n" * 200)
    engine = _engine(game, file_read_budget=100)
    engine.start()
    report = engine.report()
    assert report.outcome == "lua_error"
    assert "scripts/main.lua: reading its" in report.errors[0]["message"] and report.errors[0]["phase"] == "load"


def test_files_held_open_are_bounded_and_closing_gives_them_back(make_game: Callable[..., Path]) -> None:
    game = make_game("function Start() end", {"data/a.bin": "a" * 3000, "data/b.xml": "<b>" + " " * 3000 + "</b>"})
    engine = _engine(game, files_held_limit=5000)
    # open and close many times: only what is open counts
    assert lua("""
      for i = 1, 50 do local f = File('data/a.bin'); f:Close() end
      local g = cache:GetFile('data/a.bin'); g:delete()
      held = File('data/a.bin')
      return held:IsOpen()""", engine) is True
    with pytest.raises(Exception, match=r"data/b\.xml: holding its 3007 bytes would take the run past 5000 bytes of "
                                        r"game files held at once \(3000 held by open files and loaded resources; "
                                        r"engine setting files_held_limit\)"):
        lua("cache:GetResource('XMLFile', 'data/b.xml')", engine)
    assert lua("held:Close() return cache:GetResource('XMLFile', 'data/b.xml'):GetRoot().name", engine) == "b"
    with pytest.raises(Exception, match=r"data/a\.bin: holding its 3000 bytes"):
        lua("File('data/a.bin')", engine)   # the loaded XML holds its bytes while cached ...
    assert lua("cache:ReleaseResource('XMLFile', 'data/b.xml') return File('data/a.bin'):GetSize()", engine) == 3000


def test_nothing_outside_the_folder_is_listed_or_read(make_game: Callable[..., Path], tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("GRADER-SECRET")
    game = make_game("function Start() end", {"data/inside.txt": "inside"})
    (game / "data" / "out.txt").symlink_to(secret)
    (game / "data" / "up").symlink_to("../..")
    (game / "data" / "alias.txt").symlink_to("inside.txt")
    (game / "data" / "dangling.txt").symlink_to("nowhere.txt")
    os.mkfifo(game / "data" / "pipe")
    assert list(list_folder(game)) == ["data/alias.txt", "data/inside.txt", "scripts/main.lua"]
    engine = Engine(game)
    names = lua("return fileSystem:ScanDir('', '*', 0, true)", engine)
    assert names == ["data/alias.txt", "data/inside.txt", "scripts/main.lua"]
    paths = ["data/out.txt", "data/up/secret.txt", "data/pipe", "data/dangling.txt", "../secret.txt",
             str(secret), "data/../../secret.txt", "data/./inside.txt"]
    for p in paths:   # the FIFO is never opened, so nothing blocks
        assert lua(f"local f = File({p!r}) return f:IsOpen(), fileSystem:FileExists({p!r})", engine) == [False, False]
    assert lua("return File('data/alias.txt'):ReadString()", engine) == "inside"
    # a link turned to point out after the listing is refused when read
    (game / "data" / "alias.txt").unlink()
    (game / "data" / "alias.txt").symlink_to(secret)
    assert lua("return File('data/alias.txt'):IsOpen()", engine) is False
    assert "GRADER-SECRET" not in str(engine.report().as_dict())


def test_a_folder_read_lazily_sees_the_games_writes_deletes_and_renames(make_game: Callable[..., Path]) -> None:
    game = make_game("function Start() end", {"save/slot1.json": "{}", "save/slot2.json": "{}"})
    engine = Engine(game)
    assert lua("""
      fileSystem:Delete('save/slot1.json')
      local f = File('save/slot3.json', FILE_WRITE); f:WriteString('new'); f:Close()
      fileSystem:Rename('save/slot2.json', 'save/old/slot2.json')
      return fileSystem:ScanDir('save/', '*.json', 0, true), fileSystem:FileExists('save/slot1.json'),
        File('save/old/slot2.json'):ReadString(), fileSystem:DirExists('save/old')""", engine) == [
        ["old/slot2.json", "slot3.json"], False, "{}", True]
    assert (game / "save" / "slot1.json").exists()   # nothing reaches the disk


def test_the_listing_and_reads_do_not_depend_on_creation_order_or_times(make_game: Callable[..., Path]) -> None:
    source = """
function Start()
  for _, n in ipairs(fileSystem:ScanDir('', '*', 0, true)) do
    local f = File(n) print(n, f:GetSize(), f:GetChecksum()) f:Close()
  end
  print(fileSystem:GetLastModifiedTime('data/b.txt'))
end
"""
    files = {f"data/{c}.txt": c * 40 for c in "dbca"}
    first = make_game(source, files)
    second = make_game(source, dict(reversed(list(files.items()))))
    os.utime(second / "data" / "b.txt", (1, 1))
    digests = {run_evidence(run_in_subprocess(RunRequest(game_dir=str(game), seconds=0.1), start=start))["digest"]
               for game in (first, second) for start in ("cold", "prebooted")}
    assert len(digests) == 1


def test_game_folder_reads_only_listed_regular_files(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("abc")
    folder = GameFolder.open(tmp_path, read_budget=10)
    assert folder.read("a.txt") == b"abc" and folder.bytes_read == 3
    assert folder.read("missing.txt") is None and folder.read("../a.txt") is None
    assert folder.listing("") == ["a.txt"] and folder.has_folder("") and not folder.has_folder("b/")
