"""The UrhoX API registry: `engine/api/*.api` parsed into a typed model.

The registry is the one declaration of what the engine exposes; the Lua bindings,
the EmmyLua stubs and the coverage report are all generated from it.  The format
is described in docs/api-registry.md.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

API_DIR = Path(__file__).resolve().parent / "api"

VARIANT_TYPES = (
    "Int", "Bool", "Float", "Double", "String", "Vector2", "Vector3", "Vector4", "Quaternion", "Color",
    "IntVector2", "IntVector3", "IntRect", "Rect", "Ptr", "Buffer", "VariantMap", "VariantVector",
    "StringHash", "Int64", "UInt", "Matrix3", "Matrix3x4", "Matrix4", "StringVector",
    "Variant",   # a parameter whose type varies (AnimationTrigger's Data: whatever the trigger holds)
)
OPERATORS = ("add", "sub", "mul", "div", "unm", "eq", "lt", "le", "tostring", "concat", "len", "idiv", "mod")


class RegistryError(ValueError):
    """A malformed registry file; the message names the file and line."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    optional: bool = False


@dataclass(frozen=True)
class Signature:
    params: tuple[Param, ...]
    returns: str | None


@dataclass
class Method:
    name: str
    overloads: list[Signature] = field(default_factory=list)
    kind: str = "method"  # method | staticfunction | operator | function


@dataclass(frozen=True)
class Property:
    name: str
    type: str
    getter: str | None
    setter: str | None


@dataclass(frozen=True)
class Static:
    name: str
    type: str


@dataclass
class ClassDecl:
    name: str
    base: str | None
    value: bool
    source: str
    fields: dict[str, str] = field(default_factory=dict)
    constructors: list[Signature] = field(default_factory=list)
    properties: dict[str, Property] = field(default_factory=dict)
    methods: dict[str, Method] = field(default_factory=dict)
    statics: dict[str, Static] = field(default_factory=dict)
    operators: dict[str, Method] = field(default_factory=dict)


@dataclass
class EnumDecl:
    name: str
    values: dict[str, int | float]
    source: str


@dataclass(frozen=True)
class ConstantDecl:
    name: str
    type: str
    value: int | float | str | bool


@dataclass(frozen=True)
class GlobalDecl:
    name: str
    type: str


@dataclass
class EventDecl:
    name: str
    params: dict[str, str]
    source: str


@dataclass
class Registry:
    classes: dict[str, ClassDecl] = field(default_factory=dict)
    enums: dict[str, EnumDecl] = field(default_factory=dict)
    constants: dict[str, ConstantDecl] = field(default_factory=dict)
    globals: dict[str, GlobalDecl] = field(default_factory=dict)
    functions: dict[str, Method] = field(default_factory=dict)
    events: dict[str, EventDecl] = field(default_factory=dict)

    def lineage(self, class_name: str) -> list[ClassDecl]:
        """The class and its bases, most derived first."""
        chain: list[ClassDecl] = []
        name: str | None = class_name
        while name is not None:
            decl = self.classes[name]
            chain.append(decl)
            name = decl.base
        return chain

    def all_constants(self) -> dict[str, int | float | str | bool]:
        """Every named constant: enum members and standalone constants."""
        out: dict[str, int | float | str | bool] = {}
        for enum in self.enums.values():
            out.update(enum.values)
        for const in self.constants.values():
            out[const.name] = const.value
        return out


_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_SIG = re.compile(rf"^(?P<name>{_IDENT})\s*\((?P<params>.*)\)\s*(?::\s*(?P<ret>.+))?$")
_PARAM = re.compile(rf"^(?P<name>{_IDENT}|\.\.\.)(?P<opt>\?)?\s*:\s*(?P<type>.+)$")


def _parse_signature(text: str, where: str) -> tuple[str, Signature]:
    match = _SIG.match(text.strip())
    if not match:
        raise RegistryError(f"{where}: expected NAME(params): RET, got {text.strip()!r}")
    params: list[Param] = []
    raw = match.group("params").strip()
    if raw:
        for part in _split_params(raw):
            pm = _PARAM.match(part.strip())
            if not pm:
                raise RegistryError(f"{where}: bad parameter {part.strip()!r} (expected name: type)")
            params.append(Param(pm.group("name"), pm.group("type").strip(), bool(pm.group("opt"))))
    ret = match.group("ret")
    return match.group("name"), Signature(tuple(params), ret.strip() if ret else None)


def _split_params(raw: str) -> list[str]:
    """Split on commas outside brackets (types like fun(a: x, b: y) contain commas)."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for ch in raw:
        if ch in "([<{":
            depth += 1
        elif ch in ")]>}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return parts


def _parse_value(text: str, where: str) -> int | float | str | bool:
    text = text.strip()
    if text in ("true", "false"):
        return text == "true"
    if len(text) >= 2 and text[0] == text[-1] == '"':
        return text[1:-1]
    try:
        return int(text, 0)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise RegistryError(f"{where}: bad constant value {text!r}") from None


def parse_text(text: str, source: str, registry: Registry) -> None:
    """Parse one registry file into `registry`."""
    block: ClassDecl | EnumDecl | EventDecl | None = None
    for lineno, raw_line in enumerate(text.splitlines(), 1):
        where = f"{source}:{lineno}"
        line = raw_line.split("#", 1)[0].rstrip()
        if not line.strip():
            continue
        indented = line[0] in " \t"
        line = line.strip()
        if not indented:
            block = _parse_top(line, where, source, registry)
            continue
        if block is None:
            raise RegistryError(f"{where}: indented line outside a class, enum or event block")
        if isinstance(block, ClassDecl):
            _parse_member(block, line, where)
        elif isinstance(block, EnumDecl):
            name, _, value = line.partition("=")
            if not value or not re.fullmatch(_IDENT, name.strip()):
                raise RegistryError(f"{where}: expected NAME = VALUE in enum {block.name}")
            parsed = _parse_value(value, where)
            if not isinstance(parsed, int | float) or isinstance(parsed, bool):
                raise RegistryError(f"{where}: enum values are numbers")
            block.values[name.strip()] = parsed
        else:
            name, _, vtype = line.partition(":")
            vtype = vtype.strip()
            if vtype not in VARIANT_TYPES:
                raise RegistryError(f"{where}: unknown Variant type {vtype!r} for event parameter {name.strip()}")
            block.params[name.strip()] = vtype


def _parse_top(line: str, where: str, source: str, registry: Registry) -> ClassDecl | EnumDecl | EventDecl | None:
    keyword, _, rest = line.partition(" ")
    rest = rest.strip()
    if keyword == "class":
        m = re.fullmatch(rf"({_IDENT})(?:\s*:\s*({_IDENT}))?(\s+value)?", rest)
        if not m:
            raise RegistryError(f"{where}: expected 'class Name [: Base] [value]'")
        name = m.group(1)
        if name in registry.classes:
            raise RegistryError(f"{where}: class {name} declared twice (first in {registry.classes[name].source})")
        decl = ClassDecl(name, m.group(2), bool(m.group(3)), source)
        registry.classes[name] = decl
        return decl
    if keyword == "enum":
        if not re.fullmatch(_IDENT, rest):
            raise RegistryError(f"{where}: expected 'enum Name'")
        if rest in registry.enums:
            raise RegistryError(f"{where}: enum {rest} declared twice")
        enum = EnumDecl(rest, {}, source)
        registry.enums[rest] = enum
        return enum
    if keyword == "event":
        if not re.fullmatch(_IDENT, rest):
            raise RegistryError(f"{where}: expected 'event Name'")
        if rest in registry.events:
            raise RegistryError(f"{where}: event {rest} declared twice")
        event = EventDecl(rest, {}, source)
        registry.events[rest] = event
        return event
    if keyword == "constant":
        m = re.fullmatch(rf"({_IDENT})\s*:\s*(\S+)\s*=\s*(.+)", rest)
        if not m:
            raise RegistryError(f"{where}: expected 'constant NAME: type = value'")
        registry.constants[m.group(1)] = ConstantDecl(m.group(1), m.group(2), _parse_value(m.group(3), where))
        return None
    if keyword == "global":
        m = re.fullmatch(rf"({_IDENT})\s*:\s*(.+)", rest)
        if not m:
            raise RegistryError(f"{where}: expected 'global name: Type'")
        registry.globals[m.group(1)] = GlobalDecl(m.group(1), m.group(2).strip())
        return None
    if keyword == "function":
        name, sig = _parse_signature(rest, where)
        registry.functions.setdefault(name, Method(name, kind="function")).overloads.append(sig)
        return None
    raise RegistryError(f"{where}: unknown declaration {keyword!r} (class, enum, event, constant, global, function)")


def _parse_member(decl: ClassDecl, line: str, where: str) -> None:
    keyword, _, rest = line.partition(" ")
    rest = rest.strip()
    if keyword == "new" or line.startswith("new("):
        _, sig = _parse_signature("new" + line[3:], where)
        decl.constructors.append(sig)
    elif keyword == "field":
        m = re.fullmatch(rf"({_IDENT})\s*:\s*(.+)", rest)
        if not m:
            raise RegistryError(f"{where}: expected 'field name: type'")
        decl.fields[m.group(1)] = m.group(2).strip()
    elif keyword == "property":
        m = re.fullmatch(rf"({_IDENT})\s*:\s*(\S+)((?:\s+(?:get|set)=\S+)*)", rest)
        if not m:
            raise RegistryError(f"{where}: expected 'property name: Type get=Getter [set=Setter]'")
        accessors = dict(part.split("=", 1) for part in m.group(3).split())
        if "get" not in accessors:
            raise RegistryError(f"{where}: property {m.group(1)} needs get=Getter")
        decl.properties[m.group(1)] = Property(m.group(1), m.group(2), accessors.get("get"), accessors.get("set"))
    elif keyword == "static":
        m = re.fullmatch(rf"({_IDENT})\s*:\s*(.+)", rest)
        if not m:
            raise RegistryError(f"{where}: expected 'static NAME: Type'")
        decl.statics[m.group(1)] = Static(m.group(1), m.group(2).strip())
    elif keyword in ("method", "staticfunction"):
        name, sig = _parse_signature(rest, where)
        method = decl.methods.setdefault(name, Method(name, kind=keyword))
        if method.kind != keyword:
            raise RegistryError(f"{where}: {decl.name}.{name} is declared both as method and staticfunction")
        method.overloads.append(sig)
    elif keyword == "operator":
        name, sig = _parse_signature(rest, where)
        if name not in OPERATORS:
            raise RegistryError(f"{where}: unknown operator {name!r} (one of {', '.join(OPERATORS)})")
        decl.operators.setdefault(name, Method(name, kind="operator")).overloads.append(sig)
    else:
        raise RegistryError(
            f"{where}: unknown member {keyword!r} in class {decl.name} "
            "(new, field, property, static, method, staticfunction, operator)"
        )


def _check(registry: Registry) -> None:
    for decl in registry.classes.values():
        if decl.base is not None and decl.base not in registry.classes:
            raise RegistryError(f"{decl.source}: class {decl.name} has unknown base {decl.base}")
        for prop in decl.properties.values():
            for accessor in (prop.getter, prop.setter):
                if accessor is None:
                    continue
                if not any(accessor in c.methods for c in registry.lineage(decl.name)):
                    raise RegistryError(
                        f"{decl.source}: property {decl.name}.{prop.name} uses {accessor}, "
                        f"which is not a declared method of {decl.name} or its bases"
                    )


def load_registry(api_dir: Path = API_DIR) -> Registry:
    """Parse every `*.api` file of `api_dir`, in name order."""
    registry = Registry()
    for path in sorted(api_dir.glob("*.api")):
        parse_text(path.read_text(encoding="utf-8"), path.name, registry)
    _check(registry)
    return registry


@lru_cache(maxsize=1)
def default_registry() -> Registry:
    return load_registry()
