"""The headless engine: one Lua state per run, a game folder, a virtual clock, and a battery harness."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from . import _lua
from ._box2d import Box2DHost  # 2D physics (issue 16)
from ._bullet import BulletHost  # 3D physics (issue 16)
from ._errors import BadInputError
from ._files import FileBudgetError, GameFolder, ModuleResolver
from ._fonts import STOCK_FONTS, FontError, font_metrics, system_font_metrics, warm_system_fonts
from ._netrun import MAX_CLIENTS, SERVER, NetRun, client_names
from ._platform import ServicesError, parse_services
from ._png import PngError
from ._png import decode as decode_png
from ._registry import Registry, default_registry
from ._settings import EngineSettings
from ._skeletal import SkeletalError, read_skeletal, stock_skeletal
from ._stock_data import image as stock_image
from ._stock_data import image_names as stock_image_names
from ._stock_data import model_files as stock_model_files
from ._stock_data import xml_files as stock_xml_files
from ._yoga import YogaHost

DATA_DIR = Path(__file__).resolve().parent / "data"
DEFAULT_ENTRY = "scripts/main.lua"


# UrhoX's own stock resources beyond Urho3D's, whose content the engine ships (engine/data/stock/): by folder, the type
URHOX_STOCK_FOLDERS = {"LightGroup": "XMLFile"}


@lru_cache(maxsize=1)
def stock_resources() -> dict[str, Any]:
    """The stock resources and their headless metadata: Urho3D's (engine/data/resources.json) and UrhoX's own that
    the engine ships (URHOX_STOCK_FOLDERS)."""
    path = DATA_DIR / "resources.json"
    found = dict(json.loads(path.read_text(encoding="utf-8"))["resources"]) if path.exists() else {}
    for name, content in stock_content().items():
        kind = URHOX_STOCK_FOLDERS.get(name.split("/", 1)[0])
        if kind is not None and name not in found:
            found[name] = {"size": len(content), "type": kind}
    return found


@lru_cache(maxsize=1)
def stock_content() -> dict[str, bytes]:
    """The content the engine ships for some stock resource names (engine/data/stock/, this project's own files:
    docs/resources.md), keyed by resource name.  (The stock content derived from Urho3D's own files is
    engine/_stock_data.py's.)"""
    root = DATA_DIR / "stock"
    if not root.is_dir():
        return {}
    return {path.relative_to(root).as_posix(): path.read_bytes()
            for path in sorted(root.rglob("*")) if path.is_file()}


def _battery_params(text: str) -> dict[str, Any]:
    """The `battery_params` setting: a JSON object of the task's parameter values (strings, numbers, lists)."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise BadInputError(f"setting 'battery_params': not JSON ({exc})") from None
    if not isinstance(value, dict):
        raise BadInputError("setting 'battery_params': must be a JSON object")
    return value


def to_python(value: Any) -> Any:
    """A Lua value as plain Python: tables with keys 1..n become lists, other tables dicts."""
    if hasattr(value, "items") and callable(getattr(value, "items", None)) and not isinstance(value, dict):
        items = list(value.items())
        if not items:
            return []
        keys = [k for k, _ in items]
        if all(isinstance(k, int) and not isinstance(k, bool) for k in keys) and sorted(keys) == list(
            range(1, len(keys) + 1)
        ):
            return [to_python(v) for _, v in sorted(items)]
        return {str(k): to_python(v) for k, v in sorted(items, key=lambda kv: str(kv[0]))}
    return value


OUTCOME_RANK = ("clean", "lua_error", "missing_api", "budget", "memory")


def _merge_roles(report: RunReport, clients: dict[str, RunReport]) -> None:
    """A run with roles reports as one: the clients' errors (phase `client1:Update`), log entries (with `role`)
    and missing API join the server's, and the outcome is the worst of the roles' (a limit, then missing API,
    then a Lua error)."""
    for name, client in clients.items():
        for error in client.errors:
            report.errors.append({**error, "phase": f"{name}:{error.get('phase')}"})
        for entry in client.log:
            report.log.append({**entry, "role": name})
        for missing in client.missing_api:
            if missing not in report.missing_api:
                report.missing_api.append(missing)
        if OUTCOME_RANK.index(client.outcome) > OUTCOME_RANK.index(report.outcome):
            report.outcome = client.outcome


@dataclass
class RunReport:
    """What one run did: how it ended, its frames, errors, log and missing API."""

    outcome: str
    frames: int
    sim_seconds: float
    errors: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    missing_api: list[str] = field(default_factory=list)
    exit_requested: bool = False
    platform: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "frames": self.frames,
            "sim_seconds": self.sim_seconds,
            "errors": self.errors,
            "log": self.log,
            "missing_api": self.missing_api,
            "exit_requested": self.exit_requested,
            "platform": self.platform,
        }


class _Host:
    """The Python side of a Lua state: the host functions Lua calls, and the game's memory limit.

    Lua takes these functions at the generic boot (engine/lua/boot.lua), before any run exists, so they serve
    whichever Engine the state was configured for (`engine`).
    """

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime
        self.engine: Engine | None = None
        self.memory_limit = 0          # none while booting; the run's from E.configure on
        self._depth = 0
        # engine code (unmetered), so collecting for the engine's sake is never charged to the game's budget
        self._collect = runtime.eval(
            "debug.unmetered(load('collectgarbage()', '@engine/collect', 't', {collectgarbage = collectgarbage}))")

    def _run(self) -> Engine:
        if self.engine is None:
            raise RuntimeError("no run is configured in this Lua state yet")
        return self.engine

    def find_module(self, name: str) -> tuple[str, str, str] | tuple[None, str] | tuple[bool, str]:
        return self._run().resolver.find(name)

    # The game folder, for engine/lua/runtime/59_files.lua: a file's size, its bytes, the names under a folder.
    def file_size(self, rel: str) -> int | None:
        return self._run().folder.size(rel)

    def file_read(self, rel: str) -> bytes | tuple[None, str | None]:
        try:
            data = self._run().folder.read(rel)
        except FileBudgetError as exc:
            return None, f"grader: {exc}"
        return data if data is not None else (None, None)

    def file_list(self, prefix: str) -> Any:
        return self.runtime.table_from(self._run().folder.listing(prefix))

    def folder_exists(self, prefix: str) -> bool:
        return self._run().folder.has_folder(prefix)

    def font_metrics(self, kind: str, key: str) -> Any:
        return self._run()._font_metrics(kind, key)

    def skeletal(self, kind: str, name: str, path: str | None) -> Any:
        return self._run()._skeletal(kind, name, path)

    # The roles of a run (engine/_netrun.py): only a server role's Lua calls these.
    def _net(self) -> NetRun:
        net = self._run().net
        if net is None:
            raise RuntimeError("this run has no roles")
        return net

    def net_frame(self, outbox: Any) -> Any:
        return self._net().frame(outbox)

    def net_start(self) -> None:
        self._net().start()

    def net_call(self, name: str, request: str) -> str:
        return self._net().call(str(name), str(request))

    def net_disconnect(self, name: str) -> None:
        self._net().disconnect(str(name))

    def net_reconnect(self, name: str) -> None:
        self._net().reconnect(str(name))

    def net_join(self, name: str) -> None:
        self._net().join(str(name))

    def image(self, hex_data: str) -> Any:
        return self._run()._image(hex_data)

    # Memory the engine allocates for itself.  lupa cannot recover from a failed Lua allocation while it converts a
    # Python value (a returned string or tuple, table_from): the error unwinds through its C code and leaves the
    # interpreter hung or corrupted.  So every hand-over from Python to Lua runs without the game's memory limit
    # (the Lua side wraps such host calls in E.host_call); the limit applies again right after, and the game's
    # next allocation beyond it fails as usual, in Lua.
    def unmeter(self) -> None:
        if self._depth == 0:
            self.runtime.set_max_memory(0)
        self._depth += 1

    def meter(self) -> None:
        self._depth -= 1
        if self._depth == 0 and self.memory_limit:
            if self.runtime.get_memory_used() > self.memory_limit:
                self._collect()   # what the engine made for itself is garbage by now
            self.runtime.set_max_memory(self.memory_limit)

    def set_memory_limit(self, limit: int) -> None:
        self.memory_limit = limit
        if self._depth == 0:
            self.runtime.set_max_memory(limit)


@dataclass
class BootedState:
    """A Lua state after the generic boot (engine/lua/boot.lua, step 1): the runtime, the registry bound, no run.

    One Engine configures it, once.  `boot_state()` makes one; the pre-booted engine (engine/_zygote.py) makes one
    per process and forks a run from it, so each run starts from the same state as a cold process's.
    """

    runtime: Any
    E: Any
    host: _Host
    claimed: bool = False

    def claim(self) -> None:
        if self.claimed:
            raise RuntimeError("a booted Lua state runs one game only")
        self.claimed = True


def boot_state(registry: Registry | None = None) -> BootedState:
    """Step 1 of the boot: a fresh Lua state with the engine's Lua loaded and the registry bound (no settings).

    It also reads the stock fonts' metrics (Python only; the Lua state gets a font when a run asks for it).
    """
    warm_system_fonts()
    runtime = _lua.new_runtime(0)
    host = _Host(runtime)
    env = _lua.boot(runtime, registry or default_registry(), {
        "resources": stock_resources(),
        # and the models and XML files engine/_stock_data.py holds
        "stock_content": {**stock_content(), **stock_model_files(), **stock_xml_files()},
        "stock_images": stock_image_names(),   # stock images whose pixels engine/_stock_data.py holds
        "stock_image": stock_image,
        "find_module": host.find_module,
        "font_metrics": host.font_metrics,
        "skeletal": host.skeletal,   # skeletons and animations (engine/_skeletal.py)
        "image": host.image,         # PNG files decoded (engine/_png.py)
        "file_size": host.file_size,
        "file_read": host.file_read,
        "file_list": host.file_list,
        "folder_exists": host.folder_exists,
        "builtin_fonts": sorted(STOCK_FONTS),
        "yoga": YogaHost().lua_api(),
        "bullet": BulletHost().lua_api(),   # 3D physics (issue 16): pybullet's client is made at the first world
        "box2d": Box2DHost().lua_api(),   # 2D physics (issue 16): holds no Box2D object until a PhysicsWorld2D
        "unmeter": host.unmeter,
        "meter": host.meter,
        "net_frame": host.net_frame,
        "net_start": host.net_start,
        "net_call": host.net_call,
        "net_disconnect": host.net_disconnect,
        "net_reconnect": host.net_reconnect,
        "net_join": host.net_join,
    })
    return BootedState(runtime, env, host)


class Engine:
    """A game loaded into a fresh, sandboxed Lua state.

    >>> engine = Engine(Path("mygame"))      # doctest: +SKIP
    >>> engine.start(); engine.run_seconds(2.0); engine.report().outcome

    `booted` is a state from `boot_state()` to configure instead of booting one (the pre-booted engine's way); the
    run is the same either way.  With the setting `net_clients` > 0 this Engine is the server role of a run with
    roles and makes one Engine per client (`role` names a client role; engine/_netrun.py).
    """

    def __init__(
        self,
        game_dir: Path,
        settings: EngineSettings | None = None,
        lib_dirs: Sequence[Path] = (),
        entry: str = DEFAULT_ENTRY,
        registry: Registry | None = None,
        booted: BootedState | None = None,
        role: str = "",
    ) -> None:
        if registry is not None and booted is not None:
            raise ValueError("give a registry or a booted state, not both (the state was booted with its own)")
        self.settings = settings or EngineSettings()
        self.game_dir = Path(game_dir)
        self.folder = GameFolder.open(self.game_dir, self.settings.file_read_budget)
        if self.folder.size(entry) is None:
            raise BadInputError(f"{entry}: entry script not found in the game folder")
        for lib in lib_dirs:
            if not Path(lib).is_dir():
                raise BadInputError(f"{lib}: library folder not found")
        try:
            services = parse_services(self.settings.services)
        except ServicesError as exc:
            raise BadInputError(f"setting 'services': {exc}") from None
        if not 0 <= self.settings.net_clients <= MAX_CLIENTS:
            raise BadInputError(f"setting 'net_clients': {self.settings.net_clients} is not between 0 and "
                                f"{MAX_CLIENTS}")
        if self.settings.net_latency_frames < 0:
            raise BadInputError("setting 'net_latency_frames': must be 0 or more")
        if not 0 <= self.settings.net_late_clients <= self.settings.net_clients:
            raise BadInputError(f"setting 'net_late_clients': {self.settings.net_late_clients} is not between 0 and "
                                f"net_clients ({self.settings.net_clients})")
        battery_params = _battery_params(self.settings.battery_params)
        if not role and self.settings.net_clients > 0:
            role = SERVER
        self.role = role
        self.entry = entry
        self.resolver = ModuleResolver(self.folder, [Path(p) for p in lib_dirs])
        booted = booted if booted is not None else boot_state(registry)
        booted.claim()
        self.runtime = booted.runtime
        self.E = booted.E
        self._host = booted.host
        self._host.engine = self
        # Step 2 of the boot (engine/lua/boot.lua): the run's settings, the seed and the instruction budget; then
        # the game's memory limit.  The game's files stay on disk until it opens them (engine/_files.py).
        config = self.settings.as_dict()
        config["safe_area"] = list(self.settings.safe_area)
        config["entry"] = entry
        config["services"] = services
        config["battery_params"] = battery_params
        config["net_role"] = role
        run = _lua.lua_table(self.runtime, {"config": config})
        self.game_env = self.E.configure(run)
        self._host.set_memory_limit(self.settings.memory_limit)
        self.net: NetRun | None = None
        self._out_of_memory = False   # Lua's memory error reached the host (_driving): the run is over
        if role == SERVER:
            clients = {name: Engine(game_dir, self.settings, lib_dirs, entry, role=name,
                                    booted=boot_state(registry))
                       for name in client_names(self.settings.net_clients)}
            late = client_names(self.settings.net_clients)[self.settings.net_clients - self.settings.net_late_clients:]
            self.net = NetRun(self, clients, self.settings.net_latency_frames, late=late)

    @contextmanager
    def unmetered(self) -> Iterator[None]:
        """Python driving Lua for the engine's own sake (input, the report): not charged to the game's memory."""
        self._host.unmeter()
        try:
            yield
        finally:
            self._host.meter()

    def _font_metrics(self, kind: str, key: str) -> Any:
        """A font's metrics as a Lua table (read once per font and run; see engine/_fonts.py), or (nil, why)."""
        warning = None
        try:
            if kind == "game":
                try:
                    data = self.folder.read(str(key))
                except FileBudgetError as exc:
                    return None, f"grader: {exc}"
                if data is None:
                    return None, f"{key}: not in the game folder"
                metrics = font_metrics(data)
            else:
                metrics, warning = system_font_metrics(str(key))
        except FontError as exc:
            return None, str(exc)
        table = self.runtime.table_from({k: v for k, v in metrics.items() if k != "advances"})
        table["advances"] = self.runtime.table_from(metrics["advances"])
        table["warning"] = warning
        return table

    def _skeletal(self, kind: str, name: str, path: str | None) -> Any:
        """A model's skeleton (`kind` "model") or an animation ("animation") as a Lua table, or (nil, why): Urho3D's
        stock data when `path` is None, else the game's file at `path`."""
        try:
            if path is None:
                data = stock_skeletal(str(kind), str(name))
                if data is None:
                    return None, f"{name}: no skeletal data for this stock resource"
            else:
                try:
                    raw = self.folder.read(str(path))   # charged to the run's file_read_budget
                except FileBudgetError as exc:
                    return None, f"grader: {exc}"
                if raw is None:
                    return None, f"{path}: not in the game folder"
                # what the game's Lua will hold (16 bytes a number) must fit in what is left of its memory limit:
                # the table is made outside the limit (README, "Hostile games"), so it is bounded here
                limit = self.settings.memory_limit
                room = (limit - int(self.runtime.get_memory_used())) // 16 if limit else None
                data = read_skeletal(str(kind), str(path), raw, room)
        except SkeletalError as exc:
            return None, str(exc)
        return _lua.lua_table(self.runtime, data)

    def _image(self, hex_data: str) -> Any:
        """A PNG file's pixels as (width, height, components, bytes), or (nil, why); the file's bytes come in hex.
        The pixels become a Lua string made outside the game's memory limit, so their size is bounded by what is
        left of it (twice: the engine splits them into rows)."""
        limit = self.settings.memory_limit
        room = (limit - int(self.runtime.get_memory_used())) // 2 if limit else None
        try:
            image = decode_png(bytes.fromhex(str(hex_data)), room)
        except (PngError, ValueError) as exc:
            return None, str(exc)
        return image.width, image.height, image.components, image.pixels

    # Driving the game
    @contextmanager
    def _driving(self) -> Iterator[None]:
        """Drive the game. The engine's Lua catches a game's memory error at the top of each call (90_frame.lua,
        E.top); but when the game's data still fills the limit, the engine's own code after that handler can fail
        to allocate too, and the error leaves Lua. That is the same end, a memory abort, recorded here."""
        try:
            yield
        except _lua.memory_error():
            self._out_of_memory = True
            with self.unmetered():
                self.E.memory_exhausted()

    # After such an abort the game is never driven again: with its memory full, each call into Lua would only run
    # the collector in vain before failing the same way.
    def start(self) -> None:
        if not self._out_of_memory:
            with self._driving():
                self.E.harness.start()

    def run_frames(self, frames: int) -> None:
        if not self._out_of_memory:
            with self._driving():
                self.E.harness.run_frames(frames)

    def run_seconds(self, seconds: float) -> None:
        if not self._out_of_memory:
            with self._driving():
                self.E.harness.run(seconds)

    def queue_input(self, event: dict[str, Any]) -> None:
        with self.unmetered():
            self.E.queue_input(self.runtime.table_from(event))

    @property
    def frame(self) -> int:
        return int(self.E.clock.frame)

    def battery_env(self) -> Any:
        """The battery's privileged environment (made at the boot, engine/lua/harness.lua)."""
        return self.E.battery_env

    def run_battery(self, source: str, chunkname: str, manifest: Sequence[dict[str, Any]] | None = None) -> bool:
        """Run battery Lua in its privileged environment; False if it could not be loaded or raised.

        `manifest` (the task's requirement manifest: id, layer, capabilities, description) makes the harness
        refuse any requirement it does not list and take layers and tags from it."""
        env = self.battery_env()
        with self.unmetered():
            if manifest is not None:
                self.E.manifest = self.runtime.table_from(
                    {str(r["id"]): {"layer": str(r["layer"]), "capabilities": [str(c) for c in r["capabilities"]],
                                    "description": str(r.get("description", ""))} for r in manifest},
                    recursive=True)
            loader = self.runtime.eval(
                "function(src, name, env) local f, e = load(src, '@' .. name, 't', env); return f, e end"
            )
            fn, err = loader(source, chunkname, env)
        if fn is None:
            raise BadInputError(f"{chunkname}: {err}")
        with self._driving():
            return bool(self.E.run_battery_chunk(fn))
        return False   # the battery's run ended in a memory abort

    # Reading results
    def report(self) -> RunReport:
        with self.unmetered():
            return self._report()

    def _report(self) -> RunReport:
        state = self.E.state
        missing = self.plain(state.missing_order) or []
        errors = self.plain(state.errors) or []
        aborted = state.aborted
        if aborted in ("budget", "memory"):
            outcome = str(aborted)
        elif missing:
            outcome = "missing_api"
        elif errors:
            outcome = "lua_error"
        else:
            outcome = "clean"
        frames = int(self.E.clock.frame)
        if aborted == "budget":
            errors.append({"message": f"instruction budget of {self.settings.instruction_budget} exhausted",
                           "frame": frames, "phase": "limit", "traceback": ""})
        elif aborted == "memory":
            errors.append({"message": f"memory limit of {self.settings.memory_limit} bytes reached",
                           "frame": frames, "phase": "limit", "traceback": ""})
        report = RunReport(
            outcome=outcome,
            frames=frames,
            sim_seconds=float(self.E.clock.elapsed),
            errors=errors,
            log=self.plain(state.log) or [],
            missing_api=missing,
            exit_requested=bool(state.exit_requested),
            platform=self.platform_evidence(),
        )
        if self.net is not None:
            _merge_roles(report, self.net.reports())
        return report

    def plain(self, value: Any) -> Any:
        """A Lua value as plain Python, its strings made valid UTF-8 first (invalid bytes become `\\xNN`)."""
        return to_python(self.E.export(value))

    def platform_evidence(self) -> dict[str, Any]:
        """The ordered log of the game's platform-service calls (docs/platform.md) and how many went unlogged."""
        evidence = self.E.platform.evidence()
        return {"calls": self.plain(evidence.calls) or [], "dropped": int(evidence.dropped)}

    def requirements(self) -> list[dict[str, Any]]:
        with self.unmetered():
            return self._requirements()

    def _requirements(self) -> list[dict[str, Any]]:
        results = self.E.results
        order = self.plain(results.order) or []
        out = []
        for rid in order:
            req = self.plain(results.requirements[rid])
            req.setdefault("capabilities", [])
            req["capabilities"] = req["capabilities"] or []
            req["checks"] = req.get("checks") or []
            out.append(req)
        return out

    def scene_dump(self) -> list[dict[str, Any]]:
        """Every scene as nested nodes: name, id, local and world transforms, vars, tags, components."""
        with self.unmetered():
            return self.plain(self.E.dump_scenes()) or []
