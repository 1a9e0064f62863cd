"""Urho3D's RaycastVehicle over pybullet, which has no raycast vehicle: Bullet's btRaycastVehicle action, computed here
the way Bullet computes it, on the hull body's state after each step (where Bullet runs its actions).

Per step, every wheel casts a ray from its hard point (its connection point on the hull) down its suspension
direction for rest length + radius; a hit sets the suspension length and contact.  The suspension is a spring
(stiffness × compression × the hull's mass) with compression and relaxation damping, applied as an impulse at the
contact; then the side friction (a bilateral impulse taking away a fifth of the sideways speed at the contact), the
engine's or the brake's rolling impulse along the wheel's forward direction, both scaled down together when they
exceed what the suspension force × friction slip allows (the skid info), and the side impulse applied at a height
scaled by the roll influence.  Urho3D's additions run after it (FixedPostUpdate: a wheel spinning in the air, the
cumulative skid and the side slip speed).  Pure arithmetic: engine/_bullet.py reads the hull and casts the rays.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from engine._bullet_rows import Quat, Vec, basis
from engine._vec3 import add as _add
from engine._vec3 import cross as _cross
from engine._vec3 import dot as _dot
from engine._vec3 import normalized as _normalized
from engine._vec3 import scale as _scale
from engine._vec3 import sub as _sub

# (hit point, hit normal, fraction) of a ray from a to b, or None
RayCaster = Callable[[Vec, Vec], tuple[Vec, Vec, float] | None]
_CONTACT_DAMPING = 0.2   # resolveSingleBilateral's
_FORWARD_FACTOR = 0.5    # btRaycastVehicle::updateFriction's fwdFactor


def _mat_vec(m: tuple[Vec, Vec, Vec], v: Vec) -> Vec:
    """m given by its columns."""
    c0, c1, c2 = m
    return (c0[0] * v[0] + c1[0] * v[1] + c2[0] * v[2], c0[1] * v[0] + c1[1] * v[1] + c2[1] * v[2],
            c0[2] * v[0] + c1[2] * v[1] + c2[2] * v[2])


def _axis_angle_columns(axis: Vec, angle: float) -> tuple[Vec, Vec, Vec]:
    """The columns of the rotation by `angle` about unit `axis` (the rotation Bullet's btQuaternion(axis, angle)
    gives)."""
    x, y, z = _normalized(axis)
    s, c = math.sin(angle / 2.0), math.cos(angle / 2.0)
    return basis((x * s, y * s, z * s, c))


def _mat_mul(a: tuple[Vec, Vec, Vec], b: tuple[Vec, Vec, Vec]) -> tuple[Vec, Vec, Vec]:
    return (_mat_vec(a, b[0]), _mat_vec(a, b[1]), _mat_vec(a, b[2]))


def quaternion_of(cols: tuple[Vec, Vec, Vec]) -> Quat:
    """The (x, y, z, w) rotation of a rotation matrix given by its columns."""
    m00, m10, m20 = cols[0]
    m01, m11, m21 = cols[1]
    m02, m12, m22 = cols[2]
    trace = m00 + m11 + m22
    if trace > 0.0:
        s = math.sqrt(trace + 1.0) * 2.0
        q = ((m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, 0.25 * s)
    elif m00 > m11 and m00 > m22:
        s = math.sqrt(1.0 + m00 - m11 - m22) * 2.0
        q = (0.25 * s, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s)
    elif m11 > m22:
        s = math.sqrt(1.0 + m11 - m00 - m22) * 2.0
        q = ((m01 + m10) / s, 0.25 * s, (m12 + m21) / s, (m02 - m20) / s)
    else:
        s = math.sqrt(1.0 + m22 - m00 - m11) * 2.0
        q = ((m02 + m20) / s, (m12 + m21) / s, 0.25 * s, (m10 - m01) / s)
    n = math.sqrt(sum(v * v for v in q))
    return (q[0] / n, q[1] / n, q[2] / n, q[3] / n)


@dataclass
class Chassis:
    """The hull as the vehicle sees it: its centre-of-mass transform and velocity, and what an impulse does."""
    pos: Vec
    orn: Quat
    v: Vec
    w: Vec
    inv_mass: float
    inv_inertia: tuple[Vec, Vec, Vec]     # world, by rows
    lin_factor: Vec = (1.0, 1.0, 1.0)

    def cols(self) -> tuple[Vec, Vec, Vec]:
        return basis(self.orn)

    def velocity_at(self, rel: Vec) -> Vec:
        return _add(self.v, _cross(self.w, rel))

    def inertia_times(self, a: Vec) -> Vec:
        m = self.inv_inertia
        return (_dot(m[0], a), _dot(m[1], a), _dot(m[2], a))

    def apply_impulse(self, impulse: Vec, rel: Vec) -> None:
        lf = self.lin_factor
        self.v = (self.v[0] + impulse[0] * self.inv_mass * lf[0], self.v[1] + impulse[1] * self.inv_mass * lf[1],
                  self.v[2] + impulse[2] * self.inv_mass * lf[2])
        self.w = _add(self.w, self.inertia_times(_cross(rel, (impulse[0] * lf[0], impulse[1] * lf[1],
                                                              impulse[2] * lf[2]))))

    def impulse_denominator(self, rel: Vec, normal: Vec) -> float:
        c = _cross(rel, normal)
        return self.inv_mass + _dot(self.inertia_times(c), c)


@dataclass
class Wheel:
    """btWheelInfo, with Urho3D's cumulative skid and side slip speed."""
    connection: Vec               # in the hull's centre-of-mass frame
    direction: Vec
    axle: Vec
    rest_length: float
    radius: float
    front: bool
    stiffness: float = 5.88       # btVehicleTuning's defaults, as Urho3D passes them
    compression: float = 0.83
    relaxation: float = 0.88
    max_travel_cm: float = 500.0
    friction_slip: float = 10.5
    max_force: float = 6000.0
    roll_influence: float = 0.1
    steering: float = 0.0
    engine: float = 0.0
    brake: float = 0.0
    rotation: float = 0.0
    delta_rotation: float = 0.0
    skid: float = 0.0
    hard_point: Vec = (0.0, 0.0, 0.0)
    direction_ws: Vec = (0.0, -1.0, 0.0)
    axle_ws: Vec = (1.0, 0.0, 0.0)
    contact_point: Vec = (0.0, 0.0, 0.0)
    contact_normal: Vec = (0.0, 1.0, 0.0)
    suspension_length: float = 0.0
    in_contact: bool = False
    on_ground: bool = False       # Bullet's ground object: set by a ray hit, kept until the next cast
    relative_velocity: float = 0.0
    clipped_inv: float = 1.0
    suspension_force: float = 0.0
    world_pos: Vec = (0.0, 0.0, 0.0)
    world_rot: Quat = (0.0, 0.0, 0.0, 1.0)
    world_cols: tuple[Vec, Vec, Vec] = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
    skid_cumulative: float = 1.0
    side_slip: float = 0.0


@dataclass
class Vehicle:
    hull: int                                  # the hull body's handle
    axes: tuple[int, int, int] = (0, 1, 2)     # right, up, forward (Urho3D's RIGHT_UP_FORWARD)
    in_air_rpm: float = 0.0
    max_side_slip: float = 4.0
    wheels: list[Wheel] = field(default_factory=list)
    enabled: bool = True          # a disabled component's action is out of the world (Urho3D's OnSetEnabled)

    # -- wheel transforms ----------------------------------------------------------------------------------------
    def place(self, wheel: Wheel, pos: Vec, orn: Quat) -> None:
        """updateWheelTransformsWS: the hard point, direction and axle in the world for a hull at (pos, orn); the
        wheel counts as not in contact until its next ray."""
        wheel.in_contact = False
        cols = basis(orn)
        wheel.hard_point = _add(pos, _mat_vec(cols, wheel.connection))
        wheel.direction_ws = _mat_vec(cols, wheel.direction)
        wheel.axle_ws = _mat_vec(cols, wheel.axle)

    def transform(self, wheel: Wheel, pos: Vec, orn: Quat) -> None:
        """updateWheelTransform: the wheel's world transform (steered about its up, turned about its axle)."""
        self.place(wheel, pos, orn)
        up = _scale(wheel.direction_ws, -1.0)
        right = wheel.axle_ws
        fwd = _normalized(_cross(up, right))
        steer = _axis_angle_columns(up, wheel.steering)
        spin = _axis_angle_columns(right, -wheel.rotation)
        cols: list[list[float]] = [[0.0] * 3 for _ in range(3)]
        ri, ui, fi = self.axes
        cols[ri] = [-right[0], -right[1], -right[2]]
        cols[ui] = [up[0], up[1], up[2]]
        cols[fi] = [fwd[0], fwd[1], fwd[2]]
        base = (tuple(cols[0]), tuple(cols[1]), tuple(cols[2]))
        m = _mat_mul(steer, _mat_mul(spin, base))  # type: ignore[arg-type]
        wheel.world_cols = m
        wheel.world_rot = quaternion_of(m)
        wheel.world_pos = _add(wheel.hard_point, _scale(wheel.direction_ws, wheel.suspension_length))

    def reset_suspension(self) -> None:
        for wheel in self.wheels:
            wheel.suspension_length = wheel.rest_length
            wheel.relative_velocity = 0.0
            wheel.contact_normal = _scale(wheel.direction_ws, -1.0)
            wheel.clipped_inv = 1.0

    # -- one step ------------------------------------------------------------------------------------------------
    def _ray(self, wheel: Wheel, chassis: Chassis, cast: RayCaster) -> None:
        self.place(wheel, chassis.pos, chassis.orn)
        length = wheel.rest_length + wheel.radius
        source = wheel.hard_point
        target = _add(source, _scale(wheel.direction_ws, length))
        wheel.contact_point = target
        hit = cast(source, target)
        wheel.on_ground = False
        if hit is None:
            wheel.suspension_length = wheel.rest_length
            wheel.relative_velocity = 0.0
            wheel.contact_normal = _scale(wheel.direction_ws, -1.0)
            wheel.clipped_inv = 1.0
            return
        point, normal, fraction = hit
        wheel.contact_normal = normal
        wheel.in_contact = True
        wheel.on_ground = True
        travel = wheel.max_travel_cm * 0.01
        wheel.suspension_length = min(max(fraction * length - wheel.radius, wheel.rest_length - travel),
                                      wheel.rest_length + travel)
        wheel.contact_point = point
        denominator = _dot(normal, wheel.direction_ws)
        speed = _dot(normal, chassis.velocity_at(_sub(point, chassis.pos)))
        if denominator >= -0.1:
            wheel.relative_velocity = 0.0
            wheel.clipped_inv = 1.0 / 0.1
        else:
            inv = -1.0 / denominator
            wheel.relative_velocity = speed * inv
            wheel.clipped_inv = inv

    def update(self, chassis: Chassis, dt: float, cast: RayCaster) -> None:
        """btRaycastVehicle::updateVehicle for one step of dt: the chassis's velocity takes the impulses."""
        for wheel in self.wheels:
            self.transform(wheel, chassis.pos, chassis.orn)
        for wheel in self.wheels:
            self._ray(wheel, chassis, cast)
        mass = 1.0 / chassis.inv_mass if chassis.inv_mass > 0.0 else 0.0
        for wheel in self.wheels:
            if wheel.in_contact:
                force = wheel.stiffness * (wheel.rest_length - wheel.suspension_length) * wheel.clipped_inv
                damping = wheel.compression if wheel.relative_velocity < 0.0 else wheel.relaxation
                force -= damping * wheel.relative_velocity
                wheel.suspension_force = max(force * mass, 0.0)
            else:
                wheel.suspension_force = 0.0
        for wheel in self.wheels:
            force = min(wheel.suspension_force, wheel.max_force)
            chassis.apply_impulse(_scale(wheel.contact_normal, force * dt), _sub(wheel.contact_point, chassis.pos))
        self._friction(chassis, dt)
        cols = chassis.cols()
        forward = cols[self.axes[2]]
        for wheel in self.wheels:
            vel = chassis.velocity_at(_sub(wheel.hard_point, chassis.pos))
            if wheel.in_contact:
                n = wheel.contact_normal
                fwd = _sub(forward, _scale(n, _dot(forward, n)))
                wheel.delta_rotation = _dot(fwd, vel) * dt / wheel.radius
            wheel.rotation += wheel.delta_rotation
            wheel.delta_rotation *= 0.99   # the spin of a wheel in the air dies down

    def _friction(self, chassis: Chassis, dt: float) -> None:
        wheels = self.wheels
        if not wheels:
            return
        on_ground = sum(1 for w in wheels if w.on_ground)
        axles: list[Vec] = [(0.0, 0.0, 0.0)] * len(wheels)
        forwards: list[Vec] = [(0.0, 0.0, 0.0)] * len(wheels)
        side = [0.0] * len(wheels)
        ahead = [0.0] * len(wheels)
        ri = self.axes[0]
        for i, wheel in enumerate(wheels):
            if not wheel.on_ground:
                continue
            right = wheel.world_cols[ri]
            axle = _scale(right, -1.0)
            n = wheel.contact_normal
            axle = _normalized(_sub(axle, _scale(n, _dot(axle, n))))
            axles[i] = axle
            forwards[i] = _normalized(_cross(n, axle))
            rel = _sub(wheel.contact_point, chassis.pos)
            speed = _dot(axle, chassis.velocity_at(rel))
            side[i] = -_CONTACT_DAMPING * speed / chassis.impulse_denominator(rel, axle)
        sliding = False
        for i, wheel in enumerate(wheels):
            rolling = 0.0
            if wheel.on_ground:
                if wheel.engine != 0.0:
                    rolling = wheel.engine * dt
                else:
                    rel = _sub(wheel.contact_point, chassis.pos)
                    speed = _dot(forwards[i], chassis.velocity_at(rel))
                    limit = wheel.brake if wheel.brake else 0.0
                    rolling = -speed / chassis.impulse_denominator(rel, forwards[i]) / on_ground
                    rolling = max(min(rolling, limit), -limit)
            ahead[i] = 0.0
            wheel.skid = 1.0
            if wheel.on_ground:
                most = wheel.suspension_force * dt * wheel.friction_slip
                ahead[i] = rolling
                x, y = ahead[i] * _FORWARD_FACTOR, side[i]
                if x * x + y * y > most * most:
                    sliding = True
                    wheel.skid *= most / math.sqrt(x * x + y * y)
        if sliding:
            for i, wheel in enumerate(wheels):
                if side[i] != 0.0 and wheel.skid < 1.0:
                    ahead[i] *= wheel.skid
                    side[i] *= wheel.skid
        up = chassis.cols()[self.axes[1]]
        for i, wheel in enumerate(wheels):
            rel = _sub(wheel.contact_point, chassis.pos)
            if ahead[i] != 0.0:
                chassis.apply_impulse(_scale(forwards[i], ahead[i]), rel)
            if side[i] != 0.0:
                # the side impulse acts higher up the hull as the roll influence shrinks (Bullet's roll fix)
                rel = _sub(rel, _scale(up, _dot(up, rel) * (1.0 - wheel.roll_influence)))
                chassis.apply_impulse(_scale(axles[i], side[i]), rel)

    def post_step(self, chassis: Chassis, dt: float) -> None:
        """Urho3D's RaycastVehicle::FixedPostUpdate: a wheel driven in the air spins up; the cumulative skid and
        the side slip speed."""
        for wheel in self.wheels:
            if not wheel.in_contact and wheel.engine != 0.0:
                if self.in_air_rpm != 0.0:
                    delta = self.in_air_rpm * dt / 60.0
                else:
                    mass = 1.0 / chassis.inv_mass if chassis.inv_mass > 0.0 else 0.0
                    delta = 8.0 * wheel.engine * dt / (mass * wheel.radius) if mass * wheel.radius else 0.0
                if abs(wheel.delta_rotation) < abs(delta):
                    wheel.rotation += delta - wheel.delta_rotation
                    wheel.delta_rotation = delta
                if wheel.skid_cumulative > 0.05:
                    wheel.skid_cumulative -= 0.002
            else:
                wheel.skid_cumulative = wheel.skid
            wheel.side_slip = abs(_dot(wheel.axle_ws, chassis.v))
            if wheel.side_slip > self.max_side_slip:
                wheel.skid_cumulative = min(max(wheel.skid_cumulative, 0.0), 0.89)
