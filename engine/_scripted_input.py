"""Scripted random input for smoke runs: a seeded schedule of key, mouse and touch events."""

from __future__ import annotations

import random
from typing import Any

KEYS = (32, 97, 100, 115, 119, 1073741903, 1073741904, 1073741905, 1073741906, 13, 101, 113, 114, 102, 49, 50)
MOUSE_BUTTONS = (1, 1, 1, 4)


def input_schedule(seed: int, frames: int, width: int, height: int) -> dict[int, list[dict[str, Any]]]:
    """Events to queue before each frame (frame index -> events), the same for the same arguments."""
    rng = random.Random(seed)
    schedule: dict[int, list[dict[str, Any]]] = {}
    held: dict[int, int] = {}
    for frame in range(frames):
        events: list[dict[str, Any]] = []
        for key, until in sorted(held.items()):
            if frame >= until:
                events.append({"kind": "key_up", "key": key})
                del held[key]
        roll = rng.random()
        if roll < 0.08:
            key = rng.choice(KEYS)
            if key not in held:
                events.append({"kind": "key_down", "key": key})
                held[key] = frame + rng.randint(1, 30)
        elif roll < 0.12:
            x, y = rng.randrange(width), rng.randrange(height)
            button = rng.choice(MOUSE_BUTTONS)
            events += [{"kind": "mouse_move", "x": x, "y": y}, {"kind": "mouse_down", "button": button}]
            schedule.setdefault(frame + 2, []).append({"kind": "mouse_up", "button": button})
        elif roll < 0.16:
            x, y = rng.randrange(width), rng.randrange(height)
            events.append({"kind": "touch_begin", "id": 0, "x": x, "y": y})
            schedule.setdefault(frame + 3, []).append({"kind": "touch_end", "id": 0, "x": x, "y": y})
        elif roll < 0.30:
            events.append({"kind": "mouse_move", "dx": rng.randint(-20, 20), "dy": rng.randint(-20, 20)})
        if events:
            schedule.setdefault(frame, []).extend(events)
    return schedule
