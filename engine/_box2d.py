"""Box2D, the 2D physics behind Urho2D's PhysicsWorld2D, RigidBody2D, CollisionShape2D and Constraint2D.

The Box2D is the one in the `Box2D` wheel (pybox2d 2.3.10, Box2D 2.3.x in single precision, as Urho3D embeds
Box2D 2.3 in float).  Game code never sees anything here: `engine/lua/runtime/57_physics2d.lua` keeps the
components' state, checks arguments and calls the plain functions of `Box2DHost.lua_api()` with integer ids and
numbers.  Ids (worlds, bodies, fixtures, joints) are allocated in call order and never reused, so a run's ids are
deterministic.  Nothing is created before the game's first PhysicsWorld2D: runs fork from a pre-booted engine
(engine/_zygote.py), and this host holds no Box2D object until then.

Determinism: Box2D is deterministic for the same sequence of calls on the same build; this host adds no hashing
or set iteration (dicts keep insertion order), reads no clock and starts no thread.  The solver settings are
Urho3D's (docs/physics2d.md lists them).

A step returns what Lua needs in one crossing: the transforms of the awake non-static bodies packed as a binary
string (`string.unpack` reads it in C), and the contacts that began and ended, each with Urho2D's contact points
(position, normal, separation) computed here from the local manifold, as b2WorldManifold::Initialize does (the
wheel's own `worldManifold` returns garbage normals).
"""

from __future__ import annotations

import ctypes
import itertools
import math
import struct
from collections.abc import Callable
from typing import Any

import Box2D as B
import numpy as np

BOX2D_WHEEL_VERSION = "2.3.10"
MAX_LIVE_BODIES = 50_000
MAX_LIVE_FIXTURES = 100_000
MAX_LIVE_JOINTS = 50_000
MAX_POLYGON_VERTICES = 8          # Urho3D's Box2D build: b2_maxPolygonVertices (the wheel allows 16)
MAX_CHAIN_VERTICES = 10_000
MAX_LIVE_VERTICES = 1_000_000     # chain and polygon vertices of all live fixtures: Box2D's memory is not Lua's

_CONTACT_HEAD = struct.Struct("<3i")       # fixture A, fixture B, point count
_CONTACT_POINT = struct.Struct("<5d")      # x, y, normal x, normal y, separation
_F32 = struct.Struct("<f")


# Reading awake bodies' transforms is the engine's per-step cost beside Box2D's own: through the wheel's
# properties it takes six Python-level calls per body.  b2Body's first fields (Box2D 2.3: m_type, m_flags,
# m_islandIndex, m_xf, m_sweep) are read instead straight from memory, all bodies' in one numpy gather (_raw_gather);
# `_raw_layout_ok()` checks the layout against the properties once per process and the properties are used if it
# ever differs.
_RAW_BODY = struct.Struct("<4xH6x2f36xf")     # flags, position x, y, sweep angle
_RAW_SIZE = 60
_AWAKE_FLAG, _ACTIVE_FLAG = 0x0002, 0x0020
# The same fields as a numpy record over the concatenated bytes, and what the step hands Lua: for each awake, active
# moving body, its index in `moving_order` (0-based), position and angle, 16 bytes.
_RAW_DTYPE = np.dtype({"names": ["flags", "x", "y", "a"], "formats": ["<u2", "<f4", "<f4", "<f4"],
                       "offsets": [4, 12, 16, 56], "itemsize": _RAW_SIZE})
_OUT_DTYPE = np.dtype([("i", "<i4"), ("x", "<f4"), ("y", "<f4"), ("a", "<f4")])
_raw_checked: list[bool] = []


def _raw_layout_ok() -> bool:
    if not _raw_checked:
        ok = False
        try:
            world = B.b2World(gravity=(0, 0))
            probe = world.CreateBody(B.b2BodyDef(type=B.b2_dynamicBody, position=(1.5, -2.25), angle=0.7))
            view = _raw_view(probe)
            flags, x, y, a = _RAW_BODY.unpack_from(view)
            ok = (x, y, a) == (probe.position[0], probe.position[1], probe.angle) and bool(flags & _AWAKE_FLAG)
            probe.awake = False
            flags, *_ = _RAW_BODY.unpack_from(view)
            ok = ok and not flags & _AWAKE_FLAG and bool(flags & _ACTIVE_FLAG)
        except Exception:   # any surprise: use the wheel's properties
            ok = False
        _raw_checked.append(ok)
    return _raw_checked[0]


def _raw_view(body: Any) -> Any:
    """The first bytes of a b2Body as a ctypes array over its memory (valid while the body lives)."""
    return (ctypes.c_char * _RAW_SIZE).from_address(int(body.this))


def _raw_gather(bodies: list[Any]) -> tuple[Any, Any]:
    """A byte array over the memory spanning `bodies` (never read as a whole) and the index of each body's first
    bytes in it, one row per body: `memory[index]` copies them all in one numpy call (valid while they live)."""
    addresses = np.array([int(body.this) for body in bodies], dtype=np.int64)
    low = int(addresses.min())
    span = int(addresses.max()) - low + _RAW_SIZE
    memory = np.frombuffer(memoryview((ctypes.c_char * span).from_address(low)), dtype=np.uint8)
    return memory, (addresses - low)[:, None] + np.arange(_RAW_SIZE)


def _f32(value: float) -> float:
    """`value` rounded to single precision, as Box2D stores it (so what Lua reads back equals what Box2D uses)."""
    return float(_F32.unpack(_F32.pack(value))[0])


def _world_manifold(contact: Any) -> list[tuple[float, float, float, float, float]]:
    """The contact's world points, shared normal (from A to B) and separations (b2WorldManifold::Initialize)."""
    m = contact.manifold
    count = m.pointCount
    if count == 0:
        return []
    fa, fb = contact.fixtureA, contact.fixtureB
    xa, xb = fa.body.transform, fb.body.transform
    ra, rb = fa.shape.radius, fb.shape.radius
    kind = m.type_
    out = []
    if kind == B.b2Manifold.e_circles:
        pa = xa * m.localPoint
        pb = xb * m.points[0].localPoint
        nx, ny = 1.0, 0.0
        dx, dy = pb[0] - pa[0], pb[1] - pa[1]
        if dx * dx + dy * dy > 1.1920929e-07 ** 2:
            length = math.sqrt(dx * dx + dy * dy)
            nx, ny = dx / length, dy / length
        cax, cay = pa[0] + ra * nx, pa[1] + ra * ny
        cbx, cby = pb[0] - rb * nx, pb[1] - rb * ny
        sep = (cbx - cax) * nx + (cby - cay) * ny
        out.append((0.5 * (cax + cbx), 0.5 * (cay + cby), nx, ny, sep))
        return out
    face_a = kind == B.b2Manifold.e_faceA
    xf_face, xf_clip = (xa, xb) if face_a else (xb, xa)
    r_face, r_clip = (ra, rb) if face_a else (rb, ra)
    normal = xf_face.R * m.localNormal
    nx, ny = normal[0], normal[1]
    plane = xf_face * m.localPoint
    for i in range(count):
        clip = xf_clip * m.points[i].localPoint
        d = (clip[0] - plane[0]) * nx + (clip[1] - plane[1]) * ny
        c_face_x, c_face_y = clip[0] + (r_face - d) * nx, clip[1] + (r_face - d) * ny
        c_clip_x, c_clip_y = clip[0] - r_clip * nx, clip[1] - r_clip * ny
        sep = (c_clip_x - c_face_x) * nx + (c_clip_y - c_face_y) * ny
        out.append((0.5 * (c_face_x + c_clip_x), 0.5 * (c_face_y + c_clip_y), nx, ny, sep))
    if not face_a:
        out = [(x, y, -a, -b, s) for x, y, a, b, s in out]
    return out


def _pack_contact(contact: Any, with_points: bool = True) -> bytes:
    points = _world_manifold(contact) if with_points else []
    head = _CONTACT_HEAD.pack(contact.fixtureA.userData, contact.fixtureB.userData, len(points))
    return head + b"".join(_CONTACT_POINT.pack(*p) for p in points)


class _Listener(B.b2ContactListener):
    """Records the contacts that begin and end during a step (Urho3D sends their events after the step)."""

    def __init__(self) -> None:
        super().__init__()
        self.stepping = False
        self.points = True      # compute contact points (only when a game handler will read them)
        self.begins: list[bytes] = []
        self.ends: list[bytes] = []

    def BeginContact(self, contact: Any) -> None:  # noqa: N802 (Box2D's name)
        if self.stepping:
            self.begins.append(_pack_contact(contact, self.points))

    def EndContact(self, contact: Any) -> None:  # noqa: N802
        # Box2D also ends contacts when a body or fixture is destroyed; Urho3D reports only those of a step
        if self.stepping:
            self.ends.append(_pack_contact(contact, self.points))


class _PreSolveListener(_Listener):
    """Also asks Lua, before each touching contact is solved, whether it stays enabled (PhysicsUpdateContact2D).

    Only installed for the steps where the game subscribed to an update-contact event: each call crosses into Lua.
    """

    def __init__(self) -> None:
        super().__init__()
        self.presolve: Callable[[bytes, bool], Any] | None = None

    def PreSolve(self, contact: Any, old_manifold: Any) -> None:  # noqa: N802
        if self.presolve is None:
            return
        enabled = self.presolve(_pack_contact(contact), bool(contact.enabled))
        contact.enabled = bool(enabled)


class _Ray(B.b2RayCastCallback):
    def __init__(self, mask: int) -> None:
        super().__init__()
        self.mask = mask
        self.hits: list[tuple[int, float, float, float, float]] = []

    def ReportFixture(self, fixture: Any, point: Any, normal: Any, fraction: float) -> float:  # noqa: N802
        # As Urho3D's callbacks: sensors and shapes outside the mask are skipped, every hit is kept (return 1)
        if fixture.sensor or (fixture.filterData.maskBits & self.mask) == 0:
            return 1.0
        self.hits.append((fixture.userData, point[0], point[1], normal[0], normal[1]))
        return 1.0


class _Query(B.b2QueryCallback):
    def __init__(self, mask: int, point: tuple[float, float] | None) -> None:
        super().__init__()
        self.mask = mask
        self.point = point
        self.found: list[int] = []

    def ReportFixture(self, fixture: Any) -> bool:  # noqa: N802
        if fixture.sensor or (fixture.filterData.maskBits & self.mask) == 0:
            return True
        if self.point is None:
            self.found.append(fixture.userData)
            return True
        if fixture.TestPoint(self.point):
            self.found.append(fixture.userData)
            return False
        return True


class _World:
    def __init__(self, gx: float, gy: float) -> None:
        self.world = B.b2World(gravity=(gx, gy), doSleep=True)
        self.listener = _Listener()
        self.presolve_listener = _PreSolveListener()
        self.installed: _Listener | None = None   # the listener set on the world now
        # bodies whose transform a step can change (not static), in creation order: id -> body
        self.moving: dict[int, Any] = {}
        self.gather: tuple[Any, Any] | None = None   # the moving bodies' first bytes (_raw_gather; None: to make)
        self.generation = 0                   # changes whenever the moving bodies do (Lua re-reads their order)

    def moving_changed(self) -> None:
        self.gather = None
        self.generation += 1


class Box2DHost:
    """One run's Box2D worlds, bodies, fixtures and joints, behind the plain functions of `lua_api()`."""

    def __init__(self) -> None:
        self._worlds: dict[int, _World] = {}
        self._bodies: dict[int, tuple[int, Any]] = {}      # id -> (world id, b2Body)
        self._fixtures: dict[int, tuple[int, Any]] = {}    # id -> (body id, b2Fixture)
        self._body_fixtures: dict[int, list[int]] = {}     # body id -> its fixtures' ids
        self._vertices: dict[int, int] = {}                # chain fixture id -> its vertices
        self._vertex_total = 0
        # Box2D locks a world while it steps; game handlers of PhysicsUpdateContact2D run then (from PreSolve).
        # Changes they make wait for the end of the step, in order; creations are refused (Urho3D asserts).
        self._stepping = False
        self._deferred: list[tuple[Callable[..., Any], tuple[Any, ...]]] = []
        self._joints: dict[int, tuple[int, Any]] = {}      # id -> (world id, b2Joint)
        self._next_id = 0

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    # Worlds
    def world_new(self, gx: float, gy: float) -> int:
        wid = self._new_id()
        self._worlds[wid] = _World(gx, gy)
        return wid

    def world_destroy(self, wid: int) -> None:
        w = self._worlds.pop(wid, None)
        if w is None:
            return
        for bid in [b for b, (owner, _) in self._bodies.items() if owner == wid]:
            self._forget_body(bid)
        for jid in [j for j, (owner, _) in self._joints.items() if owner == wid]:
            del self._joints[jid]

    def world_set(self, wid: int, key: str, value: Any, value2: Any = None) -> None:
        w = self._worlds[wid].world
        if key == "gravity":
            w.gravity = (float(value), float(value2))
        elif key in ("allowSleeping", "warmStarting", "continuousPhysics", "subStepping", "autoClearForces"):
            setattr(w, key, bool(value))
        else:
            raise ValueError(f"unknown world setting {key}")

    def world_get(self, wid: int, key: str) -> Any:
        w = self._worlds[wid].world
        if key == "gravity":
            g = w.gravity
            return float(g[0]), float(g[1])
        return bool(getattr(w, key))

    def step(self, wid: int, dt: float, velocity_iterations: int, position_iterations: int,
             presolve: Callable[[bytes, bool], Any] | None, contacts: int = 2) -> tuple[bytes, int, bytes, bytes]:
        """One Box2D step; the moving bodies' state, their order's generation, the contacts begun and ended.

        `contacts`: 0 when no one reads contacts (no listener: the wheel's Python contact listener calls Python
        for every touching contact's PreSolve and PostSolve, which triples a crowded step), 1 for the pairs only
        (batteries), 2 with their points (a contact event has a handler)."""
        state = self._worlds[wid]
        listener: _Listener | None = None
        if presolve is not None:
            listener = state.presolve_listener
            state.presolve_listener.presolve = presolve
        elif contacts:
            listener = state.listener
        if state.installed is not listener:
            state.world.contactListener = listener
            state.installed = listener
        if listener is None:
            state.world.Step(dt, velocity_iterations, position_iterations)
            begins = ends = b""
        else:
            listener.points = contacts >= 2
            listener.stepping = self._stepping = True
            try:
                state.world.Step(dt, velocity_iterations, position_iterations)
            finally:
                listener.stepping = self._stepping = False
                state.presolve_listener.presolve = None
            begins, ends = b"".join(listener.begins), b"".join(listener.ends)
            listener.begins.clear()
            listener.ends.clear()
            while self._deferred:
                fn, args = self._deferred.pop(0)
                fn(*args)
        # The awake, active moving bodies' transforms: every moving body's first bytes copied (one numpy gather for
        # them all), then selected and packed by numpy; 16 bytes per body for Lua.
        if not state.moving:
            return b"", state.generation, begins, ends
        if _raw_layout_ok():
            if state.gather is None:
                state.gather = _raw_gather(list(state.moving.values()))
            memory, rows = state.gather
            rec = memory[rows].view(_RAW_DTYPE).reshape(-1)
        else:
            rec = np.array([((_AWAKE_FLAG if body.awake else 0) | (_ACTIVE_FLAG if body.active else 0),
                             body.position[0], body.position[1], body.angle) for body in state.moving.values()],
                           dtype=_RAW_DTYPE)
        mask = _AWAKE_FLAG | _ACTIVE_FLAG
        index = np.flatnonzero((rec["flags"] & mask) == mask)
        out = np.empty(len(index), dtype=_OUT_DTYPE)
        out["i"] = index
        out["x"] = rec["x"][index]
        out["y"] = rec["y"][index]
        out["a"] = rec["a"][index]
        return out.tobytes(), state.generation, begins, ends

    def moving_order(self, wid: int) -> tuple[int, ...]:
        """The ids of the bodies whose records `step` returns, in that order."""
        return tuple(self._worlds[wid].moving)

    # Bodies
    def body_new(self, wid: int, body_type: int, x: float, y: float, angle: float, props: Any) -> int | str:
        """A body; `props` is a Lua table of b2BodyDef fields (Urho3D's names mapped by the Lua side)."""
        if len(self._bodies) >= MAX_LIVE_BODIES:
            return 0
        state = self._worlds[wid]
        p = dict(props.items()) if props is not None else {}
        d = B.b2BodyDef()
        d.type = int(body_type)
        d.position = (x, y)
        d.angle = angle
        d.linearVelocity = (float(p.get("vx", 0.0)), float(p.get("vy", 0.0)))
        d.angularVelocity = float(p.get("av", 0.0))
        d.linearDamping = float(p.get("linearDamping", 0.0))
        d.angularDamping = float(p.get("angularDamping", 0.0))
        d.allowSleep = bool(p.get("allowSleep", True))
        d.awake = bool(p.get("awake", True))
        d.fixedRotation = bool(p.get("fixedRotation", False))
        d.bullet = bool(p.get("bullet", False))
        d.active = bool(p.get("active", True))
        d.gravityScale = float(p.get("gravityScale", 1.0))
        body = state.world.CreateBody(d)
        bid = self._new_id()
        body.userData = bid
        self._bodies[bid] = (wid, body)
        if body_type != 0:
            state.moving[bid] = body
            state.moving_changed()
        return bid

    def _forget_body(self, bid: int) -> None:
        wid, body = self._bodies.pop(bid)
        state = self._worlds.get(wid)
        if state is not None and state.moving.pop(bid, None) is not None:
            state.moving_changed()
        for fid in self._body_fixtures.pop(bid, []):
            self._fixtures.pop(fid, None)
            self._vertex_total -= self._vertices.pop(fid, 0)
        # Box2D destroys the body's joints with it (the Lua side releases them first; this is the safety net)
        attached = {int(edge.joint.this) for edge in body.joints}
        for jid, (_, j) in list(self._joints.items()):
            if int(j.this) in attached:
                del self._joints[jid]

    def body_destroy(self, bid: int) -> None:
        if bid not in self._bodies:
            return
        wid, body = self._bodies[bid]
        self._forget_body(bid)
        state = self._worlds.get(wid)
        if state is not None:
            state.world.DestroyBody(body)

    def body_set(self, bid: int, key: str, a: Any = None, b: Any = None) -> None:
        wid, body = self._bodies[bid]
        if key == "type":
            body.type = int(a)
            moving = self._worlds[wid].moving
            if int(a) == 0:
                moving.pop(bid, None)
            else:
                # keep creation order among moving bodies, so results never depend on when a type changed
                moving[bid] = body
                order = sorted(moving)
                items = {k: moving[k] for k in order}
                moving.clear()
                moving.update(items)
            self._worlds[wid].moving_changed()
        elif key == "linearVelocity":
            body.linearVelocity = (float(a), float(b))
        elif key == "angularVelocity":
            body.angularVelocity = float(a)
        elif key in ("linearDamping", "angularDamping", "gravityScale"):
            setattr(body, key, float(a))
        elif key in ("fixedRotation", "bullet", "awake", "active"):
            setattr(body, key, bool(a))
        elif key == "allowSleep":
            body.sleepingAllowed = bool(a)
        elif key == "massData":
            md = B.b2MassData()
            md.mass, md.I = float(a[1]), float(a[2])      # a Lua list: 1-based
            md.center = (float(a[3]), float(a[4]))
            body.massData = md
        elif key == "resetMass":
            body.ResetMassData()
        else:
            raise ValueError(f"unknown body setting {key}")

    def body_set_transform(self, bid: int, x: float, y: float, angle: float) -> None:
        body = self._bodies[bid][1]
        p = body.position
        # Urho3D skips the call when nothing changed (RigidBody2D::OnMarkedDirty): SetTransform wakes no one but
        # refreshes the broad-phase proxies, which changes later pair order
        if p[0] == _f32(x) and p[1] == _f32(y) and body.angle == _f32(angle):
            return
        body.transform = ((x, y), angle)

    def body_get(self, bid: int, key: str) -> Any:
        body = self._bodies[bid][1]
        if key == "linearVelocity":
            v = body.linearVelocity
            return float(v[0]), float(v[1])
        if key == "massData":
            c = body.localCenter
            return float(body.mass), float(body.inertia), float(c[0]), float(c[1])
        if key == "transform":
            p = body.position
            return float(p[0]), float(p[1]), float(body.angle)
        if key == "angularVelocity":
            return float(body.angularVelocity)
        if key in ("awake", "active"):
            return bool(getattr(body, key))
        raise ValueError(f"unknown body property {key}")

    def body_apply(self, bid: int, kind: str, a: float, b: float, c: float, d: float, wake: bool) -> None:
        body = self._bodies[bid][1]
        if kind == "force":
            body.ApplyForce((a, b), (c, d), bool(wake))
        elif kind == "forceToCenter":
            body.ApplyForceToCenter((a, b), bool(wake))
        elif kind == "torque":
            body.ApplyTorque(a, bool(wake))
        elif kind == "linearImpulse":
            body.ApplyLinearImpulse((a, b), (c, d), bool(wake))
        elif kind == "linearImpulseToCenter":
            # Box2D 2.3.2 has no ApplyLinearImpulseToCenter in the wheel: an impulse at the centre of mass is it
            wc = body.worldCenter
            body.ApplyLinearImpulse((a, b), (wc[0], wc[1]), bool(wake))
        elif kind == "angularImpulse":
            body.ApplyAngularImpulse(a, bool(wake))
        else:
            raise ValueError(f"unknown impulse kind {kind}")

    # Fixtures
    def fixture_new(self, bid: int, kind: str, geometry: Any, props: Any) -> int | str:
        """A fixture on body `bid`; its id, 0 when too many are alive, or a message for geometry Box2D refuses.

        `geometry` is a Lua table of numbers: box {hx, hy, cx, cy, angle}, circle {r, cx, cy}, edge {x1, y1, x2,
        y2}, polygon and chain {x1, y1, x2, y2, ...} (chain: loop in props).  `props` has density, friction,
        restitution, sensor, categoryBits, maskBits, groupIndex, keepMass.
        """
        if len(self._fixtures) >= MAX_LIVE_FIXTURES:
            return 0
        body = self._bodies[bid][1]
        g = [float(v) for _, v in sorted(geometry.items())] if geometry is not None else []
        p = dict(props.items())
        shape: Any
        try:
            if kind == "box":
                hx, hy, cx, cy, angle = g
                shape = B.b2PolygonShape()
                if cx == 0 and cy == 0 and angle == 0:
                    shape.SetAsBox(hx, hy)
                else:
                    shape.SetAsBox(hx, hy, (cx, cy), angle)
            elif kind == "circle":
                shape = B.b2CircleShape(radius=g[0], pos=(g[1], g[2]))
            elif kind == "edge":
                shape = B.b2EdgeShape(vertices=[(g[0], g[1]), (g[2], g[3])])
            elif kind == "polygon":
                points = list(zip(g[0::2], g[1::2], strict=False))
                if not 3 <= len(points) <= MAX_POLYGON_VERTICES:
                    return f"a polygon needs 3 to {MAX_POLYGON_VERTICES} vertices, got {len(points)}"
                if _hull_area(points) <= 1e-9:
                    return "the polygon's vertices enclose no area"
                shape = B.b2PolygonShape(vertices=points)
            elif kind == "chain":
                points = list(zip(g[0::2], g[1::2], strict=False))
                if len(points) > MAX_CHAIN_VERTICES:
                    return f"a chain has at most {MAX_CHAIN_VERTICES} vertices"
                if self._vertex_total + len(points) > MAX_LIVE_VERTICES:
                    return f"more than {MAX_LIVE_VERTICES} chain vertices alive (the engine's limit)"
                for (ax, ay), (bx, by) in itertools.pairwise(points):
                    if (ax - bx) ** 2 + (ay - by) ** 2 <= (0.005 * 0.5) ** 2:   # Box2D asserts on these
                        return "a chain's consecutive vertices are too close together"
                if p.get("loop"):
                    if len(points) < 3:
                        return "a loop chain needs at least 3 vertices"
                    shape = B.b2ChainShape(vertices_loop=points)
                else:
                    shape = B.b2ChainShape(vertices_chain=points)
            else:
                raise ValueError(f"unknown shape kind {kind}")
            fd = B.b2FixtureDef()
            fd.shape = shape
            fd.density = float(p.get("density", 0.0))
            fd.friction = float(p.get("friction", 0.2))
            fd.restitution = float(p.get("restitution", 0.0))
            fd.isSensor = bool(p.get("sensor", False))
            fd.filter = B.b2Filter(categoryBits=int(p.get("categoryBits", 1)) & 0xFFFF,
                                   maskBits=int(p.get("maskBits", 0xFFFF)) & 0xFFFF,
                                   groupIndex=_int16(int(p.get("groupIndex", 0))))
            keep_mass = bool(p.get("keepMass", False))
            saved = body.massData if keep_mass else None
            fixture = body.CreateFixture(fd)
            if saved is not None:
                body.massData = saved
        except AssertionError as exc:
            return f"Box2D refused the shape: {exc}"
        fid = self._new_id()
        fixture.userData = fid
        self._fixtures[fid] = (bid, fixture)
        if kind == "chain":
            self._vertices[fid] = len(g) // 2
            self._vertex_total += len(g) // 2
        self._body_fixtures.setdefault(bid, []).append(fid)
        return fid

    def fixture_destroy(self, fid: int, keep_mass: bool) -> None:
        entry = self._fixtures.pop(fid, None)
        if entry is None:
            return
        bid, fixture = entry
        self._vertex_total -= self._vertices.pop(fid, 0)
        self._body_fixtures[bid].remove(fid)
        body = self._bodies[bid][1]
        saved = body.massData if keep_mass else None
        body.DestroyFixture(fixture)
        if saved is not None:
            body.massData = saved

    def fixture_set(self, fid: int, key: str, value: Any, reset_mass: bool = False) -> None:
        bid, fixture = self._fixtures[fid]
        if key == "density":
            fixture.density = float(value)
            if reset_mass:
                self._bodies[bid][1].ResetMassData()
        elif key in ("friction", "restitution"):
            setattr(fixture, key, float(value))
            # as Urho3D: the body's existing contacts with this fixture take the new value
            for edge in self._bodies[bid][1].contacts:
                contact = edge.contact
                if fid in (contact.fixtureA.userData, contact.fixtureB.userData):
                    contact.ResetFriction() if key == "friction" else contact.ResetRestitution()
        elif key == "sensor":
            fixture.sensor = bool(value)
        elif key == "filter":
            fixture.filterData = B.b2Filter(categoryBits=int(value[1]) & 0xFFFF, maskBits=int(value[2]) & 0xFFFF,
                                            groupIndex=_int16(int(value[3])))
        else:
            raise ValueError(f"unknown fixture setting {key}")

    def fixture_mass(self, fid: int) -> tuple[float, float, float, float]:
        md = self._fixtures[fid][1].massData
        return float(md.mass), float(md.I), float(md.center[0]), float(md.center[1])

    # Joints
    def joint_new(self, wid: int, kind: str, bid_a: int, bid_b: int, collide: bool, params: Any) -> int | str:
        """A joint between two bodies, built as Urho3D's Constraint2D::GetJointDef builds each kind's def."""
        if len(self._joints) >= MAX_LIVE_JOINTS:
            return 0
        a, b = self._bodies[bid_a][1], self._bodies[bid_b][1]
        p = dict(params.items())

        def v(name: str) -> tuple[float, float]:
            value = p[name]
            return float(value[1]), float(value[2])

        d: Any
        try:
            if kind == "revolute":
                d = B.b2RevoluteJointDef()
                d.Initialize(a, b, v("anchor"))
                d.enableLimit, d.lowerAngle, d.upperAngle = bool(p["enableLimit"]), p["lowerAngle"], p["upperAngle"]
                d.enableMotor, d.motorSpeed = bool(p["enableMotor"]), p["motorSpeed"]
                d.maxMotorTorque = p["maxMotorTorque"]
            elif kind == "distance":
                d = B.b2DistanceJointDef()
                d.Initialize(a, b, v("ownerBodyAnchor"), v("otherBodyAnchor"))
                d.frequencyHz, d.dampingRatio = p["frequencyHz"], p["dampingRatio"]
            elif kind == "prismatic":
                d = B.b2PrismaticJointDef()
                d.Initialize(a, b, v("anchor"), v("axis"))
                d.enableLimit = bool(p["enableLimit"])
                d.lowerTranslation, d.upperTranslation = p["lowerTranslation"], p["upperTranslation"]
                d.enableMotor, d.motorSpeed = bool(p["enableMotor"]), p["motorSpeed"]
                d.maxMotorForce = p["maxMotorForce"]
            elif kind == "weld":
                d = B.b2WeldJointDef()
                d.Initialize(a, b, v("anchor"))
                d.frequencyHz, d.dampingRatio = p["frequencyHz"], p["dampingRatio"]
            elif kind == "rope":
                d = B.b2RopeJointDef()
                d.localAnchorA, d.localAnchorB = v("ownerBodyAnchor"), v("otherBodyAnchor")
                d.maxLength = p["maxLength"]
            elif kind == "mouse":
                d = B.b2MouseJointDef()
                d.target = v("target")
                d.maxForce, d.frequencyHz, d.dampingRatio = p["maxForce"], p["frequencyHz"], p["dampingRatio"]
            elif kind == "wheel":
                d = B.b2WheelJointDef()
                d.Initialize(a, b, v("anchor"), v("axis"))
                d.enableMotor, d.motorSpeed = bool(p["enableMotor"]), p["motorSpeed"]
                d.maxMotorTorque = p["maxMotorTorque"]
                d.frequencyHz, d.dampingRatio = p["frequencyHz"], p["dampingRatio"]
            elif kind == "motor":
                d = B.b2MotorJointDef()
                d.Initialize(a, b)
                d.linearOffset = v("linearOffset")
                d.angularOffset, d.maxForce, d.maxTorque = p["angularOffset"], p["maxForce"], p["maxTorque"]
                d.correctionFactor = p["correctionFactor"]
            elif kind == "pulley":
                d = B.b2PulleyJointDef()
                d.Initialize(a, b, v("ownerBodyGroundAnchor"), v("otherBodyGroundAnchor"), v("ownerBodyAnchor"),
                             v("otherBodyAnchor"), p["ratio"])
            elif kind == "friction":
                d = B.b2FrictionJointDef()
                d.Initialize(a, b, v("anchor"))
                d.maxForce, d.maxTorque = p["maxForce"], p["maxTorque"]
            elif kind == "gear":
                j1, j2 = self._joints.get(int(p["joint1"])), self._joints.get(int(p["joint2"]))
                if j1 is None or j2 is None:
                    return "a gear needs two live constraints"
                d = B.b2GearJointDef()
                d.joint1, d.joint2, d.ratio = j1[1], j2[1], p["ratio"]
            else:
                raise ValueError(f"unknown joint kind {kind}")
            d.bodyA, d.bodyB = a, b
            if kind == "mouse":      # Urho3D's mouse joint pulls its owner: the other body is A
                d.bodyA, d.bodyB = b, a
            d.collideConnected = bool(collide)
            joint = self._worlds[wid].world.CreateJoint(d)
        except AssertionError as exc:
            return f"Box2D refused the constraint: {exc}"
        jid = self._new_id()
        self._joints[jid] = (wid, joint)
        return jid

    def joint_destroy(self, jid: int) -> None:
        entry = self._joints.pop(jid, None)
        if entry is None:
            return
        wid, joint = entry
        state = self._worlds.get(wid)
        if state is not None:
            state.world.DestroyJoint(joint)

    def joint_set(self, jid: int, method: str, a: Any = None, b: Any = None) -> None:
        """Call a live joint's setter (Box2D's C++ name), as Urho3D does when a property changes.

        The wheel exposes some setters as methods and others as properties (`_JOINT_PROPERTIES`)."""
        joint = self._joints[jid][1]
        if method not in _JOINT_SETTERS:
            raise ValueError(f"unknown joint setter {method}")
        if hasattr(joint, method):
            fn = getattr(joint, method)
            fn(a) if b is None else fn(a, b)
            return
        prop = _JOINT_PROPERTIES.get(method)
        if prop is None or not hasattr(type(joint), prop):   # (some of the wheel's properties have no getter)
            return   # not settable on a live joint in this build: the value applies when the joint is re-made
        setattr(joint, prop, a if b is None else (a, b))

    def joint_target(self, jid: int, x: float, y: float) -> None:
        self._joints[jid][1].target = (x, y)

    def joint_get(self, jid: int, key: str) -> float:
        joint = self._joints[jid][1]
        if key not in ("angle", "translation", "speed", "length"):
            raise ValueError(f"unknown joint property {key}")
        name = {"angle": "angle", "translation": "translation", "speed": "speed", "length": "length"}[key]
        return float(getattr(joint, name))

    # Queries
    def raycast(self, wid: int, x1: float, y1: float, x2: float, y2: float, mask: int) -> bytes:
        """Every hit of the segment (sensors and masked-out shapes skipped), in Box2D's order, packed."""
        if not all(map(math.isfinite, (x1, y1, x2, y2))) or not (x2 - x1) ** 2 + (y2 - y1) ** 2 > 0.0:
            return b""   # Box2D asserts on a zero-length ray
        ray = _Ray(mask & 0xFFFFFFFF)
        self._worlds[wid].world.RayCast(ray, (x1, y1), (x2, y2))
        rec = struct.Struct("<i4d")
        return b"".join(rec.pack(self._fixtures[fid][0], *rest) for fid, *rest in ray.hits)

    def query_point(self, wid: int, x: float, y: float, mask: int) -> int:
        if not (math.isfinite(x) and math.isfinite(y)):
            return 0
        q = _Query(mask & 0xFFFFFFFF, (x, y))
        eps = 1.1920929e-07
        self._worlds[wid].world.QueryAABB(q, B.b2AABB(lowerBound=(x - eps, y - eps), upperBound=(x + eps, y + eps)))
        return self._fixtures[q.found[0]][0] if q.found else 0

    def query_aabb(self, wid: int, x1: float, y1: float, x2: float, y2: float, mask: int) -> tuple[int, ...]:
        if not all(map(math.isfinite, (x1, y1, x2, y2))):
            return ()
        q = _Query(mask & 0xFFFFFFFF, None)
        eps = 1.1920929e-07
        self._worlds[wid].world.QueryAABB(q, B.b2AABB(lowerBound=(x1 - eps, y1 - eps),
                                                      upperBound=(x2 + eps, y2 + eps)))
        return tuple(self._fixtures[fid][0] for fid in q.found)

    def live_counts(self) -> tuple[int, int, int, int]:
        return len(self._worlds), len(self._bodies), len(self._fixtures), len(self._joints)

    def _guarded(self, name: str) -> Callable[..., Any]:
        fn = getattr(self, name)
        refusing = self._refusing(fn)
        if name in _CREATORS:
            def create(*args: Any) -> Any:
                if self._stepping:
                    return "cannot create while the 2D physics world steps (in a PhysicsUpdateContact2D handler)"
                return fn(*args)
            return create
        if name in _MUTATORS:
            def change(*args: Any) -> Any:
                if self._stepping:
                    self._deferred.append((refusing, args))
                    return None
                return refusing(*args)
            return change
        return refusing if name in _REFUSABLE else fn

    @staticmethod
    def _refusing(fn: Callable[..., Any]) -> Callable[..., Any]:
        """`fn`, with Box2D's assertion (the wheel raises AssertionError) turned into a message for the game's log."""
        def call(*args: Any) -> Any:
            try:
                return fn(*args)
            except AssertionError as exc:
                return f"Box2D refused it: {exc}"
        return call

    def lua_api(self) -> dict[str, Callable[..., Any]]:
        names = ("world_new", "world_destroy", "world_set", "world_get", "step", "body_new", "body_destroy",
                 "body_set", "body_set_transform", "body_get", "body_apply", "fixture_new", "fixture_destroy",
                 "fixture_set", "fixture_mass", "joint_new", "joint_destroy", "joint_set", "joint_target",
                 "joint_get", "raycast", "query_point", "query_aabb", "live_counts", "moving_order")
        return {name: self._guarded(name) for name in names}


_CREATORS = frozenset({"body_new", "fixture_new", "joint_new"})
# Calls whose Box2D assertion is reported to the game's log rather than raised (what Urho3D's release build would
# let through silently, or crash on)
_REFUSABLE = frozenset({"body_set", "body_set_transform", "body_apply", "fixture_set", "joint_set", "joint_target",
                        "world_set"})
_MUTATORS = frozenset({"body_destroy", "body_set", "body_set_transform", "fixture_destroy", "fixture_set",
                       "joint_destroy", "world_destroy", "world_set"})

_JOINT_SETTERS = frozenset({
    "EnableLimit", "SetLimits", "EnableMotor", "SetMotorSpeed", "SetMaxMotorTorque", "SetMaxMotorForce",
    "SetFrequency", "SetDampingRatio", "SetLength", "SetMaxLength", "SetMaxForce", "SetMaxTorque",
    "SetSpringFrequencyHz", "SetSpringDampingRatio", "SetLinearOffset", "SetAngularOffset", "SetCorrectionFactor",
    "SetRatio",
})


_JOINT_PROPERTIES = {
    "EnableLimit": "limitEnabled", "EnableMotor": "motorEnabled", "SetMotorSpeed": "motorSpeed",
    "SetMaxMotorTorque": "maxMotorTorque", "SetMaxMotorForce": "maxMotorForce", "SetFrequency": "frequency",
    "SetDampingRatio": "dampingRatio", "SetLength": "length", "SetMaxLength": "maxLength", "SetMaxForce": "maxForce",
    "SetMaxTorque": "maxTorque", "SetSpringFrequencyHz": "springFrequencyHz",
    "SetSpringDampingRatio": "springDampingRatio", "SetLinearOffset": "linearOffset",
    "SetAngularOffset": "angularOffset", "SetRatio": "ratio",
}


def _int16(value: int) -> int:
    value &= 0xFFFF
    return value - 0x10000 if value >= 0x8000 else value


def _hull_area(points: list[tuple[float, float]]) -> float:
    """Twice the area of the points' convex hull (Box2D computes a hull and asserts it is not degenerate)."""
    pts = sorted(set(points))
    if len(pts) < 3:
        return 0.0

    def cross(o: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[float, float]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[float, float]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    hull = lower[:-1] + upper[:-1]
    return abs(sum(hull[i][0] * hull[(i + 1) % len(hull)][1] - hull[(i + 1) % len(hull)][0] * hull[i][1]
                   for i in range(len(hull))))
