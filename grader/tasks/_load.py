"""Loading suites and tasks: every refusal names the file and the field."""

from __future__ import annotations

import re
import tomllib
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from engine import ServicesError, services_setting
from evidence import HELD_OUT_PREFIX, Layer
from grader._errors import TaskError
from grader._settings import TASK_LIMITS

from ._model import Difficulty, Limits, Network, RequirementSpec, Screen, Suite, Task, TaskPaths, Visibility
from ._params import DEFAULT_SEED, check_placeholders, load_params, with_params_seed

REPO_BATTERIES = Path(__file__).resolve().parents[2] / "batteries"
_TASK_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,63}")
_TAG = re.compile(r"[a-z0-9][a-z0-9_-]{0,31}")
_SEMVER = re.compile(r"\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?")

TASK_KEYS = {"id", "title", "category", "difficulty", "capabilities", "entry", "required", "limits", "screen",
             "network"}
LIMIT_KEYS = set(TASK_LIMITS)   # the grader's task-scope settings (grader/_settings.py)
SCREEN_KEYS = {"width", "height", "dpr"}
NETWORK_KEYS = {"clients", "latency_frames", "late_clients"}
MAX_NETWORK_CLIENTS = 8   # the engine's (engine/_netrun.py)
SUITE_KEYS = {"name", "version", "visibility"}
REQUIREMENT_KEYS = {"layer", "capabilities", "description"}
_REQUIREMENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def _read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        raise TaskError(f"{path}: missing")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise TaskError(f"{path}: not UTF-8 ({exc.reason})") from None
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{path}: {exc}") from None


def _unknown(path: Path, table: dict[str, Any], allowed: set[str], where: str = "") -> None:
    extra = sorted(set(table) - allowed)
    if extra:
        raise TaskError(f"{path}: unknown key {where}{extra[0]!r} (allowed: {', '.join(sorted(allowed))})")


def _field(path: Path, table: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str = "") -> Any:
    if key not in table:
        raise TaskError(f"{path}: missing field {where}{key!r}")
    value = table[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise TaskError(f"{path}: field {where}{key!r} must be {names}, got {type(value).__name__}")
    return value


E = TypeVar("E", bound=StrEnum)


def _choice(path: Path, table: dict[str, Any], key: str, kind: type[E], where: str = "") -> E:
    raw = _field(path, table, key, str, where)
    try:
        return kind(raw)
    except ValueError:
        words = [m.value for m in kind]
        allowed = ", ".join(words[:-1]) + f" or {words[-1]}" if len(words) > 1 else words[0]
        raise TaskError(f"{path}: field {where}{key!r} must be {allowed}, got {raw!r}") from None


def _positive(path: Path, table: dict[str, Any], key: str, default: float, where: str) -> float:
    if key not in table:
        return default
    value = _field(path, table, key, (int, float), where)
    if value <= 0:
        raise TaskError(f"{path}: field {where}{key!r} must be positive")
    return value


def _network(path: Path, table: Any) -> Network:
    """task.toml [network]: clients (1..8 client roles beside the server role), latency_frames (>= 0) and
    late_clients (how many of the last clients start only when the battery joins them)."""
    if not isinstance(table, dict):
        raise TaskError(f"{path}: field 'network' must be a table")
    _unknown(path, table, NETWORK_KEYS, "network.")
    clients = table.get("clients", 0)
    if isinstance(clients, bool) or not isinstance(clients, int) or not 0 <= clients <= MAX_NETWORK_CLIENTS:
        raise TaskError(f"{path}: field network.'clients' must be a whole number from 0 to {MAX_NETWORK_CLIENTS}")
    latency = table.get("latency_frames", 0)
    if isinstance(latency, bool) or not isinstance(latency, int) or not 0 <= latency <= 600:
        raise TaskError(f"{path}: field network.'latency_frames' must be a whole number from 0 to 600")
    late = table.get("late_clients", 0)
    if isinstance(late, bool) or not isinstance(late, int) or not 0 <= late <= clients:
        raise TaskError(f"{path}: field network.'late_clients' must be a whole number from 0 to network.'clients' "
                        f"({clients})")
    return Network(clients=clients, latency_frames=latency, late_clients=late)


def load_requirements(path: Path) -> tuple[RequirementSpec, ...]:
    """battery/requirements.toml: one table per requirement id, in the order the file gives them."""
    data = _read_toml(path)
    specs = []
    for rid, table in data.items():
        where = f"{rid}."
        if not _REQUIREMENT_ID.fullmatch(rid):
            raise TaskError(f"{path}: requirement id {rid!r} must match [A-Za-z0-9][A-Za-z0-9_.-]*")
        if not isinstance(table, dict):
            raise TaskError(f"{path}: [{rid}] must be a table")
        _unknown(path, table, REQUIREMENT_KEYS, where)
        layer = _choice(path, table, "layer", Layer, where) if "layer" in table else Layer.COMPLETENESS
        capabilities = _field(path, table, "capabilities", list, where)
        for cap in capabilities:
            if not isinstance(cap, str) or not _TAG.fullmatch(cap):
                raise TaskError(f"{path}: field {where}capabilities has a bad tag {cap!r}")
        description = table.get("description", "")
        if not isinstance(description, str):
            raise TaskError(f"{path}: field {where}description must be str")
        specs.append(RequirementSpec(rid, layer, tuple(sorted(set(capabilities))), description.strip()))
    if not any(s.layer is Layer.COMPLETENESS for s in specs):
        raise TaskError(f"{path}: needs at least one completeness requirement (L2 passes only on those)")
    return tuple(specs)


def load_task(root: Path, suite: str = "", heldout: bool = False) -> Task:
    """Load and validate one task folder (of a held-out suite when `heldout`)."""
    root = Path(root)
    paths = TaskPaths(root)
    path = paths.task_toml
    data = _read_toml(path)
    _unknown(path, data, TASK_KEYS)
    task_id = _field(path, data, "id", str)
    if not _TASK_ID.fullmatch(task_id):
        raise TaskError(f"{path}: field 'id' must match [a-z0-9][a-z0-9-]*, got {task_id!r}")
    if task_id != root.name:
        raise TaskError(f"{path}: field 'id' is {task_id!r} but the folder is named {root.name!r}")
    title = _field(path, data, "title", str).strip()
    if not title:
        raise TaskError(f"{path}: field 'title' is empty")
    category = _field(path, data, "category", str)
    if not _TAG.fullmatch(category):
        raise TaskError(f"{path}: field 'category' must be a short lowercase name, got {category!r}")
    difficulty = _choice(path, data, "difficulty", Difficulty)
    capabilities = _field(path, data, "capabilities", list)
    for cap in capabilities:
        if not isinstance(cap, str) or not _TAG.fullmatch(cap):
            raise TaskError(f"{path}: field 'capabilities' has a bad tag {cap!r}")
    entry = data.get("entry", "scripts/main.lua")
    if not isinstance(entry, str) or entry.startswith("/") or ".." in entry.split("/") or not entry.endswith(".lua"):
        raise TaskError(f"{path}: field 'entry' must be a relative .lua path, got {entry!r}")
    required = data.get("required", [entry])
    if not isinstance(required, list) or not all(isinstance(g, str) and g for g in required):
        raise TaskError(f"{path}: field 'required' must be a list of globs")
    for glob in required:
        if glob.startswith("/") or ".." in glob.split("/"):
            raise TaskError(f"{path}: field 'required' has a glob outside the deliverable: {glob!r}")
    limits_table = data.get("limits", {})
    if not isinstance(limits_table, dict):
        raise TaskError(f"{path}: field 'limits' must be a table")
    _unknown(path, limits_table, LIMIT_KEYS, "limits.")
    base = Limits()
    values = {}
    for name in TASK_LIMITS:
        value = _positive(path, limits_table, name, getattr(base, name), "limits.")
        kind = type(getattr(base, name))
        if kind is int and value != int(value):
            raise TaskError(f"{path}: field limits.{name!r} must be a whole number")
        values[name] = kind(value)
    limits = Limits(**values)
    screen_table = data.get("screen", {})
    if not isinstance(screen_table, dict):
        raise TaskError(f"{path}: field 'screen' must be a table")
    _unknown(path, screen_table, SCREEN_KEYS, "screen.")
    sbase = Screen()
    screen = Screen(
        width=int(_positive(path, screen_table, "width", sbase.width, "screen.")),
        height=int(_positive(path, screen_table, "height", sbase.height, "screen.")),
        dpr=float(_positive(path, screen_table, "dpr", sbase.dpr, "screen.")),
    )
    network = _network(path, data.get("network", {}))
    if not paths.prompt.is_file():
        raise TaskError(f"{paths.prompt}: missing")
    try:
        prompt = paths.prompt.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise TaskError(f"{paths.prompt}: not UTF-8") from None
    if not paths.workspace.is_dir():
        raise TaskError(f"{paths.workspace}: missing (it may be empty, but it must exist)")
    if not paths.battery_main.is_file():
        raise TaskError(f"{paths.battery_main}: missing")
    requirements = load_requirements(paths.requirements)
    services = "{}"
    if paths.platform.is_file():
        try:
            services = services_setting(_read_toml(paths.platform))
        except ServicesError as exc:
            raise TaskError(f"{paths.platform}: {exc}") from None
    task = Task(
        id=task_id, title=title, category=category, difficulty=difficulty,
        capabilities=tuple(sorted(set(capabilities))), entry=entry, required=tuple(required), limits=limits,
        screen=screen, paths=paths, suite=suite, services=services, requirements=requirements, heldout=heldout,
        network=network, param_specs=load_params(paths.params),
    )
    check_placeholders(prompt, task, str(paths.prompt))
    return with_params_seed(task, DEFAULT_SEED)


def load_suite(root: Path) -> Suite:
    """Load a suite folder and every task in it (folders with a task.toml), in id order."""
    root = Path(root)
    path = root / "suite.toml"
    data = _read_toml(path)
    _unknown(path, data, SUITE_KEYS)
    name = _field(path, data, "name", str)
    if not _TASK_ID.fullmatch(name):
        raise TaskError(f"{path}: field 'name' must match [a-z0-9][a-z0-9-]*, got {name!r}")
    if name == HELD_OUT_PREFIX:
        raise TaskError(f"{path}: field 'name': {name!r} is reserved (held-out tasks go by it outside their folder)")
    version = _field(path, data, "version", str)
    if not _SEMVER.fullmatch(version):
        raise TaskError(f"{path}: field 'version' must be a semantic version like 1.2.3, got {version!r}")
    visibility = _choice(path, data, "visibility", Visibility)
    tasks = tuple(load_task(p.parent, name, heldout=visibility is Visibility.HELD_OUT)
                  for p in sorted(root.glob("*/task.toml")))
    return Suite(name=name, version=version, visibility=visibility, root=root, tasks=tasks)


def repository_suites(root: Path = REPO_BATTERIES) -> list[Suite]:
    """The suites kept in the repository's batteries/ folder."""
    if not root.is_dir():
        return []
    return [load_suite(p.parent) for p in sorted(root.glob("*/suite.toml"))]


def find_task(ref: str, suites: list[Suite] | None = None) -> Task:
    """A task by folder path, by `suite/id`, or by id (which must then be unique across suites)."""
    path = Path(ref)
    if (path / "task.toml").is_file():
        suite_toml = path.resolve().parent / "suite.toml"
        suite_data = _read_toml(suite_toml) if suite_toml.is_file() else {}
        return load_task(path.resolve(), str(suite_data.get("name", "")),
                         heldout=suite_data.get("visibility") == Visibility.HELD_OUT.value)
    suites = repository_suites() if suites is None else suites
    suite_name, _, task_id = ref.rpartition("/")
    matches = [t for s in suites for t in s.tasks if t.id == task_id and (not suite_name or s.name == suite_name)]
    if not matches:
        known = ", ".join(t.qualified_id for s in suites for t in s.tasks) or "none"
        raise TaskError(f"no task {ref!r} (known: {known})")
    if len(matches) > 1:
        raise TaskError(f"task id {ref!r} is in several suites: {', '.join(t.qualified_id for t in matches)}")
    return matches[0]
