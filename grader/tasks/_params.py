"""Parameterised batteries: `battery/params.toml` declares a task's parameters (a target value, a level layout), a
seed draws their values, and everything the agent, the battery and the solutions see is rendered with them.

A parameter is drawn from the SHA-256 of the draw format, the seed, the task's id and the parameter's name, so the
same seed gives the same values on every machine and Python, and another seed (a nightly edition's) gives values
an agent cannot have memorised.  Without an edition the seed is DEFAULT_SEED; an edition's is its root seed
(`edition_seed`).  The values reach:

- the agent, through prompt.md and the text files of workspace/, where `{{params.NAME}}` is replaced;
- the battery, as `harness.params()` (the engine's `battery_params` setting, canonical JSON);
- the solutions: solutions/oracle/ is rendered like the workspace, and a wrong solution is its patch applied to the
  oracle as written, then rendered (grader/tasks/_solutions.py);
- the verdict, which records them, so a replay by hash grades with the same values.

`{{params.NAME}}` renders for prose ("7", "2.5", "(1, -3), (4, 2)"); `{{params.NAME|lua}}` as a Lua literal
(`2.5`, `{{1.0, -3.0}, {4.0, 2.0}}`, `"north"`), `{{params.NAME|json}}` as JSON.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import re
import shutil
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

from grader._errors import TaskError
from grader.private_cache import build_once, private_cache_dir

from ._hash import tree_digest
from ._model import Task

DRAW_FORMAT = "grader-params/1"
DEFAULT_SEED = "default"
KINDS = ("int", "float", "choice", "points")
_NAME = re.compile(r"[a-z][a-z0-9_]{0,31}")
_PLACEHOLDER = re.compile(r"\{\{\s*params\.([A-Za-z0-9_]*)\s*(?:\|\s*([a-z]*)\s*)?\}\}")
_OPENING = "{{params."
FORMATS = ("text", "lua", "json")
MAX_POINTS = 64
_TRIES = 10_000   # draws per point before a layout is declared impossible

_KEYS = {
    "int": {"kind", "description", "min", "max"},
    "float": {"kind", "description", "min", "max", "step"},
    "choice": {"kind", "description", "values"},
    "points": {"kind", "description", "count", "x", "y", "step", "spacing", "avoid"},
}


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of battery/params.toml."""

    name: str
    kind: str
    description: str = ""
    low: Fraction = Fraction(0)       # int, float: the range (inclusive)
    high: Fraction = Fraction(0)
    step: Fraction = Fraction(1)      # float, points: values are low + k * step
    values: tuple[Any, ...] = ()      # choice
    count: int = 0                    # points
    x: tuple[Fraction, Fraction] = (Fraction(0), Fraction(0))
    y: tuple[Fraction, Fraction] = (Fraction(0), Fraction(0))
    spacing: float = 0.0              # points: least distance between two points, and from each `avoid` point
    avoid: tuple[tuple[float, float], ...] = ()


# --- reading params.toml -------------------------------------------------------------------------------------------

def _number(path: Path, table: dict[str, Any], key: str, where: str) -> Fraction:
    value = table.get(key)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise TaskError(f"{path}: field {where}{key!r} must be a number")
    return Fraction(str(value))


def _range(path: Path, table: dict[str, Any], key: str, where: str) -> tuple[Fraction, Fraction]:
    value = table.get(key)
    if not (isinstance(value, list) and len(value) == 2):
        raise TaskError(f"{path}: field {where}{key!r} must be [low, high]")
    low, high = (_number(path, {"v": v}, "v", f"{where}{key}.") for v in value)
    if low > high:
        raise TaskError(f"{path}: field {where}{key!r}: low {float(low):g} is above high {float(high):g}")
    return low, high


def _spec(path: Path, name: str, table: Any) -> ParamSpec:
    where = f"{name}."
    if not _NAME.fullmatch(name):
        raise TaskError(f"{path}: parameter name {name!r} must match [a-z][a-z0-9_]*")
    if not isinstance(table, dict):
        raise TaskError(f"{path}: [{name}] must be a table")
    kind = table.get("kind")
    if kind not in KINDS:
        raise TaskError(f"{path}: field {where}'kind' must be one of {', '.join(KINDS)}, got {kind!r}")
    extra = sorted(set(table) - _KEYS[kind])
    if extra:
        raise TaskError(f"{path}: unknown key {where}{extra[0]!r} for kind {kind!r} "
                        f"(allowed: {', '.join(sorted(_KEYS[kind]))})")
    description = table.get("description", "")
    if not isinstance(description, str):
        raise TaskError(f"{path}: field {where}'description' must be a string")
    if kind == "int":
        low, high = _number(path, table, "min", where), _number(path, table, "max", where)
        if low.denominator != 1 or high.denominator != 1 or low > high:
            raise TaskError(f"{path}: fields {where}'min' and 'max' must be whole numbers, min <= max")
        return ParamSpec(name, kind, description, low=low, high=high)
    if kind == "float":
        low, high = _number(path, table, "min", where), _number(path, table, "max", where)
        step = _number(path, table, "step", where)
        if step <= 0 or low > high or (high - low) / step != (high - low) // step:
            raise TaskError(f"{path}: fields {where}'min', 'max', 'step': need step > 0 and max - min a whole "
                            f"number of steps")
        return ParamSpec(name, kind, description, low=low, high=high, step=step)
    if kind == "choice":
        values = table.get("values")
        if (not isinstance(values, list) or not values
                or not all(isinstance(v, str | int) and not isinstance(v, bool) for v in values)
                or len(set(values)) != len(values)):
            raise TaskError(f"{path}: field {where}'values' must be a list of distinct strings or whole numbers")
        return ParamSpec(name, kind, description, values=tuple(values))
    count = table.get("count")
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_POINTS:
        raise TaskError(f"{path}: field {where}'count' must be a whole number from 1 to {MAX_POINTS}")
    step = _number(path, table, "step", where) if "step" in table else Fraction(1)
    spacing = float(_number(path, table, "spacing", where)) if "spacing" in table else 0.0
    if step <= 0 or spacing < 0:
        raise TaskError(f"{path}: fields {where}'step' must be above 0 and 'spacing' not below 0")
    avoid_raw = table.get("avoid", [])
    if not isinstance(avoid_raw, list) or not all(isinstance(p, list) and len(p) == 2 for p in avoid_raw):
        raise TaskError(f"{path}: field {where}'avoid' must be a list of [x, y] points")
    avoid = tuple((float(_number(path, {"v": p[0]}, "v", f"{where}avoid.")),
                   float(_number(path, {"v": p[1]}, "v", f"{where}avoid."))) for p in avoid_raw)
    spec = ParamSpec(name, kind, description, step=step, count=count, x=_range(path, table, "x", where),
                     y=_range(path, table, "y", where), spacing=spacing, avoid=avoid)
    try:
        _draw(spec, "check", DEFAULT_SEED)   # a layout no seed can place is the author's mistake: say so now
    except ValueError as exc:
        raise TaskError(f"{path}: [{name}]: {exc}") from None
    return spec


def load_params(path: Path) -> tuple[ParamSpec, ...]:
    """The parameters of battery/params.toml, in file order; () when there is no such file."""
    if not path.is_file():
        return ()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise TaskError(f"{path}: not UTF-8 ({exc.reason})") from None
    except tomllib.TOMLDecodeError as exc:
        raise TaskError(f"{path}: {exc}") from None
    if not data:
        raise TaskError(f"{path}: declares no parameter (delete it, or add a [name] table)")
    return tuple(_spec(path, name, table) for name, table in data.items())


# --- drawing -----------------------------------------------------------------------------------------------------

class _Stream:
    """Uniform whole numbers from SHA-256 in counter mode: the same on every machine, Python and day."""

    def __init__(self, *key: str) -> None:
        self.key = "|".join((DRAW_FORMAT, *key)).encode("utf-8")
        self.counter = 0

    def below(self, n: int) -> int:
        """A whole number in [0, n), unbiased (rejection sampling over 64 bits)."""
        limit = (2**64 // n) * n
        while True:
            self.counter += 1
            word = int.from_bytes(hashlib.sha256(self.key + b"|%d" % self.counter).digest()[:8], "big")
            if word < limit:
                return word % n


def _grid(stream: _Stream, low: Fraction, high: Fraction, step: Fraction) -> float:
    return float(low + step * stream.below(int((high - low) // step) + 1))


def _draw(spec: ParamSpec, task_id: str, seed: str) -> Any:
    stream = _Stream(seed, task_id, spec.name)
    if spec.kind == "int":
        return int(spec.low) + stream.below(int(spec.high - spec.low) + 1)
    if spec.kind == "float":
        return _grid(stream, spec.low, spec.high, spec.step)
    if spec.kind == "choice":
        return spec.values[stream.below(len(spec.values))]
    points: list[list[float]] = []
    for _ in range(spec.count):
        for _ in range(_TRIES):
            p = (_grid(stream, *spec.x, spec.step), _grid(stream, *spec.y, spec.step))
            if all(math.dist(p, q) >= spec.spacing for q in [*spec.avoid, *map(tuple, points)]):
                points.append([p[0], p[1]])
                break
        else:
            raise ValueError(f"cannot place {spec.count} points {spec.spacing:g} apart in x {spec.x[0]}..{spec.x[1]}, "
                             f"y {spec.y[0]}..{spec.y[1]} (step {spec.step}): widen the area or lower the spacing")
    return points


def draw(specs: tuple[ParamSpec, ...], task_id: str, seed: str) -> dict[str, Any]:
    """The values of every parameter for this task under `seed`."""
    return {s.name: _draw(s, task_id, seed) for s in specs}


def canonical_values(values: Mapping[str, Any]) -> str:
    return json.dumps(dict(values), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def edition_seed(root_seed: int) -> str:
    """The parameter seed of an edition: its root seed (fixed by its name unless given), so an edition's tasks
    have the same values on every machine that runs it."""
    return f"edition-{root_seed}"


def with_params_seed(task: Task, seed: str) -> Task:
    """The task with its parameters drawn under `seed` (the task itself when it has none)."""
    if not task.param_specs:
        return task
    return dataclasses.replace(task, params=canonical_values(draw(task.param_specs, task.id, seed)), params_seed=seed)


def _valid(spec: ParamSpec, value: Any) -> bool:
    def on_grid(v: Any, low: Fraction, high: Fraction, step: Fraction) -> bool:
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            return False
        k = (Fraction(v) - low) / step
        return low <= Fraction(v) <= high and float(low + step * round(k)) == float(v)

    if spec.kind == "int":
        return isinstance(value, int) and not isinstance(value, bool) and spec.low <= value <= spec.high
    if spec.kind == "float":
        return isinstance(value, float) and on_grid(value, spec.low, spec.high, spec.step)
    if spec.kind == "choice":
        return value in spec.values and type(value) in {type(v) for v in spec.values}
    return (isinstance(value, list) and len(value) == spec.count
            and all(isinstance(p, list) and len(p) == 2 and on_grid(p[0], *spec.x, spec.step)
                    and on_grid(p[1], *spec.y, spec.step) for p in value))


def with_params(task: Task, values: Mapping[str, Any], seed: str | None = None) -> Task:
    """The task with these values (a recorded verdict's), each checked against its declaration."""
    names = {s.name for s in task.param_specs}
    if set(values) != names:
        raise TaskError(f"{task.qualified_id}: parameters {sorted(values)} do not match battery/params.toml's "
                        f"{sorted(names)}")
    for spec in task.param_specs:
        if not _valid(spec, values[spec.name]):
            raise TaskError(f"{task.qualified_id}: parameter {spec.name}={values[spec.name]!r} is not a value "
                            f"battery/params.toml allows")
    if not names:
        return task
    return dataclasses.replace(task, params=canonical_values(values), params_seed=seed)


def param_values(task: Task) -> dict[str, Any]:
    return dict(json.loads(task.params))


# --- rendering -----------------------------------------------------------------------------------------------------

def _num(value: float | int, lua: bool) -> str:
    if isinstance(value, int):
        return str(value)
    if not lua and value == int(value):
        return str(int(value))
    return repr(value)


def format_value(value: Any, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(value, ensure_ascii=False)
    lua = fmt == "lua"
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False) if lua else value
    if isinstance(value, list):
        if lua:
            return "{" + ", ".join("{" + ", ".join(_num(c, True) for c in p) + "}" for p in value) + "}"
        return ", ".join("(" + ", ".join(_num(c, False) for c in p) + ")" for p in value)
    return _num(value, lua)


def render_text(text: str, values: Mapping[str, Any], where: str) -> str:
    """`text` with every `{{params.NAME[|FORMAT]}}` replaced; an unknown name or format, or an opening that is
    not a placeholder, is refused naming `where` and the line."""
    if _OPENING not in text:
        return text

    def line_of(pos: int) -> int:
        return text.count("\n", 0, pos) + 1

    out, at = [], 0
    for match in _PLACEHOLDER.finditer(text):
        name, fmt = match.group(1), match.group(2) or "text"
        if name not in values:
            known = ", ".join(sorted(values)) or "none: the task has no battery/params.toml"
            raise TaskError(f"{where}:{line_of(match.start())}: unknown parameter {name!r} (known: {known})")
        if fmt not in FORMATS:
            raise TaskError(f"{where}:{line_of(match.start())}: unknown format {fmt!r} (known: {', '.join(FORMATS)})")
        out += [text[at:match.start()], format_value(values[name], fmt)]
        at = match.end()
    out.append(text[at:])
    rendered = "".join(out)
    stray = rendered.find(_OPENING)
    if stray >= 0:   # only where the template had one that is not a placeholder (values never hold one)
        pos = text.find(_OPENING, 0)
        while pos >= 0 and _PLACEHOLDER.match(text, pos):
            pos = text.find(_OPENING, pos + 1)
        raise TaskError(f"{where}:{line_of(max(pos, 0))}: '{{{{params.' that is not a placeholder "
                        f"({{{{params.NAME}}}} or {{{{params.NAME|lua}}}})")
    return rendered


def check_placeholders(text: str, task: Task, where: str) -> None:
    """Refuse a template naming a parameter the task does not declare (at load: before any agent sees it)."""
    render_text(text, {s.name: 0 for s in task.param_specs}, where)


def prompt_text(task: Task) -> str:
    """prompt.md as the agent reads it."""
    return render_text(task.paths.prompt.read_text(encoding="utf-8"), param_values(task), str(task.paths.prompt))


def _cache_root() -> Path:
    try:
        return private_cache_dir("rendered")
    except OSError as exc:
        raise TaskError(str(exc)) from None


def _render_tree(root: Path, values: Mapping[str, Any], label: str) -> None:
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        if _OPENING.encode() not in data:
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        rel = path.relative_to(root).as_posix()
        path.write_text(render_text(text, values, f"{label}/{rel}"), encoding="utf-8")


def rendered_folder(task: Task, folder: Path, label: str) -> Path:
    """`folder` (the workspace, a solution) with its text files rendered with the task's values: the folder itself
    when the task has no parameters, else a copy of the same name, made once per content and values in this
    user's cache."""
    if not task.param_specs:
        return folder
    name = Path(label).name
    key = hashlib.sha256(f"rendered/2|{tree_digest(folder)}|{task.params}".encode()).hexdigest()[:32]

    def fill(building: Path) -> None:
        shutil.copytree(folder, building / name, symlinks=True)
        _render_tree(building / name, param_values(task), label)

    return build_once(_cache_root() / f"{name}-{key}", fill) / name


def prompt_file(task: Task) -> Path:
    """A file holding prompt.md as the agent reads it (prompt.md itself when the task has no parameters)."""
    if not task.param_specs:
        return task.paths.prompt
    text = prompt_text(task)
    key = hashlib.sha256(f"prompt/1|{text}".encode()).hexdigest()[:32]
    made = _cache_root() / f"prompt-{key}.md"
    if not made.is_file():
        fd, tmp = tempfile.mkstemp(prefix=".prompt-", dir=made.parent)
        with open(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        Path(tmp).replace(made)
    return made


def workspace_folder(task: Task) -> Path:
    """workspace/ as the agent receives it."""
    return rendered_folder(task, task.paths.workspace, f"{task.paths.root}/workspace")
