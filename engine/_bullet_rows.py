"""Constraint rows solved in Python, for the joints pybullet cannot give two maximal-coordinate bodies.

pybullet joins such bodies with point, fixed and gear constraints only, so Urho3D's slider (btSliderConstraint) is
solved here, the way Bullet's sequential-impulse solver solves a joint: the constraint states its rows (a Jacobian
over both bodies' linear and angular velocities, a velocity target from the position error times ERP / dt, impulse
bounds), and projected Gauss-Seidel iterations on the accumulated impulses make the bodies' velocities meet them.
Bullet solves the rows on each body's velocity after damping plus this step's external impulse (gravity, applied
forces); so does this, before pybullet's step, which then adds the same external impulse and solves the contacts
alone (the joint and the contacts are not solved together: docs/physics.md).

Pure arithmetic: engine/_bullet.py reads the bodies' states from pybullet and writes the velocity changes back.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from engine._vec3 import add as _add
from engine._vec3 import cross as _cross
from engine._vec3 import dot as _dot
from engine._vec3 import normalized as _normalized
from engine._vec3 import scale as _scale
from engine._vec3 import sub as _sub

Vec = tuple[float, float, float]
Quat = tuple[float, float, float, float]   # x, y, z, w
_EPSILON = 1.1920929e-07                   # Bullet's SIMD_EPSILON (single precision, as Urho3D builds it)
_SQRT12 = math.sqrt(0.5)
_INF = math.inf


def _neg(a: Vec) -> Vec:
    return (-a[0], -a[1], -a[2])


def basis(q: Quat) -> tuple[Vec, Vec, Vec]:
    """The columns of the rotation matrix of q: the rotated X, Y and Z axes."""
    x, y, z, w = q
    return ((1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)),
            (2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)),
            (2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)))


def quat_mul(a: Quat, b: Quat) -> Quat:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def rotate(q: Quat, v: Vec) -> Vec:
    c0, c1, c2 = basis(q)
    return (c0[0] * v[0] + c1[0] * v[1] + c2[0] * v[2], c0[1] * v[0] + c1[1] * v[1] + c2[1] * v[2],
            c0[2] * v[0] + c1[2] * v[1] + c2[2] * v[2])


def plane_space(n: Vec) -> tuple[Vec, Vec]:
    """Two unit vectors perpendicular to unit n and to each other, chosen as Bullet's btPlaneSpace1 chooses them
    (which pair matters: the solver's rows run along them)."""
    if abs(n[2]) > _SQRT12:
        a = n[1] * n[1] + n[2] * n[2]
        k = 1.0 / math.sqrt(a)
        p = (0.0, -n[2] * k, n[1] * k)
        return p, (a * k, -n[0] * p[2], n[0] * p[1])
    a = n[0] * n[0] + n[1] * n[1]
    k = 1.0 / math.sqrt(a)
    p = (-n[1] * k, n[0] * k, 0.0)
    return p, (-n[2] * p[1], n[2] * p[0], a * k)


def _wrap(angle: float) -> float:
    angle = math.fmod(angle, 2 * math.pi)
    if angle < -math.pi:
        return angle + 2 * math.pi
    if angle > math.pi:
        return angle - 2 * math.pi
    return angle


def adjust_angle_to_limits(angle: float, low: float, high: float) -> float:
    """The angle, or the angle one turn away, whichever is nearer the limits (Bullet's btAdjustAngleToLimits)."""
    if low >= high:
        return angle
    if angle < low:
        return angle if abs(_wrap(low - angle)) < abs(_wrap(high - angle)) else angle + 2 * math.pi
    if angle > high:
        return angle if abs(_wrap(angle - high)) < abs(_wrap(angle - low)) else angle - 2 * math.pi
    return angle


@dataclass
class RowBody:
    """A body as the rows see it: its centre-of-mass pose, its velocity as the solver starts from it (damped, plus
    this step's external impulse), and what the rows add to that velocity."""
    pos: Vec
    orn: Quat
    v: Vec = (0.0, 0.0, 0.0)
    w: Vec = (0.0, 0.0, 0.0)
    inv_mass: float = 0.0
    lin_factor: Vec = (1.0, 1.0, 1.0)
    inv_inertia: tuple[Vec, Vec, Vec] = ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0))   # world, by rows
    dv: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])
    dw: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0])

    def inertia_times(self, a: Vec) -> Vec:
        m = self.inv_inertia
        return (_dot(m[0], a), _dot(m[1], a), _dot(m[2], a))


@dataclass
class Row:
    """One scalar constraint: J1 over body a's (linear, angular) velocity, J2 over b's, the velocity target
    `error` (Bullet's m_constraintError) and the bounds of the accumulated impulse."""
    a: RowBody
    b: RowBody
    lin_a: Vec
    ang_a: Vec
    lin_b: Vec
    ang_b: Vec
    error: float
    lo: float = -_INF
    hi: float = _INF
    cfm: float = 0.0


def solve(rows: list[Row], iterations: int) -> None:
    """Projected Gauss-Seidel over the rows in order, as btSequentialImpulseConstraintSolver runs a joint's rows
    (no warm start for joints); the velocity changes accumulate in each body's dv and dw."""
    prepared = []
    for r in rows:
        a, b = r.a, r.b
        comp_a = a.inertia_times(r.ang_a)
        comp_b = b.inertia_times(r.ang_b)
        total = (a.inv_mass * _dot(r.lin_a, r.lin_a) + _dot(comp_a, r.ang_a)
                 + b.inv_mass * _dot(r.lin_b, r.lin_b) + _dot(comp_b, r.ang_b))
        diag = 1.0 / total if abs(total) > _EPSILON else 0.0
        rel = (_dot(r.lin_a, a.v) + _dot(r.ang_a, a.w) + _dot(r.lin_b, b.v) + _dot(r.ang_b, b.w))
        rhs = (r.error - rel) * diag
        lf_a, lf_b = a.lin_factor, b.lin_factor
        push_a = (r.lin_a[0] * a.inv_mass * lf_a[0], r.lin_a[1] * a.inv_mass * lf_a[1],
                  r.lin_a[2] * a.inv_mass * lf_a[2])
        push_b = (r.lin_b[0] * b.inv_mass * lf_b[0], r.lin_b[1] * b.inv_mass * lf_b[1],
                  r.lin_b[2] * b.inv_mass * lf_b[2])
        prepared.append((r, diag, rhs, push_a, comp_a, push_b, comp_b))
    applied_of = [0.0] * len(prepared)
    for _ in range(max(1, int(iterations))):
        for n, (r, diag, rhs, push_a, comp_a, push_b, comp_b) in enumerate(prepared):
            a, b = r.a, r.b
            applied = applied_of[n]
            adv, adw, bdv, bdw = a.dv, a.dw, b.dv, b.dw
            moved = (r.lin_a[0] * adv[0] + r.lin_a[1] * adv[1] + r.lin_a[2] * adv[2]
                     + r.ang_a[0] * adw[0] + r.ang_a[1] * adw[1] + r.ang_a[2] * adw[2]
                     + r.lin_b[0] * bdv[0] + r.lin_b[1] * bdv[1] + r.lin_b[2] * bdv[2]
                     + r.ang_b[0] * bdw[0] + r.ang_b[1] * bdw[1] + r.ang_b[2] * bdw[2])
            delta = rhs - applied * r.cfm - moved * diag
            total = applied + delta
            if total < r.lo:
                delta = r.lo - applied
                total = r.lo
            elif total > r.hi:
                delta = r.hi - applied
                total = r.hi
            applied_of[n] = total
            if delta == 0.0:
                continue
            for i in range(3):
                a.dv[i] += push_a[i] * delta
                a.dw[i] += comp_a[i] * delta
                b.dv[i] += push_b[i] * delta
                b.dw[i] += comp_b[i] * delta


@dataclass
class Slider:
    """Urho3D's slider (btSliderConstraint with the other body's frame as the linear reference): the own body
    (a) moves along and turns about the X axis of its frame; `lin_*` limit the travel (metres, low > high frees
    it), `ang_*` the turn about the axis (radians; Bullet's default 0, 0 holds it).  `limit_erp`/`limit_cfm` are
    Urho3D's ERP and CFM, which Bullet's slider applies to its linear limit only (0: the world's)."""
    frame_a: tuple[Vec, Quat]     # in a's centre-of-mass frame
    frame_b: tuple[Vec, Quat]     # in b's, or in the world
    lin_low: float = 1.0
    lin_high: float = -1.0
    ang_low: float = 0.0
    ang_high: float = 0.0
    limit_erp: float = 0.0
    limit_cfm: float = 0.0

    def position(self, a: RowBody, b: RowBody) -> tuple[float, float]:
        """The travel along the axis and the turn about it, as Bullet measures them."""
        oa, ba = self._frame(a, self.frame_a)
        ob, bb = self._frame(b, self.frame_b)
        travel = _dot(_sub(oa, ob), ba[0])
        turn = math.atan2(_dot(bb[1], ba[2]), _dot(bb[1], ba[1]))
        return travel, turn

    @staticmethod
    def _frame(body: RowBody, frame: tuple[Vec, Quat]) -> tuple[Vec, tuple[Vec, Vec, Vec]]:
        origin = _add(body.pos, rotate(body.orn, frame[0]))
        return origin, basis(quat_mul(body.orn, frame[1]))

    def rows(self, a: RowBody, b: RowBody, dt: float, erp: float) -> list[Row]:
        """The rows of one step: two angular rows keeping the axes parallel, two linear rows keeping the own
        frame's origin on the other's axis, and a row for each limit that is reached."""
        fps = 1.0 / dt
        oa, ba = self._frame(a, self.frame_a)
        ob, bb = self._frame(b, self.frame_b)
        axis_a = ba[0]
        delta = _sub(oa, ob)                       # the other frame is the linear reference
        travel = _dot(delta, axis_a)
        lin_limited, lin_depth, offset = False, 0.0, travel
        if self.lin_low <= self.lin_high:
            if travel > self.lin_high:
                lin_limited, lin_depth, offset = True, travel - self.lin_high, self.lin_high
            elif travel < self.lin_low:
                lin_limited, lin_depth, offset = True, travel - self.lin_low, self.lin_low
        ang_limited, ang_depth = False, 0.0
        if self.ang_low <= self.ang_high:
            turn = math.atan2(_dot(bb[1], ba[2]), _dot(bb[1], ba[1]))
            turn = adjust_angle_to_limits(turn, self.ang_low, self.ang_high)
            if turn < self.ang_low:
                ang_limited, ang_depth = True, turn - self.ang_low
            elif turn > self.ang_high:
                ang_limited, ang_depth = True, turn - self.ang_high
        mi_a, mi_b = a.inv_mass, b.inv_mass
        has_static = mi_a < _EPSILON or mi_b < _EPSILON
        fact_a = mi_b / (mi_a + mi_b) if mi_a + mi_b > 0.0 else 0.5
        fact_b = 1.0 - fact_a
        axis_b = bb[0]
        ax1 = _normalized(_add(_scale(axis_a, fact_a), _scale(axis_b, fact_b)))
        p, q = plane_space(ax1)
        zero = (0.0, 0.0, 0.0)
        k = fps * erp
        u = _cross(axis_a, axis_b)
        out = [Row(a, b, zero, p, zero, _neg(p), k * _dot(u, p)),
               Row(a, b, zero, q, zero, _neg(q), k * _dot(u, q))]
        # the frames' origins on one line along the axis, the bodies' offsets split by their mass ratio
        rel_b = _sub(ob, b.pos)
        ortho_b = _sub(rel_b, _scale(ax1, _dot(rel_b, ax1)))
        rel_a = _sub(oa, a.pos)
        proj_a = _scale(ax1, _dot(rel_a, ax1))
        ortho_a = _sub(rel_a, proj_a)
        # (the travel is measured from the other frame, so the own frame lies -travel along the axis from it: with
        # this sign both lever arms end at one point; Bullet 3.05 adds +travel here when, as in Urho3D, the other
        # frame is the reference, which only matters between two dynamic bodies whose frames have slid apart)
        total = _sub(_add(proj_a, _scale(ax1, -offset)), _scale(ax1, _dot(rel_b, ax1)))
        rel_a = _add(ortho_a, _scale(total, fact_a))
        rel_b = _sub(ortho_b, _scale(total, fact_b))
        p = _add(_scale(ortho_b, fact_a), _scale(ortho_a, fact_b))
        p = _normalized(p) if _dot(p, p) > _EPSILON else ba[1]
        q = _cross(ax1, p)
        gap = _sub(ob, oa)
        ang_qa, ang_qb = _cross(rel_a, q), _cross(rel_b, q)
        if has_static and ang_limited:   # Bullet stiffens a joint to a static body this way
            ang_qa, ang_qb = _scale(ang_qa, fact_a), _scale(ang_qb, fact_b)
        out.append(Row(a, b, p, _cross(rel_a, p), _neg(p), _neg(_cross(rel_b, p)), k * _dot(p, gap)))
        out.append(Row(a, b, q, ang_qa, _neg(q), _neg(ang_qb), k * _dot(q, gap)))
        if lin_limited:
            err = -lin_depth                       # Bullet's sign for the other frame as reference
            lim_erp = self.limit_erp if self.limit_erp != 0.0 else erp
            softness = self.limit_erp if self.limit_erp != 0.0 else 1.0
            ang_a = zero if has_static else _cross(rel_a, ax1)
            ang_b = zero if has_static else _neg(_cross(rel_b, ax1))
            if self.lin_low == self.lin_high:
                lo, hi = -_INF, _INF
            elif err > 0.0:
                lo, hi = 0.0, _INF
            else:
                lo, hi = -_INF, 0.0
            out.append(Row(a, b, ax1, ang_a, _neg(ax1), ang_b, fps * lim_erp * err * softness, lo, hi,
                           self.limit_cfm))
        if ang_limited:
            if self.ang_low == self.ang_high:
                lo, hi = -_INF, _INF
            elif ang_depth > 0.0:
                lo, hi = 0.0, _INF
            else:
                lo, hi = -_INF, 0.0
            out.append(Row(a, b, zero, ax1, zero, _neg(ax1), fps * erp * ang_depth, lo, hi))
        return out
