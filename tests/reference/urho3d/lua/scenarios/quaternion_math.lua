-- Quaternion arithmetic as the API returns it: constructors, Euler angles, products, interpolation.
local S = {frames = 3}

function S.Start()
  scene_ = Scene()
  local axes = {Vector3(0, 1, 0), Vector3(1, 0, 0), Vector3(0, 0, 1), Vector3(1, 2, -3), Vector3(-0.3, 0.2, 0.9)}
  local angles = {0, 17.5, 90, -135, 180, 270, 359}
  for i = 1, #axes do
    for j = 1, #angles do
      local q = Quaternion(angles[j], axes[i])
      Trace.quat("axis " .. i .. " angle " .. angles[j], q)
      Trace.vec3("euler " .. i .. " " .. angles[j], q:EulerAngles())
    end
  end
  local eulers = {{10, 20, 30}, {-45, 90, 0}, {89.9, -10, 5}, {0, 180, 45}, {120, -60, 250}}
  for i = 1, #eulers do
    local e = eulers[i]
    local q = Quaternion(e[1], e[2], e[3])
    Trace.quat("from euler " .. i, q)
    Trace.vec3("back to euler " .. i, q:EulerAngles())
    Trace.num("yaw " .. i, q:YawAngle())
    Trace.num("pitch " .. i, q:PitchAngle())
    Trace.num("roll " .. i, q:RollAngle())
    Trace.vec3("rotated " .. i, q * Vector3(1, 2, 3))
    Trace.num("angle " .. i, q:Angle())
    Trace.vec3("axis " .. i, q:Axis())
    local m = q:RotationMatrix()
    Trace.nums("matrix " .. i, {m.m00, m.m01, m.m02, m.m10, m.m11, m.m12, m.m20, m.m21, m.m22})
  end
  local a = Quaternion(30, Vector3(0, 1, 0))
  local b = Quaternion(-70, Vector3(1, 1, 0))
  Trace.quat("a*b", a * b)
  Trace.quat("b*a", b * a)
  Trace.quat("a inverse", a:Inverse())
  Trace.quat("a conjugate", a:Conjugate())
  Trace.quat("a+b", a + b)
  Trace.quat("a-b", a - b)
  Trace.quat("a*2", a * 2)
  Trace.quat("a*-1", a * -1)
  Trace.num("dot", a:DotProduct(b))
  Trace.num("length squared", (a + b):LengthSquared())
  Trace.quat("normalized sum", (a + b):Normalized())
  for i = 0, 4 do
    local t = i / 4
    Trace.quat("slerp " .. i, a:Slerp(b, t))
    Trace.quat("nlerp " .. i, a:Nlerp(b, t, false))
    Trace.quat("nlerp shortest " .. i, a:Nlerp(b * -1, t, true))
  end
  Trace.quat("rotation to", Quaternion(Vector3(0, 0, 1), Vector3(1, 1, 0)))
  Trace.quat("rotation to opposite", Quaternion(Vector3(0, 0, 1), Vector3(0, 0, -1)))
  Trace.quat("from axes", Quaternion(Vector3(0, 0, -1), Vector3(0, 1, 0), Vector3(1, 0, 0)))
  local look = Quaternion()
  Trace.bool("look ok", look:FromLookRotation(Vector3(1, -1, 2), Vector3(0, 1, 0)))
  Trace.quat("look", look)
  local bad = Quaternion()
  Trace.bool("look parallel up", bad:FromLookRotation(Vector3(0, 1, 0), Vector3(0, 1, 0)))
  Trace.quat("look parallel up value", bad)
  local roll = Quaternion(33)
  Trace.quat("roll only", roll)
  Trace.bool("equals", a:Equals(Quaternion(30, Vector3(0, 1, 0))))
  Trace.bool("==", a == Quaternion(30, Vector3(0, 1, 0)))
end

return S
