-- Inverse kinematics, as Urho3D's IK module: IKEffector components mark the ends of chains and carry their targets;
-- an IKSolver on an ancestor node solves every effector below it (up to another solver) and writes the result to
-- the scene's nodes.  The solver keeps two poses of each node of its tree (the nodes from its own node down to
-- each effector): the original pose (captured when the node joins the tree, or each solve with
-- UPDATE_ORIGINAL_POSE) and the active pose (the solution; the scene's pose each solve with UPDATE_ACTIVE_POSE).
-- Chains run from each effector up `chainLength` segments (0: up to the solver); chains that share nodes form a
-- tree of chains, split where two chains part.  ONE_BONE and TWO_BONE solve one chain per island analytically
-- (the law of cosines for the knee); FABRIK iterates forward and backward passes over the chain tree until every
-- effector is within the tolerance or the iterations run out.  JOINT_ROTATIONS turns each solved segment into the
-- rotation from its original direction, applied to the original world rotation.  With AUTO_SOLVE (the default) a
-- solver solves on its scene's SceneDrawableUpdateFinished, right after the octree applied the animations.
-- Everything is computed in doubles, in a fixed order (tree children by node ID, chains in tree order).
local error, type, ipairs, setmetatable, tostring = error, type, ipairs, setmetatable, tostring
local sqrt, mabs, mmin, mmax, tsort = math.sqrt, math.abs, math.min, math.max, table.sort
local sformat = string.format
local REC = E.REC
local f32 = E.MATH.f32
local qmul, qrot = E.qmul, E.qrot
local world = E.world
local V3mt, Qmt, V2mt = class("Vector3").mt, class("Quaternion").mt, class("Vector2").mt
local function v3(x, y, z) return setmetatable({x = x, y = y, z = z}, V3mt) end
local function quat(w, x, y, z) return setmetatable({w = w, x = x, y = y, z = z}, Qmt) end
local NM = IMPL.Node.methods

local ONE_BONE, TWO_BONE, FABRIK = 0, 1, 2
local JOINT_ROTATIONS, TARGET_ROTATIONS, UPDATE_ORIGINAL_POSE, UPDATE_ACTIVE_POSE = 0x01, 0x02, 0x04, 0x08
local USE_ORIGINAL_POSE, CONSTRAINTS, AUTO_SOLVE = 0x10, 0x20, 0x40
local WEIGHT_NLERP, INHERIT_PARENT_ROTATION = 0x01, 0x02
local M_EPSILON = 0.000001
local TINY = 1e-12

----------------------------------------------------------------------------------------------------
-- vector helpers on plain numbers
----------------------------------------------------------------------------------------------------
local function len3(x, y, z) return sqrt(x * x + y * y + z * z) end
local function cross(ax, ay, az, bx, by, bz) return ay * bz - az * by, az * bx - ax * bz, ax * by - ay * bx end
-- A unit vector perpendicular to the unit vector (x, y, z): crossed with the world axis it is least aligned with.
local function perpendicular(x, y, z)
  local ax, ay, az = mabs(x), mabs(y), mabs(z)
  local px, py, pz
  if ax <= ay and ax <= az then px, py, pz = cross(x, y, z, 1, 0, 0)
  elseif ay <= az then px, py, pz = cross(x, y, z, 0, 1, 0)
  else px, py, pz = cross(x, y, z, 0, 0, 1) end
  local l = len3(px, py, pz)
  return px / l, py / l, pz / l
end
-- The shortest rotation taking direction u to direction v (w, x, y, z); identity when either is zero.
local function arc(ux, uy, uz, vx, vy, vz)
  local lu, lv = len3(ux, uy, uz), len3(vx, vy, vz)
  if lu < TINY or lv < TINY then return 1.0, 0.0, 0.0, 0.0 end
  ux, uy, uz, vx, vy, vz = ux / lu, uy / lu, uz / lu, vx / lv, vy / lv, vz / lv
  local d = ux * vx + uy * vy + uz * vz
  if d <= -1.0 + TINY then   -- opposite: half a turn about any perpendicular axis
    local px, py, pz = perpendicular(ux, uy, uz)
    return 0.0, px, py, pz
  end
  local cx, cy, cz = cross(ux, uy, uz, vx, vy, vz)
  local w = 1.0 + d
  local l = sqrt(w * w + cx * cx + cy * cy + cz * cz)
  return w / l, cx / l, cy / l, cz / l
end
local function qnormalize(w, x, y, z)
  local l = sqrt(w * w + x * x + y * y + z * z)
  if l < TINY then return 1.0, 0.0, 0.0, 0.0 end
  return w / l, x / l, y / l, z / l
end

----------------------------------------------------------------------------------------------------
-- argument checks
----------------------------------------------------------------------------------------------------
local function check_vector3(v, n, fname)
  if not E.is(v, "Vector3") then E.anim_arg_error(n, fname, "Vector3", v) end
  return v
end
local function check_quat(v, n, fname)
  if not E.is(v, "Quaternion") then E.anim_arg_error(n, fname, "Quaternion", v) end
  return v
end
local function check_bool(v, n, fname)
  if type(v) ~= "boolean" then E.anim_arg_error(n, fname, "boolean", v) end
  return v
end
local function unit_f32(v, n, fname)
  v = E.anim_number(v, n, fname)
  if v ~= v then v = 0.0 end
  return f32(mmin(mmax(v, 0.0), 1.0))
end
local function solver_rec(self) return E.typed_comp_rec(self, "IKSolver") end
local function effector_rec(self) return E.typed_comp_rec(self, "IKEffector") end
local function constraint_rec(self) return E.typed_comp_rec(self, "IKConstraint") end

local function live_node(n) return n ~= nil and not n.removed end
local function has_solver(n, except)
  for _, x in ipairs(n.components) do
    if x.type_name == "IKSolver" and x ~= except and not x.removed then return true end
  end
  return false
end

-- IKSolver::ComponentIsInOurSubtree: the component's node is the solver's node or below it, with no other solver
-- on the way (a solver between them owns it).
local function in_subtree(s, comp)
  local n = comp.node
  while n do
    if n == s.node then return true end
    if has_solver(n, comp) then return false end
    n = n.parent
  end
  return false
end

-- The solvers that own `comp` (the nearest solver above it that has it in its subtree).
local function owning_solver(comp)
  local n = comp.node
  while n do
    for _, x in ipairs(n.components) do
      if x.type_name == "IKSolver" and x ~= comp and not x.removed and x.node == n then
        return in_subtree(x, comp) and x or nil
      end
    end
    n = n.parent
  end
  return nil
end

----------------------------------------------------------------------------------------------------
-- poses: one record per node of a solver's tree
----------------------------------------------------------------------------------------------------
local function capture(p, which)
  local r = world(p.node)
  if which == "original" then
    p.ox, p.oy, p.oz = r.m03, r.m13, r.m23
    p.ow, p.oqx, p.oqy, p.oqz = r.ww, r.wx, r.wy, r.wz
  else
    p.x, p.y, p.z = r.m03, r.m13, r.m23
    p.w, p.qx, p.qy, p.qz = r.ww, r.wx, r.wy, r.wz
  end
end

-- The pose record of node `n` in solver `s`, created (both poses from the scene, now) when the node is new.
local function pose_of(s, n)
  local p = s.poses[n]
  if p == nil then
    p = {node = n, seg = 0.0, rotation_weight = 0.0}
    capture(p, "original")
    p.x, p.y, p.z, p.w, p.qx, p.qy, p.qz = p.ox, p.oy, p.oz, p.ow, p.oqx, p.oqy, p.oqz
    s.poses[n] = p
  end
  return p
end

-- The nodes from the effector's node up to the solver's node join the tree (IKSolver::BuildTreeToEffector).
local function add_path(s, eff)
  local n = eff.node
  while n and n ~= s.node do
    pose_of(s, n)
    n = n.parent
  end
  pose_of(s, s.node)
end

local function sorted_children(s, n)
  local kids = {}
  for i, child in ipairs(n.children) do
    if s.in_tree[child] then kids[#kids + 1] = {child, i} end
  end
  tsort(kids, function(a, b)
    if a[1].id ~= b[1].id then return a[1].id < b[1].id end
    return a[2] < b[2]
  end)
  for i, k in ipairs(kids) do kids[i] = k[1] end
  return kids
end

-- The effectors the solver owns, in scene order (the node's own components first, then its children's).
local function collect_effectors(s)
  local out = {}
  local function walk(n)
    for _, c in ipairs(n.components) do
      if c.type_name == "IKEffector" and not c.removed and in_subtree(s, c) then out[#out + 1] = c end
    end
    for _, child in ipairs(n.children) do walk(child) end
  end
  walk(s.node)
  return out
end

-- The tree: the solver's node and every node on the way to an effector, each node's tree children by node ID.
-- Unless `force`, a tree whose effectors and nodes are still the same is kept as it is (a node added or moved
-- elsewhere in the scene changes nothing).  Nodes already in the tree keep their original pose; new ones capture it
-- now; `s.recapture` (a solver added or removed above, an effector removed) captures every node afresh.
local function rebuild_tree(s, force)
  local effectors = collect_effectors(s)
  local in_tree = {[s.node] = true}
  for _, eff in ipairs(effectors) do
    local n = eff.node
    while n and n ~= s.node do in_tree[n] = true; n = n.parent end
  end
  if not force and not s.recapture and s.effectors and #effectors == #s.effectors then
    local same = true
    for i, eff in ipairs(effectors) do if s.effectors[i] ~= eff then same = false; break end end
    if same then
      for n in next, in_tree do if not s.in_tree[n] then same = false; break end end
    end
    if same then
      for n in next, s.in_tree do if not in_tree[n] then same = false; break end end
    end
    if same then s.tree_version = E.tree_version; return end
  end
  if s.recapture then s.poses = {}; s.recapture = false end
  for n in next, s.poses do if not in_tree[n] then s.poses[n] = nil end end
  for _, eff in ipairs(effectors) do add_path(s, eff) end
  pose_of(s, s.node)
  s.in_tree, s.effectors = in_tree, effectors
  local order = {}
  local function walk(n)
    local p = s.poses[n]
    order[#order + 1] = p
    p.children = sorted_children(s, n)
    for _, child in ipairs(p.children) do walk(child) end
  end
  walk(s.node)
  s.order = order
  s.tree_version = E.tree_version
  s.tree_dirty = false
  s.chains_dirty = true
end

-- The solver's tree, up to date; false when the solver has no node.
local function ensure_tree(s)
  if s.node == nil or s.node.removed then return false end
  if s.order == nil or s.tree_dirty or s.recapture then rebuild_tree(s, true)
  elseif s.tree_version ~= E.tree_version then rebuild_tree(s, false) end
  return true
end

----------------------------------------------------------------------------------------------------
-- chains
----------------------------------------------------------------------------------------------------
local SECTION, BASE = 1, 2

-- Segment lengths from the original pose: each node's distance to the next node up its chain.
local function segment_lengths(chain)
  local nodes = chain.nodes
  for i = 1, #nodes - 1 do
    local a, b = nodes[i], nodes[i + 1]
    a.seg = len3(a.ox - b.ox, a.oy - b.oy, a.oz - b.oz)
  end
  for _, child in ipairs(chain.children) do segment_lengths(child) end
end

-- Each effector marks its chain: the nodes it moves as SECTION, the node its chain hangs from as BASE (unless
-- another chain moves it).  Walking the tree from the solver's node, a chain ends at an effector or where two
-- marked branches part, and starts at the node the previous chain ended at (or at a BASE node: a new island).
local function build_chains(s)
  local marks, effector_at = {}, {}
  for _, eff in ipairs(s.effectors) do
    if effector_at[eff.node] == nil then effector_at[eff.node] = eff end
    local budget = eff.chain_length == 0 and -1 or eff.chain_length
    local n = eff.node
    while n do
      local mark = budget == 0 and BASE or SECTION
      if marks[n] == nil or mark == SECTION then marks[n] = mark end
      if budget == 0 or n == s.node then break end
      budget = budget - 1
      n = n.parent
    end
  end
  local islands, leaves = {}, {}
  local function build(n, base, chain)
    local p = s.poses[n]
    if marks[n] ~= SECTION then
      base, chain = n, nil
    else
      local sections = 0
      for _, child in ipairs(p.children) do
        if marks[child] == SECTION then sections = sections + 1 end
      end
      if (sections >= 2 or effector_at[n]) and n ~= base then
        local nodes, x = {}, n
        while x ~= base do nodes[#nodes + 1] = s.poses[x]; x = x.parent end
        nodes[#nodes + 1] = s.poses[base]
        local new = {nodes = nodes, children = {}, effector = effector_at[n]}
        if chain == nil then islands[#islands + 1] = new else chain.children[#chain.children + 1] = new end
        chain, base = new, n
      end
    end
    for _, child in ipairs(p.children) do build(child, base, chain) end
  end
  build(s.node, s.node, nil)
  local function collect_leaves(chain)
    if #chain.children == 0 then leaves[#leaves + 1] = chain end
    for _, child in ipairs(chain.children) do collect_leaves(child) end
  end
  for _, island in ipairs(islands) do
    segment_lengths(island)
    collect_leaves(island)
  end
  s.islands, s.leaves = islands, leaves
  s.chains_dirty = false
  -- the analytic solvers take islands of one chain of one or two segments
  local want = s.algorithm == ONE_BONE and 2 or s.algorithm == TWO_BONE and 3 or nil
  s.valid = true
  if want then
    for _, island in ipairs(islands) do
      if #island.children > 0 then
        s.valid = false
        E.log("INFO", "[IK] ERROR: the tree has chains that branch; only FABRIK solves branching chains")
        break
      elseif #island.nodes ~= want then
        s.valid = false
        E.log("INFO", sformat("[IK] ERROR: the tree has a chain of %d segment(s) but the %s solver takes %d",
          #island.nodes - 1, want == 2 and "one-bone" or "two-bone", want - 1))
        break
      end
    end
  end
end

-- Rotation weights for TARGET_ROTATIONS: each effector's weight on its tip, decaying by its rotation decay up the
-- chain; a node where chains meet takes the average of theirs.
local function rotation_weights(chain)
  local w, d = 0.0, 0.0
  local n = #chain.children
  if n > 0 then
    for _, child in ipairs(chain.children) do
      local cw, cd = rotation_weights(child)
      w, d = w + cw, d + cd
    end
    w, d = w / n, d / n
  else
    w, d = chain.effector.rotation_weight, chain.effector.rotation_decay
  end
  for i = 1, #chain.nodes - 1 do
    chain.nodes[i].rotation_weight = w
    w = w * d
  end
  return w, d
end

----------------------------------------------------------------------------------------------------
-- solving
----------------------------------------------------------------------------------------------------
-- The position a leaf chain's effector aims at: its target, blended with the tip's original position by the
-- effector's weight (WEIGHT_NLERP: about the chain's base, the distance blended separately).
local function effective_target(chain)
  local eff, tip = chain.effector, chain.nodes[1]
  local tx, ty, tz = eff.tx, eff.ty, eff.tz
  local w = eff.weight
  if w >= 1.0 then return tx, ty, tz end
  local gx, gy, gz = tip.ox + (tx - tip.ox) * w, tip.oy + (ty - tip.oy) * w, tip.oz + (tz - tip.oz) * w
  if eff.features & WEIGHT_NLERP ~= 0 then
    local base = chain.nodes[#chain.nodes]
    local bx, by, bz = base.ox, base.oy, base.oz
    local dist = len3(tx - bx, ty - by, tz - bz) * w + len3(tip.ox - bx, tip.oy - by, tip.oz - bz) * (1.0 - w)
    local dx, dy, dz = gx - bx, gy - by, gz - bz
    local l = len3(dx, dy, dz)
    if l > TINY then gx, gy, gz = bx + dx / l * dist, by + dy / l * dist, bz + dz / l * dist end
  end
  return gx, gy, gz
end

-- The unit direction from node a to node b in the active pose; their original direction when they coincide.
local function direction(a, b)
  local x, y, z = b.x - a.x, b.y - a.y, b.z - a.z
  local l = len3(x, y, z)
  if l < TINY then
    x, y, z = b.ox - a.ox, b.oy - a.oy, b.oz - a.oz
    l = len3(x, y, z)
    if l < TINY then return 0.0, 1.0, 0.0 end
  end
  return x / l, y / l, z / l
end

local function solve_one_bone(s)
  for _, island in ipairs(s.islands) do
    local tip, base = island.nodes[1], island.nodes[2]
    local gx, gy, gz = effective_target(island)
    local dx, dy, dz = gx - base.x, gy - base.y, gz - base.z
    local l = len3(dx, dy, dz)
    if l > TINY then
      tip.x, tip.y, tip.z = base.x + dx / l * tip.seg, base.y + dy / l * tip.seg, base.z + dz / l * tip.seg
    end
  end
end

-- Two segments base -> mid -> tip (lengths b and a) reach the target: the angle at the base from the law of
-- cosines, the knee bent in the plane the chain bends in now (its hinge kept), both lengths kept.  Out of reach,
-- both segments point at the target.
local function solve_two_bone(s)
  for _, island in ipairs(s.islands) do
    local tip, mid, base = island.nodes[1], island.nodes[2], island.nodes[3]
    local a, b = tip.seg, mid.seg
    local gx, gy, gz = effective_target(island)
    local bx, by, bz = base.x, base.y, base.z
    local tx, ty, tz = gx - bx, gy - by, gz - bz
    local c = len3(tx, ty, tz)
    if c > TINY then
      local dx, dy, dz = tx / c, ty / c, tz / c
      if c >= a + b then
        mid.x, mid.y, mid.z = bx + dx * b, by + dy * b, bz + dz * b
        tip.x, tip.y, tip.z = mid.x + dx * a, mid.y + dy * a, mid.z + dz * a
      else
        local cos_a = (b * b + c * c - a * a) / (2.0 * b * c)
        local clamped = cos_a > 1.0 or cos_a < -1.0
        cos_a = mmin(mmax(cos_a, -1.0), 1.0)
        local sin_a = sqrt(1.0 - cos_a * cos_a)
        -- the bend direction: perpendicular to the target line within the hinge plane (normal: the current
        -- segments' cross product), towards the side the knee is on now
        local mx, my, mz = mid.x - bx, mid.y - by, mid.z - bz
        local nx, ny, nz = cross(mx, my, mz, tip.x - mid.x, tip.y - mid.y, tip.z - mid.z)
        local px, py, pz = cross(dx, dy, dz, nx, ny, nz)
        local l = len3(px, py, pz)
        if l < TINY * (1.0 + len3(nx, ny, nz)) or len3(nx, ny, nz) < TINY then
          local along = mx * dx + my * dy + mz * dz
          px, py, pz = mx - dx * along, my - dy * along, mz - dz * along
          l = len3(px, py, pz)
          if l < TINY then px, py, pz = perpendicular(dx, dy, dz); l = 1.0 end
        end
        px, py, pz = px / l, py / l, pz / l
        mid.x = bx + b * (dx * cos_a + px * sin_a)
        mid.y = by + b * (dy * cos_a + py * sin_a)
        mid.z = bz + b * (dz * cos_a + pz * sin_a)
        if clamped then   -- too close to reach exactly: the tip as near the target as the lengths allow
          local ex, ey, ez = gx - mid.x, gy - mid.y, gz - mid.z
          local le = len3(ex, ey, ez)
          if le < TINY then ex, ey, ez, le = dx, dy, dz, 1.0 end
          tip.x, tip.y, tip.z = mid.x + ex / le * a, mid.y + ey / le * a, mid.z + ez / le * a
        else
          tip.x, tip.y, tip.z = gx, gy, gz
        end
      end
    end
  end
end

-- FABRIK's forward pass, leaves first: each chain's tip goes to its target (a leaf's effective target, else the
-- average of where its child chains want their shared base) and every node follows at its segment's length.
-- With TARGET_ROTATIONS each node is also drawn towards the point one unit behind the target along the target's
-- forward direction, by its rotation weight.  Returns where the chain wants its base, and the direction.
local function forward(chain, with_rotation)
  local tx, ty, tz, fx, fy, fz = 0.0, 0.0, 0.0, 0.0, 0.0, 0.0
  local n = #chain.children
  if n > 0 then
    for _, child in ipairs(chain.children) do
      local x, y, z, a, b, c = forward(child, with_rotation)
      tx, ty, tz, fx, fy, fz = tx + x, ty + y, tz + z, fx + a, fy + b, fz + c
    end
    tx, ty, tz, fx, fy, fz = tx / n, ty / n, tz / n, fx / n, fy / n, fz / n
  else
    tx, ty, tz = chain.gx, chain.gy, chain.gz
    if with_rotation then
      local eff = chain.effector
      fx, fy, fz = qrot(eff.tw, eff.tqx, eff.tqy, eff.tqz, 0.0, 0.0, 1.0)
    end
  end
  local nodes = chain.nodes
  for i = 1, #nodes - 1 do
    local child, parent = nodes[i], nodes[i + 1]
    child.x, child.y, child.z = tx, ty, tz
    local px, py, pz = parent.x, parent.y, parent.z
    if with_rotation then
      local w = parent.rotation_weight
      px, py, pz = px + (tx - fx - px) * w, py + (ty - fy - py) * w, pz + (tz - fz - pz) * w
    end
    local x, y, z = px - tx, py - ty, pz - tz
    local l = len3(x, y, z)
    if l < TINY then
      x, y, z = direction(child, parent)
      l = 1.0
    end
    tx, ty, tz = tx + x / l * child.seg, ty + y / l * child.seg, tz + z / l * child.seg
  end
  return tx, ty, tz, fx, fy, fz
end

-- FABRIK's backward pass, root first: the base back at its place, every node at its segment's length from the
-- node above it, towards where the forward pass put it.
local function backward(chain, bx, by, bz)
  local nodes = chain.nodes
  local base = nodes[#nodes]
  base.x, base.y, base.z = bx, by, bz
  for i = #nodes - 1, 1, -1 do
    local child, parent = nodes[i], nodes[i + 1]
    local x, y, z = direction(parent, child)
    child.x, child.y, child.z = parent.x + x * child.seg, parent.y + y * child.seg, parent.z + z * child.seg
  end
  local tip = nodes[1]
  for _, child in ipairs(chain.children) do backward(child, tip.x, tip.y, tip.z) end
end

local function solve_fabrik(s)
  local with_rotation = s.features & TARGET_ROTATIONS ~= 0
  if with_rotation then
    for _, island in ipairs(s.islands) do
      local w = rotation_weights(island)
      island.nodes[#island.nodes].rotation_weight = w
    end
  end
  for _, leaf in ipairs(s.leaves) do leaf.gx, leaf.gy, leaf.gz = effective_target(leaf) end
  local tol2 = s.tolerance * s.tolerance
  s.iterations = 0
  for _ = 1, s.max_iterations do
    for _, island in ipairs(s.islands) do
      local root = island.nodes[#island.nodes]
      local rx, ry, rz = root.x, root.y, root.z
      forward(island, with_rotation)
      backward(island, rx, ry, rz)
    end
    s.iterations = s.iterations + 1
    local done = true
    for _, leaf in ipairs(s.leaves) do
      local tip = leaf.nodes[1]
      local x, y, z = tip.x - leaf.gx, tip.y - leaf.gy, tip.z - leaf.gz
      if x * x + y * y + z * z > tol2 then done = false; break end
    end
    if done then break end
  end
end

-- JOINT_ROTATIONS: each node that starts a segment turns by the rotation from the segment's original direction to
-- its solved one, applied to its original world rotation; an effector turns with the segment above it; a node
-- where chains meet takes the average of what its chains give it.  Returns the rotation of the chain's base.
local function joint_rotations(chain)
  local nodes = chain.nodes
  local n = #chain.children
  local aw, ax, ay, az = 0.0, 0.0, 0.0, 0.0
  for _, child in ipairs(chain.children) do
    local w, x, y, z = joint_rotations(child)
    if w < 0.0 then w, x, y, z = -w, -x, -y, -z end
    aw, ax, ay, az = aw + w, ax + x, ay + y, az + z
  end
  local dw, dx, dy, dz = 1.0, 0.0, 0.0, 0.0
  for i = #nodes - 1, 1, -1 do
    local child, parent = nodes[i], nodes[i + 1]
    dw, dx, dy, dz = arc(child.ox - parent.ox, child.oy - parent.oy, child.oz - parent.oz,
      child.x - parent.x, child.y - parent.y, child.z - parent.z)
    parent.w, parent.qx, parent.qy, parent.qz = qnormalize(qmul(dw, dx, dy, dz,
      parent.ow, parent.oqx, parent.oqy, parent.oqz))
  end
  local tip = nodes[1]
  if n > 0 then
    tip.w, tip.qx, tip.qy, tip.qz = qnormalize(aw / n, ax / n, ay / n, az / n)
  elseif #nodes > 1 then
    tip.w, tip.qx, tip.qy, tip.qz = qnormalize(qmul(dw, dx, dy, dz, tip.ow, tip.oqx, tip.oqy, tip.oqz))
  end
  local base = nodes[#nodes]
  return base.w, base.qx, base.qy, base.qz
end

local function calculate_joint_rotations(s)
  for _, island in ipairs(s.islands or {}) do joint_rotations(island) end
end

----------------------------------------------------------------------------------------------------
-- poses <-> scene (root first, so each node's parent is in place when it is set)
----------------------------------------------------------------------------------------------------
local function scene_to(s, which)
  for _, p in ipairs(s.order) do capture(p, which) end
end
local function set_world(p, x, y, z, w, qx, qy, qz)
  local proxy = p.node.proxy
  NM.SetWorldRotation(proxy, quat(w, qx, qy, qz))
  NM.SetWorldPosition(proxy, v3(x, y, z))
end
local function original_to_scene(s)
  if s.order == nil then return end
  for _, p in ipairs(s.order) do
    if live_node(p.node) then set_world(p, p.ox, p.oy, p.oz, p.ow, p.oqx, p.oqy, p.oqz) end
  end
end
local function active_to_scene(s)
  for _, p in ipairs(s.order) do
    if live_node(p.node) then set_world(p, p.x, p.y, p.z, p.w, p.qx, p.qy, p.qz) end
  end
end
local function original_to_active(s)
  for _, p in ipairs(s.order) do
    p.x, p.y, p.z, p.w, p.qx, p.qy, p.qz = p.ox, p.oy, p.oz, p.ow, p.oqx, p.oqy, p.oqz
  end
end

-- An effector with a target node follows it (its world position and rotation, each solve); one with only a target
-- name looks the node up in the scene first.
local function update_target(eff)
  local t = eff.target_node
  if t ~= nil and t.removed then eff.target_node, t = nil, nil end
  if t == nil and eff.target_name ~= "" and eff.node and eff.node.scene then
    local found = NM.GetChild(eff.node.scene.proxy, eff.target_name, true)
    if found then
      t = REC[found]
      eff.target_node = t
    end
  end
  if t ~= nil then
    local r = world(t)
    eff.tx, eff.ty, eff.tz = r.m03, r.m13, r.m23
    eff.tw, eff.tqx, eff.tqy, eff.tqz = r.ww, r.wx, r.wy, r.wz
  end
end

-- IKSolver::Solve
local function solve(s)
  if not ensure_tree(s) then return end
  if s.chains_dirty then build_chains(s) end
  if not s.valid then return end
  if s.features & UPDATE_ORIGINAL_POSE ~= 0 then scene_to(s, "original") end
  if s.features & UPDATE_ACTIVE_POSE ~= 0 then scene_to(s, "active") end
  if s.features & USE_ORIGINAL_POSE ~= 0 then original_to_active(s) end
  for _, eff in ipairs(s.effectors) do update_target(eff) end
  if s.algorithm == ONE_BONE then solve_one_bone(s)
  elseif s.algorithm == TWO_BONE then solve_two_bone(s)
  else solve_fabrik(s) end
  if s.features & JOINT_ROTATIONS ~= 0 then calculate_joint_rotations(s) end
  active_to_scene(s)
end
E.ik_solve = solve

----------------------------------------------------------------------------------------------------
-- IKSolver
----------------------------------------------------------------------------------------------------
local IKS = class("IKSolver")
IKS.statics.ONE_BONE = function() return ONE_BONE end
IKS.statics.TWO_BONE = function() return TWO_BONE end
IKS.statics.FABRIK = function() return FABRIK end
IKS.statics.JOINT_ROTATIONS = function() return JOINT_ROTATIONS end
IKS.statics.TARGET_ROTATIONS = function() return TARGET_ROTATIONS end
IKS.statics.UPDATE_ORIGINAL_POSE = function() return UPDATE_ORIGINAL_POSE end
IKS.statics.UPDATE_ACTIVE_POSE = function() return UPDATE_ACTIVE_POSE end
IKS.statics.USE_ORIGINAL_POSE = function() return USE_ORIGINAL_POSE end
IKS.statics.CONSTRAINTS = function() return CONSTRAINTS end
IKS.statics.AUTO_SOLVE = function() return AUTO_SOLVE end

local function update_subscription(s)
  E.unsubscribe(s, false, "SceneDrawableUpdateFinished")
  local scene = s.node and s.node.scene
  if scene and not s.removed and s.features & AUTO_SOLVE ~= 0 then
    E.subscribe(s, nil, scene.proxy, "SceneDrawableUpdateFinished", function() solve(s) end)
  end
end

-- The solvers above `n` (its own node's included) rebuild their trees from the scene at their next solve.
local function solvers_above_recapture(n, except)
  while n do
    for _, x in ipairs(n.components) do
      if x.type_name == "IKSolver" and x ~= except and not x.removed then x.recapture = true end
    end
    n = n.parent
  end
end

E.COMPONENT_FACTORIES.IKSolver = function(c)
  c.algorithm = FABRIK
  c.max_iterations = 20
  c.tolerance = f32(0.001)
  c.features = AUTO_SOLVE | JOINT_ROTATIONS | UPDATE_ACTIVE_POSE
  c.poses = {}
  c.valid = false
  solvers_above_recapture(c.node.parent, c)
  rebuild_tree(c, true)
  -- as in Urho3D, a new solver takes its original pose again at its first solve (unless its algorithm is set
  -- before, which rebuilds its tree at once)
  c.recapture = true
  c.on_scene_set = function(x) update_subscription(x) end
  c.on_scene_removed = function(x) E.unsubscribe(x, false, "SceneDrawableUpdateFinished") end
  c.on_removed = function(x)
    if x.node and not x.node.removed and x.order then original_to_scene(x) end
    E.unsubscribe_all(x)
    solvers_above_recapture(x.node and x.node.parent, x)
    x.order, x.islands = nil, nil
  end
end

local S = IKS.methods
S.GetAlgorithm = function(self) return solver_rec(self).algorithm end
S.SetAlgorithm = function(self, algorithm)
  local s = solver_rec(self)
  algorithm = E.anim_number(algorithm, 1, "SetAlgorithm")
  if algorithm ~= ONE_BONE and algorithm ~= TWO_BONE and algorithm ~= FABRIK then
    E.raise_at_game(sformat("bad argument #1 to 'SetAlgorithm' (IKSolver.ONE_BONE, TWO_BONE or FABRIK expected, "
      .. "got %s)", tostring(algorithm)))
  end
  s.algorithm = math.tointeger(algorithm)
  if s.node == nil or s.node.removed then return end
  -- the tree is rebuilt with the scene in its original pose
  original_to_scene(s)
  s.recapture = true
  rebuild_tree(s, true)
end
S.GetMaximumIterations = function(self) return solver_rec(self).max_iterations end
S.SetMaximumIterations = function(self, n)
  solver_rec(self).max_iterations = E.anim_index(n, 1, "SetMaximumIterations")
end
S.GetTolerance = function(self) return solver_rec(self).tolerance end
S.SetTolerance = function(self, tolerance)
  local s = solver_rec(self)
  tolerance = E.anim_number(tolerance, 1, "SetTolerance")
  if not (tolerance >= M_EPSILON) then tolerance = M_EPSILON end
  s.tolerance = f32(tolerance)
end

local function feature_accessors(methods, rec_of, flag_name, flag, on_change)
  methods["Get" .. flag_name] = function(self) return rec_of(self).features & flag ~= 0 end
  methods["Set" .. flag_name] = function(self, enable)
    local c = rec_of(self)
    check_bool(enable, 1, "Set" .. flag_name)
    local before = c.features
    c.features = enable and (c.features | flag) or (c.features & ~flag)
    if on_change and before ~= c.features then on_change(c) end
  end
end
feature_accessors(S, solver_rec, "JOINT_ROTATIONS", JOINT_ROTATIONS)
feature_accessors(S, solver_rec, "TARGET_ROTATIONS", TARGET_ROTATIONS)
feature_accessors(S, solver_rec, "UPDATE_ORIGINAL_POSE", UPDATE_ORIGINAL_POSE)
feature_accessors(S, solver_rec, "UPDATE_ACTIVE_POSE", UPDATE_ACTIVE_POSE)
feature_accessors(S, solver_rec, "USE_ORIGINAL_POSE", USE_ORIGINAL_POSE)
feature_accessors(S, solver_rec, "CONSTRAINTS", CONSTRAINTS)
feature_accessors(S, solver_rec, "AUTO_SOLVE", AUTO_SOLVE, update_subscription)

S.RebuildChainTrees = function(self)
  local s = solver_rec(self)
  if ensure_tree(s) then build_chains(s) end
end
S.RecalculateSegmentLengths = function(self)
  local s = solver_rec(self)
  for _, island in ipairs(s.islands or {}) do segment_lengths(island) end
end
S.CalculateJointRotations = function(self) calculate_joint_rotations(solver_rec(self)) end
S.Solve = function(self) solve(solver_rec(self)) end
S.ApplyOriginalPoseToScene = function(self)
  local s = solver_rec(self)
  if ensure_tree(s) then original_to_scene(s) end
end
S.ApplySceneToOriginalPose = function(self)
  local s = solver_rec(self)
  if ensure_tree(s) then scene_to(s, "original") end
end
S.ApplyActivePoseToScene = function(self)
  local s = solver_rec(self)
  if ensure_tree(s) then active_to_scene(s) end
end
S.ApplySceneToActivePose = function(self)
  local s = solver_rec(self)
  if ensure_tree(s) then scene_to(s, "active") end
end
S.ApplyOriginalPoseToActivePose = function(self)
  local s = solver_rec(self)
  if ensure_tree(s) then original_to_active(s) end
end
S.DrawDebugGeometry = function(self) solver_rec(self) end   -- nothing is drawn headless

----------------------------------------------------------------------------------------------------
-- IKEffector
----------------------------------------------------------------------------------------------------
local IKE = class("IKEffector")
IKE.statics.WEIGHT_NLERP = function() return WEIGHT_NLERP end
IKE.statics.INHERIT_PARENT_ROTATION = function() return INHERIT_PARENT_ROTATION end

-- The effector's solver rebuilds its tree at its next solve (the effector's chain or place changed).
local function touch_solver(eff, capture_path)
  local s = owning_solver(eff)
  if s == nil then return end
  s.tree_dirty = true
  if capture_path and s.node and not s.node.removed then add_path(s, eff) end
end

E.COMPONENT_FACTORIES.IKEffector = function(c)
  c.target_node = nil
  c.target_name = ""
  c.tx, c.ty, c.tz = 0.0, 0.0, 0.0
  c.tw, c.tqx, c.tqy, c.tqz = 1.0, 0.0, 0.0, 0.0
  c.chain_length = 0
  c.weight = 1.0
  c.rotation_weight = 1.0
  c.rotation_decay = 0.25
  c.features = 0
  -- a solver above takes the nodes on the way into its tree now, with their pose of now
  touch_solver(c, true)
  c.on_removed = function(x)
    -- the scene back in its original pose (the tree as it was), then the tree is taken again from the scene
    local s = owning_solver(x)
    if s == nil then return end
    original_to_scene(s)
    s.recapture = true
  end
end

local F = IKE.methods
F.GetTargetNode = function(self)
  local c = effector_rec(self)
  local t = c.target_node
  return t and not t.removed and t.proxy or nil
end
F.SetTargetNode = function(self, node)
  local c = effector_rec(self)
  local t = nil
  if node ~= nil then
    t = REC[node]
    if t == nil or t.kind ~= "node" then E.anim_arg_error(1, "SetTargetNode", "Node", node) end
    if t.removed then t = nil end
  end
  c.target_node = t
  c.target_name = t and t.name or ""
  if c.node then
    E.send_event("IKEffectorTargetChanged", {EffectorNode = c.node.proxy, TargetNode = t and t.proxy or nil},
      c.proxy)
  end
end
F.GetTargetName = function(self) return effector_rec(self).target_name end
F.SetTargetName = function(self, name)
  local c = effector_rec(self)
  c.target_name = E.anim_string(name, 1, "SetTargetName")
  c.target_node = nil
end
F.GetTargetPosition = function(self)
  local c = effector_rec(self)
  return v3(c.tx, c.ty, c.tz)
end
F.SetTargetPosition = function(self, p)
  local c = effector_rec(self)
  check_vector3(p, 1, "SetTargetPosition")
  c.tx, c.ty, c.tz = p.x, p.y, p.z
end
F.GetTargetRotation = function(self)
  local c = effector_rec(self)
  return quat(c.tw, c.tqx, c.tqy, c.tqz)
end
F.SetTargetRotation = function(self, q)
  local c = effector_rec(self)
  check_quat(q, 1, "SetTargetRotation")
  c.tw, c.tqx, c.tqy, c.tqz = q.w, q.x, q.y, q.z
end
F.GetChainLength = function(self) return effector_rec(self).chain_length end
F.SetChainLength = function(self, n)
  local c = effector_rec(self)
  local length = E.anim_index(n, 1, "SetChainLength")
  if length ~= c.chain_length then
    c.chain_length = length
    touch_solver(c, false)
  end
end
F.GetWeight = function(self) return effector_rec(self).weight end
F.SetWeight = function(self, w) effector_rec(self).weight = unit_f32(w, 1, "SetWeight") end
F.GetRotationWeight = function(self) return effector_rec(self).rotation_weight end
F.SetRotationWeight = function(self, w) effector_rec(self).rotation_weight = unit_f32(w, 1, "SetRotationWeight") end
F.GetRotationDecay = function(self) return effector_rec(self).rotation_decay end
F.SetRotationDecay = function(self, d) effector_rec(self).rotation_decay = unit_f32(d, 1, "SetRotationDecay") end
feature_accessors(F, effector_rec, "WEIGHT_NLERP", WEIGHT_NLERP)
feature_accessors(F, effector_rec, "INHERIT_PARENT_ROTATION", INHERIT_PARENT_ROTATION)

----------------------------------------------------------------------------------------------------
-- IKConstraint: bound in Urho3D but never registered as a component (and its settings reach no solver there):
-- CreateComponent("IKConstraint") logs an error and gives nil.  The methods keep their values.
----------------------------------------------------------------------------------------------------
local IKC = class("IKConstraint")
E.UNREGISTERED_COMPONENTS.IKConstraint = true
local K = IKC.methods
local function constraint_state(self)
  local c = constraint_rec(self)
  if c.stiffness == nil then c.stiffness, c.stretchiness, c.lmin, c.lmax = 0.0, 0.0, 0.0, 0.0 end
  return c
end
K.GetStiffness = function(self) return constraint_state(self).stiffness end
K.SetStiffness = function(self, v) constraint_state(self).stiffness = unit_f32(v, 1, "SetStiffness") end
K.GetStretchiness = function(self) return constraint_state(self).stretchiness end
K.SetStretchiness = function(self, v) constraint_state(self).stretchiness = unit_f32(v, 1, "SetStretchiness") end
K.GetLengthConstraints = function(self)
  local c = constraint_state(self)
  return setmetatable({x = c.lmin, y = c.lmax}, V2mt)
end
K.SetLengthConstraints = function(self, v)
  local c = constraint_state(self)
  if not E.is(v, "Vector2") then E.anim_arg_error(1, "SetLengthConstraints", "Vector2", v) end
  c.lmin, c.lmax = v.x, v.y
end
