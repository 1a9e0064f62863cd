"""Vector arithmetic on plain (x, y, z) tuples for the physics helpers that run Bullet's own per-step logic in
Python (constraint rows, the raycast vehicle, the character controller): one definition each, in double precision,
in the order Bullet evaluates them, so their results are the same wherever they are used."""

from __future__ import annotations

import math

Vec = tuple[float, float, float]


def dot(a: Vec, b: Vec) -> float:
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def add(a: Vec, b: Vec) -> Vec:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


def sub(a: Vec, b: Vec) -> Vec:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


def scale(a: Vec, s: float) -> Vec:
    return (a[0] * s, a[1] * s, a[2] * s)


def normalized(a: Vec) -> Vec:
    """a / |a|; a itself when it has no length."""
    n = math.sqrt(dot(a, a))
    return scale(a, 1.0 / n) if n > 0.0 else a


def qrotate(q: tuple[float, ...], v: Vec) -> Vec:
    """v turned by the unit quaternion q = (x, y, z, w): v + 2w(u x v) + 2u x (u x v), u = (x, y, z)."""
    x, y, z, w = q
    vx, vy, vz = v
    tx, ty, tz = 2 * (y * vz - z * vy), 2 * (z * vx - x * vz), 2 * (x * vy - y * vx)
    return (vx + w * tx + (y * tz - z * ty), vy + w * ty + (z * tx - x * tz), vz + w * tz + (x * ty - y * tx))
