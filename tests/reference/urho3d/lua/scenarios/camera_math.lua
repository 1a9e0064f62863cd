-- Camera projections and conversions: perspective and orthographic, zoom, aspect, screen rays and points,
-- view and projection matrices, distances; a camera node that moves each frame.
local S = {frames = 20, record = 10}

local function m4(name, m)
  Trace.nums(name, {m.m00, m.m01, m.m02, m.m03, m.m10, m.m11, m.m12, m.m13, m.m20, m.m21, m.m22, m.m23,
    m.m30, m.m31, m.m32, m.m33})
end

local function probe(tag, cam)
  local ray = cam:GetScreenRay(0.25, 0.75)
  Trace.vec3(tag .. " ray origin", ray.origin)
  Trace.vec3(tag .. " ray direction", ray.direction)
  Trace.vec2(tag .. " world to screen", cam:WorldToScreenPoint(Vector3(1, 2, 10)))
  Trace.vec3(tag .. " screen to world", cam:ScreenToWorldPoint(Vector3(0.5, 0.5, 7)))
  Trace.vec3(tag .. " screen corner to world", cam:ScreenToWorldPoint(Vector3(0, 1, 3)))
  Trace.num(tag .. " distance", cam:GetDistance(Vector3(3, 0, 5)))
  Trace.num(tag .. " half view size", cam:GetHalfViewSize())
  m4(tag .. " projection", cam:GetProjection())
  Trace.mat34(tag .. " view", cam:GetView())
end

function S.Start()
  scene_ = Scene()
  local node = scene_:CreateChild("Camera")
  node.position = Vector3(0, 2, -5)
  node.rotation = Quaternion(10, 20, 0)
  local cam = node:CreateComponent("Camera")
  cam.fov = 60
  cam.nearClip = 0.5
  cam.farClip = 200
  cam.aspectRatio = 16 / 9
  probe("perspective", cam)
  cam.zoom = 2
  probe("zoomed", cam)
  cam.zoom = 1
  local ortho = scene_:CreateChild("Ortho"):CreateComponent("Camera")
  ortho.orthographic = true
  ortho.orthoSize = 20
  ortho.aspectRatio = 1.5
  probe("ortho", ortho)
  SubscribeToEvent("Update", "HandleUpdate")
end

function HandleUpdate(eventType, eventData)
  local node = scene_:GetChild("Camera", false)
  node:Yaw(1.5)
  node:Translate(Vector3(0, 0, 0.1))
  if Trace.frame() % 10 == 0 then probe("moving", node:GetComponent("Camera")) end
end

return S
