"""Node sync for 3D physics: after a step, the dynamic bodies that moved are read back for their nodes
(BulletHost.sync, engine/_bullet.py; applied by 57_physics3d.lua's sync).

Reading a body costs a pybullet call (pybullet has no read of many bodies at once), and beside it every Python
object touched per body costs, because Bullet's step has just emptied the caches.  So in a world of BATCH dynamic
bodies or more, each body's state is read and flattened into one float64 array in a single pass (`map` and `chain`,
no Python code per body), and what the sync keeps between steps for the bodies it reads -- the transform before the
last step (interpolation, change detection), the transform last written to the node, and how many steps the body
has been still -- lives in numpy arrays (`Live`), compared, chosen and packed there.  Those arrays are the truth for
the bodies they list; the `_Body` fields `prev`, `last` and `still` hold it for the others (resting bodies, and every
body of a smaller world, synced body by body), and `placed` and `unrest` write to whichever holds it.

A body whose transform has not changed at all for REST_STEPS steps (asleep in Bullet, whose sleeping bodies do not
move) rests: it is not read until a moving body comes within reach of it or anything else may move it (`unrest`).

Each record goes to Lua as 60 little-endian bytes: the handle (int32), the position and the rotation as pybullet
gives them (x y z, then x y z w; float64).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass, field
from itertools import chain, repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from engine._vec3 import qrotate

if TYPE_CHECKING:
    from engine._bullet import _Body, _World

REST_STEPS = 10      # steps a body's transform must stay exactly the same before it is no longer read
BATCH = 64           # dynamic bodies from which a world is synced through numpy (below: body by body)
_REST_MARGIN = 0.2   # more than Bullet's contact breaking threshold plus a resting neighbour's margin
_AROUND = (-1, 0, 1)
_F8, _I4 = np.dtype("<f8"), np.dtype("<i4")
_RECORD = np.dtype([("handle", "<i4"), ("transform", "<f8", (7,))])   # 60 bytes, packed: 57_physics3d.lua's sync
_RECORD_STRUCT = struct.Struct("<i7d")

Transform = tuple[tuple[float, ...], tuple[float, ...]]   # pybullet's (position, rotation x y z w)
Records = tuple[bytes, list[tuple["_Body", Any]], list[Any]]   # records; bodies still long enough, where; sources


@dataclass
class Live:
    """The bodies a big world's sync reads (its dynamic bodies not resting, in handle order) and their state, one
    row each; transforms as 7 floats (position, rotation x y z w)."""
    bodies: list[_Body]
    uids: list[int]
    handles: Any                       # int32 handles, for the records
    plain: Any                         # bool: the node's origin is the body's (no centre-of-mass offset)
    prev: Any                          # (n, 7): the transform before the last step (`has_prev`: known)
    has_prev: Any
    last: Any                          # (n, 7): the transform last written to the node (`has_last`: written)
    has_last: Any
    still: Any                         # steps in a row the transform has not changed
    row: dict[int, int] = field(default_factory=dict)   # handle -> row
    all_prev: bool = True              # has_prev.all(), has_last.all(), plain.all()
    all_last: bool = True
    all_plain: bool = True
    stale: bool = False                # the list must be made again (a body started or stopped resting)


def _flat(t: Transform | None) -> list[float]:
    return [*t[0], *t[1]] if t is not None else [0.0] * 7


def _transform(row: Any) -> Transform:
    v = row.tolist()
    return (v[0], v[1], v[2]), (v[3], v[4], v[5], v[6])


def _row(live: Live | None, body: _Body) -> int | None:
    """`body`'s row in `live`, if it has one."""
    if live is None:
        return None
    i = live.row.get(body.handle)
    return i if i is not None and live.bodies[i] is body else None


def _listed(world: _World) -> Live:
    """`world.live`, made again when stale: rows of bodies still listed are kept, bodies leaving it get their
    state back in their fields, bodies joining it bring theirs."""
    old = world.live
    if old is not None and not old.stale:
        return old
    bodies = [b for b in world.dynamic if not b.resting]
    n = len(bodies)
    live = Live(bodies, [b.uid for b in bodies], np.fromiter((b.handle for b in bodies), _I4, n),
                np.fromiter((b.plain for b in bodies), bool, n), np.zeros((n, 7)), np.zeros(n, bool),
                np.zeros((n, 7)), np.zeros(n, bool), np.zeros(n, np.int64))
    live.row = {b.handle: i for i, b in enumerate(bodies)}
    carried, source = [], []
    if old is not None:
        for h, j in old.row.items():
            b = old.bodies[j]
            k = live.row.get(h)
            if k is None or bodies[k] is not b:
                _give_back(old, j, b)   # no longer listed: its state back in its fields
            else:
                carried.append(k)
                source.append(j)
    joined = set(range(n)).difference(carried)
    for i in sorted(joined):
        b = bodies[i]
        live.prev[i] = _flat(b.prev)
        live.has_prev[i] = b.prev is not None
        live.last[i] = _flat(b.last)
        live.has_last[i] = b.last is not None
        live.still[i] = b.still
    if old is not None and carried:
        for name in ("prev", "has_prev", "last", "has_last", "still"):
            getattr(live, name)[carried] = getattr(old, name)[source]
    live.all_prev, live.all_last = bool(live.has_prev.all()), bool(live.has_last.all())
    live.all_plain = bool(live.plain.all())
    world.live = live
    return live


def _give_back(live: Live, i: int, body: _Body) -> None:
    """Row `i`'s state back into its body's fields (it is no longer listed)."""
    body.prev = _transform(live.prev[i]) if live.has_prev[i] else None
    body.last = _transform(live.last[i]) if live.has_last[i] else None
    body.still = int(live.still[i])


def placed(world: _World, body: _Body, state: Transform) -> None:
    """The body was put at `state` (built, teleported): that is its transform before the next step, and its node
    is written again."""
    live = world.live
    i = _row(live, body)
    if live is not None and i is not None:
        live.prev[i] = _flat(state)
        live.has_prev[i] = True
        live.has_last[i] = False
        live.all_last = False
    body.prev, body.last = state, None


def sync(world: _World, interpolate: bool, alpha: float, stepped: bool) -> bytes:
    """The node transforms of the dynamic bodies that moved (see the module's docstring for the layout).

    With interpolation, Urho3D's Bullet shows a body where it was `fixed - residual` seconds before its current
    transform (btDiscreteDynamicsWorld's latency motion-state interpolation integrates back with the current
    velocity): for Bullet's x_n = x_{n-1} + v_n dt that is the previous step's transform moved `alpha` =
    residual / fixed of the way to the current one, which needs no velocity read.  At a whole step (alpha 0) that
    is the previous transform itself.

    A world of fewer than BATCH dynamic bodies is synced body by body (`_each`: numpy's fixed cost per call would
    outweigh what it saves), a bigger one through numpy (`_batch`); tests/engine/test_physics3d_sync.py holds the
    two to the same records."""
    if world.dynamic_dirty:
        world.dynamic = sorted((b for b in world.bodies.values() if b.uid >= 0 and b.dynamic),
                               key=lambda b: b.handle)
        world.dynamic_dirty = False
        if world.live is not None:
            world.live.stale = True
        grid(world)
    if len(world.dynamic) < BATCH:
        live = world.live
        if live is not None:   # from now on the bodies' fields hold their state
            for i in live.row.values():
                _give_back(live, i, live.bodies[i])
            world.live = None
        data, still, sources = _each(world, interpolate, alpha, stepped)
    else:
        data, still, sources = _batch(world, interpolate, alpha, stepped)
    if stepped and (still or world.resting):
        for body, pos in still:
            _rest(world, body, pos)
        if world.resting:
            data += _woken_records(world, sources, interpolate, alpha)
    return data


def _each(world: _World, interpolate: bool, alpha: float, stepped: bool) -> Records:
    """The records of a small world, body by body; the bodies still long enough to rest (with where they are),
    and where the bodies that moved were and are."""
    p, cid = world.p, world.cid
    get = p.getBasePositionAndOrientation
    values: list[Any] = []
    put = values.extend
    still: list[tuple[_Body, Any]] = []
    sources: list[Any] = []
    blend = interpolate and alpha > 0.0
    behind = interpolate and not blend
    for body in world.dynamic:
        if body.resting:
            continue
        state = get(body.uid, cid)   # positional: measurably cheaper per call than the keyword
        prev = body.prev
        if state == prev:
            if stepped:
                body.still += 1
                if body.still >= REST_STEPS:
                    still.append((body, state[0]))   # = prev[0]
            shown = state
        else:
            if stepped:
                body.prev = state
                body.still = 0
                if prev is not None:
                    sources += (prev[0], state[0])
            if prev is None or not interpolate:
                shown = state
            elif behind:
                shown = prev
            else:
                shown = _blend(prev, state, alpha)
        if shown == body.last:
            continue
        body.last = shown
        if body.plain:
            put((body.handle, *shown[0], *shown[1]))
        else:
            pos, orn = _node_transform(body, shown)
            put((body.handle, *pos, *orn))
    n = len(values) // 8
    return (struct.pack("<" + "i7d" * n, *values) if n else b""), still, sources


def _batch(world: _World, interpolate: bool, alpha: float, stepped: bool) -> Records:
    """`_each` for a big world, over numpy arrays (`Live`)."""
    live = _listed(world)
    n = len(live.bodies)
    if n == 0:
        return b"", [], []
    p, cid = world.p, world.cid
    cur = np.fromiter(chain.from_iterable(chain.from_iterable(
        map(p.getBasePositionAndOrientation, live.uids, repeat(cid, n)))), _F8, 7 * n).reshape(n, 7)
    prev = live.prev
    changed = (cur != prev).any(axis=1)
    if live.all_prev:
        behind = changed   # the rows shown where they were before the step, or blended from there
    else:
        changed |= ~live.has_prev
        behind = changed & live.has_prev
    if not interpolate:
        shown = cur
    elif alpha <= 0.0:   # Urho3D's latency interpolation at a whole step: the last transform
        shown = np.where(behind[:, None], prev, cur)
    else:
        shown = cur.copy()
        for i in np.flatnonzero(behind).tolist():
            a, b = _blend(_transform(prev[i]), _transform(cur[i]), alpha)
            shown[i] = [*a, *b]
    still: list[tuple[_Body, Any]] = []
    sources: list[Any] = []
    if stepped:
        live.prev = np.where(changed[:, None], cur, prev)
        if not live.all_prev:
            live.has_prev |= changed
            live.all_prev = bool(live.has_prev.all())
        live.still = np.where(changed, 0, live.still + 1)
        ready = live.still >= REST_STEPS
        if ready.any():
            still = [(live.bodies[i], tuple(live.prev[i, :3].tolist())) for i in np.flatnonzero(ready).tolist()]
        if world.resting or still:
            moved = np.flatnonzero(behind)
            sources = [*prev[moved, :3].tolist(), *cur[moved, :3].tolist()]
    written = (shown != live.last).any(axis=1)
    if not live.all_last:
        written |= ~live.has_last
        live.has_last[:] = True
        live.all_last = True
    live.last = np.where(written[:, None], shown, live.last)
    rows = None if written.all() else np.flatnonzero(written)
    if rows is None:
        handles, values = live.handles, (shown if live.all_plain else shown.copy())
    elif len(rows):
        handles, values = live.handles[rows], shown[rows]
    else:
        return b"", still, sources
    if not live.all_plain:
        for k in np.flatnonzero(~(live.plain if rows is None else live.plain[rows])).tolist():
            body = live.bodies[k if rows is None else int(rows[k])]
            pos, orn = _node_transform(body, _transform(values[k]))
            values[k] = [*pos, *orn]
    out = np.empty(len(handles), _RECORD)
    out["handle"], out["transform"] = handles, values
    return out.tobytes(), still, sources


def _woken_records(world: _World, sources: list[Any], interpolate: bool, alpha: float) -> bytes:
    """The records of the resting bodies that wake (`_woken`)."""
    get = world.p.getBasePositionAndOrientation
    out = []
    for body in _woken(world, sources):
        # woken during this step: its node shows it as a body read in this sync would be
        state = get(body.uid, world.cid)
        before, body.prev = body.prev, state
        record = state if not interpolate or before is None else (
            _blend(before, state, alpha) if alpha > 0.0 else before)
        if record != body.last:
            body.last = record
            pos, orn = _node_transform(body, record)
            out.append(_RECORD_STRUCT.pack(body.handle, *pos, *orn))
    return b"".join(out)


def _node_transform(body: _Body, shown: Transform) -> Transform:
    """The node's transform for its body's: the body's origin is the shapes' centre of mass."""
    (px, py, pz), orn = shown
    cw = qrotate(orn, body.com)
    return (px - cw[0], py - cw[1], pz - cw[2]), orn


def _blend(a: Any, b: Any, t: float) -> Any:
    """Transform `t` of the way from a to b (position lerp, rotation nlerp)."""
    (pa, qa), (pb, qb) = a, b
    pos = tuple(pa[i] + (pb[i] - pa[i]) * t for i in range(3))
    sign = -1.0 if sum(qa[i] * qb[i] for i in range(4)) < 0 else 1.0
    q = [qa[i] + (qb[i] * sign - qa[i]) * t for i in range(4)]
    n = math.sqrt(sum(v * v for v in q))
    return (pos, tuple(v / n for v in q))


def unrest(world: _World, body: _Body | None = None) -> None:
    """Read `body` (or every resting body) again from the next sync on: something may move it."""
    bodies = [body] if body is not None else [world.bodies[h] for h in world.resting if h in world.bodies]
    live = world.live
    for b in bodies:
        if b.resting and live is not None:
            live.stale = True
        b.resting = False
        b.still = 0
        i = _row(live, b)
        if live is not None and i is not None:
            live.still[i] = 0
        world.resting.pop(b.handle, None)
    if body is None:
        world.resting.clear()


def grid(world: _World) -> None:
    """The resting grid's cell: twice the largest reach of a dynamic body plus a margin, so that a body that can
    touch a resting one has its centre within the 27 cells around the resting one's."""
    reach = max((b.reach for b in world.dynamic), default=0.5)
    cell = 2.0 * reach + _REST_MARGIN
    if cell != world.cell:
        world.cell = cell
        unrest(world)


def _rest(world: _World, body: _Body, pos: Any) -> None:
    """Let `body`, at `pos` and still for REST_STEPS steps, rest (not one in a joint or kept awake)."""
    if body.resting or body.handle in world.awake:
        return
    if any(body.handle in (j.own, j.other) for j in world.joints.values()):
        return
    cell = world.cell
    key = (math.floor(pos[0] / cell), math.floor(pos[1] / cell), math.floor(pos[2] / cell))
    live = world.live
    i = _row(live, body)
    if live is not None and i is not None:   # its fields hold its state from now on (a resting body is not listed)
        _give_back(live, i, body)
        del live.row[body.handle]
        live.stale = True
    body.resting = True
    world.resting[body.handle] = key


def _woken(world: _World, sources: list[Any]) -> list[_Body]:
    """The resting bodies near `sources` (where the bodies that moved this step were and are), a kinematic body or
    a character, which moved this step and rest no more.  A body woken through another woken one is found too
    (Bullet wakes a touching island)."""
    cell = world.cell
    p, cid = world.p, world.cid
    for h in sorted(world.prestep):   # the kinematic bodies are among them
        b = world.bodies[h]
        if b.kinematic and b.uid >= 0:
            sources.append(b.kin_pose[0] if b.kin_pose is not None else p.getBasePositionAndOrientation(b.uid, cid)[0])
    sources += [g.core.pos for g in world.characters.values()]
    out: list[_Body] = []
    while sources and world.resting:
        hot = {(math.floor(q[0] / cell), math.floor(q[1] / cell), math.floor(q[2] / cell)) for q in sources}
        if len(hot) < len(world.resting):   # the 27 cells around each hot cell, or around each resting body
            around = {(cx + dx, cy + dy, cz + dz) for cx, cy, cz in hot for dx in _AROUND for dy in _AROUND
                      for dz in _AROUND}
            near = [h for h, key in world.resting.items() if key in around]
        else:
            near = [h for h, (cx, cy, cz) in world.resting.items()
                    if any((cx + dx, cy + dy, cz + dz) in hot for dx in _AROUND for dy in _AROUND
                           for dz in _AROUND)]
        sources = []
        for h in sorted(near):
            body = world.bodies[h]
            state = p.getBasePositionAndOrientation(body.uid, cid)
            if body.prev is not None and state != body.prev:   # it moved: read it again, look around it too
                unrest(world, body)
                out.append(body)
                sources += [body.prev[0], state[0]]
    return out
