"""3D physics for the headless engine: Bullet through pybullet in DIRECT mode, driven by 57_physics3d.lua.

Lua owns Urho3D's components and events; this host owns the Bullet worlds.  Bodies are addressed by handles the
Lua side assigns in creation order (the order in which collision pairs are reported, see docs/physics.md).  Data
that crosses to Lua in bulk (transforms, contacts, raycast hits) is packed little-endian, so one host call moves a
whole step's worth and Lua reads it with string.unpack.

pybullet lacks a few of Bullet's knobs Urho3D uses, so they are emulated here (docs/physics.md says how):
collision layer and mask (pair filters, because pybullet rays ignore a body once its group/mask are set), triggers
(no pair collides with a trigger; overlaps come from closest-point queries), linear factor, per-body gravity, the
sphere cast (conservative advancement) and impulses (velocity changes from the body's mass and inertia).

The client is created lazily, at the first PhysicsWorld of a run, because runs are forked from a pre-booted state
(engine/_zygote.py) and a pybullet client must not be shared across a fork.
"""

from __future__ import annotations

import contextlib
import functools
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine._bullet_character import Character
from engine._bullet_rows import RowBody, Slider, solve
from engine._bullet_shapes import GEOMETRY_KINDS, HEIGHTFIELD_FRAME, SHAPE_TERRAIN, Geometry, ShapeError
from engine._bullet_shapes import bounds as geometry_bounds
from engine._bullet_shapes import create as create_geometry_shape
from engine._bullet_shapes import parse as parse_geometry
from engine._bullet_sweep import Pose, slerp, sweep
from engine._bullet_sync import Live, placed, sync, unrest
from engine._bullet_vehicle import Chassis, Vehicle, Wheel
from engine._vec3 import qrotate

SHAPE_BOX, SHAPE_SPHERE, SHAPE_STATICPLANE, SHAPE_CYLINDER, SHAPE_CAPSULE, SHAPE_CONE = range(6)
# Triangle meshes, convex hulls and terrain (kinds 6, 7, 8) come with their geometry: engine/_bullet_shapes.py
_CONE_SEGMENTS = 32
_CONTACT_THRESHOLD = 0.02   # Bullet's default contact breaking threshold (gContactBreakingThreshold)
_S2 = math.sqrt(0.5)
_Z_TO_Y = (-_S2, 0.0, 0.0, _S2)   # pybullet's cylinders and capsules run along Z, Urho3D's along Y (x, y, z, w)
_POINT = struct.Struct("<8f")
# pybullet cannot flag a body kinematic, and its solver ignores a static body's velocity: a kinematic body is a
# dynamic one this heavy, with no rotational inertia, no gravity, no contact with static or kinematic bodies, put
# back on its path after every step (docs/physics.md)
_KINEMATIC_MASS = 1.0e7
_STATE = struct.Struct("<i7d")
_SLIDER = 2   # Urho3D's CONSTRAINT_SLIDER
_CCD_ALLOWED_PENETRATION = 0.04   # Bullet's btDispatcherInfo::m_allowedCcdPenetration
_HIT = struct.Struct("<i7d")

# The solver settings every world gets: Bullet's own defaults as Urho3D's btDiscreteDynamicsWorld runs them,
# where pybullet's defaults differ (docs/physics.md, "Pinned settings").
SOLVER_SETTINGS: dict[str, Any] = {
    "numSubSteps": 0,                 # one Bullet step per stepSimulation: the fixed-step loop is ours
    "useSplitImpulse": 0,             # Urho3D turns split impulse off
    "erp": 0.2, "contactERP": 0.2, "frictionERP": 0.2, "globalCFM": 0.0,
    "contactBreakingThreshold": _CONTACT_THRESHOLD,
    "restitutionVelocityThreshold": 0.2,
    "solverResidualThreshold": 0.0,   # Bullet runs every iteration; pybullet would stop early at 1e-7
    "contactSlop": 0.0,
    "enableConeFriction": 0,
    "warmStartingFactor": 0.85,
    "deterministicOverlappingPairs": 1,
    "enableFileCaching": 0,
}


def _qmul(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> tuple[float, ...]:
    """Product of two (x, y, z, w) quaternions."""
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def _dot(a: Any, b: Any) -> float:
    return float(a[0] * b[0] + a[1] * b[1] + a[2] * b[2])


def _cross(a: Any, b: Any) -> tuple[float, float, float]:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def _matrix(q: tuple[float, ...]) -> list[list[float]]:
    x, y, z, w = q
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
            [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
            [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]]


@dataclass
class _Body:
    handle: int
    uid: int = -1
    mass: float = 0.0                 # Urho3D's mass (a kinematic body keeps it; Bullet gets 0)
    kinematic: bool = False
    trigger: bool = False
    layer: int = 1
    mask: int = 0xFFFF
    com: tuple[float, float, float] = (0.0, 0.0, 0.0)
    inv_inertia: tuple[float, float, float] = (0.0, 0.0, 0.0)
    lin_factor: tuple[float, float, float] = (1.0, 1.0, 1.0)
    ang_factor: tuple[float, float, float] = (1.0, 1.0, 1.0)
    inertia: tuple[float, float, float] = (0.0, 0.0, 0.0)
    gravity: tuple[float, float, float] | None = None   # None: the world's
    use_gravity: bool = True
    force: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    torque: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    last: tuple[Any, ...] | None = None    # the transform last written to the node
    prev: tuple[Any, ...] | None = None    # the transform before the last step (interpolation)
    fresh_step: int = 0               # active (Bullet's word) until the world has stepped past this step
    plane: bool = False
    kin_target: tuple[Any, ...] | None = None   # where its node moved to since the last step
    kin_pose: tuple[Any, ...] | None = None     # where it was put for the last step
    kin_velocity: tuple[Any, ...] = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0))   # (linear, angular) of the last step
    damping: tuple[float, float] = (0.0, 0.0)   # linear, angular (the rows predict the damped velocity)
    still: int = 0                    # steps in a row its transform has not changed at all
    resting: bool = False             # still long enough to stop reading it (engine/_bullet_sync.py)
    reach: float = 0.0                # its shapes' reach from its centre of mass
    plain: bool = True                # its centre of mass is its node's origin
    ccd: tuple[float, float] = (0.0, 0.0)       # swept sphere radius, motion threshold (0: no CCD)
    frame: tuple[float, float, float, float] | None = None   # a heightfield body's turn from its node (x, y, z, w)

    @property
    def dynamic(self) -> bool:
        return self.mass > 0.0 and not self.kinematic and not self.plane


@dataclass
class _Ghost:
    """A kinematic character: Bullet's controller state and the static body standing for its ghost object (it
    pushes dynamic bodies, nothing pushes it; it is in no collision event, ray or query, as Urho3D's ghost is not a
    RigidBody)."""
    core: Character
    uid: int
    radius: float           # the shape's reach from its centre (sweep bounds)
    layer: int = 1
    mask: int = 0xFFFF
    enabled: bool = True


@dataclass
class _Joint:
    """Urho3D's Constraint: a point (btPoint2PointConstraint), a hinge (two point constraints on its axis, and
    Bullet's angular limit as a velocity row before each step: pybullet joins maximal-coordinate bodies with point,
    fixed and gear constraints only), a cone-twist (a point and its limits likewise) or a slider (Bullet's rows,
    solved before each step by engine/_bullet_rows.py)."""
    kind: int
    own: int
    other: int | None
    frame_a: tuple[Any, ...]          # (position in the own body's centre-of-mass frame, rotation x y z w)
    frame_b: tuple[Any, ...]          # the same in the other body's frame, or in the world without one
    low: float = 0.0                  # hinge: the limits; cone-twist: low > high frees it
    high: float = 0.0                 # hinge: the high limit; cone-twist: the swing span
    low_twist: float = 0.0            # cone-twist: the twist span
    disable_collision: bool = False
    enabled: bool = True
    cids: list[int] = field(default_factory=list)
    slider: Slider | None = None      # a slider's rows (solved while `live`)
    live: bool = False


class _World:
    def __init__(self, p: Any) -> None:
        self.p = p
        self.cid = p.connect(p.DIRECT)
        self.bodies: dict[int, _Body] = {}
        self.by_uid: dict[int, _Body] = {}
        self.gravity = (0.0, -9.81, 0.0)
        self.shape_cache: dict[tuple[Any, ...], int] = {}
        self.fixed = 1.0 / 60.0
        self.iterations = 10
        self.split = False
        self.steps = 0
        self.dynamic: list[_Body] = []                  # the dynamic bodies, in handle order (sync)
        self.dynamic_dirty = False
        self.prestep: set[int] = set()                  # bodies with forces, own gravity, factors, or kinematic
        self.disabled: set[tuple[int, int]] = set()   # body pairs whose collision a pair filter disables
        self.joints: dict[int, _Joint] = {}
        self.jointed: set[tuple[int, int]] = set()     # body pairs a constraint keeps from colliding
        self.anchor = -1                               # a body-less static body: constraints to the world
        self.special: set[int] = set()                  # bodies with a trigger flag or a non-default layer/mask
        self.awake: set[int] = set()                    # bodies kept from sleeping (see _sleep_state)
        self.keep_awake: set[int] = set()               # ... for a reason other than a joint (vehicles)
        self.ccd: set[int] = set()                      # bodies with a CCD motion threshold
        self.resting: dict[int, tuple[int, int, int]] = {}   # resting bodies' handles and grid cells (sync)
        self.live: Live | None = None                  # the bodies sync reads and their state (_bullet_sync.py)
        self.cell = 1.0                                  # the resting grid's cell size
        self.query_shapes: dict[tuple[Any, ...], int] = {}   # the query bodies' shapes by kind and size
        self.vehicles: dict[int, Vehicle] = {}          # RaycastVehicle components, by the Lua side's number
        self.characters: dict[int, _Ghost] = {}         # kinematic characters, by the Lua side's number
        self.trigger_pairs: dict[tuple[int, int], tuple[list[bytes], list[bytes]]] = {}
        self.configure()

    def configure(self) -> None:
        p = self.p
        settings = dict(SOLVER_SETTINGS, fixedTimeStep=self.fixed, numSolverIterations=self.iterations,
                        useSplitImpulse=1 if self.split else 0)
        p.setPhysicsEngineParameter(physicsClientId=self.cid, **settings)
        p.setGravity(*self.gravity, physicsClientId=self.cid)

    def close(self) -> None:
        with contextlib.suppress(Exception):   # a client already gone is closed
            self.p.disconnect(physicsClientId=self.cid)


def _shape_aabb(kind: int, sx: float, sy: float, sz: float, margin: float,
                geometry: Geometry | None = None) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Centre and half extents of a child shape's AABB in its own frame, as Bullet computes them (margins
    included)."""
    centre = (0.0, 0.0, 0.0)
    if geometry is not None:
        return geometry_bounds(geometry, sx, sy, sz, margin)
    if kind == SHAPE_BOX:
        return centre, (sx * 0.5, sy * 0.5, sz * 0.5)
    if kind == SHAPE_SPHERE:
        r = sx * 0.5
        return centre, (r, r, r)
    if kind == SHAPE_CYLINDER:
        return centre, (sx * 0.5, sy * 0.5, sx * 0.5)
    if kind == SHAPE_CAPSULE:
        r = sx * 0.5
        return centre, (r, max(sy * 0.5, r), r)
    if kind == SHAPE_CONE:
        return centre, (sx * 0.5 + margin, sy * 0.5 + margin, sx * 0.5 + margin)
    return centre, (0.0, 0.0, 0.0)


def _shape_tuple(v: list[Any]) -> tuple[Any, ...]:
    """A shape row from 57_physics3d.lua (its shape_row): kind, scaled size, scaled offset, rotation (as x y z w),
    margin, and the parsed geometry of a mesh, hull or terrain (None for the primitives)."""
    kind = int(v[0])
    geometry = None
    if kind in GEOMETRY_KINDS:
        geometry = parse_geometry(kind, str(v[12]), int(v[13]), int(v[14]) if len(v) > 14 else 0)
    return (kind, float(v[1]), float(v[2]), float(v[3]), float(v[4]), float(v[5]), float(v[6]),
            (float(v[8]), float(v[9]), float(v[10]), float(v[7])), float(v[11]), geometry)


def _radius(shape: tuple[Any, ...]) -> float:
    """How far a shape reaches from its own origin."""
    kind, sx, sy, sz, *_rest = shape
    centre, half = _shape_aabb(kind, sx, sy, sz, shape[8], shape[9])
    return math.sqrt(sum((abs(c) + h) ** 2 for c, h in zip(centre, half, strict=True)))


class BulletHost:
    """The functions 57_physics3d.lua calls (`lua_api`); worlds are numbered from 1."""

    def __init__(self) -> None:
        self._p: Any = None
        self.worlds: dict[int, _World] = {}
        self._next = 1

    def _pybullet(self) -> Any:
        if self._p is None:
            self._p = import_pybullet()
        return self._p

    def lua_api(self) -> dict[str, Callable[..., Any]]:
        return {name: getattr(self, name) for name in (
            "world_new", "world_free", "world_set", "body_build", "body_free", "body_set_transform",
            "body_kinematic_target", "body_material", "body_factors", "body_gravity", "body_filter",
            "body_velocity", "body_set_velocity", "body_add_force", "body_impulse", "body_reset_forces",
            "body_activate", "body_is_active", "body_transform", "substep", "sync", "end_frame", "contacts",
            "raycast", "spherecast", "convexcast", "overlaps", "pybullet_settings", "constraint_build",
            "constraint_free", "vehicle_init", "vehicle_free", "vehicle_add_wheel", "vehicle_set", "vehicle_get",
            "vehicle_reset_suspension", "vehicle_wheel_transform", "vehicle_post_update", "character_init",
            "character_free", "character_set", "character_get", "character_jump", "character_place")}

    # -- worlds ------------------------------------------------------------------------------------------------
    def world_new(self) -> int:
        wid = self._next
        self._next += 1
        self.worlds[wid] = _World(self._pybullet())
        return wid

    def world_free(self, wid: int) -> None:
        world = self.worlds.pop(int(wid), None)
        if world is not None:
            world.close()

    def _world(self, wid: int) -> _World:
        world = self.worlds.get(int(wid))
        if world is None:
            raise ValueError(f"no physics world {wid}")
        return world

    def world_set(self, wid: int, gx: float, gy: float, gz: float, fps: int, iterations: int, split: bool) -> None:
        world = self._world(wid)
        world.gravity = (float(gx), float(gy), float(gz))
        world.fixed = 1.0 / float(fps)
        world.iterations = int(iterations)
        world.split = bool(split)
        world.configure()
        self._unrest(world)

    def pybullet_settings(self) -> str:
        return repr(sorted(SOLVER_SETTINGS.items()))

    # -- bodies ------------------------------------------------------------------------------------------------
    def _collision_shape(self, world: _World, shapes: list[tuple[Any, ...]], static: bool) -> int:
        """The pybullet shape of a body's shapes (made once per world and content: pybullet keeps shapes for good).
        A geometry shape among several is its box (pybullet builds a vertex mesh only as a body's only shape)."""
        key = (static, *(tuple(v.digest if isinstance(v, Geometry) else round(v, 12) if isinstance(v, float) else v
                               for v in s) for s in shapes))
        cached = world.shape_cache.get(key)
        if cached is not None:
            return cached
        p, cid = world.p, world.cid
        if len(shapes) == 1:
            kind, sx, sy, sz, ox, oy, oz, q, _margin, geometry = shapes[0]
            frame = {"collisionFramePosition": [ox, oy, oz], "collisionFrameOrientation": list(q),
                     "physicsClientId": cid}
            if geometry is not None:
                sid = create_geometry_shape(p, cid, geometry, sx, sy, sz, frame)
            elif kind == SHAPE_BOX:
                sid = p.createCollisionShape(p.GEOM_BOX, halfExtents=[sx * 0.5, sy * 0.5, sz * 0.5], **frame)
            elif kind == SHAPE_SPHERE:
                sid = p.createCollisionShape(p.GEOM_SPHERE, radius=sx * 0.5, **frame)
            elif kind == SHAPE_STATICPLANE:
                sid = p.createCollisionShape(p.GEOM_PLANE, planeNormal=[0, 1, 0], physicsClientId=cid)
            elif kind == SHAPE_CYLINDER:
                frame["collisionFrameOrientation"] = list(_qmul(q, _Z_TO_Y))
                sid = p.createCollisionShape(p.GEOM_CYLINDER, radius=sx * 0.5, height=sy, **frame)
            elif kind == SHAPE_CAPSULE:
                frame["collisionFrameOrientation"] = list(_qmul(q, _Z_TO_Y))
                r = sx * 0.5
                sid = p.createCollisionShape(p.GEOM_CAPSULE, radius=r, height=max(sy - sx, 0.0), **frame)
            elif kind == SHAPE_CONE:
                # pybullet has no cone: its convex hull over a 32-gon base (docs/physics.md)
                r, h = sx * 0.5, sy * 0.5
                verts = [[0.0, h, 0.0]] + [[r * math.cos(2 * math.pi * i / _CONE_SEGMENTS), -h,
                                            r * math.sin(2 * math.pi * i / _CONE_SEGMENTS)]
                                           for i in range(_CONE_SEGMENTS)]
                sid = p.createCollisionShape(p.GEOM_MESH, vertices=verts, **frame)
            else:
                raise ValueError(f"shape type {kind} is not supported")
        else:
            types, radii, halves, lengths, poss, orns = [], [], [], [], [], []
            for kind, sx, sy, sz, ox, oy, oz, q, margin, geometry in shapes:
                if geometry is not None:   # a mesh or hull among several shapes: its box (docs/physics.md)
                    centre, half = _shape_aabb(kind, sx, sy, sz, margin, geometry)
                    cw = qrotate(q, centre)
                    poss.append([ox + cw[0], oy + cw[1], oz + cw[2]])
                    types.append(p.GEOM_BOX)
                    radii.append(0.0)
                    halves.append([max(h, 0.005) for h in half])
                    lengths.append(0.0)
                    orns.append(list(q))
                    continue
                poss.append([ox, oy, oz])
                if kind == SHAPE_BOX:
                    types.append(p.GEOM_BOX)
                    radii.append(0.0)
                    halves.append([sx * 0.5, sy * 0.5, sz * 0.5])
                    lengths.append(0.0)
                    orns.append(list(q))
                elif kind == SHAPE_SPHERE:
                    types.append(p.GEOM_SPHERE)
                    radii.append(sx * 0.5)
                    halves.append([0.0, 0.0, 0.0])
                    lengths.append(0.0)
                    orns.append(list(q))
                elif kind in (SHAPE_CYLINDER, SHAPE_CAPSULE, SHAPE_CONE):
                    # a cone among several shapes is approximated by a cylinder (docs/physics.md)
                    capsule = kind == SHAPE_CAPSULE
                    types.append(p.GEOM_CAPSULE if capsule else p.GEOM_CYLINDER)
                    radii.append(sx * 0.5)
                    halves.append([0.0, 0.0, 0.0])
                    lengths.append(max(sy - sx, 0.0) if capsule else sy)
                    orns.append(list(_qmul(q, _Z_TO_Y)))
                else:
                    raise ValueError("a static plane cannot share a body with other shapes")
            sid = p.createCollisionShapeArray(types, radii=radii, halfExtents=halves, lengths=lengths,
                                              collisionFramePositions=poss, collisionFrameOrientations=orns,
                                              physicsClientId=cid)
        world.shape_cache[key] = sid
        return sid

    @staticmethod
    def _shape_margin(world: _World, uid: int, shapes: list[tuple[Any, ...]]) -> None:
        """A body whose only shape is a mesh, hull or terrain gets that shape's margin, as Urho3D sets it (0.04 by
        default: a hull is that much bigger than its points, a mesh's or terrain's triangles that much thicker
        against boxes and hulls); the primitives keep pybullet's 0.001 (docs/physics.md, "shape margin")."""
        if len(shapes) == 1 and shapes[0][9] is not None:
            world.p.changeDynamics(uid, -1, collisionMargin=shapes[0][8], physicsClientId=world.cid)

    def body_build(self, wid: int, handle: int, mass: float, kinematic: bool, trigger: bool, px: float, py: float,
                   pz: float, qw: float, qx: float, qy: float, qz: float, shapes_table: Any) -> str | None:
        """(Re)create body `handle` from its shapes (57_physics3d.lua's shape rows), keeping its velocity and forces.
        Returns why a shape was left out (for the log), or None."""
        world = self._world(wid)
        p, cid = world.p, world.cid
        handle = int(handle)
        old = world.bodies.get(handle)
        velocity = None
        if old is not None and old.uid >= 0:
            velocity = p.getBaseVelocity(old.uid, physicsClientId=cid)
            p.removeBody(old.uid, physicsClientId=cid)
            world.by_uid.pop(old.uid, None)
        body = old or _Body(handle)
        body.mass, body.kinematic, body.trigger = float(mass), bool(kinematic), bool(trigger)
        shapes = []
        warning = None
        for row in _lua_list(shapes_table):
            try:
                shapes.append(_shape_tuple(_lua_list(row)))
            except ShapeError as exc:
                warning = f"CollisionShape: {exc}"
        if any(s[0] == SHAPE_TERRAIN for s in shapes) and (len(shapes) > 1 or body.mass > 0.0 or body.kinematic):
            # pybullet's heightfield takes no collision frame, so its body is turned instead (HEIGHTFIELD_FRAME): it
            # must be the body's only shape, and the body static
            shapes = [s for s in shapes if s[0] != SHAPE_TERRAIN]
            warning = ("CollisionShape: a terrain is built only as the only shape of a static body (mass 0, not "
                       "kinematic): the terrain shape is left out")
        body.plane = any(s[0] == SHAPE_STATICPLANE for s in shapes)
        body.frame = None
        world.bodies[handle] = body
        if not shapes:
            body.uid = -1
            body.com, body.plain = (0.0, 0.0, 0.0), True
            return warning
        solid = [s for s in shapes if s[0] != SHAPE_STATICPLANE]
        n = len(solid) or 1
        com = (sum(s[4] for s in solid) / n, sum(s[5] for s in solid) / n, sum(s[6] for s in solid) / n)
        if body.plane:
            com = (0.0, 0.0, 0.0)
            shapes = [s for s in shapes if s[0] == SHAPE_STATICPLANE][:1]
        shifted = [(k, sx, sy, sz, ox - com[0], oy - com[1], oz - com[2], q, m, g)
                   for k, sx, sy, sz, ox, oy, oz, q, m, g in shapes]
        body.com = com
        body.plain = com == (0.0, 0.0, 0.0)
        # Inertia as Urho3D's compound shape computes it: a box the size of the shapes' joint AABB
        lo, hi = [math.inf] * 3, [-math.inf] * 3
        for k, sx, sy, sz, ox, oy, oz, q, m, g in shifted:
            centre, half = _shape_aabb(k, sx, sy, sz, m, g)
            basis = _matrix(q)
            cw = qrotate(q, centre)
            for i, o in enumerate((ox + cw[0], oy + cw[1], oz + cw[2])):
                extent = sum(abs(basis[i][j]) * half[j] for j in range(3))
                lo[i] = min(lo[i], o - extent)
                hi[i] = max(hi[i], o + extent)
        lx, ly, lz = (hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) if not body.plane else (0.0, 0.0, 0.0)
        body.reach = math.sqrt(max(max(abs(lo[i]), abs(hi[i])) for i in range(3)) ** 2 * 3) if not body.plane else 0.0
        m12 = body.mass / 12.0
        body.inertia = (m12 * (ly * ly + lz * lz), m12 * (lx * lx + lz * lz), m12 * (lx * lx + ly * ly))
        if shifted[0][0] == SHAPE_TERRAIN:   # its offset rotation turns the body, before the heightfield's frame
            body.frame = _qmul(shifted[0][7], HEIGHTFIELD_FRAME)  # type: ignore[assignment]
        sid = self._collision_shape(world, shifted, not body.dynamic and not body.kinematic)
        rot = (float(qx), float(qy), float(qz), float(qw))
        cw = qrotate(rot, com)
        bullet_mass = body.mass if body.dynamic else (_KINEMATIC_MASS if body.kinematic else 0.0)
        uid = p.createMultiBody(bullet_mass, sid, basePosition=[px + cw[0], py + cw[1], pz + cw[2]],
                                baseOrientation=list(self._turned(body, rot)), useMaximalCoordinates=True,
                                physicsClientId=cid)
        body.uid = uid
        world.by_uid[uid] = body
        self._shape_margin(world, uid, shifted)
        self._apply_inertia(world, body)
        if velocity is not None and body.dynamic:
            p.resetBaseVelocity(uid, velocity[0], velocity[1], physicsClientId=cid)
        placed(world, body, p.getBasePositionAndOrientation(uid, physicsClientId=cid))
        body.kin_pose = None
        body.fresh_step = world.steps
        self._unrest(world, body)
        self._refilter(world, body)
        self._classify(world, body)
        for jid, joint in sorted(world.joints.items()):
            if handle in (joint.own, joint.other):
                self._make_joint(world, jid)
        return warning

    @staticmethod
    def _turned(body: _Body, rot: Any) -> tuple[float, ...]:
        """The Bullet body's orientation for its node's rotation `rot` (x y z w): turned by a heightfield's frame."""
        return tuple(rot) if body.frame is None else _qmul(rot, body.frame)

    @staticmethod
    def _unturned(body: _Body, orn: Any) -> Any:
        """The node's rotation for the Bullet body's orientation `orn`."""
        if body.frame is None:
            return orn
        fx, fy, fz, fw = body.frame
        return _qmul(orn, (-fx, -fy, -fz, fw))

    def _classify(self, world: _World, body: _Body) -> None:
        """Keep the lists the step walks: dynamic bodies (sync), and those needing work before a step."""
        world.dynamic_dirty = True
        special = body.uid >= 0 and (body.kinematic or (body.dynamic and (
            body.force != [0.0, 0.0, 0.0] or body.torque != [0.0, 0.0, 0.0] or not body.use_gravity
            or body.gravity is not None or body.lin_factor != (1.0, 1.0, 1.0))))
        if special:
            world.prestep.add(body.handle)
        else:
            world.prestep.discard(body.handle)

    def _apply_inertia(self, world: _World, body: _Body) -> None:
        if body.kinematic and body.uid >= 0:
            body.inv_inertia = (0.0, 0.0, 0.0)
            world.p.changeDynamics(body.uid, -1, mass=_KINEMATIC_MASS, localInertiaDiagonal=[0.0, 0.0, 0.0],
                                   activationState=world.p.ACTIVATION_STATE_DISABLE_SLEEPING,
                                   physicsClientId=world.cid)
            return
        if not body.dynamic:
            body.inv_inertia = (0.0, 0.0, 0.0)
            return
        # the angular factor scales the inverse inertia (exact for factors 0 and 1 about the body's axes)
        inv = tuple((f / i if i > 0.0 else 0.0) for f, i in zip(body.ang_factor, body.inertia, strict=True))
        body.inv_inertia = inv  # type: ignore[assignment]
        diag = [1.0 / v if v > 0.0 else 0.0 for v in inv]
        # (pybullet needs the mass beside the inertia, or it makes a maximal-coordinates body's mass infinite)
        world.p.changeDynamics(body.uid, -1, mass=body.mass, localInertiaDiagonal=diag,
                               activationState=self._sleep_state(world, body), physicsClientId=world.cid)

    @staticmethod
    def _sleep_state(world: _World, body: _Body) -> int:
        """Bodies whose joints are solved here never sleep: Bullet would keep a jointed pair in one island and
        wake it together, which pybullet cannot be told about rows it does not solve."""
        if body.handle in world.awake:
            return int(world.p.ACTIVATION_STATE_DISABLE_SLEEPING)
        return int(world.p.ACTIVATION_STATE_ENABLE_SLEEPING)

    def _set_awake(self, world: _World) -> None:
        """Recompute which bodies must stay awake (a live slider's) and tell pybullet of each change."""
        need = set()
        for joint in world.joints.values():
            if joint.slider is not None:
                need.add(joint.own)
                if joint.other is not None:
                    need.add(joint.other)
        need |= world.keep_awake
        changed = need ^ world.awake
        world.awake = need
        for handle in sorted(changed):
            body = world.bodies.get(handle)
            if body is not None and body.uid >= 0 and body.dynamic:
                world.p.changeDynamics(body.uid, -1, activationState=self._sleep_state(world, body),
                                       physicsClientId=world.cid)
                if handle in need:
                    self._wake(world, body)

    def _collides(self, a: _Body, b: _Body, world: _World | None = None) -> bool:
        if world is not None and (min(a.handle, b.handle), max(a.handle, b.handle)) in world.jointed:
            return False
        if a.trigger or b.trigger:
            return False
        if not a.dynamic and not b.dynamic:
            return False   # static and kinematic bodies never touch in Bullet
        return bool(a.layer & b.mask) and bool(b.layer & a.mask)

    def _refilter(self, world: _World, body: _Body) -> None:
        """Disable Bullet's collision between `body` and every body its layer/mask or a trigger excludes (pair
        filters: only bodies with a non-default filter need looking at, so a thousand plain bodies stay cheap)."""
        for key in [k for k in world.disabled if body.handle in k]:
            world.disabled.discard(key)   # filters lapse with the old Bullet body; set again below
        special = (body.trigger or body.kinematic or body.layer != 1 or body.mask != 0xFFFF
                   or any(body.handle in k for k in world.jointed))
        if special:
            world.special.add(body.handle)
        else:
            world.special.discard(body.handle)
        if body.uid < 0:
            return
        p, cid = world.p, world.cid
        others = world.bodies.values() if special else [world.bodies[h] for h in sorted(world.special)]
        # two bodies Bullet holds static never meet (its broadphase keeps static bodies apart), so their pair needs
        # no filter: a thousand static bodies on a layer of their own stay cheap
        fixed = not body.dynamic and not body.kinematic
        for other in others:
            if other is body or other.uid < 0 or (fixed and not other.dynamic and not other.kinematic):
                continue
            key = (min(body.handle, other.handle), max(body.handle, other.handle))
            if not self._collides(body, other, world):
                if key not in world.disabled:
                    p.setCollisionFilterPair(body.uid, other.uid, -1, -1, 0, physicsClientId=cid)
                    world.disabled.add(key)
            elif key in world.disabled:
                p.setCollisionFilterPair(body.uid, other.uid, -1, -1, 1, physicsClientId=cid)
                world.disabled.discard(key)

    def body_filter(self, wid: int, handle: int, layer: int, mask: int, trigger: bool) -> None:
        world = self._world(wid)
        body = world.bodies.get(int(handle))
        if body is None:
            return
        body.layer, body.mask, body.trigger = int(layer) & 0xFFFF, int(mask) & 0xFFFF, bool(trigger)
        self._refilter(world, body)
        self._unrest(world)

    def body_free(self, wid: int, handle: int) -> None:
        world = self.worlds.get(int(wid))
        if world is None:
            return
        body = world.bodies.pop(int(handle), None)
        if body is not None and body.uid >= 0:
            world.by_uid.pop(body.uid, None)
            world.p.removeBody(body.uid, physicsClientId=world.cid)
        if body is not None:
            world.special.discard(body.handle)
            world.prestep.discard(body.handle)
            world.disabled = {k for k in world.disabled if body.handle not in k}
            world.dynamic_dirty = True
            self._unrest(world)

    def _body(self, wid: int, handle: int) -> tuple[_World, _Body | None]:
        world = self._world(wid)
        body = world.bodies.get(int(handle))
        if body is not None and body.uid < 0:
            return world, None
        return world, body

    def body_set_transform(self, wid: int, handle: int, px: float, py: float, pz: float, qw: float, qx: float,
                           qy: float, qz: float) -> None:
        """Teleport: the node moved (Urho3D's RigidBody::OnMarkedDirty)."""
        world, body = self._body(wid, handle)
        if body is None:
            return
        rot = (float(qx), float(qy), float(qz), float(qw))
        cw = qrotate(rot, body.com)
        # Urho3D moves the body's world transform and keeps its velocities; pybullet's reset zeroes them
        linear, angular = world.p.getBaseVelocity(body.uid, physicsClientId=world.cid)
        world.p.resetBasePositionAndOrientation(body.uid, [px + cw[0], py + cw[1], pz + cw[2]],
                                                list(self._turned(body, rot)), physicsClientId=world.cid)
        world.p.resetBaseVelocity(body.uid, linear, angular, physicsClientId=world.cid)
        placed(world, body, world.p.getBasePositionAndOrientation(body.uid, physicsClientId=world.cid))
        self._unrest(world)

    def body_kinematic_target(self, wid: int, handle: int, px: float, py: float, pz: float, qw: float, qx: float,
                              qy: float, qz: float) -> None:
        """A kinematic body's node moved: Bullet moves it at the next step with the velocity that takes it there."""
        _world, body = self._body(wid, handle)
        if body is None:
            return
        rot = (float(qx), float(qy), float(qz), float(qw))
        cw = qrotate(rot, body.com)
        body.kin_target = ((px + cw[0], py + cw[1], pz + cw[2]), rot)

    def body_material(self, wid: int, handle: int, friction: float, rolling: float, restitution: float,
                      lin_damping: float, ang_damping: float, ccd_radius: float = 0.0,
                      ccd_threshold: float = 0.0) -> None:
        world, body = self._body(wid, handle)
        if body is None:
            return
        self._unrest(world, body)
        body.ccd = (max(float(ccd_radius), 0.0), max(float(ccd_threshold), 0.0))
        if body.ccd[1] > 0.0:
            world.ccd.add(body.handle)
        else:
            world.ccd.discard(body.handle)
        world.p.changeDynamics(body.uid, -1, lateralFriction=friction, rollingFriction=rolling, spinningFriction=0.0,
                               restitution=restitution, linearDamping=lin_damping, angularDamping=ang_damping,
                               physicsClientId=world.cid)
        body.damping = (min(max(float(lin_damping), 0.0), 1.0), min(max(float(ang_damping), 0.0), 1.0))

    def body_factors(self, wid: int, handle: int, lx: float, ly: float, lz: float, ax: float, ay: float,
                     az: float) -> None:
        world = self._world(wid)
        body = world.bodies.get(int(handle))
        if body is None:
            return
        self._unrest(world, body)
        body.lin_factor = (float(lx), float(ly), float(lz))
        body.ang_factor = (float(ax), float(ay), float(az))
        if body.uid >= 0:
            self._apply_inertia(world, body)
        self._classify(world, body)

    def body_gravity(self, wid: int, handle: int, use: bool, has_override: bool, gx: float, gy: float,
                     gz: float) -> None:
        world = self._world(wid)
        body = world.bodies.get(int(handle))
        if body is None:
            return
        self._unrest(world, body)
        body.use_gravity = bool(use)
        body.gravity = (float(gx), float(gy), float(gz)) if has_override else None
        self._classify(world, body)

    def body_velocity(self, wid: int, handle: int) -> tuple[float, ...]:
        world, body = self._body(wid, handle)
        if body is None:
            return (0.0,) * 6
        lin, ang = world.p.getBaseVelocity(body.uid, physicsClientId=world.cid)
        return (*lin, *ang)

    def body_set_velocity(self, wid: int, handle: int, angular: bool, x: float, y: float, z: float) -> None:
        world, body = self._body(wid, handle)
        if body is None:
            return
        if angular:
            world.p.resetBaseVelocity(body.uid, angularVelocity=[x, y, z], physicsClientId=world.cid)
        else:
            world.p.resetBaseVelocity(body.uid, linearVelocity=[x, y, z], physicsClientId=world.cid)
        if x != 0.0 or y != 0.0 or z != 0.0:
            self._wake(world, body)

    def _wake(self, world: _World, body: _Body) -> None:
        if body.dynamic:
            world.p.changeDynamics(body.uid, -1, activationState=world.p.ACTIVATION_STATE_WAKE_UP,
                                   physicsClientId=world.cid)
            body.fresh_step = world.steps
        self._unrest(world, body)

    @staticmethod
    def _unrest(world: _World, body: _Body | None = None) -> None:
        """Read `body` (or every resting body) again from the next sync on: something may move it."""
        unrest(world, body)

    def body_add_force(self, wid: int, handle: int, fx: float, fy: float, fz: float, tx: float, ty: float,
                       tz: float) -> None:
        """Accumulate a force and torque (world frame) until the frame's steps end, as Bullet's clearForces."""
        world, body = self._body(wid, handle)
        if body is None or not body.dynamic:
            return
        lf = body.lin_factor
        body.force[0] += fx * lf[0]
        body.force[1] += fy * lf[1]
        body.force[2] += fz * lf[2]
        body.torque[0] += tx
        body.torque[1] += ty
        body.torque[2] += tz
        world.prestep.add(body.handle)
        self._wake(world, body)

    def body_reset_forces(self, wid: int, handle: int) -> None:
        world = self._world(wid)
        body = world.bodies.get(int(handle))
        if body is not None:
            body.force = [0.0, 0.0, 0.0]
            body.torque = [0.0, 0.0, 0.0]
            self._classify(world, body)

    def body_impulse(self, wid: int, handle: int, ix: float, iy: float, iz: float, tx: float, ty: float,
                     tz: float) -> None:
        """An impulse through the centre of mass plus an angular impulse (world frame): Bullet's applyImpulse."""
        world, body = self._body(wid, handle)
        if body is None or not body.dynamic:
            return
        p, cid = world.p, world.cid
        lin, ang = p.getBaseVelocity(body.uid, physicsClientId=cid)
        inv_m = 1.0 / body.mass
        lf = body.lin_factor
        lin = (lin[0] + ix * inv_m * lf[0], lin[1] + iy * inv_m * lf[1], lin[2] + iz * inv_m * lf[2])
        if tx != 0.0 or ty != 0.0 or tz != 0.0:
            _, orn = p.getBasePositionAndOrientation(body.uid, physicsClientId=cid)
            r = _matrix(orn)
            local = [r[0][i] * tx + r[1][i] * ty + r[2][i] * tz for i in range(3)]
            local = [local[i] * body.inv_inertia[i] for i in range(3)]
            dw = [sum(r[i][j] * local[j] for j in range(3)) for i in range(3)]
            ang = (ang[0] + dw[0], ang[1] + dw[1], ang[2] + dw[2])
        p.resetBaseVelocity(body.uid, list(lin), list(ang), physicsClientId=cid)
        self._wake(world, body)

    def body_activate(self, wid: int, handle: int) -> None:
        world, body = self._body(wid, handle)
        if body is not None:
            self._wake(world, body)

    def body_is_active(self, wid: int, handle: int) -> bool:
        world, body = self._body(wid, handle)
        if body is not None and body.kinematic:
            return True   # Urho3D keeps kinematic bodies from sleeping
        if body is None or not body.dynamic:
            return False
        if world.steps <= body.fresh_step:
            return True
        # pybullet does not report activation states; a sleeping Bullet body has exactly zero velocities
        lin, ang = world.p.getBaseVelocity(body.uid, physicsClientId=world.cid)
        return any(v != 0.0 for v in lin) or any(v != 0.0 for v in ang)

    def body_transform(self, wid: int, handle: int) -> tuple[float, ...]:
        """The body's node transform now: position (centre of mass minus its offset) and rotation (w, x, y, z)."""
        world, body = self._body(wid, handle)
        if body is None:
            return (math.nan,) * 7
        pos, orn = world.p.getBasePositionAndOrientation(body.uid, physicsClientId=world.cid)
        orn = self._unturned(body, orn)
        cw = qrotate(orn, body.com)
        return (pos[0] - cw[0], pos[1] - cw[1], pos[2] - cw[2], orn[3], orn[0], orn[1], orn[2])

    # -- constraints -------------------------------------------------------------------------------------------
    def constraint_build(self, wid: int, jid: int, kind: int, own: int, other: int, ax: float, ay: float,
                         az: float, aqw: float, aqx: float, aqy: float, aqz: float, bx: float, by: float, bz: float,
                         bqw: float, bqx: float, bqy: float, bqz: float, low: float, high: float, disable: bool,
                         enabled: bool, twist: float = 0.0, low2: float = 0.0, high2: float = 0.0, erp: float = 0.0,
                         cfm: float = 0.0) -> None:
        """(Re)create constraint `jid`: positions are scaled node-frame positions (the other's in the world when
        `other` is 0), as Urho3D's Constraint hands them over before subtracting the centres of mass.  A slider's
        `low`/`high` are its travel limits (m), `low2`/`high2` its turn limits (radians), `erp`/`cfm` Urho3D's
        (Bullet's slider applies them to its travel limit)."""
        world = self._world(wid)
        jid = int(jid)
        self._drop_joint(world, jid)
        self._unrest(world)
        own_body = world.bodies.get(int(own))
        other_body = world.bodies.get(int(other)) if int(other) else None
        if own_body is None:
            return
        pa = (ax - own_body.com[0], ay - own_body.com[1], az - own_body.com[2])
        pb = (bx, by, bz)
        if other_body is not None:
            pb = (bx - other_body.com[0], by - other_body.com[1], bz - other_body.com[2])
        frame_a = self._body_frame(own_body, pa, (aqx, aqy, aqz, aqw))
        frame_b = self._body_frame(other_body, pb, (bqx, bqy, bqz, bqw))
        joint = _Joint(int(kind), own_body.handle, other_body.handle if other_body else None, frame_a, frame_b,
                       float(low), float(high), float(twist), bool(disable), bool(enabled))
        if joint.kind == _SLIDER:
            joint.slider = Slider(joint.frame_a, joint.frame_b, float(low), float(high), float(low2), float(high2),
                                  float(erp), float(cfm))
        world.joints[jid] = joint
        if joint.disable_collision and other_body is not None:
            world.jointed.add((min(joint.own, other_body.handle), max(joint.own, other_body.handle)))
            self._refilter(world, own_body)
            self._refilter(world, other_body)
        self._make_joint(world, jid)

    @staticmethod
    def _body_frame(body: _Body | None, pos: Any, rot: Any) -> tuple[Any, ...]:
        """A constraint frame given in the body's node frame, in the Bullet body's own (a heightfield's is turned)."""
        if body is None or body.frame is None:
            return (pos, rot)
        fx, fy, fz, fw = body.frame
        inverse = (-fx, -fy, -fz, fw)
        return (qrotate(inverse, pos), _qmul(inverse, rot))

    def constraint_free(self, wid: int, jid: int) -> None:
        world = self.worlds.get(int(wid))
        if world is not None:
            self._drop_joint(world, int(jid))

    def _drop_joint(self, world: _World, jid: int) -> None:
        joint = world.joints.pop(jid, None)
        if joint is None:
            return
        if joint.slider is not None:
            self._set_awake(world)
        for cid in joint.cids:
            with contextlib.suppress(Exception):   # gone with a removed body
                world.p.removeConstraint(cid, physicsClientId=world.cid)
        if joint.other is not None and joint.disable_collision:
            key = (min(joint.own, joint.other), max(joint.own, joint.other))
            if not any(j.disable_collision and j.other is not None and (min(j.own, j.other), max(j.own, j.other))
                       == key for j in world.joints.values()):
                world.jointed.discard(key)
                for h in key:
                    if h in world.bodies:
                        self._refilter(world, world.bodies[h])

    def _make_joint(self, world: _World, jid: int) -> None:
        p, cid = world.p, world.cid
        joint = world.joints[jid]
        for old in joint.cids:
            with contextlib.suppress(Exception):
                p.removeConstraint(old, physicsClientId=cid)
        joint.cids = []
        own = world.bodies.get(joint.own)
        other = world.bodies.get(joint.other) if joint.other is not None else None
        live = own is not None and own.uid >= 0 and joint.enabled and (joint.other is None or (
            other is not None and other.uid >= 0))
        if joint.kind == _SLIDER:
            joint.live = live
            self._set_awake(world)
            return
        if not live or own is None:
            return
        if other is None:
            if world.anchor < 0:
                world.anchor = p.createMultiBody(0.0, -1, basePosition=[0, 0, 0], useMaximalCoordinates=True,
                                                 physicsClientId=cid)
            other_uid = world.anchor
        else:
            other_uid = other.uid
        (pa, qa), (pb, qb) = joint.frame_a, joint.frame_b
        pivots = [(pa, pb)]
        if joint.kind == 1:   # hinge: two points on its axis (the frames' Z), 0.1 m either side: closer points snap
            # less when the frames start out of line (a 0.5 m pair threw physics_vehicle's car apart)
            za, zb = qrotate(qa, (0.0, 0.0, 0.1)), qrotate(qb, (0.0, 0.0, 0.1))
            pivots = [(tuple(pa[i] + za[i] for i in range(3)), tuple(pb[i] + zb[i] for i in range(3))),
                      (tuple(pa[i] - za[i] for i in range(3)), tuple(pb[i] - zb[i] for i in range(3)))]
        for a, b in pivots:
            c = p.createConstraint(own.uid, -1, other_uid, -1, p.JOINT_POINT2POINT, [0, 0, 0], list(a), list(b),
                                   physicsClientId=cid)
            p.changeConstraint(c, maxForce=1e30, physicsClientId=cid)   # Bullet's point constraint: no clamp
            joint.cids.append(c)

    def _joint_limits(self, world: _World, dt: float) -> None:
        """Bullet's angular limits as velocity rows before the step: a hinge's angle about its axis, a cone-twist's
        swing (between the frames' X axes) and twist (about the own frame's X).  The relative spin along the row's
        axis is cut so the angle reaches its limit and stops there; a violation is corrected by ERP 0.2."""
        p, cid = world.p, world.cid
        for _jid, joint in sorted(world.joints.items()):
            if joint.kind not in (1, 3) or not joint.cids or joint.low > joint.high:
                continue
            own = world.bodies[joint.own]
            other = world.bodies.get(joint.other) if joint.other is not None else None
            orn_a = p.getBasePositionAndOrientation(own.uid, cid)[1]
            orn_b = (0.0, 0.0, 0.0, 1.0) if other is None else p.getBasePositionAndOrientation(other.uid, cid)[1]
            fa, fb = _qmul(orn_a, joint.frame_a[1]), _qmul(orn_b, joint.frame_b[1])
            rows: list[tuple[tuple[float, float, float], float, float, float]] = []
            if joint.kind == 1:
                ref0, ref1 = qrotate(fa, (1.0, 0.0, 0.0)), qrotate(fa, (0.0, 1.0, 0.0))
                swing = qrotate(fb, (0.0, 1.0, 0.0))
                angle = math.atan2(_dot(swing, ref0), _dot(swing, ref1))
                rows.append((qrotate(fa, (0.0, 0.0, 1.0)), angle, joint.low, joint.high))
            else:
                xa, xb = qrotate(fa, (1.0, 0.0, 0.0)), qrotate(fb, (1.0, 0.0, 0.0))
                n = _cross(xb, xa)
                sn = math.sqrt(_dot(n, n))
                swing_angle = math.atan2(sn, _dot(xa, xb))
                if sn > 1e-9:
                    rows.append((tuple(v / sn for v in n), swing_angle, -math.inf, joint.high))  # type: ignore[arg-type]
                # twist: the other frame's Y seen about the own frame's X
                ya, za, yb = qrotate(fa, (0.0, 1.0, 0.0)), qrotate(fa, (0.0, 0.0, 1.0)), qrotate(fb, (0.0, 1.0, 0.0))
                twist = -math.atan2(_dot(yb, za), _dot(yb, ya))
                rows.append((xa, twist, -joint.low_twist, joint.low_twist))
            for axis, angle, low, high in rows:
                self._limit_row(world, joint, own, other, orn_a, axis, angle, low, high, dt)

    def _limit_row(self, world: _World, joint: _Joint, own: _Body, other: _Body | None, orn_a: Any,
                   axis: tuple[float, float, float], angle: float, low: float, high: float, dt: float) -> None:
        p, cid = world.p, world.cid
        wa = p.getBaseVelocity(own.uid, cid)[1]
        wb = (0.0, 0.0, 0.0) if other is None else p.getBaseVelocity(other.uid, cid)[1]
        # the angle grows with the own body's spin about the axis relative to the other's
        rel = sum((wa[i] - wb[i]) * axis[i] for i in range(3))
        if angle + rel * dt > high:
            target = (high - angle) / dt if angle <= high else (high - angle) * 0.2 / dt
            if rel <= target:
                return
        elif angle + rel * dt < low:
            target = (low - angle) / dt if angle >= low else (low - angle) * 0.2 / dt
            if rel >= target:
                return
        else:
            return
        k = self._inv_inertia_along(own, orn_a, axis)
        if other is not None and other.dynamic:
            k += self._inv_inertia_along(other, p.getBasePositionAndOrientation(other.uid, cid)[1], axis)
        if k <= 0.0:
            return
        impulse = (target - rel) / k    # angular impulse on the own body about the axis (minus on the other)
        pos_a = p.getBasePositionAndOrientation(own.uid, cid)[0]
        pivot = tuple(pos_a[i] + v for i, v in enumerate(qrotate(orn_a, joint.frame_a[0])))
        self._spin(world, own, pos_a, orn_a, pivot, axis, impulse)
        if other is not None and other.dynamic:
            pos_b, orn_b = p.getBasePositionAndOrientation(other.uid, cid)
            self._spin(world, other, pos_b, orn_b, pivot, axis, -impulse)

    def _joint_rows(self, world: _World, dt: float) -> None:
        """The sliders' rows, solved on the velocities the bodies will have after this step's damping and external
        impulse, the changes written back before the step (engine/_bullet_rows.py)."""
        sliders = [j for _jid, j in sorted(world.joints.items()) if j.slider is not None and j.live]
        if not sliders:
            return
        states: dict[int, tuple[_Body, RowBody, tuple[Any, Any]]] = {}
        rows = []
        for joint in sliders:
            own = self._row_body(world, world.bodies[joint.own], dt, states)
            other = (RowBody((0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)) if joint.other is None
                     else self._row_body(world, world.bodies[joint.other], dt, states))
            assert joint.slider is not None
            rows.extend(joint.slider.rows(own, other, dt, SOLVER_SETTINGS["erp"]))
        solve(rows, world.iterations)
        p, cid = world.p, world.cid
        for handle in sorted(states):
            body, rb, (lin, ang) = states[handle]
            if not body.dynamic or (rb.dv == [0.0, 0.0, 0.0] and rb.dw == [0.0, 0.0, 0.0]):
                continue
            # the change is wanted after damping, which Bullet applies to the velocity written here
            dl = (1.0 - body.damping[0]) ** dt
            da = (1.0 - body.damping[1]) ** dt
            dl = dl if dl > 0.0 else 1.0
            da = da if da > 0.0 else 1.0
            p.resetBaseVelocity(body.uid, [lin[i] + rb.dv[i] / dl for i in range(3)],
                                [ang[i] + rb.dw[i] / da for i in range(3)], physicsClientId=cid)

    def _row_body(self, world: _World, body: _Body, dt: float,
                  states: dict[int, tuple[_Body, RowBody, tuple[Any, Any]]]) -> RowBody:
        known = states.get(body.handle)
        if known is not None:
            return known[1]
        p, cid = world.p, world.cid
        pos, orn = p.getBasePositionAndOrientation(body.uid, cid)
        lin, ang = p.getBaseVelocity(body.uid, cid)
        if not body.dynamic:   # static or kinematic: moves as it was told to, takes no impulse
            rb = RowBody(tuple(pos), tuple(orn), tuple(lin), tuple(ang))
            states[body.handle] = (body, rb, (lin, ang))
            return rb
        world_inv = _world_inv_inertia(body, orn)
        dl, da = (1.0 - body.damping[0]) ** dt, (1.0 - body.damping[1]) ** dt
        g = world.gravity
        if not body.use_gravity:
            g = (0.0, 0.0, 0.0)
        elif body.gravity is not None:
            g = body.gravity
        lf, m = body.lin_factor, body.mass
        v = tuple(lin[i] * dl + (g[i] * lf[i] + body.force[i] / m) * dt for i in range(3))
        tq = body.torque
        w = tuple(ang[i] * da + sum(world_inv[i][k] * tq[k] for k in range(3)) * dt for i in range(3))
        rb = RowBody(tuple(pos), tuple(orn), v, w, 1.0 / m, lf, world_inv)
        states[body.handle] = (body, rb, (lin, ang))
        return rb

    @staticmethod
    def _inv_inertia_along(body: _Body, orn: Any, axis: tuple[float, float, float]) -> float:
        if not body.dynamic:
            return 0.0
        r = _matrix(orn)
        local = [r[0][i] * axis[0] + r[1][i] * axis[1] + r[2][i] * axis[2] for i in range(3)]
        return sum(body.inv_inertia[i] * local[i] * local[i] for i in range(3))

    def _spin(self, world: _World, body: _Body, pos: Any, orn: Any, pivot: tuple[float, ...],
              axis: tuple[float, float, float], impulse: float) -> None:
        """Change the body's spin about `axis` by an angular impulse, turning about the hinge's pivot (its centre
        of mass moves with the spin, as the hinge's point rows would make it)."""
        if not body.dynamic:
            return
        r = _matrix(orn)
        local = [r[0][i] * axis[0] + r[1][i] * axis[1] + r[2][i] * axis[2] for i in range(3)]
        local = [local[i] * body.inv_inertia[i] * impulse for i in range(3)]
        dw = [sum(r[i][j] * local[j] for j in range(3)) for i in range(3)]
        arm = [pos[i] - pivot[i] for i in range(3)]
        dv = [dw[1] * arm[2] - dw[2] * arm[1], dw[2] * arm[0] - dw[0] * arm[2], dw[0] * arm[1] - dw[1] * arm[0]]
        lin, ang = world.p.getBaseVelocity(body.uid, world.cid)
        world.p.resetBaseVelocity(body.uid, [lin[i] + dv[i] for i in range(3)], [ang[i] + dw[i] for i in range(3)],
                                  physicsClientId=world.cid)

    # -- stepping ----------------------------------------------------------------------------------------------
    def substep(self, wid: int, dt: float) -> None:
        """One fixed Bullet step of `dt` seconds, with the forces, gravity and factors Bullet would apply."""
        world = self._world(wid)
        p, cid = world.p, world.cid
        dt = float(dt)
        factored = []
        g = world.gravity
        world.steps += 1
        for handle in sorted(world.prestep):
            body = world.bodies[handle]
            if body.uid < 0:
                continue
            if body.kinematic:
                self._kinematic_step(world, body, dt)
                continue
            if not body.dynamic:
                continue
            fx, fy, fz = body.force
            if not body.use_gravity or body.gravity is not None:
                bg = body.gravity if body.gravity is not None else g
                if not body.use_gravity:
                    bg = (0.0, 0.0, 0.0)
                lf, m = body.lin_factor, body.mass
                fx += (bg[0] - g[0]) * m * lf[0]
                fy += (bg[1] - g[1]) * m * lf[1]
                fz += (bg[2] - g[2]) * m * lf[2]
            if fx != 0.0 or fy != 0.0 or fz != 0.0:
                pos, _ = p.getBasePositionAndOrientation(body.uid, physicsClientId=cid)
                p.applyExternalForce(body.uid, -1, [fx, fy, fz], pos, p.WORLD_FRAME, physicsClientId=cid)
            if body.torque != [0.0, 0.0, 0.0]:
                p.applyExternalTorque(body.uid, -1, body.torque, p.WORLD_FRAME, physicsClientId=cid)
            if body.lin_factor != (1.0, 1.0, 1.0):
                pos, _orn = p.getBasePositionAndOrientation(body.uid, physicsClientId=cid)
                lin, _ = p.getBaseVelocity(body.uid, physicsClientId=cid)
                factored.append((body, pos, lin))
        if world.joints:
            self._joint_limits(world, dt)
            self._joint_rows(world, dt)
        if world.special:
            self._trigger_contacts(world)
        before = {h: p.getBasePositionAndOrientation(world.bodies[h].uid, cid) for h in sorted(world.ccd)
                  if world.bodies[h].dynamic and world.bodies[h].uid >= 0}
        p.stepSimulation(physicsClientId=cid)
        self._kinematic_settle(world)
        for body, pos0, lin0 in factored:
            pos1, orn1 = p.getBasePositionAndOrientation(body.uid, physicsClientId=cid)
            lin1, ang1 = p.getBaseVelocity(body.uid, physicsClientId=cid)
            lin = [lin0[i] + (lin1[i] - lin0[i]) * body.lin_factor[i] for i in range(3)]
            pos = [pos1[i] if body.lin_factor[i] == 1.0 else pos0[i] + lin[i] * dt for i in range(3)]
            p.resetBasePositionAndOrientation(body.uid, pos, orn1, physicsClientId=cid)
            p.resetBaseVelocity(body.uid, lin, ang1, physicsClientId=cid)
        if before:
            self._continuous(world, before)
        if world.vehicles:
            self._drive(world, dt)
        if world.characters:
            self._walk(world, dt)

    # -- RaycastVehicle (engine/_bullet_vehicle.py) --------------------------------------------------------------
    def _chassis(self, world: _World, body: _Body) -> Chassis:
        p, cid = world.p, world.cid
        pos, orn = p.getBasePositionAndOrientation(body.uid, cid)
        lin, ang = p.getBaseVelocity(body.uid, cid)
        return Chassis(tuple(pos), tuple(orn), tuple(lin), tuple(ang), 1.0 / body.mass, _world_inv_inertia(body, orn),
                       body.lin_factor)

    def _wheel_ray(self, world: _World, source: Any, target: Any) -> tuple[Any, Any, float] | None:
        """Bullet's btDefaultVehicleRaycaster: the nearest body the ray may hit (the callback's group is 1, its mask
        all bits), and no hit when that body is a trigger."""
        p, cid = world.p, world.cid
        a, b = [list(source)], [list(target)]
        (hit,) = p.rayTestBatch(a, b, physicsClientId=cid)
        if hit[0] < 0:
            return None
        hits = [hit]
        eligible = self._wheel_sees(world.by_uid.get(hit[0]))
        if not eligible:   # the nearest is filtered out: the nearest of all the hits that is not
            hits = []
            for k in range(256):
                (more,) = p.rayTestBatch(a, b, reportHitNumber=k, physicsClientId=cid)
                if more[0] < 0:
                    break
                if self._wheel_sees(world.by_uid.get(more[0])):
                    hits.append(more)
            if not hits:
                return None
            hits.sort(key=lambda h: (h[2], world.by_uid[h[0]].handle))
        hit = hits[0]
        if world.by_uid[hit[0]].trigger:
            return None
        n = hit[4]
        length = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) or 1.0
        return tuple(hit[3]), (n[0] / length, n[1] / length, n[2] / length), float(hit[2])

    @staticmethod
    def _wheel_sees(body: _Body | None) -> bool:
        return body is not None and body.layer != 0 and bool(body.mask & 1)

    def _drive(self, world: _World, dt: float) -> None:
        """The vehicles' action after the step (where Bullet's updateActions runs), then Urho3D's FixedPostUpdate."""
        p, cid = world.p, world.cid
        for _vid, vehicle in sorted(world.vehicles.items()):
            body = world.bodies.get(vehicle.hull)
            if not vehicle.enabled or body is None or body.uid < 0 or not body.dynamic:
                continue
            chassis = self._chassis(world, body)
            v0, w0 = chassis.v, chassis.w
            vehicle.update(chassis, dt, lambda a, b: self._wheel_ray(world, a, b))
            vehicle.post_step(chassis, dt)
            if chassis.v != v0 or chassis.w != w0:
                p.resetBaseVelocity(body.uid, list(chassis.v), list(chassis.w), physicsClientId=cid)

    def _vehicle(self, wid: int, vid: int) -> tuple[_World, Vehicle]:
        world = self._world(wid)
        vehicle = world.vehicles.get(int(vid))
        if vehicle is None:
            raise ValueError(f"no vehicle {vid}")
        return world, vehicle

    def vehicle_init(self, wid: int, vid: int, hull: int, right: int, up: int, forward: int, in_air_rpm: float,
                     max_side_slip: float) -> None:
        """(Re)create vehicle `vid` on body `hull`, without wheels (Urho3D's RaycastVehicle::Init)."""
        world = self._world(wid)
        old = world.vehicles.get(int(vid))
        if old is not None:
            world.keep_awake.discard(old.hull)
        world.vehicles[int(vid)] = Vehicle(int(hull), (int(right), int(up), int(forward)), float(in_air_rpm),
                                           float(max_side_slip))
        world.keep_awake = {v.hull for v in world.vehicles.values()}
        self._set_awake(world)

    def vehicle_free(self, wid: int, vid: int) -> None:
        world = self.worlds.get(int(wid))
        if world is not None and world.vehicles.pop(int(vid), None) is not None:
            world.keep_awake = {v.hull for v in world.vehicles.values()}
            self._set_awake(world)

    def _hull_pose(self, world: _World, vehicle: Vehicle) -> tuple[Any, Any]:
        """The hull's centre-of-mass transform now (Bullet's getChassisWorldTransform)."""
        body = world.bodies.get(vehicle.hull)
        if body is None or body.uid < 0:
            return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)
        pos, orn = world.p.getBasePositionAndOrientation(body.uid, world.cid)
        return tuple(pos), tuple(orn)

    def vehicle_add_wheel(self, wid: int, vid: int, cx: float, cy: float, cz: float, dx: float, dy: float,
                          dz: float, ax: float, ay: float, az: float, rest: float, radius: float, front: bool) -> int:
        """btRaycastVehicle::addWheel with Bullet's default tuning; returns the wheel's index."""
        world, vehicle = self._vehicle(wid, vid)
        wheel = Wheel((float(cx), float(cy), float(cz)), (float(dx), float(dy), float(dz)),
                      (float(ax), float(ay), float(az)), float(rest), float(radius), bool(front))
        vehicle.wheels.append(wheel)
        pos, orn = self._hull_pose(world, vehicle)
        vehicle.transform(wheel, pos, orn)
        return len(vehicle.wheels) - 1

    _WHEEL_FIELDS = ("steering", "engine", "brake", "stiffness", "relaxation", "compression", "friction_slip",
                     "roll_influence", "radius", "rest_length", "skid", "max_travel_cm", "max_force",
                     "skid_cumulative", "side_slip", "rotation", "delta_rotation", "suspension_length")
    _WHEEL_VECTORS = ("direction", "axle", "connection", "contact_point", "contact_normal", "world_pos")

    def vehicle_set(self, wid: int, vid: int, index: int, key: str, a: float, b: float = 0.0,
                    c: float = 0.0) -> None:
        """Set a wheel's field (index >= 0), or the vehicle's in-air RPM, side slip threshold or axes (-1)."""
        _world, vehicle = self._vehicle(wid, vid)
        key = str(key)
        if int(index) < 0:
            if key == "axes":
                vehicle.axes = (int(a), int(b), int(c))
            elif key == "enabled":
                vehicle.enabled = bool(a)
            elif key in ("in_air_rpm", "max_side_slip"):
                setattr(vehicle, key, float(a))
            return
        wheel = vehicle.wheels[int(index)]
        if key in self._WHEEL_VECTORS:
            setattr(wheel, key, (float(a), float(b), float(c)))
        elif key in self._WHEEL_FIELDS:
            setattr(wheel, key, float(a))
        else:
            raise ValueError(f"no wheel field {key}")

    def vehicle_get(self, wid: int, vid: int, index: int, key: str) -> Any:
        """A wheel's field: a number, a flag, or a vector (three numbers); the rotation as w, x, y, z."""
        _world, vehicle = self._vehicle(wid, vid)
        key = str(key)
        if int(index) < 0:
            return getattr(vehicle, key) if key in ("in_air_rpm", "max_side_slip") else tuple(vehicle.axes)
        wheel = vehicle.wheels[int(index)]
        if key == "world_rot":
            x, y, z, w = wheel.world_rot
            return (w, x, y, z)
        if key in ("in_contact", "front"):
            return bool(getattr(wheel, key))
        if key in self._WHEEL_VECTORS:
            return tuple(getattr(wheel, key))
        if key in self._WHEEL_FIELDS:
            return float(getattr(wheel, key))
        raise ValueError(f"no wheel field {key}")

    def vehicle_reset_suspension(self, wid: int, vid: int) -> None:
        _world, vehicle = self._vehicle(wid, vid)
        vehicle.reset_suspension()

    def _display_pose(self, world: _World, vehicle: Vehicle, px: float, py: float, pz: float, qw: float,
                      qx: float, qy: float, qz: float) -> tuple[Any, Any]:
        """The hull's centre of mass where its node shows it (Urho3D's motion state: the interpolated transform)."""
        body = world.bodies.get(vehicle.hull)
        orn = (float(qx), float(qy), float(qz), float(qw))
        com = body.com if body is not None else (0.0, 0.0, 0.0)
        cw = qrotate(orn, com)
        return (float(px) + cw[0], float(py) + cw[1], float(pz) + cw[2]), orn

    def vehicle_wheel_transform(self, wid: int, vid: int, index: int, interpolated: bool, px: float, py: float,
                                pz: float, qw: float, qx: float, qy: float, qz: float) -> None:
        """updateWheelTransform: from the hull's body (or, `interpolated`, from its node's transform given)."""
        world, vehicle = self._vehicle(wid, vid)
        if interpolated:
            pos, orn = self._display_pose(world, vehicle, px, py, pz, qw, qx, qy, qz)
        else:
            pos, orn = self._hull_pose(world, vehicle)
        vehicle.transform(vehicle.wheels[int(index)], pos, orn)

    def vehicle_post_update(self, wid: int, vid: int, px: float, py: float, pz: float, qw: float, qx: float,
                            qy: float, qz: float) -> bytes:
        """Urho3D's RaycastVehicle::PostUpdate: every wheel's interpolated transform, packed (position, rotation
        w x y z), for its node."""
        world, vehicle = self._vehicle(wid, vid)
        pos, orn = self._display_pose(world, vehicle, px, py, pz, qw, qx, qy, qz)
        out = []
        for wheel in vehicle.wheels:
            vehicle.transform(wheel, pos, orn)
            x, y, z, w = wheel.world_rot
            out.append(struct.pack("<7d", *wheel.world_pos, w, x, y, z))
        return b"".join(out)

    # -- kinematic characters (engine/_bullet_character.py) -----------------------------------------------------
    def _ghost_sees(self, ghost: _Ghost, body: _Body) -> bool:
        """Bullet's needsCollision between the ghost and a body, and the body's contact response."""
        return not body.trigger and bool(ghost.layer & body.mask) and bool(body.layer & ghost.mask)

    def _ghost_sweep(self, world: _World, ghost: _Ghost, start: Any, end: Any, orn: Any,
                     accept: Callable[[Any], bool]) -> tuple[float, Any] | None:
        p, cid = world.p, world.cid
        r = ghost.radius
        lo = [min(start[i], end[i]) - r for i in range(3)]
        hi = [max(start[i], end[i]) + r for i in range(3)]
        found = p.getOverlappingObjects(lo, hi, physicsClientId=cid) or ()
        cands = sorted({(b.handle, b.uid) for u, _link in found
                        if (b := world.by_uid.get(u)) is not None and self._ghost_sees(ghost, b)})
        while cands:
            hit = sweep(p, cid, ghost.uid, (start, orn), (end, orn), r, cands)
            if hit is None:
                return None
            fraction, handle, cp = hit
            normal = tuple(cp[7])
            if accept(normal):
                return fraction, normal
            cands = [c for c in cands if c[0] != handle]   # Bullet's callback turns this body's hit away
        return None

    def _ghost_penetrations(self, world: _World, ghost: _Ghost, pos: Any, orn: Any) -> list[tuple[Any, float]]:
        p, cid = world.p, world.cid
        p.resetBasePositionAndOrientation(ghost.uid, list(pos), list(orn), physicsClientId=cid)
        out = []
        for other in self._candidates(world, ghost.uid, 0.0):
            if not self._ghost_sees(ghost, other):
                continue
            for cp in p.getClosestPoints(ghost.uid, other.uid, 0.0, physicsClientId=cid):
                if cp[8] < 0.0:
                    out.append((tuple(cp[7]), float(cp[8])))
        return out

    def _walk(self, world: _World, dt: float) -> None:
        """The characters' action after the step (Bullet's updateActions), in the order they were made."""
        p, cid = world.p, world.cid
        for _kid, ghost in sorted(world.characters.items()):
            if not ghost.enabled:
                continue
            ghost.core.step(dt, functools.partial(self._ghost_sweep, world, ghost),
                            functools.partial(self._ghost_penetrations, world, ghost))
            p.resetBasePositionAndOrientation(ghost.uid, list(ghost.core.pos), list(ghost.core.orn),
                                              physicsClientId=cid)

    def _ghost(self, wid: int, kid: int) -> tuple[_World, _Ghost]:
        world = self._world(wid)
        ghost = world.characters.get(int(kid))
        if ghost is None:
            raise ValueError(f"no character {kid}")
        return world, ghost

    def character_init(self, wid: int, kid: int, shape_table: Any, px: float, py: float, pz: float, qw: float,
                       qx: float, qy: float, qz: float, layer: int, mask: int) -> None:
        """(Re)create character `kid` with a CollisionShape's shape (offset left out: the Lua side keeps it), its
        ghost at the given transform (Urho3D's SetTransform of the node's position and rotation)."""
        world = self._world(wid)
        self.character_free(wid, kid)
        shape = _shape_tuple(_lua_list(shape_table))
        sid = self._collision_shape(world, [shape], True)
        orn = (float(qx), float(qy), float(qz), float(qw))
        pos = (float(px), float(py), float(pz))
        uid = world.p.createMultiBody(0.0, sid, basePosition=list(pos), baseOrientation=list(orn),
                                      useMaximalCoordinates=True, physicsClientId=world.cid)
        self._shape_margin(world, uid, [shape])
        core = Character(pos=pos, orn=orn)
        world.characters[int(kid)] = _Ghost(core, int(uid), _radius(shape) + 1e-6, int(layer) & 0xFFFF,
                                            int(mask) & 0xFFFF)

    def character_free(self, wid: int, kid: int) -> None:
        world = self.worlds.get(int(wid))
        ghost = world.characters.pop(int(kid), None) if world is not None else None
        if world is not None and ghost is not None:
            world.p.removeBody(ghost.uid, physicsClientId=world.cid)

    def character_set(self, wid: int, kid: int, key: str, a: float, b: float = 0.0, c: float = 0.0) -> None:
        """Set one of the controller's settings or states (vectors as three numbers; the slope in degrees)."""
        _world, ghost = self._ghost(wid, kid)
        core, key = ghost.core, str(key)
        vec = (float(a), float(b), float(c))
        if key == "gravity":
            core.set_gravity(vec)
        elif key == "walk":
            core.walk = vec
        elif key == "angular_velocity":
            core.angular_velocity = vec
        elif key == "linear_velocity":
            core.set_linear_velocity(vec)
        elif key == "jump_speed":
            core.jump_speed = core.set_jump_speed = float(a)
        elif key == "max_slope":
            core.max_slope = math.radians(float(a))
        elif key in ("step_height", "max_jump_height", "fall_speed", "linear_damping", "angular_damping"):
            setattr(core, key, float(a))
        elif key in ("layer", "mask"):
            setattr(ghost, key, int(a) & 0xFFFF)
        elif key == "enabled":
            ghost.enabled = bool(a)
        else:
            raise ValueError(f"no character setting {key}")

    def character_get(self, wid: int, kid: int, key: str) -> Any:
        """on_ground, linear_velocity, angular_velocity, position (the ghost's origin), rotation (w, x, y, z)."""
        _world, ghost = self._ghost(wid, kid)
        core, key = ghost.core, str(key)
        if key == "on_ground":
            return core.on_ground()
        if key == "linear_velocity":
            return core.linear_velocity()
        if key == "angular_velocity":
            return core.angular_velocity
        if key == "position":
            return core.pos
        if key == "rotation":
            x, y, z, w = core.orn
            return (w, x, y, z)
        if key == "vertical_velocity":
            return core.vertical_velocity
        raise ValueError(f"no character state {key}")

    def character_jump(self, wid: int, kid: int, x: float, y: float, z: float) -> None:
        _world, ghost = self._ghost(wid, kid)
        ghost.core.jump((float(x), float(y), float(z)))

    def character_place(self, wid: int, kid: int, warp: bool, px: float, py: float, pz: float, qw: float = 1.0,
                        qx: float = 0.0, qy: float = 0.0, qz: float = 0.0) -> None:
        """Move the ghost: Bullet's warp (position, rotation reset) or Urho3D's SetTransform."""
        world, ghost = self._ghost(wid, kid)
        if warp:
            ghost.core.warp((float(px), float(py), float(pz)))
        else:
            ghost.core.pos = (float(px), float(py), float(pz))
            ghost.core.orn = (float(qx), float(qy), float(qz), float(qw))
        world.p.resetBasePositionAndOrientation(ghost.uid, list(ghost.core.pos), list(ghost.core.orn),
                                                physicsClientId=world.cid)

    def _continuous(self, world: _World, before: dict[int, Any]) -> None:
        """Bullet's continuous collision detection (integrateTransforms), after the step here: a body that moved
        farther than its CCD motion threshold sweeps a sphere of its CCD radius from its centre along the move;
        when that touches a body it collides with, does not touch already and approaches faster than Bullet's
        allowed CCD penetration, the body is put back to where the sweep touched, its velocity unchanged."""
        p, cid = world.p, world.cid
        for handle, (pos0, orn0) in before.items():
            body = world.bodies.get(handle)
            if body is None or body.uid < 0:
                continue
            radius, threshold = body.ccd
            pos1, orn1 = p.getBasePositionAndOrientation(body.uid, cid)
            move = [pos1[i] - pos0[i] for i in range(3)]
            if sum(m * m for m in move) <= threshold * threshold:
                continue
            lin = p.getBaseVelocity(body.uid, cid)[0]
            reach = max(radius, 1e-4)
            lo = [min(pos0[i], pos1[i]) - reach for i in range(3)]
            hi = [max(pos0[i], pos1[i]) + reach for i in range(3)]
            found = p.getOverlappingObjects(lo, hi, physicsClientId=cid) or ()
            cands = sorted({(o.handle, o.uid) for u, _link in found if (o := world.by_uid.get(u)) is not None
                            and o is not body and self._collides(body, o, world)
                            and not p.getContactPoints(body.uid, o.uid, physicsClientId=cid)})
            if not cands:
                continue
            uid = self._temp_body(world, "sphere", reach, 0.0, 0.0)
            try:
                start, end = (tuple(pos0), (0.0, 0.0, 0.0, 1.0)), (tuple(pos1), (0.0, 0.0, 0.0, 1.0))
                while cands:
                    hit = sweep(p, cid, uid, start, end, reach, cands)
                    if hit is None:
                        break
                    fraction, other_handle, cp = hit
                    other = world.bodies[other_handle]
                    v_other = p.getBaseVelocity(other.uid, cid)[0] if other.dynamic or other.kinematic else (0, 0, 0)
                    n = cp[7]
                    if sum(n[i] * (lin[i] - v_other[i]) for i in range(3)) >= -_CCD_ALLOWED_PENETRATION:
                        cands = [c for c in cands if c[0] != other_handle]   # moving apart: not a time of impact
                        continue
                    if fraction < 1.0:
                        pos = [pos0[i] + move[i] * fraction for i in range(3)]
                        p.resetBasePositionAndOrientation(body.uid, pos, list(slerp(orn0, orn1, fraction)),
                                                          physicsClientId=cid)
                    break
            finally:
                p.removeBody(uid, physicsClientId=cid)

    def _kinematic_step(self, world: _World, body: _Body, dt: float) -> None:
        """Before a step: at its node's transform, moving with the velocity that took it there (Bullet's
        saveKinematicState), and held against gravity."""
        p, cid = world.p, world.cid
        pos0, orn0 = p.getBasePositionAndOrientation(body.uid, cid)
        target = body.kin_target or body.kin_pose or (pos0, orn0)
        body.kin_target = None
        pos1, orn1 = target
        if body.kin_pose is not None:
            pos0, orn0 = body.kin_pose
        lin = [(pos1[i] - pos0[i]) / dt for i in range(3)]
        # angular velocity from the rotation between the two orientations
        dq = _qmul(orn1, (-orn0[0], -orn0[1], -orn0[2], orn0[3]))
        if dq[3] < 0:
            dq = tuple(-v for v in dq)
        s = math.sqrt(dq[0] ** 2 + dq[1] ** 2 + dq[2] ** 2)
        angle = 2.0 * math.atan2(s, dq[3])
        ang = [dq[i] / s * angle / dt for i in range(3)] if s > 1e-12 else [0.0, 0.0, 0.0]
        body.kin_pose = (tuple(pos1), tuple(orn1))
        body.kin_velocity = (tuple(lin), tuple(ang))
        p.resetBasePositionAndOrientation(body.uid, list(pos1), list(orn1), physicsClientId=cid)
        p.resetBaseVelocity(body.uid, lin, ang, physicsClientId=cid)
        g = world.gravity
        p.applyExternalForce(body.uid, -1, [-g[0] * _KINEMATIC_MASS, -g[1] * _KINEMATIC_MASS,
                                            -g[2] * _KINEMATIC_MASS], list(pos1), p.WORLD_FRAME, physicsClientId=cid)

    def _kinematic_settle(self, world: _World) -> None:
        """After a step: kinematic bodies back on their path (the solver's pushes on them do not count)."""
        p, cid = world.p, world.cid
        for handle in sorted(world.prestep):
            body = world.bodies[handle]
            if body.kinematic and body.uid >= 0 and body.kin_pose is not None:
                pos, orn = body.kin_pose
                p.resetBasePositionAndOrientation(body.uid, list(pos), list(orn), physicsClientId=cid)
                # the reset zeroes pybullet's velocities; Bullet's kinematic body keeps the one saveKinematicState
                # gave it (what GetLinearVelocity reports while its node moves)
                lin, ang = body.kin_velocity
                p.resetBaseVelocity(body.uid, list(lin), list(ang), physicsClientId=cid)

    def end_frame(self, wid: int) -> None:
        """Bullet's clearForces after a frame's steps."""
        world = self._world(wid)
        for handle in sorted(world.prestep):
            body = world.bodies[handle]
            if body.force != [0.0, 0.0, 0.0] or body.torque != [0.0, 0.0, 0.0]:
                body.force = [0.0, 0.0, 0.0]
                body.torque = [0.0, 0.0, 0.0]
                self._classify(world, body)

    def sync(self, wid: int, interpolate: bool, alpha: float, stepped: bool) -> bytes:
        """The node transforms of the dynamic bodies that moved, packed (engine/_bullet_sync.py)."""
        return sync(self._world(wid), bool(interpolate), float(alpha), bool(stepped))

    # -- contacts ----------------------------------------------------------------------------------------------
    def contacts(self, wid: int, dt: float) -> bytes:
        """The touching pairs after the last step, packed per pair: handles (lower first), whether each is active
        (bits 1 and 2), then the contact buffer from the first body's side and from the second's (VectorBuffer
        bytes: position, normal, distance, impulse per point, as Urho3D writes them)."""
        world = self._world(wid)
        p, cid = world.p, world.cid
        pairs: dict[tuple[int, int], list[bytes]] = {}
        flipped: dict[tuple[int, int], list[bytes]] = {}
        by_uid = world.by_uid
        dt = float(dt)
        for cp in p.getContactPoints(physicsClientId=cid):
            a, b = by_uid.get(cp[1]), by_uid.get(cp[2])
            if a is None or b is None or a is b:
                continue
            pos, normal, dist, impulse = cp[6], cp[7], cp[8], cp[9] * dt
            if a.handle < b.handle:
                key = (a.handle, b.handle)
                pairs.setdefault(key, []).append(_POINT.pack(*pos, *normal, dist, impulse))
                flipped.setdefault(key, []).append(_POINT.pack(*pos, -normal[0], -normal[1], -normal[2], dist,
                                                               impulse))
            else:
                key = (b.handle, a.handle)
                pairs.setdefault(key, []).append(_POINT.pack(*pos, -normal[0], -normal[1], -normal[2], dist,
                                                             impulse))
                flipped.setdefault(key, []).append(_POINT.pack(*pos, *normal, dist, impulse))
        for key, (a_points, b_points) in world.trigger_pairs.items():
            if key not in pairs:
                pairs[key], flipped[key] = a_points, b_points
        out = []
        active: dict[int, bool] = {}
        for key in sorted(pairs):
            ba, bb = b"".join(pairs[key]), b"".join(flipped[key])
            flags = 0
            for bit, h in ((1, key[0]), (2, key[1])):
                if h not in active:
                    active[h] = self.body_is_active(wid, h)
                if active[h]:
                    flags |= bit
            out.append(struct.pack("<iiBI", key[0], key[1], flags, len(ba)) + ba + struct.pack("<I", len(bb)) + bb)
        return b"".join(out)

    def _trigger_contacts(self, world: _World) -> None:
        """Triggers collide with nothing in Bullet here; their overlaps come from closest-point queries, made
        before the step as Bullet's collision detection runs before it integrates."""
        p, cid = world.p, world.cid
        pairs: dict[tuple[int, int], list[bytes]] = {}
        flipped: dict[tuple[int, int], list[bytes]] = {}
        world.trigger_pairs = {}
        for trig in world.bodies.values():
            if not trig.trigger or trig.uid < 0:
                continue
            for other in self._candidates(world, trig.uid, _CONTACT_THRESHOLD):
                if other is trig or (other.trigger and other.handle < trig.handle):
                    continue
                if not (trig.layer & other.mask and other.layer & trig.mask):
                    continue
                if not trig.dynamic and not other.dynamic:
                    continue
                a, b = (trig, other) if trig.handle < other.handle else (other, trig)
                key = (a.handle, b.handle)
                if key in pairs:
                    continue
                points = p.getClosestPoints(a.uid, b.uid, _CONTACT_THRESHOLD, physicsClientId=cid)
                for cp in points:
                    pos, normal, dist = cp[6], cp[7], cp[8]
                    pairs.setdefault(key, []).append(_POINT.pack(*pos, *normal, dist, 0.0))
                    flipped.setdefault(key, []).append(_POINT.pack(*pos, -normal[0], -normal[1], -normal[2], dist,
                                                                   0.0))
        world.trigger_pairs = {key: (pairs[key], flipped[key]) for key in pairs}

    def _candidates(self, world: _World, uid: int, pad: float) -> list[_Body]:
        p, cid = world.p, world.cid
        lo, hi = p.getAABB(uid, physicsClientId=cid)
        found = p.getOverlappingObjects([v - pad for v in lo], [v + pad for v in hi], physicsClientId=cid) or ()
        out = []
        for other_uid, _link in found:
            body = world.by_uid.get(other_uid)
            if body is not None and body.uid != uid:
                out.append(body)
        out.sort(key=lambda b: b.handle)
        return out

    # -- queries -----------------------------------------------------------------------------------------------
    def raycast(self, wid: int, ox: float, oy: float, oz: float, ex: float, ey: float, ez: float, mask: int,
                single: bool) -> bytes:
        """Hits of the segment from o to e whose body's layer is in `mask`, nearest first (the nearest only when
        `single`), packed: handle, fraction, position, normal."""
        world = self._world(wid)
        p, cid = world.p, world.cid
        mask = int(mask) & 0xFFFF
        start, end = [ox, oy, oz], [ex, ey, ez]
        hits = []
        if single:
            (hit,) = p.rayTestBatch([start], [end], physicsClientId=cid)
            body = world.by_uid.get(hit[0])
            if hit[0] < 0:
                return b""
            if body is not None and body.layer & mask and body.mask:
                return _HIT.pack(body.handle, hit[2], *hit[3], *hit[4])
        for k in range(256):
            (hit,) = p.rayTestBatch([start], [end], reportHitNumber=k, physicsClientId=cid)
            if hit[0] < 0:
                break
            body = world.by_uid.get(hit[0])
            if body is not None and body.layer & mask and body.mask:
                hits.append((hit[2], body.handle, hit))
        hits.sort(key=lambda h: (h[0], h[1]))
        if single:
            hits = hits[:1]
        return b"".join(_HIT.pack(h, f, *hit[3], *hit[4]) for f, h, hit in hits)

    def _query_shape(self, world: _World, kind: str, a: float, b: float = 0.0, c: float = 0.0) -> int:
        """A sphere (radius a) or box (half extents a, b, c) for queries, made once per size: pybullet keeps a shape
        a body has used for good (removing it only prints a warning), so shapes are reused, not made per query."""
        key = (kind, round(a, 9), round(b, 9), round(c, 9))
        sid = world.query_shapes.get(key)
        if sid is None:
            p, cid = world.p, world.cid
            if kind == "sphere":
                sid = p.createCollisionShape(p.GEOM_SPHERE, radius=max(a, 1e-6), physicsClientId=cid)
            else:
                sid = p.createCollisionShape(p.GEOM_BOX, halfExtents=[max(a, 1e-6), max(b, 1e-6), max(c, 1e-6)],
                                             physicsClientId=cid)
            world.query_shapes[key] = int(sid)
        return int(sid)

    def _temp_body(self, world: _World, kind: str, a: float, b: float, c: float) -> int:
        """A query body (a sphere of radius a, or a box of half extents a, b, c) colliding with nothing in the
        simulation, to remove after the query."""
        p, cid = world.p, world.cid
        uid = p.createMultiBody(0.0, self._query_shape(world, kind, a, b, c), basePosition=[0, 0, 0],
                                useMaximalCoordinates=True, physicsClientId=cid)
        p.setCollisionFilterGroupMask(uid, -1, 0, 0, physicsClientId=cid)
        return int(uid)

    @staticmethod
    def _query_hits(body: _Body, mask: int) -> bool:
        """Whether a query with collision mask `mask` (its group all bits, as Urho3D's) sees the body."""
        return bool(body.layer & mask) and bool(body.mask & 0xFFFF)

    def _sweep_query(self, world: _World, sid: int, radius: float, start: Pose, end: Pose, mask: int,
                     exclude: int = 0, margin_shapes: list[tuple[Any, ...]] | None = None) -> bytes:
        """Shape `sid` (reaching `radius` from its origin) swept from `start` to `end`: the first body of a layer in
        `mask` it touches, but body `exclude` (handle, fraction, position on the body, its normal), or nothing."""
        p, cid = world.p, world.cid
        uid = p.createMultiBody(0.0, sid, basePosition=list(start[0]), baseOrientation=list(start[1]),
                                useMaximalCoordinates=True, physicsClientId=cid)
        p.setCollisionFilterGroupMask(uid, -1, 0, 0, physicsClientId=cid)   # touches nothing in the simulation
        if margin_shapes:
            self._shape_margin(world, uid, margin_shapes)
        try:
            (a, _), (b, _) = start, end
            lo = [min(a[i], b[i]) - radius for i in range(3)]
            hi = [max(a[i], b[i]) + radius for i in range(3)]
            found = p.getOverlappingObjects(lo, hi, physicsClientId=cid) or ()
            cands = sorted({(body.handle, body.uid) for u, _link in found
                            if (body := world.by_uid.get(u)) is not None and body.handle != exclude
                            and self._query_hits(body, mask)})
            hit = sweep(p, cid, uid, start, end, radius, cands)
            if hit is None:
                return b""
            fraction, handle, cp = hit
            return _HIT.pack(handle, fraction, *cp[6], *cp[7])
        finally:
            p.removeBody(uid, physicsClientId=cid)

    def spherecast(self, wid: int, radius: float, ox: float, oy: float, oz: float, dx: float, dy: float,
                   dz: float, length: float, mask: int) -> bytes:
        """A sphere swept from o along unit d for `length`: the first body it touches (handle, fraction,
        position, normal), by conservative advancement (engine/_bullet_sweep.py)."""
        world = self._world(wid)
        radius, length = float(radius), float(length)
        sid = self._query_shape(world, "sphere", radius)
        start = ((ox, oy, oz), (0.0, 0.0, 0.0, 1.0))
        end = ((ox + dx * length, oy + dy * length, oz + dz * length), (0.0, 0.0, 0.0, 1.0))
        return self._sweep_query(world, sid, max(radius, 1e-6), start, end, int(mask) & 0xFFFF)

    def convexcast(self, wid: int, shape_table: Any, ax: float, ay: float, az: float, aqw: float, aqx: float,
                   aqy: float, aqz: float, bx: float, by: float, bz: float, bqw: float, bqx: float, bqy: float,
                   bqz: float, mask: int, exclude: int) -> bytes:
        """Urho3D's ConvexCast: a CollisionShape (as body_build takes one, its offset already in the poses) swept
        from pose a to pose b, ignoring body `exclude` (its own); the first body it touches, or nothing."""
        world = self._world(wid)
        try:
            shape = _shape_tuple(_lua_list(shape_table))
        except ShapeError:
            return b""
        sid = self._collision_shape(world, [shape], False)
        radius = max(_radius(shape), 1e-6)
        start = ((float(ax), float(ay), float(az)), (float(aqx), float(aqy), float(aqz), float(aqw)))
        end = ((float(bx), float(by), float(bz)), (float(bqx), float(bqy), float(bqz), float(bqw)))
        return self._sweep_query(world, sid, radius, start, end, int(mask) & 0xFFFF, int(exclude),
                                 margin_shapes=[shape])

    def overlaps(self, wid: int, kind: str, handle: int, cx: float, cy: float, cz: float, a: float, b: float,
                 c: float, mask: int) -> bytes:
        """Handles of the bodies touching a sphere (radius a), a box (half extents a, b, c) or body `handle`."""
        world = self._world(wid)
        p, cid = world.p, world.cid
        mask = int(mask) & 0xFFFF
        own = None
        if kind == "body":
            body = world.bodies.get(int(handle))
            if body is None or body.uid < 0:
                return b""
            uid, own = body.uid, body
        else:
            uid = self._temp_body(world, str(kind), a, b, c)
            p.resetBasePositionAndOrientation(uid, [cx, cy, cz], [0, 0, 0, 1], physicsClientId=cid)
        try:
            out = []
            for other in self._candidates(world, uid, 0.0):
                if other is own or not other.layer & mask:
                    continue
                if any(cp[8] <= 0.0 for cp in p.getClosestPoints(uid, other.uid, 0.0, physicsClientId=cid)):
                    out.append(struct.pack("<i", other.handle))
            return b"".join(out)
        finally:
            if own is None:
                p.removeBody(uid, physicsClientId=cid)


def import_pybullet() -> Any:
    """pybullet, imported on first use (runs without physics never pay for it); its C code prints its build time
    at import, which would land in the grader's output and logs, so stdout and stderr point elsewhere meanwhile."""
    import os
    import sys
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
            os.dup2(null.fileno(), 2)
            import pybullet
            try:
                import ctypes
                ctypes.CDLL(None).fflush(None)   # C's buffered streams, before the descriptors come back
            except (OSError, AttributeError):
                pass
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
    return pybullet


_Row3 = tuple[float, float, float]


def _world_inv_inertia(body: _Body, orn: Any) -> tuple[_Row3, _Row3, _Row3]:
    """The body's inverse inertia in the world at rotation `orn`, by rows (R diag(inverse inertia) R^T)."""
    r = _matrix(orn)
    inv = body.inv_inertia

    def row(i: int) -> _Row3:
        return (sum(r[i][k] * inv[k] * r[0][k] for k in range(3)), sum(r[i][k] * inv[k] * r[1][k] for k in range(3)),
                sum(r[i][k] * inv[k] * r[2][k] for k in range(3)))
    return row(0), row(1), row(2)


def _lua_list(table: Any) -> list[Any]:
    """A Lua array (or a Python sequence) as a list."""
    if isinstance(table, (list, tuple)):
        return list(table)
    out: list[Any] = []
    i = 1
    while True:
        v = table[i]
        if v is None:
            return out
        out.append(v)
        i += 1


BULLET_SOLVER_SETTINGS = SOLVER_SETTINGS   # exported by the engine package (the bench steps pybullet alike)
