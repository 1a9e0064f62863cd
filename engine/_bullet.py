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
import math
import struct
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SHAPE_BOX, SHAPE_SPHERE, SHAPE_STATICPLANE, SHAPE_CYLINDER, SHAPE_CAPSULE, SHAPE_CONE = range(6)
# Triangle meshes and convex hulls of the stock models whose triangles are known without loading them (57_physics3d.lua
# maps Box, Sphere, Cylinder and Cone onto the primitives): Plane.mdl's quad and Pyramid.mdl, unit-sized
MESH_PLANE, HULL_PLANE, MESH_PYRAMID, HULL_PYRAMID = 100, 101, 102, 103
_SOLIDS: dict[int, tuple[list[list[float]], list[int]]] = {
    MESH_PLANE: ([[-0.5, 0.0, -0.5], [0.5, 0.0, -0.5], [0.5, 0.0, 0.5], [-0.5, 0.0, 0.5]], [0, 2, 1, 0, 3, 2]),
    MESH_PYRAMID: ([[-0.5, -0.5, -0.5], [0.5, -0.5, -0.5], [0.5, -0.5, 0.5], [-0.5, -0.5, 0.5], [0.0, 0.5, 0.0]],
                   [0, 1, 2, 0, 2, 3, 0, 4, 1, 1, 4, 2, 2, 4, 3, 3, 4, 0]),
}
_SOLIDS[HULL_PLANE] = _SOLIDS[MESH_PLANE]
_SOLIDS[HULL_PYRAMID] = _SOLIDS[MESH_PYRAMID]
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


def _rotate(q: tuple[float, ...], v: tuple[float, float, float]) -> tuple[float, float, float]:
    x, y, z, w = q
    vx, vy, vz = v
    tx, ty, tz = 2 * (y * vz - z * vy), 2 * (z * vx - x * vz), 2 * (x * vy - y * vx)
    return (vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz), vz + w * tz + (x * ty - y * tx))


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

    @property
    def dynamic(self) -> bool:
        return self.mass > 0.0 and not self.kinematic and not self.plane


@dataclass
class _Joint:
    """Urho3D's Constraint: a point (btPoint2PointConstraint) or a hinge (two point constraints on its axis, and
    Bullet's angular limit as a velocity row before each step: pybullet joins maximal-coordinate bodies with point,
    fixed and gear constraints only)."""
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


def _shape_aabb(kind: int, sx: float, sy: float, sz: float, margin: float) -> tuple[float, float, float]:
    """Half extents of a child shape's AABB in its own frame, as Bullet computes them (margins included)."""
    if kind == SHAPE_BOX or kind in (MESH_PYRAMID, HULL_PYRAMID):
        return (sx * 0.5, sy * 0.5, sz * 0.5)
    if kind in (MESH_PLANE, HULL_PLANE):
        return (sx * 0.5, 0.0, sz * 0.5)
    if kind == SHAPE_SPHERE:
        r = sx * 0.5
        return (r, r, r)
    if kind == SHAPE_CYLINDER:
        return (sx * 0.5, sy * 0.5, sx * 0.5)
    if kind == SHAPE_CAPSULE:
        r = sx * 0.5
        return (r, max(sy * 0.5, r), r)
    if kind == SHAPE_CONE:
        return (sx * 0.5 + margin, sy * 0.5 + margin, sx * 0.5 + margin)
    return (0.0, 0.0, 0.0)


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
            "raycast", "spherecast", "overlaps", "pybullet_settings", "constraint_build", "constraint_free")}

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

    def pybullet_settings(self) -> str:
        return repr(sorted(SOLVER_SETTINGS.items()))

    # -- bodies ------------------------------------------------------------------------------------------------
    def _collision_shape(self, world: _World, shapes: list[tuple[Any, ...]], static: bool) -> int:
        key = (static, *(tuple(round(v, 12) if isinstance(v, float) else v for v in s) for s in shapes))
        cached = world.shape_cache.get(key)
        if cached is not None:
            return cached
        p, cid = world.p, world.cid
        if len(shapes) == 1:
            kind, sx, sy, sz, ox, oy, oz, q, _margin = shapes[0]
            frame = {"collisionFramePosition": [ox, oy, oz], "collisionFrameOrientation": list(q),
                     "physicsClientId": cid}
            if kind == SHAPE_BOX:
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
            elif kind in _SOLIDS:
                verts, indices = _SOLIDS[kind]
                scaled = [[x * sx, y * sy, z * sz] for x, y, z in verts]
                if kind in (MESH_PLANE, MESH_PYRAMID) and static:
                    sid = p.createCollisionShape(p.GEOM_MESH, vertices=scaled, indices=indices, **frame)
                else:   # Bullet's triangle meshes do not move: a moving one collides as its hull
                    sid = p.createCollisionShape(p.GEOM_MESH, vertices=scaled, **frame)
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
            for kind, sx, sy, sz, ox, oy, oz, q, _margin in shapes:
                poss.append([ox, oy, oz])
                if kind == SHAPE_BOX or kind in _SOLIDS:   # a plane or pyramid among several shapes: its box
                    types.append(p.GEOM_BOX)
                    radii.append(0.0)
                    halves.append([sx * 0.5, max(sy * 0.5, 0.005) if kind not in (MESH_PLANE, HULL_PLANE) else 0.005,
                                   sz * 0.5])
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

    def body_build(self, wid: int, handle: int, mass: float, kinematic: bool, trigger: bool, px: float, py: float,
                   pz: float, qw: float, qx: float, qy: float, qz: float, shapes_table: Any) -> float:
        """(Re)create body `handle` from its shapes (each: type, scaled size xyz, scaled offset xyz, rotation wxyz,
        margin), keeping its velocity and forces.  Returns the centre of mass offset's y (x, z via body_transform)."""
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
        for s in _lua_list(shapes_table):
            v = _lua_list(s)
            shapes.append((int(v[0]), float(v[1]), float(v[2]), float(v[3]), float(v[4]), float(v[5]),
                           float(v[6]), (float(v[8]), float(v[9]), float(v[10]), float(v[7])), float(v[11])))
        body.plane = any(s[0] == SHAPE_STATICPLANE for s in shapes)
        world.bodies[handle] = body
        if not shapes:
            body.uid = -1
            body.com = (0.0, 0.0, 0.0)
            return 0.0
        solid = [s for s in shapes if s[0] != SHAPE_STATICPLANE]
        n = len(solid) or 1
        com = (sum(s[4] for s in solid) / n, sum(s[5] for s in solid) / n, sum(s[6] for s in solid) / n)
        if body.plane:
            com = (0.0, 0.0, 0.0)
            shapes = [s for s in shapes if s[0] == SHAPE_STATICPLANE][:1]
        shifted = [(k, sx, sy, sz, ox - com[0], oy - com[1], oz - com[2], q, m) for k, sx, sy, sz, ox, oy, oz, q, m
                   in shapes]
        body.com = com
        # Inertia as Urho3D's compound shape computes it: a box the size of the shapes' joint AABB
        lo, hi = [math.inf] * 3, [-math.inf] * 3
        for k, sx, sy, sz, ox, oy, oz, q, m in shifted:
            half = _shape_aabb(k, sx, sy, sz, m)
            basis = _matrix(q)
            for i, o in enumerate((ox, oy, oz)):
                extent = sum(abs(basis[i][j]) * half[j] for j in range(3))
                lo[i] = min(lo[i], o - extent)
                hi[i] = max(hi[i], o + extent)
        lx, ly, lz = (hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]) if not body.plane else (0.0, 0.0, 0.0)
        m12 = body.mass / 12.0
        body.inertia = (m12 * (ly * ly + lz * lz), m12 * (lx * lx + lz * lz), m12 * (lx * lx + ly * ly))
        sid = self._collision_shape(world, shifted, not body.dynamic and not body.kinematic)
        rot = (float(qx), float(qy), float(qz), float(qw))
        cw = _rotate(rot, com)
        bullet_mass = body.mass if body.dynamic else (_KINEMATIC_MASS if body.kinematic else 0.0)
        uid = p.createMultiBody(bullet_mass, sid, basePosition=[px + cw[0], py + cw[1], pz + cw[2]],
                                baseOrientation=list(rot), useMaximalCoordinates=True, physicsClientId=cid)
        body.uid = uid
        world.by_uid[uid] = body
        self._apply_inertia(world, body)
        if velocity is not None and body.dynamic:
            p.resetBaseVelocity(uid, velocity[0], velocity[1], physicsClientId=cid)
        body.last = None
        body.prev = p.getBasePositionAndOrientation(uid, physicsClientId=cid)
        body.kin_pose = None
        body.fresh_step = world.steps
        self._refilter(world, body)
        self._classify(world, body)
        for jid, joint in sorted(world.joints.items()):
            if handle in (joint.own, joint.other):
                self._make_joint(world, jid)
        return com[1]

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
                               activationState=world.p.ACTIVATION_STATE_ENABLE_SLEEPING, physicsClientId=world.cid)

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
        for other in others:
            if other is body or other.uid < 0:
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
        cw = _rotate(rot, body.com)
        world.p.resetBasePositionAndOrientation(body.uid, [px + cw[0], py + cw[1], pz + cw[2]], list(rot),
                                                physicsClientId=world.cid)
        body.last = None
        body.prev = world.p.getBasePositionAndOrientation(body.uid, physicsClientId=world.cid)

    def body_kinematic_target(self, wid: int, handle: int, px: float, py: float, pz: float, qw: float, qx: float,
                              qy: float, qz: float) -> None:
        """A kinematic body's node moved: Bullet moves it at the next step with the velocity that takes it there."""
        _world, body = self._body(wid, handle)
        if body is None:
            return
        rot = (float(qx), float(qy), float(qz), float(qw))
        cw = _rotate(rot, body.com)
        body.kin_target = ((px + cw[0], py + cw[1], pz + cw[2]), rot)

    def body_material(self, wid: int, handle: int, friction: float, rolling: float, restitution: float,
                      lin_damping: float, ang_damping: float) -> None:
        world, body = self._body(wid, handle)
        if body is None:
            return
        world.p.changeDynamics(body.uid, -1, lateralFriction=friction, rollingFriction=rolling, spinningFriction=0.0,
                               restitution=restitution, linearDamping=lin_damping, angularDamping=ang_damping,
                               physicsClientId=world.cid)

    def body_factors(self, wid: int, handle: int, lx: float, ly: float, lz: float, ax: float, ay: float,
                     az: float) -> None:
        world = self._world(wid)
        body = world.bodies.get(int(handle))
        if body is None:
            return
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
        cw = _rotate(orn, body.com)
        return (pos[0] - cw[0], pos[1] - cw[1], pos[2] - cw[2], orn[3], orn[0], orn[1], orn[2])

    # -- constraints -------------------------------------------------------------------------------------------
    def constraint_build(self, wid: int, jid: int, kind: int, own: int, other: int, ax: float, ay: float,
                         az: float, aqw: float, aqx: float, aqy: float, aqz: float, bx: float, by: float, bz: float,
                         bqw: float, bqx: float, bqy: float, bqz: float, low: float, high: float, disable: bool,
                         enabled: bool, twist: float = 0.0) -> None:
        """(Re)create constraint `jid`: positions are scaled node-frame positions (the other's in the world when
        `other` is 0), as Urho3D's Constraint hands them over before subtracting the centres of mass."""
        world = self._world(wid)
        jid = int(jid)
        self._drop_joint(world, jid)
        own_body = world.bodies.get(int(own))
        other_body = world.bodies.get(int(other)) if int(other) else None
        if own_body is None:
            return
        pa = (ax - own_body.com[0], ay - own_body.com[1], az - own_body.com[2])
        pb = (bx, by, bz)
        if other_body is not None:
            pb = (bx - other_body.com[0], by - other_body.com[1], bz - other_body.com[2])
        joint = _Joint(int(kind), own_body.handle, other_body.handle if other_body else None,
                       (pa, (aqx, aqy, aqz, aqw)), (pb, (bqx, bqy, bqz, bqw)), float(low), float(high),
                       float(twist), bool(disable), bool(enabled))
        world.joints[jid] = joint
        if joint.disable_collision and other_body is not None:
            world.jointed.add((min(joint.own, other_body.handle), max(joint.own, other_body.handle)))
            self._refilter(world, own_body)
            self._refilter(world, other_body)
        self._make_joint(world, jid)

    def constraint_free(self, wid: int, jid: int) -> None:
        world = self.worlds.get(int(wid))
        if world is not None:
            self._drop_joint(world, int(jid))

    def _drop_joint(self, world: _World, jid: int) -> None:
        joint = world.joints.pop(jid, None)
        if joint is None:
            return
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
        if own is None or own.uid < 0 or not joint.enabled or (joint.other is not None and
                                                                  (other is None or other.uid < 0)):
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
            za, zb = _rotate(qa, (0.0, 0.0, 0.1)), _rotate(qb, (0.0, 0.0, 0.1))
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
                ref0, ref1 = _rotate(fa, (1.0, 0.0, 0.0)), _rotate(fa, (0.0, 1.0, 0.0))
                swing = _rotate(fb, (0.0, 1.0, 0.0))
                angle = math.atan2(_dot(swing, ref0), _dot(swing, ref1))
                rows.append((_rotate(fa, (0.0, 0.0, 1.0)), angle, joint.low, joint.high))
            else:
                xa, xb = _rotate(fa, (1.0, 0.0, 0.0)), _rotate(fb, (1.0, 0.0, 0.0))
                n = _cross(xb, xa)
                sn = math.sqrt(_dot(n, n))
                swing_angle = math.atan2(sn, _dot(xa, xb))
                if sn > 1e-9:
                    rows.append((tuple(v / sn for v in n), swing_angle, -math.inf, joint.high))  # type: ignore[arg-type]
                # twist: the other frame's Y seen about the own frame's X
                ya, za, yb = _rotate(fa, (0.0, 1.0, 0.0)), _rotate(fa, (0.0, 0.0, 1.0)), _rotate(fb, (0.0, 1.0, 0.0))
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
        pivot = tuple(pos_a[i] + v for i, v in enumerate(_rotate(orn_a, joint.frame_a[0])))
        self._spin(world, own, pos_a, orn_a, pivot, axis, impulse)
        if other is not None and other.dynamic:
            pos_b, orn_b = p.getBasePositionAndOrientation(other.uid, cid)
            self._spin(world, other, pos_b, orn_b, pivot, axis, -impulse)

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
        if world.special:
            self._trigger_contacts(world)
        p.stepSimulation(physicsClientId=cid)
        self._kinematic_settle(world)
        for body, pos0, lin0 in factored:
            pos1, orn1 = p.getBasePositionAndOrientation(body.uid, physicsClientId=cid)
            lin1, ang1 = p.getBaseVelocity(body.uid, physicsClientId=cid)
            lin = [lin0[i] + (lin1[i] - lin0[i]) * body.lin_factor[i] for i in range(3)]
            pos = [pos1[i] if body.lin_factor[i] == 1.0 else pos0[i] + lin[i] * dt for i in range(3)]
            p.resetBasePositionAndOrientation(body.uid, pos, orn1, physicsClientId=cid)
            p.resetBaseVelocity(body.uid, lin, ang1, physicsClientId=cid)

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
        """The node transforms of the dynamic bodies that moved, packed (handle, position, rotation w x y z).

        With interpolation, Urho3D's Bullet shows a body where it was `fixed - residual` seconds before its
        current transform (btDiscreteDynamicsWorld's latency motion-state interpolation integrates back with the
        current velocity): for Bullet's x_n = x_{n-1} + v_n dt that is the previous step's transform moved
        `alpha` = residual / fixed of the way to the current one, which needs no velocity read."""
        world = self._world(wid)
        p, cid = world.p, world.cid
        out = []
        get = p.getBasePositionAndOrientation
        interpolate = bool(interpolate)
        alpha = float(alpha)
        if world.dynamic_dirty:
            world.dynamic = sorted((b for b in world.bodies.values() if b.uid >= 0 and b.dynamic),
                                   key=lambda b: b.handle)
            world.dynamic_dirty = False
        for body in world.dynamic:
            state = get(body.uid, cid)   # positional: measurably cheaper per call than the keyword
            shown = state
            if interpolate:
                prev = body.prev
                if stepped:
                    body.prev = state
                if prev is None or prev == state:
                    shown = state
                elif alpha <= 0.0:
                    shown = prev
                else:
                    shown = _blend(prev, state, alpha)
            if shown == body.last:
                continue
            body.last = shown
            pos, orn = shown
            x, y, z, w = orn
            cx, cy, cz = body.com
            if cx != 0.0 or cy != 0.0 or cz != 0.0:
                cw = _rotate(orn, body.com)
                pos = (pos[0] - cw[0], pos[1] - cw[1], pos[2] - cw[2])
            out.append(_STATE.pack(body.handle, pos[0], pos[1], pos[2], w, x, y, z))
        return b"".join(out)

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

    def _temp_body(self, world: _World, kind: str, a: float, b: float, c: float) -> int:
        p, cid = world.p, world.cid
        if kind == "sphere":
            sid = p.createCollisionShape(p.GEOM_SPHERE, radius=max(a, 1e-6), physicsClientId=cid)
        else:
            sid = p.createCollisionShape(p.GEOM_BOX, halfExtents=[max(a, 1e-6), max(b, 1e-6), max(c, 1e-6)],
                                         physicsClientId=cid)
        uid = p.createMultiBody(0.0, sid, basePosition=[0, 0, 0], useMaximalCoordinates=True, physicsClientId=cid)
        # the query body collides with nothing in the simulation
        p.setCollisionFilterGroupMask(uid, -1, 0, 0, physicsClientId=cid)
        return int(uid)

    def spherecast(self, wid: int, radius: float, ox: float, oy: float, oz: float, dx: float, dy: float,
                   dz: float, length: float, mask: int) -> bytes:
        """A sphere swept from o along unit d for `length`: the first body it touches (handle, fraction,
        position, normal), by conservative advancement with closest-point queries."""
        world = self._world(wid)
        p, cid = world.p, world.cid
        mask = int(mask) & 0xFFFF
        radius, length = float(radius), float(length)
        uid = self._temp_body(world, "sphere", radius, 0.0, 0.0)
        try:
            lo = [min(o, o + d * length) - radius for o, d in ((ox, dx), (oy, dy), (oz, dz))]
            hi = [max(o, o + d * length) + radius for o, d in ((ox, dx), (oy, dy), (oz, dz))]
            found = p.getOverlappingObjects(lo, hi, physicsClientId=cid) or ()
            cands = sorted({world.by_uid[u].handle: world.by_uid[u] for u, _ in found if u in world.by_uid
                            and world.by_uid[u].layer & mask}.items())
            t = 0.0
            for _ in range(128):
                p.resetBasePositionAndOrientation(uid, [ox + dx * t, oy + dy * t, oz + dz * t], [0, 0, 0, 1],
                                                  physicsClientId=cid)
                best = None
                for _h, body in cands:
                    for cp in p.getClosestPoints(uid, body.uid, length + radius, physicsClientId=cid):
                        if best is None or cp[8] < best[0][8]:
                            best = (cp, body)
                if best is None:
                    return b""
                cp, body = best
                if cp[8] <= 1e-5:
                    frac = t / length if length > 0 else 0.0
                    n = cp[7]
                    return _HIT.pack(body.handle, frac, *cp[6], n[0], n[1], n[2])
                t += cp[8]
                if t > length:
                    return b""
            return b""
        finally:
            p.removeBody(uid, physicsClientId=cid)

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


def _blend(a: Any, b: Any, t: float) -> Any:
    """Transform `t` of the way from a to b (position lerp, rotation nlerp)."""
    (pa, qa), (pb, qb) = a, b
    pos = tuple(pa[i] + (pb[i] - pa[i]) * t for i in range(3))
    sign = -1.0 if sum(qa[i] * qb[i] for i in range(4)) < 0 else 1.0
    q = [qa[i] + (qb[i] * sign - qa[i]) * t for i in range(4)]
    n = math.sqrt(sum(v * v for v in q))
    return (pos, tuple(v / n for v in q))


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
