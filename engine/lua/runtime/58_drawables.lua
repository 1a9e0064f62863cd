-- More drawables kept as state: Skybox, StaticModelGroup, BillboardSet (with its Billboard records).
local setmetatable, ipairs, tremove = setmetatable, ipairs, table.remove
local REC, comp_rec, node_rec = E.REC, E.comp_rec, E.node_rec
local FACTORIES = E.COMPONENT_FACTORIES

-- Skybox: a StaticModel that follows the camera when drawn.
FACTORIES.Skybox = FACTORIES.StaticModel

-- StaticModelGroup: one model drawn at many nodes.
local static_model = FACTORIES.StaticModel
FACTORIES.StaticModelGroup = function(c)
  static_model(c)
  c.instance_nodes = {}
end
local SG = class("StaticModelGroup").methods
SG.AddInstanceNode = function(self, node)
  local c, n = comp_rec(self), node_rec(node)
  for _, x in ipairs(c.instance_nodes) do if x == n then return end end
  c.instance_nodes[#c.instance_nodes + 1] = n
end
SG.RemoveInstanceNode = function(self, node)
  local c, n = comp_rec(self), REC[node]
  for i, x in ipairs(c.instance_nodes) do
    if x == n then tremove(c.instance_nodes, i); return end
  end
end
SG.RemoveAllInstanceNodes = function(self) comp_rec(self).instance_nodes = {} end
-- Nodes removed from the scene since they were added no longer count (Urho3D holds them weakly).
local function live_nodes(c)
  local list = c.instance_nodes
  for i = #list, 1, -1 do
    if list[i].removed then tremove(list, i) end
  end
  return list
end
SG.GetNumInstanceNodes = function(self) return #live_nodes(comp_rec(self)) end
SG.GetInstanceNode = function(self, index)
  local n = live_nodes(comp_rec(self))[(index or 0) + 1]
  return n and n.proxy
end

-- BillboardSet: GetBillboard returns the set's own Billboard (changes to its fields change the set), as
-- Urho3D hands out a pointer into its vector; Commit() is where Urho3D would rebuild its vertex data.
local FC_ROTATE_XYZ = 1
local billboard_mt = class("Billboard").mt
local function new_billboard()
  return setmetatable({position = E.Vector3_new(0, 0, 0), size = E.Vector2_new(1, 1), uv = E.Rect_new(0, 0, 1, 1),
    color = E.Color_new(1, 1, 1, 1), rotation = 0.0, anchor = E.Vector2_new(0, 0), enabled = false}, billboard_mt)
end
E.new_billboard = new_billboard   -- the particle emitter's billboards (65_particles.lua)
local BS = class("BillboardSet")
local drawable = E.drawable_factory({Relative = true, Scaled = true, Sorted = false, FixedScreenSize = false,
  FaceCameraMode = FC_ROTATE_XYZ, MinAngle = 0.0, AnimationLodBias = 1.0})
FACTORIES.BillboardSet = function(c)
  drawable(c)
  c.billboards = {}
  c.commits = 0
end
E.simple_properties(BS, {Relative = true, Scaled = true, Sorted = false, FixedScreenSize = false,
  FaceCameraMode = FC_ROTATE_XYZ, MinAngle = 0.0, AnimationLodBias = 1.0})
local B = BS.methods
B.SetMaterial = function(self, m) comp_rec(self).material = m end
B.GetMaterial = function(self) return comp_rec(self).material end
B.SetNumBillboards = function(self, n)
  local list = comp_rec(self).billboards
  if n < 0 then n = 0 end
  for i = #list + 1, n do list[i] = new_billboard() end
  for i = #list, n + 1, -1 do list[i] = nil end
end
B.GetNumBillboards = function(self) return #comp_rec(self).billboards end
B.GetBillboard = function(self, index) return comp_rec(self).billboards[(index or 0) + 1] end
B.Commit = function(self) local c = comp_rec(self); c.commits = c.commits + 1 end
