-- Crowds (docs/navigation.md): CrowdManager and CrowdAgent with Urho3D's API, states and events, moving agents
-- over the navigation mesh (66_navigation_*.lua) at the scene's SceneSubsystemUpdate, as Detour's crowd does in
-- Urho3D: a requested target is found on the mesh (within the crowd's placement extents), the path to it is the
-- mesh's corridor, each update the agent steers at its first corner at maxSpeed (slowing within twice its radius of
-- the goal), keeps apart from up to 6 neighbours within its collision range (separation, for MEDIUM and HIGH
-- quality), changes velocity by at most maxAccel, is pushed out of overlapping agents (4 passes), is kept on the
-- mesh (moveAlongSurface), crosses off-mesh connections in an animation, and then reports: the node's position,
-- CrowdAgentReposition, CrowdAgentStateChanged and CrowdAgentFailure (and their Node* twins sent by the node).
-- Not modelled: velocity-sampling obstacle avoidance (its parameters are kept), turn anticipation, and the path
-- queue's delay (a requested path is ready in the same update).
local type, ipairs, setmetatable = type, ipairs, setmetatable
local sformat = string.format
local mfloor, mmin, mmax, abs, sqrt = math.floor, math.min, math.max, math.abs, math.sqrt
local REC, comp_rec, typed_comp_rec = E.REC, E.comp_rec, E.typed_comp_rec
local FACTORIES = E.COMPONENT_FACTORIES
local Q, NAV = E.NAVQ, E.NAV
local v3 = E.Vector3_new

local MAX_FILTER_TYPES, MAX_AVOIDANCE_TYPES, MAX_AREAS = 16, 8, 64
local MAX_NEIGHBOURS = 6
local COLLISION_RESOLVE = 0.7
local CHECK_LOOKAHEAD = 10
local TARGET_REPLAN_DELAY = 1.0
local MIN_TARGET_DIST = 0.01

-- Agent and target states (CrowdAgentState, CrowdAgentTargetState)
local STATE_INVALID, STATE_WALKING, STATE_OFFMESH = 0, 1, 2
local TARGET_NONE, TARGET_FAILED, TARGET_VALID, TARGET_REQUESTING, TARGET_VELOCITY = 0, 1, 2, 3, 6
local REQ_NONE, REQ_POSITION, REQ_VELOCITY = 0, 1, 2
local QUALITY_LOW, QUALITY_MEDIUM, QUALITY_HIGH = 0, 1, 2
local PUSH_LOW, PUSH_MEDIUM, PUSH_HIGH, PUSH_NONE = 0, 1, 2, 3

local function default_avoidance()
  return {velBias = 0.4, weightDesVel = 2.0, weightCurVel = 0.75, weightSide = 0.75, weightToi = 2.5,
    horizTime = 2.5, gridSize = 33, adaptiveDivs = 7, adaptiveRings = 2, adaptiveDepth = 5}
end
local AVOIDANCE_FIELDS = {"velBias", "weightDesVel", "weightCurVel", "weightSide", "weightToi", "horizTime",
  "gridSize", "adaptiveDivs", "adaptiveRings", "adaptiveDepth"}

----------------------------------------------------------------------------------------------------
-- CrowdManager state
----------------------------------------------------------------------------------------------------
local function scene_node(c) return c.node and c.node.scene end

local function find_mesh(scene)
  local function walk(n)
    for _, x in ipairs(n.components) do
      if x.type_name == "NavigationMesh" or x.type_name == "DynamicNavigationMesh" then return x end
    end
    for _, ch in ipairs(n.children) do
      local f = walk(ch)
      if f then return f end
    end
    return nil
  end
  return walk(scene)
end

local create_crowd, set_mesh, update_crowd

FACTORIES.CrowdManager = function(c)
  c.max_agents, c.max_agent_radius = 512, 0.0
  c.mesh = nil
  c.crowd = false
  c.slots = {}             -- crowd index (1-based) -> agent record
  c.filters = {}
  for i = 1, MAX_FILTER_TYPES do c.filters[i] = Q.new_filter() end
  c.num_areas = {}
  for i = 1, MAX_FILTER_TYPES do c.num_areas[i] = 0 end
  c.num_filter_types = 0
  c.avoidance = {}
  for i = 1, MAX_AVOIDANCE_TYPES do c.avoidance[i] = default_avoidance() end
  c.num_avoidance_types = 0
  c.on_scene_set = function(x, scene)
    if scene ~= x.node then
      E.log("ERROR", "CrowdManager is a scene component and should only be attached to the scene node")
      return
    end
    E.subscribe(x, nil, scene.proxy, "SceneSubsystemUpdate", function(_, data)
      if x.crowd and x.mesh and not x.mesh.removed and NAV.effective(x) then update_crowd(x, data.TimeStep:GetFloat()) end
    end)
    if x.mesh == nil then
      local m = find_mesh(scene)
      if m then set_mesh(x, m)
      else
        E.subscribe(x, nil, scene.proxy, "ComponentAdded", function()
          local found = find_mesh(scene)
          if found then set_mesh(x, found) end
        end)
      end
    end
  end
  c.on_removed = function(x) E.unsubscribe_all(x); x.crowd = false end
end

local function crowd_rec(self) return typed_comp_rec(self, "CrowdManager") end

function set_mesh(c, m)
  E.unsubscribe(c, false, "ComponentAdded")
  E.unsubscribe(c, false, "NavigationMeshRebuilt")
  if m ~= c.mesh then
    c.mesh = m
    if m then
      E.subscribe(c, nil, m.proxy, "NavigationMeshRebuilt", function() local mm = c.mesh; c.mesh = nil; set_mesh(c, mm) end)
    end
    create_crowd(c)
  end
end

local function agents_below(c, node, in_crowd)
  local root = node or scene_node(c)
  if root == nil then return {} end
  local out = {}
  for _, a in ipairs(NAV.components_below(root, "CrowdAgent", {})) do
    if not in_crowd or (a.crowd_id and a.manager and a.manager.crowd) then out[#out + 1] = a end
  end
  return out
end

local add_to_crowd, remove_from_crowd

function create_crowd(c)
  local m = c.mesh
  if m == nil or m.nav == nil or m.node == nil then return false end
  if c.crowd then
    for _, a in ipairs(c.slots) do if a then a.crowd_id = nil; a.ag = nil end end
  end
  c.slots = {}
  c.crowd = true
  if c.max_agent_radius == 0 then c.max_agent_radius = m.AgentRadius end
  for _, a in ipairs(agents_below(c, nil, false)) do
    if add_to_crowd(a, true) == -1 then
      E.log("WARNING", sformat("CrowdManager: %d crowd agents orphaned", 1))
      break
    end
  end
  return true
end

local function extents(c)
  local r = c.max_agent_radius
  return r * 2.0, r * 1.5, r * 2.0
end

----------------------------------------------------------------------------------------------------
-- CrowdAgent state
----------------------------------------------------------------------------------------------------
FACTORIES.CrowdAgent = function(a)
  a.requested = REQ_NONE
  a.update_node = true
  a.max_accel, a.max_speed, a.radius, a.height = 0.0, 0.0, 0.0, 0.0
  a.filter_type, a.avoidance_type = 0, 0
  a.quality, a.pushiness = QUALITY_HIGH, PUSH_MEDIUM
  a.target_pos, a.target_vel = {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}
  a.prev_target_state, a.prev_agent_state = TARGET_NONE, STATE_WALKING
  a.on_scene_set = function(x, scene)
    if scene == x.node then E.log("ERROR", "CrowdAgent should not be created to the root scene node") end
    local mgr
    for _, comp in ipairs(scene.components) do if comp.type_name == "CrowdManager" then mgr = comp; break end end
    if mgr == nil then mgr = REC[E.create_component(scene, "CrowdManager")] end
    x.manager = mgr
    add_to_crowd(x, false)
  end
  a.on_scene_removed = function(x) remove_from_crowd(x) end
  a.on_removed = function(x) remove_from_crowd(x) end
  a.on_set_enabled = function(x)
    local on = NAV.effective(x)
    local inside = x.crowd_id ~= nil
    if on and not inside then add_to_crowd(x, false) elseif not on and inside then remove_from_crowd(x) end
  end
  a.on_marked_dirty = function(x)
    if x.ignore_moves or not NAV.effective(x) then return end
    local ag = x.ag
    if ag == nil or x.manager == nil or x.manager.mesh == nil or x.manager.mesh.nav == nil then return end
    local w = E.world(x.node)
    local lx, ly, lz = NAV.to_local(x.manager.mesh, w.m03, w.m13, w.m23)
    if lx ~= ag.x or ly ~= ag.y or lz ~= ag.z then
      ag.x, ag.y, ag.z = lx, ly, lz
      if ag.state == STATE_INVALID then ag.state = STATE_WALKING end
    end
  end
end

local function agent_rec(self) return typed_comp_rec(self, "CrowdAgent") end
local function in_crowd(a) return a.crowd_id ~= nil and a.manager ~= nil and a.manager.crowd and a.ag ~= nil end

-- The agent's Detour parameters from its settings (Urho3D's UpdateParameters, all scopes).
local function update_params(a)
  local ag = a.ag
  if ag == nil then return end
  local q = a.quality
  ag.separation = q == QUALITY_MEDIUM or q == QUALITY_HIGH
  ag.optimize_vis = true
  local p = a.pushiness
  if p == PUSH_LOW then ag.sep_weight, ag.query_range = 4.0, a.radius * 16.0
  elseif p == PUSH_MEDIUM then ag.sep_weight, ag.query_range = 2.0, a.radius * 8.0
  elseif p == PUSH_HIGH then ag.sep_weight, ag.query_range = 0.5, a.radius * 1.0
  else ag.sep_weight, ag.query_range = 0.0, a.radius * 1.0 end
  ag.radius, ag.height, ag.max_accel, ag.max_speed = a.radius, a.height, a.max_accel, a.max_speed
  ag.filter = a.manager.filters[a.filter_type + 1]
end

local function agent_state(a) return a.ag and a.ag.state or STATE_INVALID end
local function target_state(a) return a.ag and a.ag.target_state or TARGET_NONE end

local function world_pos(a)
  local ag = a.ag
  if ag then return NAV.to_world(a.manager.mesh, ag.x, ag.y, ag.z) end
  local w = E.world(a.node)
  return w.m03, w.m13, w.m23
end

local function has_arrived(a)
  local ag = a.ag
  if ag == nil then return false end
  local cs = ag.corners
  if #cs == 0 then return true end
  local last = cs[#cs]
  return last.flag == "end" and (ag.x - last[1]) ^ 2 + (ag.z - last[3]) ^ 2 <= ag.radius * ag.radius
end

-- An agent's events go to the crowd manager's subscribers, then to its node's (Urho3D's Node* twins); false when a
-- handler removed the agent.
local function gone(a) return a.removed or a.node == nil or a.node.removed end
local function send_pair(a, manager_event, node_event, fields)
  E.send_event(manager_event, fields, a.manager.proxy)
  if gone(a) then return false end
  E.send_event(node_event, fields, a.node.proxy)
  return not gone(a)
end

local function state_fields(a)
  local x, y, z = world_pos(a)
  local ag = a.ag
  return {Node = a.node.proxy, CrowdAgent = a.proxy, CrowdTargetState = target_state(a),
    CrowdAgentState = agent_state(a), Position = v3(x, y, z),
    Velocity = ag and v3(ag.vx, ag.vy, ag.vz) or v3(0, 0, 0)}
end

local set_target_position, set_target_velocity, reset_target

-- Urho3D's ApplyAttributes: parameters, then the requested target again.
local function apply_attributes(a)
  update_params(a)
  local req = a.requested
  if req ~= REQ_NONE then
    a.requested = REQ_NONE
    if req == REQ_POSITION then set_target_position(a, a.target_pos[1], a.target_pos[2], a.target_pos[3])
    else set_target_velocity(a, a.target_vel[1], a.target_vel[2], a.target_vel[3]) end
  else
    a.requested = REQ_POSITION
    reset_target(a)
  end
end

-- dtCrowd::addAgent and CrowdAgent::AddAgentToCrowd; returns the crowd index or -1.
function add_to_crowd(a, force)
  local c = a.manager
  if a.node == nil or c == nil or not c.crowd then return -1 end
  if not force and a.crowd_id then return a.crowd_id end
  local slot
  for i = 1, c.max_agents do
    if not c.slots[i] then slot = i; break end
  end
  if slot == nil then a.crowd_id = nil; a.ag = nil; return -1 end
  local m = c.mesh
  if a.radius == 0 then a.radius = m.AgentRadius end
  if a.height == 0 then a.height = m.AgentHeight end
  c.slots[slot] = a
  a.crowd_id = slot
  local w = E.world(a.node)
  local x, y, z = w.m03, w.m13, w.m23
  local ag = {state = STATE_INVALID, target_state = TARGET_NONE, vx = 0.0, vy = 0.0, vz = 0.0, dvx = 0.0,
    dvy = 0.0, dvz = 0.0, nvx = 0.0, nvy = 0.0, nvz = 0.0, desired_speed = 0.0, corners = {}, corridor = nil,
    neis = {}, replan_time = 0.0, filter = c.filters[a.filter_type + 1]}
  a.ag = ag
  local ex, ey, ez = extents(c)
  local r, px, py, pz = NAV.nearest(m, x, y, z, ex, ey, ez, ag.filter)
  if r then
    ag.x, ag.y, ag.z = NAV.to_local(m, px, py, pz)
    ag.rect = r
    ag.state = STATE_WALKING
  else
    ag.x, ag.y, ag.z = NAV.to_local(m, x, y, z)
    ag.rect = nil
  end
  ag.corridor = r and {{rect = r}} or {}
  apply_attributes(a)
  a.prev_agent_state, a.prev_target_state = agent_state(a), target_state(a)
  if a.prev_agent_state == STATE_INVALID then
    if not send_pair(a, "CrowdAgentFailure", "CrowdAgentNodeFailure", state_fields(a)) then return a.crowd_id or -1 end
    a.prev_agent_state, a.prev_target_state = agent_state(a), target_state(a)
  end
  a.prev_pos = {world_pos(a)}
  return a.crowd_id or -1
end

function remove_from_crowd(a)
  if a.crowd_id and a.manager then a.manager.slots[a.crowd_id] = false end
  a.crowd_id, a.ag = nil, nil
end

function set_target_position(a, x, y, z)
  local t = a.target_pos
  if x == t[1] and y == t[2] and z == t[3] and a.requested == REQ_POSITION then return end
  a.target_pos = {x, y, z}
  a.requested = REQ_POSITION
  if not a.crowd_id then add_to_crowd(a, false) end
  if in_crowd(a) then
    local c = a.manager
    local ex, ey, ez = extents(c)
    local r, px, py, pz = NAV.nearest(c.mesh, x, y, z, ex, ey, ez, c.filters[a.filter_type + 1])
    if r then
      local ag = a.ag
      ag.target_rect = r
      ag.tx, ag.ty, ag.tz = NAV.to_local(c.mesh, px, py, pz)
      ag.target_state = TARGET_REQUESTING
    end
  end
end

function set_target_velocity(a, x, y, z)
  local t = a.target_vel
  if x == t[1] and y == t[2] and z == t[3] and a.requested == REQ_VELOCITY then return end
  a.target_vel = {x, y, z}
  a.requested = REQ_VELOCITY
  if in_crowd(a) then
    local ag = a.ag
    ag.target_rect = nil
    ag.tx, ag.ty, ag.tz = x, y, z
    ag.target_state = TARGET_VELOCITY
  end
end

function reset_target(a)
  if a.requested == REQ_NONE then return end
  a.requested = REQ_NONE
  if in_crowd(a) then
    local ag = a.ag
    ag.target_rect = nil
    ag.tx, ag.ty, ag.tz = 0.0, 0.0, 0.0
    ag.dvx, ag.dvy, ag.dvz = 0.0, 0.0, 0.0
    ag.target_state = TARGET_NONE
  end
end

----------------------------------------------------------------------------------------------------
-- The update (dtCrowd::update as Urho3D runs it)
----------------------------------------------------------------------------------------------------
local function plan(c, ag)
  local nav = c.mesh.nav
  if ag.rect == nil or ag.rect.dead or ag.target_rect == nil or ag.target_rect.dead then
    ag.target_state = TARGET_FAILED
    return
  end
  local steps, complete = Q.find_corridor(nav, ag.rect, ag.x, ag.y, ag.z, ag.target_rect, ag.tx, ag.ty, ag.tz, ag.filter)
  if #steps == 0 then ag.target_state = TARGET_FAILED; return end
  ag.corridor = steps
  ag.partial = not complete
  if not complete then
    local last = steps[#steps].rect
    local px, pz = Q.clamp_to(last, ag.tx, ag.tz)
    ag.tx, ag.ty, ag.tz = px, Q.height_at(nav, last, px, pz), pz
    ag.target_rect = last
  end
  ag.target_state = TARGET_VALID
  ag.replan_time = 0.0
end

local function corridor_valid(ag)
  local cor = ag.corridor
  for i = 1, mmin(#cor, CHECK_LOOKAHEAD) do
    local st = cor[i]
    if st.rect.dead or (st.via and st.via.to and st.via.to.dead) then return false end
  end
  return true
end

local function check_validity(c, agents, dt)
  local m = c.mesh
  for _, a in ipairs(agents) do
    local ag = a.ag
    if ag.state == STATE_WALKING then
      ag.replan_time = ag.replan_time + dt
      local replan = false
      if ag.rect == nil or ag.rect.dead then
        local ex, ey, ez = extents(c)
        local wx, wy, wz = NAV.to_world(m, ag.x, ag.y, ag.z)
        local r, px, py, pz = NAV.nearest(m, wx, wy, wz, ex, ey, ez, ag.filter)
        if r == nil then
          ag.corridor, ag.rect, ag.partial = {}, nil, false
          ag.state = STATE_INVALID
          goto continue
        end
        ag.rect = r
        ag.x, ag.y, ag.z = NAV.to_local(m, px, py, pz)
        replan = true
      end
      if ag.target_state ~= TARGET_NONE and ag.target_state ~= TARGET_VELOCITY then
        if ag.target_state ~= TARGET_FAILED then
          if ag.target_rect == nil or ag.target_rect.dead then
            local ex, ey, ez = extents(c)
            local wx, wy, wz = NAV.to_world(m, ag.tx, ag.ty, ag.tz)
            local r, px, py, pz = NAV.nearest(m, wx, wy, wz, ex, ey, ez, ag.filter)
            ag.target_rect = r
            if r then ag.tx, ag.ty, ag.tz = NAV.to_local(m, px, py, pz) end
            replan = true
          end
          if ag.target_rect == nil then
            ag.corridor, ag.partial = {{rect = ag.rect}}, false
            ag.target_state = TARGET_NONE
          end
        end
        if not corridor_valid(ag) then replan = true end
        if ag.target_state == TARGET_VALID and ag.replan_time > TARGET_REPLAN_DELAY and #ag.corridor < CHECK_LOOKAHEAD
          and ag.corridor[#ag.corridor].rect ~= ag.target_rect then
          replan = true
        end
        if replan and ag.target_state ~= TARGET_NONE then ag.target_state = TARGET_REQUESTING end
      end
    end
    ::continue::
  end
end

-- The agent moved to (x, z) in rect r: the corridor starts there (trimmed when r is ahead on it, else r leads).
local function fix_corridor(ag, r)
  local cor = ag.corridor
  for i = 1, mmin(#cor, CHECK_LOOKAHEAD) do
    if cor[i].rect == r then
      if i > 1 then
        local out = {{rect = r}}
        for k = i + 1, #cor do out[#out + 1] = cor[k] end
        ag.corridor = out
      end
      return
    end
  end
  -- r is next to the corridor's start (or the agent was pushed): lead with it
  local first = cor[1]
  if first then
    local via = nil
    for _, l in ipairs(r.links) do if l.to == first.rect then via = l; break end end
    if via then
      local out = {{rect = r}, {rect = first.rect, via = via}}
      for k = 2, #cor do out[#out + 1] = cor[k] end
      ag.corridor = out
      return
    end
  end
  ag.corridor = {{rect = r}}
  if ag.target_state == TARGET_VALID then ag.target_state = TARGET_REQUESTING end
end

local function find_corners(c, ag)
  local nav = c.mesh.nav
  local pts = Q.smooth(nav, Q.straight_path(nav, ag.corridor, ag.x, ag.y, ag.z, ag.tx, ag.ty, ag.tz), ag.filter)
  local corners = {}
  for i = 2, #pts do
    local p = pts[i]
    if #corners > 0 or (p[1] - ag.x) ^ 2 + (p[3] - ag.z) ^ 2 > MIN_TARGET_DIST * MIN_TARGET_DIST or p.flag then
      corners[#corners + 1] = p
      if p.flag == "offmesh" or #corners >= 4 then break end
    end
  end
  ag.corners = corners
end

local function start_offmesh(ag)
  local cor = ag.corridor
  for i = 2, #cor do
    local via = cor[i].via
    if via and via.len then
      ag.anim = {ix = ag.x, iy = ag.y, iz = ag.z, sx = via.ax, sy = via.ay, sz = via.az, ex = via.bx, ey = via.by,
        ez = via.bz, t = 0.0, tmax = sqrt((via.bx - via.ax) ^ 2 + (via.bz - via.az) ^ 2) / mmax(ag.max_speed, 1e-6) * 0.5,
        rect = cor[i].rect}
      local out = {{rect = cor[i].rect}}
      for k = i + 1, #cor do out[#out + 1] = cor[k] end
      ag.corridor = out
      ag.state = STATE_OFFMESH
      ag.corners, ag.neis = {}, {}
      return
    end
  end
end

local function neighbours(ag, list)
  local out = {}
  local range2 = ag.query_range * ag.query_range
  for _, o in ipairs(list) do
    local og = o.ag
    if og ~= ag then
      local dy = abs(ag.y - og.y)
      if dy < (ag.height + og.height) * 0.5 then
        local d2 = (ag.x - og.x) ^ 2 + (ag.z - og.z) ^ 2
        if d2 <= range2 then out[#out + 1] = {og = og, d = d2, slot = o.crowd_id} end
      end
    end
  end
  table.sort(out, function(p, q) if p.d ~= q.d then return p.d < q.d end return p.slot < q.slot end)
  for i = #out, MAX_NEIGHBOURS + 1, -1 do out[i] = nil end
  return out
end

local function report(a, dt)
  if a.node == nil or a.removed then return end
  local ag = a.ag
  local x, y, z = world_pos(a)
  local prev = a.prev_pos
  if prev == nil or prev[1] ~= x or prev[2] ~= y or prev[3] ~= z then
    a.prev_pos = {x, y, z}
    if a.update_node then
      a.ignore_moves = true
      E.IMPL.Node.methods.SetWorldPosition(a.node.proxy, v3(x, y, z))
      a.ignore_moves = false
    end
    local fields = {Node = a.node.proxy, CrowdAgent = a.proxy, Position = v3(x, y, z),
      Velocity = v3(ag.vx, ag.vy, ag.vz), Arrived = has_arrived(a), TimeStep = dt}
    if not send_pair(a, "CrowdAgentReposition", "CrowdAgentNodeReposition", fields) then return end
  end
  local ts, st = target_state(a), agent_state(a)
  if st ~= a.prev_agent_state or ts ~= a.prev_target_state then
    if not send_pair(a, "CrowdAgentStateChanged", "CrowdAgentNodeStateChanged", state_fields(a)) then return end
    if st == STATE_INVALID or ts == TARGET_FAILED then
      if not send_pair(a, "CrowdAgentFailure", "CrowdAgentNodeFailure", state_fields(a)) then return end
    end
    a.prev_agent_state, a.prev_target_state = agent_state(a), target_state(a)
  end
end

function update_crowd(c, dt)
  local nav = NAV.ready(c.mesh)
  if nav == nil then return end
  local agents = {}
  for i = 1, #c.slots do
    local a = c.slots[i]
    if a and a.ag and not a.removed and a.node and not a.node.removed then agents[#agents + 1] = a end
  end
  check_validity(c, agents, dt)
  for _, a in ipairs(agents) do
    local ag = a.ag
    if ag.state ~= STATE_INVALID and ag.target_state == TARGET_REQUESTING then plan(c, ag) end
  end
  local walking = {}
  for _, a in ipairs(agents) do if a.ag.state == STATE_WALKING then walking[#walking + 1] = a end end
  for _, a in ipairs(walking) do a.ag.neis = neighbours(a.ag, walking) end
  for _, a in ipairs(walking) do
    local ag = a.ag
    if ag.target_state ~= TARGET_NONE and ag.target_state ~= TARGET_VELOCITY then
      find_corners(c, ag)
      local last = ag.corners[#ag.corners]
      if last and last.flag == "offmesh" and (last[1] - ag.x) ^ 2 + (last[3] - ag.z) ^ 2 < (ag.radius * 2.25) ^ 2 then
        start_offmesh(ag)
      end
    else
      ag.corners = {}
    end
  end
  -- steering
  for _, a in ipairs(walking) do
    local ag = a.ag
    if ag.state == STATE_WALKING and ag.target_state ~= TARGET_NONE then
      local dx, dz = 0.0, 0.0
      if ag.target_state == TARGET_VELOCITY then
        dx, dz = ag.tx, ag.tz
        ag.desired_speed = sqrt(ag.tx * ag.tx + ag.ty * ag.ty + ag.tz * ag.tz)
        ag.dvy = ag.ty
      elseif #ag.corners > 0 then
        local cn = ag.corners[1]
        local ox, oz = cn[1] - ag.x, cn[3] - ag.z
        local len = sqrt(ox * ox + oz * oz)
        if len > 1e-9 then ox, oz = ox / len, oz / len end
        local slow = ag.radius * 2
        local last = ag.corners[#ag.corners]
        local dist = slow
        if last.flag == "end" then dist = mmin(sqrt((last[1] - ag.x) ^ 2 + (last[3] - ag.z) ^ 2), slow) end
        local scale = slow > 0 and dist / slow or 1.0
        ag.desired_speed = ag.max_speed
        dx, dz = ox * ag.max_speed * scale, oz * ag.max_speed * scale
        ag.dvy = 0.0
      else
        ag.desired_speed = ag.max_speed
        ag.dvy = 0.0
      end
      if ag.separation and ag.query_range > 0 then
        local inv = 1.0 / ag.query_range
        local wsum, px, pz = 0.0, 0.0, 0.0
        for _, nb in ipairs(ag.neis) do
          local og = nb.og
          local ox, oz = ag.x - og.x, ag.z - og.z
          local d2 = ox * ox + oz * oz
          if d2 >= 0.00001 and d2 <= ag.query_range * ag.query_range then
            local d = sqrt(d2)
            local wgt = ag.sep_weight * (1.0 - (d * inv) ^ 2)
            px, pz = px + ox * wgt / d, pz + oz * wgt / d
            wsum = wsum + 1.0
          end
        end
        if wsum > 0.0001 then
          dx, dz = dx + px / wsum, dz + pz / wsum
          local s2, want = dx * dx + dz * dz, ag.desired_speed * ag.desired_speed
          if s2 > want then dx, dz = dx * want / s2, dz * want / s2 end
        end
      end
      ag.dvx, ag.dvz = dx, dz
    end
  end
  -- velocity (no sampling: the desired velocity), integration
  for _, a in ipairs(walking) do
    local ag = a.ag
    if ag.state == STATE_WALKING then
      ag.ox, ag.oz = ag.x, ag.z
      ag.nvx, ag.nvy, ag.nvz = ag.dvx, 0.0, ag.dvz
      local ddx, ddz = ag.nvx - ag.vx, ag.nvz - ag.vz
      local ds = sqrt(ddx * ddx + ddz * ddz)
      local maxd = ag.max_accel * dt
      if ds > maxd then
        local k = ds > 0 and maxd / ds or 0
        ddx, ddz = ddx * k, ddz * k
      end
      ag.vx, ag.vz = ag.vx + ddx, ag.vz + ddz
      ag.vy = 0.0
      if sqrt(ag.vx * ag.vx + ag.vz * ag.vz) > 0.0001 then
        ag.x, ag.z = ag.x + ag.vx * dt, ag.z + ag.vz * dt
      else
        ag.vx, ag.vy, ag.vz = 0.0, 0.0, 0.0
      end
    end
  end
  -- agents pushed out of each other
  for _ = 1, 4 do
    for _, a in ipairs(walking) do
      local ag = a.ag
      ag.px, ag.pz = 0.0, 0.0
      if ag.state == STATE_WALKING then
        local wsum = 0.0
        for _, nb in ipairs(ag.neis) do
          local og = nb.og
          local ox, oz = ag.x - og.x, ag.z - og.z
          local d2 = ox * ox + oz * oz
          local rr = ag.radius + og.radius
          if d2 <= rr * rr then
            local d = sqrt(d2)
            local pen
            if d < 0.0001 then
              if a.crowd_id > nb.slot then ox, oz = -ag.dvz, ag.dvx else ox, oz = ag.dvz, -ag.dvx end
              pen = 0.01
            else
              pen = (1.0 / d) * ((rr - d) * 0.5) * COLLISION_RESOLVE
            end
            if ag.sep_weight >= 0.0001 then
              ag.px, ag.pz = ag.px + ox * pen, ag.pz + oz * pen
              wsum = wsum + 1.0
            end
          end
        end
        if wsum > 0.0001 then ag.px, ag.pz = ag.px / wsum, ag.pz / wsum end
      end
    end
    for _, a in ipairs(walking) do
      local ag = a.ag
      if ag.state == STATE_WALKING then ag.x, ag.z = ag.x + ag.px, ag.z + ag.pz end
    end
  end
  -- kept on the mesh, then reported
  for _, a in ipairs(walking) do
    local ag = a.ag
    if a.ag and ag.state == STATE_WALKING and ag.rect and not ag.rect.dead then
      local x, z, _, r = Q.move_along(nav, ag.rect, ag.ox or ag.x, ag.oz or ag.z, ag.x, ag.z, ag.filter)
      ag.x, ag.z = x, z
      ag.y = Q.height_at(nav, r, x, z)
      if r ~= ag.rect then ag.rect = r end
      if ag.target_state == TARGET_NONE or ag.target_state == TARGET_VELOCITY then
        ag.corridor = {{rect = r}}
        ag.partial = false
      else
        fix_corridor(ag, r)
      end
    end
    if a.ag and a.ag.state == STATE_WALKING then report(a, dt) end
  end
  -- off-mesh animations
  for _, a in ipairs(agents) do
    local ag = a.ag
    local an = ag and ag.anim
    if an then
      an.t = an.t + dt
      if an.t > an.tmax then
        ag.x, ag.y, ag.z = an.ex, an.ey, an.ez
        ag.vx, ag.vy, ag.vz, ag.dvx, ag.dvy, ag.dvz = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
        ag.rect = an.rect
        ag.anim = nil
        ag.state = STATE_WALKING
      else
        local ta = an.tmax * 0.15
        local u, x0, y0, z0, x1, y1, z1
        if an.t < ta then u, x0, y0, z0, x1, y1, z1 = an.t / ta, an.ix, an.iy, an.iz, an.sx, an.sy, an.sz
        else u, x0, y0, z0, x1, y1, z1 = (an.t - ta) / (an.tmax - ta), an.sx, an.sy, an.sz, an.ex, an.ey, an.ez end
        ag.x, ag.y, ag.z = x0 + (x1 - x0) * u, y0 + (y1 - y0) * u, z0 + (z1 - z0) * u
        ag.vx, ag.vy, ag.vz, ag.dvx, ag.dvy, ag.dvz = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
      end
    end
  end
end

----------------------------------------------------------------------------------------------------
-- CrowdManager's Lua API
----------------------------------------------------------------------------------------------------
local CM = class("CrowdManager").methods
local vec3, number = NAV.vec3, NAV.number
local function node_arg(node, fname, n)
  if node == nil then return nil end
  local r = REC[node]
  if r == nil or r.kind ~= "node" then
    E.arg_error(n, fname, "Node", node)
  end
  return r
end
local function filter_index(v, fname, n)
  number(v, fname, n)
  return mfloor(v)
end

CM.SetCrowdTarget = function(self, position, node)
  local c = crowd_rec(self)
  vec3(position, "SetCrowdTarget", 1)
  local root = node_arg(node, "SetCrowdTarget", 2)
  if not c.crowd then return end
  local list = agents_below(c, root, false)
  local x, y, z = position.x, position.y, position.z
  for i, a in ipairs(list) do
    local data = E.event_data("CrowdAgentFormation", {Node = a.node.proxy, CrowdAgent = a.proxy, Index = i - 1,
      Size = #list, Position = v3(x, y, z)})
    E.send_event("CrowdAgentFormation", data, c.proxy)
    local pv = E.variant_map_store[data].Position
    local p = pv and pv.value_
    if E.is(p, "Vector3") then x, y, z = p.x, p.y, p.z end
    if not a.removed then set_target_position(a, x, y, z) end
  end
end
CM.SetCrowdVelocity = function(self, velocity, node)
  local c = crowd_rec(self)
  vec3(velocity, "SetCrowdVelocity", 1)
  local root = node_arg(node, "SetCrowdVelocity", 2)
  if not c.crowd then return end
  for _, a in ipairs(agents_below(c, root, true)) do set_target_velocity(a, velocity.x, velocity.y, velocity.z) end
end
CM.ResetCrowdTarget = function(self, node)
  local c = crowd_rec(self)
  local root = node_arg(node, "ResetCrowdTarget", 1)
  if not c.crowd then return end
  for _, a in ipairs(agents_below(c, root, true)) do reset_target(a) end
end
CM.SetMaxAgents = function(self, n)
  local c = crowd_rec(self)
  number(n, "SetMaxAgents", 1)
  n = mfloor(n)
  if n ~= c.max_agents and n > 0 then c.max_agents = n; create_crowd(c) end
end
CM.GetMaxAgents = function(self) return crowd_rec(self).max_agents end
CM.SetMaxAgentRadius = function(self, r)
  local c = crowd_rec(self)
  number(r, "SetMaxAgentRadius", 1)
  if r ~= c.max_agent_radius and r > 0 then c.max_agent_radius = r; create_crowd(c) end
end
CM.GetMaxAgentRadius = function(self) return crowd_rec(self).max_agent_radius end
CM.SetNavigationMesh = function(self, mesh)
  local c = crowd_rec(self)
  local m = nil
  if mesh ~= nil then m = NAV.mesh_rec(mesh) end
  set_mesh(c, m)
end
CM.GetNavigationMesh = function(self) local m = crowd_rec(self).mesh; return m and not m.removed and m.proxy or nil end
local function configure(c, t)
  if c.num_filter_types < t + 1 then c.num_filter_types = t + 1 end
end
CM.SetIncludeFlags = function(self, t, flags)
  local c = crowd_rec(self)
  t = filter_index(t, "SetIncludeFlags", 1); number(flags, "SetIncludeFlags", 2)
  if not c.crowd or t < 0 or t >= MAX_FILTER_TYPES then return end
  c.filters[t + 1].include = mfloor(flags) & 0xffff
  configure(c, t)
end
CM.SetExcludeFlags = function(self, t, flags)
  local c = crowd_rec(self)
  t = filter_index(t, "SetExcludeFlags", 1); number(flags, "SetExcludeFlags", 2)
  if not c.crowd or t < 0 or t >= MAX_FILTER_TYPES then return end
  c.filters[t + 1].exclude = mfloor(flags) & 0xffff
  configure(c, t)
end
CM.SetAreaCost = function(self, t, area, cost)
  local c = crowd_rec(self)
  t = filter_index(t, "SetAreaCost", 1); area = filter_index(area, "SetAreaCost", 2); number(cost, "SetAreaCost", 3)
  if not c.crowd or t < 0 or t >= MAX_FILTER_TYPES or area < 0 or area >= MAX_AREAS then return end
  c.filters[t + 1].costs[area + 1] = cost
  configure(c, t)
  if c.num_areas[t + 1] < area + 1 then c.num_areas[t + 1] = area + 1 end
end
CM.GetNumQueryFilterTypes = function(self) return crowd_rec(self).num_filter_types end
CM.GetNumAreas = function(self, t)
  local c = crowd_rec(self)
  t = filter_index(t, "GetNumAreas", 1)
  if t < 0 or t >= c.num_filter_types then return 0 end
  return c.num_areas[t + 1]
end
CM.GetIncludeFlags = function(self, t)
  local c = crowd_rec(self)
  t = filter_index(t, "GetIncludeFlags", 1)
  if t >= c.num_filter_types then
    E.log("WARNING", sformat("Query filter type %d is not configured yet, returning the default include flags "
      .. "initialized by dtCrowd", t))
  end
  local f = c.crowd and c.filters[t + 1]
  return f and f.include or 0xffff
end
CM.GetExcludeFlags = function(self, t)
  local c = crowd_rec(self)
  t = filter_index(t, "GetExcludeFlags", 1)
  if t >= c.num_filter_types then
    E.log("WARNING", sformat("Query filter type %d is not configured yet, returning the default exclude flags "
      .. "initialized by dtCrowd", t))
  end
  local f = c.crowd and c.filters[t + 1]
  return f and f.exclude or 0
end
CM.GetAreaCost = function(self, t, area)
  local c = crowd_rec(self)
  t = filter_index(t, "GetAreaCost", 1); area = filter_index(area, "GetAreaCost", 2)
  if t >= c.num_filter_types or area >= (c.num_areas[t + 1] or 0) then
    E.log("WARNING", sformat("Query filter type %d and/or area id %d are not configured yet, returning the default "
      .. "area cost initialized by dtCrowd", t, area))
  end
  local f = c.crowd and c.filters[t + 1]
  return f and Q.cost_of(f, area) or 1.0
end
CM.GetNumObstacleAvoidanceTypes = function(self) return crowd_rec(self).num_avoidance_types end
local params_mt = class("CrowdObstacleAvoidanceParams").mt
CM.GetObstacleAvoidanceParams = function(self, t)
  local c = crowd_rec(self)
  t = filter_index(t, "GetObstacleAvoidanceParams", 1)
  local src = c.crowd and t >= 0 and t < MAX_AVOIDANCE_TYPES and c.avoidance[t + 1] or nil
  local out = {}
  for _, k in ipairs(AVOIDANCE_FIELDS) do out[k] = src and src[k] or 0 end
  return setmetatable(out, params_mt)
end
CM.SetObstacleAvoidanceParams = function(self, t, params)
  local c = crowd_rec(self)
  t = filter_index(t, "SetObstacleAvoidanceParams", 1)
  if type(params) ~= "table" then
    E.raise_at_game(sformat("bad argument #2 to 'SetObstacleAvoidanceParams' (CrowdObstacleAvoidanceParams "
      .. "expected, got %s)", type(params)))
  end
  if not c.crowd or t < 0 or t >= MAX_AVOIDANCE_TYPES then return end
  local dst = c.avoidance[t + 1]
  for _, k in ipairs(AVOIDANCE_FIELDS) do
    local v = params[k]
    if type(v) == "number" then
      if k == "gridSize" or k:sub(1, 8) == "adaptive" then v = mfloor(v) & 0xff end
      dst[k] = v
    end
  end
  if c.num_avoidance_types < t + 1 then c.num_avoidance_types = t + 1 end
end
CM.GetAgents = function(self, node, filter)
  local c = crowd_rec(self)
  local root = node_arg(node, "GetAgents", 1)
  if filter == nil then filter = true end
  local out = {}
  for i, a in ipairs(agents_below(c, root, filter and true or false)) do out[i] = a.proxy end
  return out
end

-- The queries with a query filter type, through the crowd's navigation mesh and placement extents.
local function crowd_query(c)
  if not c.crowd or c.mesh == nil or c.mesh.removed or c.mesh.nav == nil then return nil end
  return c.mesh
end
local function filter_of(c, t) return c.filters[mmin(mmax(mfloor(t), 0), MAX_FILTER_TYPES - 1) + 1] end

CM.FindNearestPoint = function(self, point, t)
  local c = crowd_rec(self)
  vec3(point, "FindNearestPoint", 1); number(t, "FindNearestPoint", 2)
  local m = crowd_query(c)
  if m == nil then return v3(point.x, point.y, point.z) end
  local ex, ey, ez = extents(c)
  local r, x, y, z = NAV.nearest(m, point.x, point.y, point.z, ex, ey, ez, filter_of(c, t))
  if r == nil then return v3(point.x, point.y, point.z) end
  return v3(x, y, z)
end
CM.MoveAlongSurface = function(self, s, e, t, max_visited)
  local c = crowd_rec(self)
  vec3(s, "MoveAlongSurface", 1); vec3(e, "MoveAlongSurface", 2); number(t, "MoveAlongSurface", 3)
  local m = crowd_query(c)
  if m == nil then return v3(e.x, e.y, e.z) end
  local ex, ey, ez = extents(c)
  local x, y, z = NAV.move_along(m, s, e, ex, ey, ez, filter_of(c, t))
  if x == nil then return v3(e.x, e.y, e.z) end
  return v3(x, y, z)
end
CM.FindPath = function(self, s, e, t)
  local c = crowd_rec(self)
  vec3(s, "FindPath", 1); vec3(e, "FindPath", 2); number(t, "FindPath", 3)
  local m = crowd_query(c)
  if m == nil then return {} end
  local ex, ey, ez = extents(c)
  local out = {}
  for i, p in ipairs(NAV.find_path(m, s.x, s.y, s.z, e.x, e.y, e.z, ex, ey, ez, filter_of(c, t))) do
    out[i] = v3(p[1], p[2], p[3])
  end
  return out
end
CM.GetRandomPoint = function(self, t)
  local c = crowd_rec(self)
  number(t, "GetRandomPoint", 1)
  local m = crowd_query(c)
  if m == nil then return v3(0, 0, 0) end
  local x, y, z = NAV.random_point(m, filter_of(c, t))
  if x == nil then return v3(0, 0, 0) end
  return v3(x, y, z)
end
CM.GetRandomPointInCircle = function(self, center, radius, t)
  local c = crowd_rec(self)
  vec3(center, "GetRandomPointInCircle", 1); number(radius, "GetRandomPointInCircle", 2)
  number(t, "GetRandomPointInCircle", 3)
  local m = crowd_query(c)
  if m == nil then return v3(center.x, center.y, center.z) end
  local ex, ey, ez = extents(c)
  local x, y, z = NAV.random_in_circle(m, center, radius, ex, ey, ez, filter_of(c, t))
  if x == nil then return v3(center.x, center.y, center.z) end
  return v3(x, y, z)
end
CM.GetDistanceToWall = function(self, point, radius, t, hit_pos, hit_normal)
  local c = crowd_rec(self)
  vec3(point, "GetDistanceToWall", 1); number(radius, "GetDistanceToWall", 2); number(t, "GetDistanceToWall", 3)
  if hit_pos ~= nil then vec3(hit_pos, "GetDistanceToWall", 4); hit_pos.x, hit_pos.y, hit_pos.z = 0.0, 0.0, 0.0 end
  if hit_normal ~= nil then
    vec3(hit_normal, "GetDistanceToWall", 5)
    hit_normal.x, hit_normal.y, hit_normal.z = 0.0, -1.0, 0.0
  end
  local m = crowd_query(c)
  if m == nil then return radius end
  local ex, ey, ez = extents(c)
  local d, hx, hy, hz, nx, nz = NAV.distance_to_wall(m, point, radius, ex, ey, ez, filter_of(c, t))
  if d == nil then return radius end
  if hit_pos ~= nil then hit_pos.x, hit_pos.y, hit_pos.z = hx, hy, hz end
  if hit_normal ~= nil and d < radius then hit_normal.x, hit_normal.y, hit_normal.z = nx, 0.0, nz end
  return d
end
CM.Raycast = function(self, s, e, t, hit_normal)
  local c = crowd_rec(self)
  vec3(s, "Raycast", 1); vec3(e, "Raycast", 2); number(t, "Raycast", 3)
  if hit_normal ~= nil then
    vec3(hit_normal, "Raycast", 4)
    hit_normal.x, hit_normal.y, hit_normal.z = 0.0, -1.0, 0.0
  end
  local m = crowd_query(c)
  if m == nil then return v3(e.x, e.y, e.z) end
  local ex, ey, ez = extents(c)
  local u, nx, nz = NAV.raycast(m, s, e, ex, ey, ez, filter_of(c, t))
  if u == nil then return v3(e.x, e.y, e.z) end
  if hit_normal ~= nil and u < 1.0 then hit_normal.x, hit_normal.y, hit_normal.z = nx, 0.0, nz end
  return v3(s.x + (e.x - s.x) * u, s.y + (e.y - s.y) * u, s.z + (e.z - s.z) * u)
end

----------------------------------------------------------------------------------------------------
-- CrowdAgent's Lua API
----------------------------------------------------------------------------------------------------
local CA = class("CrowdAgent").methods
CA.SetTargetPosition = function(self, p)
  local a = agent_rec(self)
  vec3(p, "SetTargetPosition", 1)
  set_target_position(a, p.x, p.y, p.z)
end
CA.SetTargetVelocity = function(self, v)
  local a = agent_rec(self)
  vec3(v, "SetTargetVelocity", 1)
  set_target_velocity(a, v.x, v.y, v.z)
end
CA.ResetTarget = function(self) reset_target(agent_rec(self)) end
CA.SetUpdateNodePosition = function(self, v) agent_rec(self).update_node = v and true or false end
CA.GetUpdateNodePosition = function(self) return agent_rec(self).update_node end
local function positive_setter(key, fname, strict)
  return function(self, v)
    local a = agent_rec(self)
    number(v, fname, 1)
    if v ~= a[key] and (v > 0 or (not strict and v == 0)) then
      a[key] = v
      update_params(a)
    end
  end
end
CA.SetMaxAccel = positive_setter("max_accel", "SetMaxAccel", false)
CA.SetMaxSpeed = positive_setter("max_speed", "SetMaxSpeed", false)
CA.SetRadius = positive_setter("radius", "SetRadius", true)
CA.SetHeight = positive_setter("height", "SetHeight", true)
CA.GetMaxAccel = function(self) return agent_rec(self).max_accel end
CA.GetMaxSpeed = function(self) return agent_rec(self).max_speed end
CA.GetRadius = function(self) return agent_rec(self).radius end
CA.GetHeight = function(self) return agent_rec(self).height end
CA.SetQueryFilterType = function(self, t)
  local a = agent_rec(self)
  t = filter_index(t, "SetQueryFilterType", 1)
  if t == a.filter_type then return end
  if t < 0 or t >= MAX_FILTER_TYPES then
    E.log("ERROR", sformat("The specified filter type index (%d) exceeds the maximum allowed value (%d)", t,
      MAX_FILTER_TYPES))
    return
  end
  a.filter_type = t
  update_params(a)
end
CA.GetQueryFilterType = function(self) return agent_rec(self).filter_type end
CA.SetObstacleAvoidanceType = function(self, t)
  local a = agent_rec(self)
  t = filter_index(t, "SetObstacleAvoidanceType", 1)
  if t == a.avoidance_type then return end
  if t < 0 or t >= MAX_AVOIDANCE_TYPES then
    E.log("ERROR", sformat("The specified obstacle avoidance type index (%d) exceeds the maximum allowed value (%d)",
      t, MAX_AVOIDANCE_TYPES))
    return
  end
  a.avoidance_type = t
  update_params(a)
end
CA.GetObstacleAvoidanceType = function(self) return agent_rec(self).avoidance_type end
CA.SetNavigationQuality = function(self, q)
  local a = agent_rec(self)
  a.quality = filter_index(q, "SetNavigationQuality", 1)
  update_params(a)
end
CA.GetNavigationQuality = function(self) return agent_rec(self).quality end
CA.SetNavigationPushiness = function(self, p)
  local a = agent_rec(self)
  a.pushiness = filter_index(p, "SetNavigationPushiness", 1)
  update_params(a)
end
CA.GetNavigationPushiness = function(self) return agent_rec(self).pushiness end
CA.GetPosition = function(self)
  local a = agent_rec(self)
  if a.ag == nil and a.node == nil then return v3(0, 0, 0) end
  return v3(world_pos(a))
end
CA.GetDesiredVelocity = function(self)
  local ag = agent_rec(self).ag
  if ag == nil then return v3(0, 0, 0) end
  return v3(ag.dvx, ag.dvy, ag.dvz)
end
CA.GetActualVelocity = function(self)
  local ag = agent_rec(self).ag
  if ag == nil then return v3(0, 0, 0) end
  return v3(ag.vx, ag.vy, ag.vz)
end
CA.GetTargetPosition = function(self) local t = agent_rec(self).target_pos; return v3(t[1], t[2], t[3]) end
CA.GetTargetVelocity = function(self) local t = agent_rec(self).target_vel; return v3(t[1], t[2], t[3]) end
CA.GetRequestedTargetType = function(self) return agent_rec(self).requested end
CA.GetAgentState = function(self) return agent_state(agent_rec(self)) end
CA.GetTargetState = function(self) return target_state(agent_rec(self)) end
CA.HasRequestedTarget = function(self) return agent_rec(self).requested ~= REQ_NONE end
CA.HasArrived = function(self) return has_arrived(agent_rec(self)) end
CA.IsInCrowd = function(self) return in_crowd(agent_rec(self)) end
