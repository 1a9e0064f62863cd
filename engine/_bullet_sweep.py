"""Swept convex shapes over pybullet: what Bullet's convexSweepTest gives Urho3D's SphereCast, ConvexCast and
continuous collision detection, which pybullet does not expose.

A query body with the cast shape (colliding with nothing in the simulation) is moved along the sweep by
conservative advancement: at each pose the closest points to every candidate body give a distance d and a normal n,
and no contact can happen before the sweep parameter advances by d / (approach speed along n + turn * radius),
the approach speed being the sweep's translation against n and the second term bounding how fast a turning shape
(radius: its farthest point from the origin) can close the gap.  For a pure translation of convex shapes this is
exact in one step against a face and converges fast otherwise; the hit is where the distance drops below `tol`.
"""

from __future__ import annotations

import math
from typing import Any

Pose = tuple[tuple[float, float, float], tuple[float, float, float, float]]   # position, rotation x y z w
_MAX_ADVANCES = 64


def slerp(a: tuple[float, ...], b: tuple[float, ...], t: float) -> tuple[float, float, float, float]:
    """Rotation `t` of the way from a to b along the shorter arc (x, y, z, w)."""
    dot = sum(a[i] * b[i] for i in range(4))
    if dot < 0.0:
        b = tuple(-v for v in b)
        dot = -dot
    if dot > 0.9999995:
        q = [a[i] + (b[i] - a[i]) * t for i in range(4)]
    else:
        theta = math.acos(min(1.0, dot))
        s = math.sin(theta)
        wa, wb = math.sin((1.0 - t) * theta) / s, math.sin(t * theta) / s
        q = [a[i] * wa + b[i] * wb for i in range(4)]
    n = math.sqrt(sum(v * v for v in q))
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


def turn_angle(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """The angle of the rotation taking a to b."""
    dot = min(1.0, abs(sum(a[i] * b[i] for i in range(4))))
    return 2.0 * math.acos(dot)


def sweep(p: Any, cid: int, uid: int, start: Pose, end: Pose, radius: float, candidates: list[tuple[int, int]],
          tol: float = 1e-5) -> tuple[float, int, Any] | None:
    """Sweep query body `uid` from `start` to `end` against `candidates` (handle, pybullet id), in that order of
    preference on ties.  Returns (fraction, handle, closest-point record: position on the hit body [6], its normal
    pointing at the swept shape [7]) of the first touch, or None."""
    (p0, q0), (p1, q1) = start, end
    v = (p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2])
    spin = turn_angle(q0, q1) * radius
    reach = math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]) + spin + tol
    live = list(candidates)
    t = 0.0
    for _ in range(_MAX_ADVANCES):
        pos = [p0[0] + v[0] * t, p0[1] + v[1] * t, p0[2] + v[2] * t]
        p.resetBasePositionAndOrientation(uid, pos, list(slerp(q0, q1, t)), physicsClientId=cid)
        keep = []
        best: tuple[float, int, Any] | None = None
        advance = math.inf
        for handle, other in live:
            points = p.getClosestPoints(uid, other, reach, physicsClientId=cid)
            if not points:
                continue   # out of reach for the rest of the sweep
            keep.append((handle, other))
            cp = min(points, key=lambda c: c[8])
            d = cp[8]
            if d <= tol:
                if best is None or d < best[0]:
                    best = (d, handle, cp)
                continue
            n = cp[7]
            rate = -(v[0] * n[0] + v[1] * n[1] + v[2] * n[2]) + spin
            if rate > 0.0:
                advance = min(advance, d / rate)
        if best is not None:
            return t, best[1], best[2]
        live = keep
        if not live or advance == math.inf:
            return None
        t += advance
        if t > 1.0:
            return None
    return None
