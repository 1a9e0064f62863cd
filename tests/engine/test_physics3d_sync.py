"""Node sync of 3D bodies (engine/_bullet.py, sync): bodies still long enough rest and are not read, yet a resting
body that something moves has its node follow it at once, through a chain of resting bodies too."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import _bullet_sync
from tests.engine.test_physics3d import run


def test_resting_bodies_woken_by_a_collision_keep_their_nodes_exact(tmp_path: Path) -> None:
    _, out = run(tmp_path, """
function Start()
  floor()
  world_.interpolation = false   -- a node is then exactly where its body is, after every frame's step
  boxes = {}
  for i = 1, 4 do boxes[i] = body("Box" .. i, Vector3(i * 1.02, 0.5, 0), 1, "SetBox", Vector3(1, 1, 1)) end
  ball, bb = body("Ball", Vector3(-3, 0.5, 0), 5, "SetSphere", 1)
  OUT.worst, OUT.moved, frame = 0, {}, 0
  SubscribeToEvent("Update", function()
    frame = frame + 1
    if frame == 200 then bb.linearVelocity = Vector3(12, 0, 0) end   -- long after the boxes went to sleep
    for i, n in ipairs(boxes) do
      local d = (n.position - n:GetComponent("RigidBody").position):Length()
      if d > OUT.worst then OUT.worst = d end
      if frame == 260 then OUT.moved[i] = n.position.x - i * 1.02 end
    end
  end)
end
""", 261)
    assert out["worst"] == 0.0, out
    assert all(d > 0.05 for d in out["moved"]), out   # the whole row was pushed, the far box through the others


def test_nodes_follow_their_bodies_through_changes_of_the_node_tree(tmp_path: Path) -> None:
    # The sync writes a leaf right under the scene directly and caches which nodes are such leaves; a node that
    # gains a child, moves under another node, or whose sibling leaves must still show its body exactly.
    _, out = run(tmp_path, """
function Start()
  floor()
  world_.interpolation = false
  boxes = {}
  for i = 1, 4 do boxes[i] = body("Box" .. i, Vector3(i * 1.5, 2 + i, 0), 1, "SetBox", Vector3(1, 1, 1)) end
  holder = scene_:CreateChild("Holder")
  holder.position = Vector3(0.5, 0.25, -1)
  OUT.worst, OUT.kid, OUT.fell, frame = 0, 0, {}, 0
  SubscribeToEvent("Update", function()
    frame = frame + 1
    if frame == 10 then kid = boxes[1]:CreateChild("Kid"); kid.position = Vector3(0, 1, 0) end
    if frame == 20 then boxes[2].parent = holder end            -- keeps its world transform
    if frame == 30 then boxes[3]:Remove() end
    if frame == 40 then boxes[2].parent = scene_ end
    if frame == 50 then kid:Remove() end
    for i, n in ipairs(boxes) do
      if i ~= 3 or frame < 30 then
        local d = (n.worldPosition - n:GetComponent("RigidBody").position):Length()
        if d > OUT.worst then OUT.worst = d end
      end
    end
    if kid and frame < 50 then
      local d = (kid.worldPosition - boxes[1].worldPosition - boxes[1].worldRotation * Vector3(0, 1, 0)):Length()
      if d > OUT.kid then OUT.kid = d end
    end
    if frame == 60 then for i, n in ipairs(boxes) do OUT.fell[i] = i ~= 3 and n.worldPosition.y or 0 end end
  end)
end
""", 61)
    assert out["worst"] == 0.0, out
    assert out["kid"] < 1e-12, out
    assert out["fell"][0] < 1.0 and out["fell"][1] < 2.0 and out["fell"][3] < 4.0, out   # they did fall


PILE = """
function Start()
  floor()
  world_.fps = FPS
  nodes = {}
  for i = 0, 79 do
    local n = scene_:CreateChild("B" .. i)
    n.position = Vector3((i % 10) * 1.2 - 6, 0.6 + (i % 3) * 0.4, (i // 10) * 1.2 - 5)
    n.rotation = Quaternion(i * 11 % 40, Vector3(0.2, 1, 0.1))
    local b = n:CreateComponent("RigidBody")
    b.mass = 1 + i % 3
    local s = n:CreateComponent("CollisionShape")
    if i % 7 == 0 then s:SetBox(Vector3(1, 1, 1), Vector3(0.1, 0.2, 0)) else s:SetBox(Vector3(1, 1, 1)) end
    if i % 9 == 0 then n:CreateChild("Kid").position = Vector3(0, 1, 0) end
    nodes[#nodes + 1] = n
  end
  ball, bb = body("Ball", Vector3(-15, 1, -4.4), 20, "SetSphere", 1)
  OUT.lines, frame = {}, 0
  SubscribeToEvent("Update", function()
    frame = frame + 1
    if frame == 60 then nodes[5].position = Vector3(6, 3, 0) end
    if frame == 300 then bb.linearVelocity = Vector3(25, 0, 0) end   -- into the pile, long after it slept
    if frame == 330 then nodes[12]:GetComponent("RigidBody"):ApplyImpulse(Vector3(0, 8, 0)) end
    local parts = {}
    for _, n in ipairs(nodes) do
      local p, q = n.worldPosition, n.worldRotation
      parts[#parts + 1] = string.format("%.17g %.17g %.17g %.17g %.17g %.17g %.17g", p.x, p.y, p.z, q.w, q.x, q.y, q.z)
    end
    OUT.lines[frame] = table.concat(parts, ";")
  end)
end
"""


@pytest.mark.parametrize("fps", [60, 50])
def test_a_big_world_syncs_through_numpy_exactly_as_body_by_body(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  fps: int) -> None:
    # engine/_bullet_sync.py syncs a world of BATCH dynamic bodies or more through numpy arrays, a smaller one body
    # by body: forced either way, the same pile (resting, woken, teleported; offset shapes; blended at 50 fps) must
    # give bit-identical nodes every frame.
    runs = []
    for batch in (1, 10**6):
        monkeypatch.setattr(_bullet_sync, "BATCH", batch)
        _, out = run(tmp_path / str(batch), f"FPS = {fps}\n" + PILE, 400)
        runs.append(out["lines"])
    assert len(runs[0]) == 400
    assert runs[0] == runs[1]
    assert runs[0][250] == runs[0][299] != runs[0][340]   # it slept, then the ball woke it
