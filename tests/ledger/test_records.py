"""Recording attempts, corrections and their history, and deliverable artifacts."""

from __future__ import annotations

import io
import os
import tarfile
import zlib
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import pytest

from evidence import AttemptOutcome
from ledger import (
    ArchiveError,
    Ledger,
    LedgerError,
    correct_result,
    load_artifact,
    pack_directory,
    record_attempt,
    result,
    unpack_archive,
)
from tests.ledger import synth
from tests.ledger.helpers import check_consistent, scalar


@pytest.fixture
def ledger(ledger_url: str) -> Iterator[Ledger]:
    ledger = Ledger(ledger_url)
    try:
        yield ledger
    finally:
        ledger.close()


def _record(ledger: Ledger, folder: Path | None, n: int = 0, **kwargs: object) -> str:
    facts = synth.task(n % 2)
    return record_attempt(ledger, facts, synth.verdict(facts, n), {"agent": 2.0}, folder, driver="synthetic",
                          repetition=n, **kwargs)  # type: ignore[arg-type]


def test_history_raw_then_corrections_in_order_latest_wins(ledger: Ledger, tmp_path: Path) -> None:
    folder = synth.deliverable(tmp_path / "game")
    rhash = _record(ledger, folder, n=3, model=synth.MODEL)  # n % 3 == 0: a failing verdict
    view = result(ledger, rhash[:8])
    assert view.result is not None
    assert view.result.passed is False and view.result.effective_passed is False
    assert view.result.corrections == ()
    assert view.result.verdict == synth.verdict(synth.task(1), 3)
    assert view.outcome is AttemptOutcome.COMPLETED and view.artifact_hash == pack_directory(folder)[0]

    first = correct_result(ledger, rhash, passed=True, reason="  the battery was wrong ", author="alice")
    second = correct_result(ledger, rhash[:10], passed=False, reason="the fix was wrong", author="bob")
    third = correct_result(ledger, rhash, passed=True, reason="fixed for good", author="carol")
    assert first < second < third
    again = result(ledger, rhash).result
    assert again is not None and again.passed is False
    assert [(c.id, c.passed, c.reason, c.author) for c in again.corrections] == [
        (first, True, "the battery was wrong", "alice"), (second, False, "the fix was wrong", "bob"),
        (third, True, "fixed for good", "carol")]
    assert again.effective_passed is True
    assert again.verdict.passed is False  # the raw verdict is never rewritten
    check_consistent(ledger)


def test_corrections_need_a_reason_an_author_and_a_known_result(ledger: Ledger) -> None:
    rhash = _record(ledger, None)
    with pytest.raises(LedgerError, match="reason and an author"):
        correct_result(ledger, rhash, passed=False, reason=" ", author="alice")
    with pytest.raises(LedgerError, match="no result"):
        correct_result(ledger, "abcdef0123", passed=False, reason="r", author="a")
    with pytest.raises(LedgerError, match="at least 6 hex digits"):
        result(ledger, rhash[:5])
    assert scalar(ledger.url, "SELECT count(*) FROM corrections") == 0


def test_outcomes_without_a_deliverable(ledger: Ledger) -> None:
    rhash = _record(ledger, None, outcome=AttemptOutcome.AGENT_TIMEOUT, tokens=(5, None), cost_usd=None)
    view = result(ledger, rhash)
    assert view.outcome is AttemptOutcome.AGENT_TIMEOUT and view.artifact_hash is None
    assert scalar(ledger.url, "SELECT count(*) FROM artifacts") == 0
    check_consistent(ledger)


def test_a_mismatched_verdict_is_refused_and_leaves_nothing(ledger: Ledger) -> None:
    facts = synth.task(0)
    with pytest.raises(LedgerError, match="does not match"):
        record_attempt(ledger, facts, synth.verdict(synth.task(1), 0), {}, None, driver="synthetic")
    assert scalar(ledger.url, "SELECT count(*) FROM audit") == 0


def test_the_same_deliverable_is_stored_once(ledger: Ledger, tmp_path: Path) -> None:
    a = synth.deliverable(tmp_path / "a", 1)
    b = synth.deliverable(tmp_path / "b", 1)  # same content, another folder
    c = synth.deliverable(tmp_path / "c", 2)
    hashes = [_record(ledger, folder, n) for n, folder in enumerate([a, b, a, c, b, a, c])]
    assert len(set(hashes)) == 7
    assert scalar(ledger.url, "SELECT count(*) FROM artifacts") == 2
    assert scalar(ledger.url, "SELECT count(*) FROM audit WHERE table_name = 'artifacts'") == 2
    assert scalar(ledger.url, "SELECT count(DISTINCT artifact_hash) FROM attempts") == 2
    digest = pack_directory(a)[0]
    out = tmp_path / "out"
    unpack_archive(load_artifact(ledger, digest), out)
    assert pack_directory(out)[0] == digest
    assert (out / "scripts" / "main.lua").read_text() == (a / "scripts" / "main.lua").read_text()
    with pytest.raises(LedgerError, match="not in the ledger"):
        load_artifact(ledger, "0" * 64)
    check_consistent(ledger)


def test_an_oversized_deliverable_is_refused_and_leaves_nothing(ledger: Ledger, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    import ledger._records as records

    monkeypatch.setattr(records, "pack_directory", partial(pack_directory, max_bytes=64))
    folder = synth.deliverable(tmp_path / "big")
    (folder / "data.bin").write_bytes(b"x" * 100)
    with pytest.raises(ArchiveError, match="over the 64-byte archive limit"):
        _record(ledger, folder)
    assert scalar(ledger.url, "SELECT count(*) FROM audit") == 0
    assert scalar(ledger.url, "SELECT count(*) FROM tasks") == 0


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


def test_archives_are_deterministic(tmp_path: Path) -> None:
    names = ["scripts/main.lua", "scripts/lib/util.lua", "assets/a.txt", "README.md", "empty/"]
    first = _write_tree(tmp_path / "one", names, 1_000_000)
    second = _write_tree(tmp_path / "two", list(reversed(names)), 1_700_000_000)
    os.chmod(second / "README.md", 0o600)  # only the owner's execute bit is kept
    a, b = pack_directory(first), pack_directory(second)
    assert a == b
    digest, tar_bytes, compressed = a
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
        members = tar.getmembers()
    assert [m.name for m in members] == sorted(m.name for m in members)
    assert {(m.mtime, m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, 0, "", "")}
    assert zlib.decompress(compressed) == tar_bytes
    os.chmod(second / "scripts" / "main.lua", 0o755)
    assert pack_directory(second)[0] != digest  # the execute bit is part of the deliverable


def test_archive_limits_links_and_special_files(tmp_path: Path) -> None:
    root = synth.deliverable(tmp_path / "game")
    (root / "big.bin").write_bytes(b"\0" * 2000)
    with pytest.raises(ArchiveError, match=r"game: deliverable is over the 1000-byte archive limit"):
        pack_directory(root, max_bytes=1000)
    (root / "big.bin").unlink()
    (root / "outside.lua").symlink_to("/etc/passwd")  # kept as a link, never followed
    (root / "inside").symlink_to("scripts")
    digest, tar_bytes, compressed = pack_directory(root)
    with tarfile.open(fileobj=io.BytesIO(tar_bytes)) as tar:
        links = {m.name: m.linkname for m in tar.getmembers() if m.issym()}
    assert links == {"outside.lua": "/etc/passwd", "inside": "scripts"}
    out = tmp_path / "out"
    unpack_archive(compressed, out)
    assert os.readlink(out / "outside.lua") == "/etc/passwd" and os.readlink(out / "inside") == "scripts"
    assert pack_directory(out)[0] == digest
    os.mkfifo(root / "pipe")
    with pytest.raises(ArchiveError, match="pipe: not a regular file or folder"):
        pack_directory(root)
    with pytest.raises(ArchiveError, match="not a folder"):
        pack_directory(root / "README.md")


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
def test_unpack_refuses_to_leave_its_folder(tmp_path: Path, entries: list[tuple[str, bytes, str]]) -> None:
    dest = tmp_path / "sub" / "dest"
    with pytest.raises((ArchiveError, tarfile.FilterError)):
        unpack_archive(_archive_with(*entries), dest)
    assert [p for p in tmp_path.rglob("*") if "escaped" in p.name and not p.is_symlink()] == []
    assert not Path("/tmp/escaped-absolute.txt").exists()
