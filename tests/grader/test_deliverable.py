"""Reading a deliverable as hostile input: bounded, never following links, always an archive, and the archive reads
back into the same listing; L0 names every entry it could not read whole."""

from __future__ import annotations

import io
import os
import resource
import tarfile
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.deliverable import MAX_DEPTH, DeliverableError, Tree, entry_bound, max_archive_bytes, scan
from grader.levels import check_deliverable, safe_to_run
from grader.tasks import Limits, load_task

LIMITS = Limits()


def failed(result: object) -> list[str]:
    return [c.name for c in result.checks if not c.passed]  # type: ignore[attr-defined]


def _write_tree(root: Path, order: list[str], mtime: int) -> Path:
    files = {"scripts/main.lua": b"function Start() end\n", "scripts/lib/util.lua": b"return {}\n",
             "assets/a.txt": b"a", "README.md": b"# game\n", "empty/": b""}
    for rel in order:
        path = root / rel
        if rel.endswith("/"):
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(files[rel])
            os.utime(path, (mtime, mtime))
    return root


def round_trip(tree: Tree, tmp_path: Path) -> Tree:
    """The archive read back, and the folder written from it scanned again: all three list the same."""
    artifact = tree.pack()
    again = Tree.from_archive(artifact.compressed, max_archive_bytes(LIMITS))
    assert again.pack() == artifact
    out = tmp_path / f"out-{artifact.hash[:8]}"
    again.write(out)
    if not any(e.kind == "special" for e in tree.entries):
        assert scan(out, LIMITS).pack().hash == artifact.hash
    return again


def test_archives_are_deterministic_and_round_trip(tmp_path: Path) -> None:
    names = ["scripts/main.lua", "scripts/lib/util.lua", "assets/a.txt", "README.md", "empty/"]
    first = _write_tree(tmp_path / "one", names, 1_000_000)
    second = _write_tree(tmp_path / "two", list(reversed(names)), 1_700_000_000)
    os.chmod(second / "README.md", 0o600)  # only the owner's execute bit is kept
    a, b = scan(first, LIMITS).pack(), scan(second, LIMITS).pack()
    assert a == b
    with tarfile.open(fileobj=io.BytesIO(zlib.decompress(a.compressed))) as tar:
        members = tar.getmembers()
    assert [m.name for m in members] == sorted(m.name for m in members)
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, 0, "", "")}
    os.chmod(second / "scripts" / "main.lua", 0o755)
    assert scan(second, LIMITS).pack().hash != a.hash  # the execute bit is part of the deliverable
    round_trip(scan(first, LIMITS), tmp_path)


def test_links_are_kept_as_links_and_judged_without_being_followed(tmp_path: Path,
                                                                   make_task: Callable[..., Path]) -> None:
    task = load_task(make_task())
    root = _write_tree(tmp_path / "game", ["scripts/main.lua", "README.md"], 0)
    (root / "inside").symlink_to("scripts")
    (root / "twice").symlink_to("inside/main.lua")
    (root / "passwd").symlink_to("/etc/passwd")
    (root / "up").symlink_to("scripts/../..")
    (root / "loop").symlink_to("loop")
    (root / "ping").symlink_to("pong")
    (root / "pong").symlink_to("ping")
    (root / "via").symlink_to("inside/../passwd")   # stays inside lexically, leaves through the other link
    tree = scan(root, LIMITS)
    escapes = {e.path: tree.link_escapes(e) for e in tree.entries if e.kind == "link"}
    assert escapes == {"inside": "", "twice": "", "passwd": "absolute", "up": "leaves the folder", "loop": "loops",
                       "ping": "loops", "pong": "loops", "via": "absolute"}
    l0 = check_deliverable(task, tree)
    assert failed(l0) == ["no_links_out"] and not safe_to_run(l0)
    assert round_trip(tree, tmp_path).entries == tree.entries


def test_special_files_huge_files_and_odd_names_are_listed_not_read(tmp_path: Path,
                                                                   make_task: Callable[..., Path]) -> None:
    task = load_task(make_task())
    root = _write_tree(tmp_path / "game", ["scripts/main.lua"], 0)
    os.mkfifo(root / "pipe")
    with open(root / "sparse.bin", "wb") as fh:
        fh.truncate(65 << 20)                       # 65 MiB, nothing on disk
    (root / os.fsdecode(b"caf\xe9.lua")).write_bytes(b"x = 1\n")   # a Latin-1 name: not UTF-8
    tree = scan(root, LIMITS)
    by_path = {e.path: e for e in tree.entries}
    assert by_path["pipe"].kind == "special" and by_path["pipe"].special == "fifo"
    assert by_path["sparse.bin"].content is None and by_path["sparse.bin"].omitted == "over the file limit"
    assert by_path["sparse.bin"].size == 65 << 20
    l0 = check_deliverable(task, tree)
    assert failed(l0) == ["names_are_utf8", "no_special_files", "file_size", "total_size"]
    assert "caf\\xe9.lua" in l0.checks[1].detail and "pipe (fifo)" in l0.checks[3].detail
    again = round_trip(tree, tmp_path)
    assert [(e.path, e.kind, e.size, e.omitted) for e in again.entries] == \
        [(e.path, e.kind, e.size, e.omitted) for e in tree.entries]
    assert check_deliverable(task, again) == l0     # a replay judges the stored archive exactly the same


def test_deep_and_wide_trees_stop_the_listing_with_a_named_check(tmp_path: Path,
                                                                  make_task: Callable[..., Path]) -> None:
    task = load_task(make_task())
    deep = _write_tree(tmp_path / "deep", ["scripts/main.lua"], 0)
    path = deep
    for _ in range(1100):   # deeper than any recursion limit; made by file descriptors, as paths get long
        path = path / "d"
        os.mkdir(path)
    try:
        tree = scan(deep, LIMITS)
    finally:
        while path != deep:     # shutil.rmtree (and pytest's clean-up) recurse: take the tree down by hand
            os.rmdir(path)
            path = path.parent
    assert tree.truncated == f"folders nested deeper than {MAX_DEPTH} levels"
    assert failed(check_deliverable(task, tree)) == ["listing_complete"]
    round_trip(tree, tmp_path)
    small = Limits(max_files=5)
    wide = tmp_path / "wide"
    wide.mkdir()
    for i in range(entry_bound(small) + 10):
        (wide / f"f{i:05}").write_bytes(b"")
    listed = scan(wide, small)
    assert listed.truncated == f"more than {entry_bound(small)} entries" and len(listed.entries) == entry_bound(small)


def test_a_100_gb_sparse_file_costs_the_grader_no_memory(tmp_path: Path, make_task: Callable[..., Path]) -> None:
    task = load_task(make_task())
    root = _write_tree(tmp_path / "game", ["scripts/main.lua"], 0)
    with open(root / "huge.bin", "wb") as fh:
        fh.truncate(100 << 30)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tree = scan(root, task.limits)
    artifact = tree.pack()
    grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 64 * 1024, f"the scan grew the grader by {grown_kib} KiB"
    assert artifact.size < 1 << 20
    assert failed(check_deliverable(task, tree)) == ["file_size", "total_size"]


def test_files_past_the_total_are_listed_with_their_size(tmp_path: Path) -> None:
    limits = Limits(max_file_bytes=100, max_total_bytes=150)
    root = tmp_path / "game"
    root.mkdir()
    for name in ("a", "b", "c"):
        (root / name).write_bytes(b"x" * 80)
    tree = scan(root, limits)
    assert [(e.path, e.omitted) for e in tree.entries] == [("a", ""), ("b", "over the total limit"),
                                                            ("c", "over the total limit")]


def test_a_missing_or_file_deliverable_is_not_a_folder(tmp_path: Path, make_task: Callable[..., Path]) -> None:
    task = load_task(make_task())
    (tmp_path / "file").write_text("x")
    for path in (tmp_path / "nowhere", tmp_path / "file"):
        tree = scan(path, LIMITS)
        assert not tree.is_folder
        assert failed(check_deliverable(task, tree)) == ["deliverable_is_folder"]


def _archive_with(*entries: tuple[str, bytes, str]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, kind, link in entries:
            entry = tarfile.TarInfo(name)
            entry.type = kind
            entry.linkname = link
            data = b"pwned" if kind == tarfile.REGTYPE else b""
            entry.size = len(data)
            tar.addfile(entry, io.BytesIO(data) if data else None)
    return zlib.compress(buffer.getvalue())


REG, SYM, HARD = tarfile.REGTYPE, tarfile.SYMTYPE, tarfile.LNKTYPE


@pytest.mark.parametrize("entries", [
    [("../escaped.txt", REG, "")],
    [("a/../../escaped.txt", REG, "")],
    [("/tmp/escaped-absolute.txt", REG, "")],
    [("hard", HARD, "../escaped.txt")],
    [("up", SYM, ".."), ("up/escaped.txt", REG, "")],  # writing through a link the archive just made
    [("up", SYM, "../.."), ("up/sub/escaped.txt", REG, "")],
    [("escaped.txt", SYM, "../escaped.txt"), ("escaped.txt", REG, "")],
], ids=["dotdot", "inner-dotdot", "absolute", "hardlink", "through-link", "through-link-deep", "overwrite-link"])
def test_a_hostile_archive_never_writes_outside_its_folder(tmp_path: Path,
                                                           entries: list[tuple[str, bytes, str]]) -> None:
    dest = tmp_path / "sub" / "dest"
    with pytest.raises((DeliverableError, FileExistsError)):
        Tree.from_archive(_archive_with(*entries), 1 << 20).write(dest)
    assert [p for p in tmp_path.rglob("*") if "escaped" in p.name and not p.is_symlink()] == []
    assert not Path("/tmp/escaped-absolute.txt").exists()


def test_an_archive_bomb_is_refused(tmp_path: Path) -> None:
    bomb = zlib.compress(b"\0" * (4 << 20))
    with pytest.raises(DeliverableError, match="larger than"):
        Tree.from_archive(bomb, 1 << 20)
