"""A kinematic character over pybullet: Bullet's btKinematicCharacterController (the action behind Urho3D's
KinematicCharacterController and, here, UrhoX's CharacterComponent), computed the way Bullet computes it.

Each step the character's convex shape (a ghost that pushes dynamic bodies but is pushed by none) is swept: up by
the step height (or by a jump's rise), forward by the walk displacement, sliding along what it meets (up to 10
sweeps), then down by the step height plus the fall; landing on a slope no steeper than the maximum stops the fall
and makes it on the ground.  Vertical speed follows gravity, capped by the jump and fall speeds; linear damping
shrinks the walk displacement and the vertical speed.  Deep penetrations (over 0.2 m) are pushed out a fifth at a
time.  Pure logic: engine/_bullet.py does the sweeps (engine/_bullet_sweep.py) and the penetration queries.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from engine._bullet_rows import Quat, Vec
from engine._vec3 import add as _add
from engine._vec3 import dot as _dot
from engine._vec3 import scale as _scale
from engine._vec3 import sub as _sub

_EPSILON = 1.1920929e-07
_MAX_PENETRATION = 0.2        # m_maxPenetrationDepth

# sweep(start, end, orientation, accept(normal) -> bool) -> (fraction, hit normal) or None: the first hit whose
# normal is accepted.  (Bullet grows the shape's margin by 0.02 for the forward sweeps; its capsules, spheres,
# boxes and cylinders keep their size when their margin changes, so that is not done here.)
Sweeper = Callable[[Vec, Vec, Quat, Callable[[Vec], bool]], tuple[float, Vec] | None]
# penetrations(position, orientation) -> [(normal pointing at the character, distance < 0), ...]
Penetrations = Callable[[Vec, Quat], list[tuple[Vec, float]]]


def _length(a: Vec) -> float:
    return math.sqrt(_dot(a, a))


def _normalized(a: Vec) -> Vec:
    n = _length(a)
    return _scale(a, 1.0 / n) if n > _EPSILON else (0.0, 0.0, 0.0)


def _lerp(a: Vec, b: Vec, t: float) -> Vec:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)


def _quat_mul(a: Quat, b: Quat) -> Quat:
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


@dataclass
class Character:
    """btKinematicCharacterController's state, with Urho3D's KinematicCharacterController defaults."""
    pos: Vec = (0.0, 0.0, 0.0)                   # the ghost's origin (the shape's centre)
    orn: Quat = (0.0, 0.0, 0.0, 1.0)
    up: Vec = (0.0, 1.0, 0.0)
    gravity: float = 14.0                         # Urho3D's KINEMATIC_GRAVITY (0, -14, 0)
    step_height: float = 0.4
    max_jump_height: float = 2.0                  # stored: Bullet does not use it
    fall_speed: float = 55.0
    jump_speed: float = 9.0
    set_jump_speed: float = 9.0
    max_slope: float = math.radians(45.0)
    linear_damping: float = 0.2
    angular_damping: float = 0.2
    walk: Vec = (0.0, 0.0, 0.0)                   # the walk displacement per step
    angular_velocity: Vec = (0.0, 0.0, 0.0)
    vertical_velocity: float = 0.0
    vertical_offset: float = 0.0
    jump_axis: Vec = (0.0, 1.0, 0.0)
    was_on_ground: bool = False
    was_jumping: bool = False
    current_step_offset: float = 0.0
    touching: bool = False

    # -- Bullet's API ----------------------------------------------------------------------------------------------
    def on_ground(self) -> bool:
        return abs(self.vertical_velocity) < _EPSILON and abs(self.vertical_offset) < _EPSILON

    def set_gravity(self, g: Vec) -> None:
        n = _length(g)
        if n > 0.0:
            self.up = _scale(g, -1.0 / n)
        self.gravity = n

    def jump(self, v: Vec = (0.0, 0.0, 0.0)) -> None:
        n = _length(v)
        self.jump_speed = self.set_jump_speed if n == 0.0 else n
        self.vertical_velocity = self.jump_speed
        self.was_jumping = True
        self.jump_axis = self.up if n == 0.0 else _scale(v, 1.0 / n)

    def set_linear_velocity(self, v: Vec) -> None:
        """Bullet's: the walk displacement, its part along up taken as a vertical speed (a jump when upward)."""
        self.walk = v
        n = _length(v)
        if n > 0.0:
            c = _dot(_scale(v, 1.0 / n), self.up)
            if c != 0.0:
                up_part = _scale(self.up, math.sin(math.pi / 2 - math.acos(max(-1.0, min(1.0, c)))) * n)
                self.walk = _sub(self.walk, up_part)
                self.vertical_velocity = (-1.0 if c < 0.0 else 1.0) * _length(up_part)
                if c > 0.0:
                    self.was_jumping = True
        else:
            self.vertical_velocity = 0.0

    def linear_velocity(self) -> Vec:
        return _add(self.walk, _scale(self.up, self.vertical_velocity))

    def warp(self, pos: Vec) -> None:
        self.pos = pos
        self.orn = (0.0, 0.0, 0.0, 1.0)

    # -- one step (updateAction: preStep, playerStep) ------------------------------------------------------------
    def step(self, dt: float, sweep: Sweeper, penetrations: Penetrations) -> None:
        w = self.angular_velocity
        if _dot(w, w) > 0.0:
            w = _scale(w, (1.0 - self.angular_damping) ** dt)
            self.angular_velocity = w
            angle = _length(w) * dt
            if angle > 0.0:
                axis = _normalized(w)
                s = math.sin(angle / 2.0)
                self.orn = _quat_mul((axis[0] * s, axis[1] * s, axis[2] * s, math.cos(angle / 2.0)), self.orn)
        self.was_on_ground = self.on_ground()
        if _dot(self.walk, self.walk) > 0.0:
            self.walk = _scale(self.walk, (1.0 - self.linear_damping) ** dt)
        self.vertical_velocity *= (1.0 - self.linear_damping) ** dt
        self.vertical_velocity -= self.gravity * dt
        if self.vertical_velocity > 0.0 and self.vertical_velocity > self.jump_speed:
            self.vertical_velocity = self.jump_speed
        if self.vertical_velocity < 0.0 and abs(self.vertical_velocity) > abs(self.fall_speed):
            self.vertical_velocity = -abs(self.fall_speed)
        self.vertical_offset = self.vertical_velocity * dt
        position = self._step_up(sweep, penetrations)
        position, target = self._step_forward(position, self.walk, sweep)
        self.pos = self._step_down(position, target, dt, sweep)
        self._recover(penetrations)

    def _recover(self, penetrations: Penetrations) -> None:
        self.touching = False
        for _ in range(5):
            moved = False
            pos = self.pos
            for normal, dist in penetrations(self.pos, self.orn):
                if dist < -_MAX_PENETRATION:
                    pos = _add(pos, _scale(normal, -dist * 0.2))
                    moved = True
            self.pos = pos
            if not moved:
                return
            self.touching = True

    def _step_up(self, sweep: Sweeper, penetrations: Penetrations) -> Vec:
        """Up by the step height (on the ground or falling) plus a jump's rise; a ceiling stops a jump.  (Bullet
        moves the full way even when the sweep hits: it interpolates from the target to the target.)"""
        step = self.step_height if self.vertical_velocity < 0.0 else 0.0
        current = self.pos
        target = _add(_add(current, _scale(self.up, step)),
                      _scale(self.jump_axis, self.vertical_offset if self.vertical_offset > 0.0 else 0.0))
        down = _scale(self.up, -1.0)
        cos_slope = math.cos(self.max_slope)
        hit = sweep(current, target, self.orn, lambda n: _dot(n, down) >= cos_slope)
        if hit is None:
            self.current_step_offset = step
            return target
        fraction, normal = hit
        if _dot(normal, self.up) > 0.0:
            self.current_step_offset = step * fraction
        self.pos = target
        self._recover(penetrations)
        if self.vertical_offset > 0.0:
            self.vertical_offset = 0.0
            self.vertical_velocity = 0.0
            self.current_step_offset = self.step_height
        return self.pos

    def _step_forward(self, current: Vec, move: Vec, sweep: Sweeper) -> tuple[Vec, Vec]:
        """The walk move, sliding along what it meets: returns where the character is and where it is headed (the
        step down moves it there)."""
        target = _add(current, move)
        direction = _normalized(self.walk)
        fraction = 1.0
        for _ in range(10):
            if fraction <= 0.01:
                break
            back = _sub(current, target)

            def facing(n: Vec, back: Vec = back) -> bool:
                return _dot(n, back) >= 0.0
            hit = sweep(current, target, self.orn, facing) if current != target else None
            if hit is None:
                fraction -= 1.0
                current = target
                continue
            fraction -= hit[0]
            target = self._slide(current, target, hit[1])
            remaining = _sub(target, current)
            if _dot(remaining, remaining) <= _EPSILON or _dot(_normalized(remaining), direction) <= 0.0:
                break   # nothing left, or turned back against the walk (Quake 2's rule against jitter in corners)
        return current, target

    @staticmethod
    def _slide(current: Vec, target: Vec, normal: Vec) -> Vec:
        """Bullet's updateTargetPositionBasedOnCollision: the rest of the move reflected off the hit, keeping the
        part along the surface."""
        movement = _sub(target, current)
        length = _length(movement)
        if length <= _EPSILON:
            return target
        direction = _scale(movement, 1.0 / length)
        reflect = _normalized(_sub(direction, _scale(normal, 2.0 * _dot(direction, normal))))
        along = _sub(reflect, _scale(normal, _dot(reflect, normal)))
        return _add(current, _scale(along, length))

    def _step_down(self, current: Vec, target: Vec, dt: float, sweep: Sweeper) -> Vec:
        """Down by the step offset plus the fall, towards the forward target; a walkable floor stops the fall."""
        if self.vertical_velocity > 0.0:
            return current
        original = target
        fall = (-self.vertical_velocity if self.vertical_velocity < 0.0 else 0.0) * dt
        if fall > 0.0 and fall > self.fall_speed and (self.was_on_ground or not self.was_jumping):
            fall = self.fall_speed
        drop = _scale(self.up, self.current_step_offset + fall)
        target = _sub(original, drop)
        cos_slope = math.cos(self.max_slope)
        up = self.up

        def floor(n: Vec) -> bool:
            return _dot(n, up) >= cos_slope
        ran_once = False
        while True:
            hit = sweep(current, target, self.orn, floor)
            hit2 = sweep(current, _sub(target, drop), self.orn, floor) if hit is None else None
            fall2 = (-self.vertical_velocity if self.vertical_velocity < 0.0 else 0.0) * dt
            step = self.step_height if self.vertical_velocity < 0.0 else 0.0
            # Bullet (without its bounce fix) decides on the double-drop test: a small fall is a stair
            if 0.0 < fall2 < step and hit2 is not None and not ran_once and (self.was_on_ground or
                                                                           not self.was_jumping):
                drop = _scale(self.up, self.current_step_offset + step)
                target = _sub(original, drop)
                ran_once = True
                continue
            break
        if hit is not None or ran_once:
            self.vertical_velocity = 0.0
            self.vertical_offset = 0.0
            self.was_jumping = False
            return _lerp(current, target, hit[0] if hit is not None else 1.0)
        return target
