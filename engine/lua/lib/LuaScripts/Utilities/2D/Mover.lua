-- LuaScripts/Utilities/2D/Mover.lua: the grader engine's own version of the script object class Urho3D's Urho2D
-- samples give their moving entities (Sample2D.lua's PopulateMovingEntities creates it with
-- `node:CreateScriptObject("LuaScripts/Utilities/2D/Mover.lua", "Mover")`).  Written for this project.
--
-- A Mover walks its node along `path` (Vector2 waypoints, in the order given) at `speed` world units a second,
-- starting towards the second waypoint.  At the last waypoint a closed path (last == first) starts over from the
-- first; an open one is walked back, `speed` turning negative until the first waypoint turns it again.  A node
-- named "Orc" also animates: "run"; "attack" while `fightTimer` counts (set by the game, three seconds, facing the
-- player); "dead" while `emitTime` counts, after which (three seconds) the node is removed.  An orc fighting or
-- dying does not move.  The path is saved with the scene (Save / Load).

Mover = ScriptObject()

local ARRIVED = 0.1   -- a waypoint is reached within this distance
local ORC_TIMER = 3   -- seconds an orc fights or dies

function Mover:Start()
  self.speed = 0.8
  self.path = {}
  self.currentPathID = 2   -- the waypoint walked to (1-based)
  self.emitTime = 0
  self.fightTimer = 0
  self.flip = 0
end

function Mover:Save(serializer)
  local buffer = VectorBuffer()
  for _, point in ipairs(self.path) do
    buffer:WriteVector2(point)
  end
  serializer:WriteBuffer(buffer)
end

function Mover:Load(deserializer)
  local buffer = deserializer:ReadBuffer()
  while buffer.size > 0 and not buffer.eof do
    self.path[#self.path + 1] = buffer:ReadVector2()
  end
end

-- The orc's animation for its state; false when the orc is gone.
function Mover:AnimateOrc(timeStep)
  local node = self.node
  local sprite = node:GetComponent("AnimatedSprite2D")
  local animation = "run"
  if self.emitTime > 0 then
    animation = "dead"
    self.emitTime = self.emitTime + timeStep
    if self.emitTime >= ORC_TIMER then
      node:Remove()
      return false
    end
  else
    if self.fightTimer > 0 then
      animation = "attack"
      self.flip = character2DNode.position.x - node.position.x   -- face the player
      self.fightTimer = self.fightTimer + timeStep
      if self.fightTimer >= ORC_TIMER then
        self.fightTimer = 0
      end
    end
    sprite.flipX = self.flip >= 0
  end
  if sprite.animation ~= animation then
    sprite:SetAnimation(animation)
  end
  return true
end

-- The next waypoint once the current one is reached.
function Mover:NextWaypoint()
  local last = #self.path
  if self.speed > 0 then
    if self.currentPathID < last then
      self.currentPathID = self.currentPathID + 1
    elseif self.path[self.currentPathID] == self.path[1] then
      self.currentPathID = 1   -- a closed path: round again
    else
      self.currentPathID = self.currentPathID - 1
      self.speed = -self.speed
    end
  elseif self.currentPathID > 1 then
    self.currentPathID = self.currentPathID - 1
  else
    self.currentPathID = 2
    self.speed = -self.speed
  end
end

function Mover:Update(timeStep)
  if #self.path < 2 then
    return
  end
  local node = self.node
  if node.name == "Orc" and not self:AnimateOrc(timeStep) then
    return
  end
  if self.fightTimer > 0 or self.emitTime > 0 then
    return
  end
  local toTarget = self.path[self.currentPathID] - node.position2D
  local direction = toTarget:Normalized()
  node:Translate(Vector3(direction.x, direction.y, 0) * Abs(self.speed) * timeStep)
  self.flip = toTarget.x
  if toTarget:Length() < ARRIVED then
    self:NextWaypoint()
  end
end
