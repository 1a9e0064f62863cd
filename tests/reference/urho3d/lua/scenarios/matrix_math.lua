-- Matrix3x4, Matrix3 and Matrix4: composition, inverse, decomposition, products.
local S = {frames = 2}

local function m4(name, m)
  Trace.nums(name, {m.m00, m.m01, m.m02, m.m03, m.m10, m.m11, m.m12, m.m13, m.m20, m.m21, m.m22, m.m23,
    m.m30, m.m31, m.m32, m.m33})
end

local function m3(name, m)
  Trace.nums(name, {m.m00, m.m01, m.m02, m.m10, m.m11, m.m12, m.m20, m.m21, m.m22})
end

function S.Start()
  scene_ = Scene()
  local t = Matrix3x4(Vector3(1, 2, 3), Quaternion(30, 45, 60), Vector3(2, 0.5, 1.5))
  Trace.mat34("trs", t)
  Trace.mat34("uniform", Matrix3x4(Vector3(-1, 0, 4), Quaternion(90, Vector3(0, 0, 1)), 3))
  Trace.mat34("inverse", t:Inverse())
  Trace.mat34("t*inverse", t * t:Inverse())
  Trace.vec3("translation", t:Translation())
  Trace.quat("rotation", t:Rotation())
  Trace.vec3("scale", t:Scale())
  Trace.vec3("t*point", t * Vector3(1, 1, 1))
  Trace.vec3("t*point4", t * Vector4(1, 1, 1, 0))
  local u = Matrix3x4(Vector3(0, -3, 1), Quaternion(-20, Vector3(1, 1, 1)), Vector3(1, 1, 1))
  Trace.mat34("t*u", t * u)
  Trace.mat34("u*t", u * t)
  local pos, rot, scale = Vector3(), Quaternion(), Vector3()
  t:Decompose(pos, rot, scale)
  Trace.vec3("decompose position", pos)
  Trace.quat("decompose rotation", rot)
  Trace.vec3("decompose scale", scale)
  local r = t:RotationMatrix()
  m3("rotation matrix", r)
  m3("to matrix3", t:ToMatrix3())
  m4("to matrix4", t:ToMatrix4())
  local r3 = Quaternion(10, 20, 30):RotationMatrix()
  m3("matrix3 transpose", r3:Transpose())
  m3("matrix3 inverse", r3:Inverse())
  m3("matrix3 product", r3 * r3:Transpose())
  Trace.vec3("matrix3 * vector", r3 * Vector3(1, 0, 0))
  Trace.vec3("matrix3 scale", Matrix3(2, 0, 0, 0, 3, 0, 0, 0, 4):Scale())
  local p = t:ToMatrix4()
  m4("matrix4 inverse", p:Inverse())
  m4("matrix4 transpose", p:Transpose())
  Trace.vec3("matrix4 * vector", p * Vector3(0.5, -1, 2))
  Trace.vec4("matrix4 * vector4", p * Vector4(0.5, -1, 2, 1))
  Trace.vec3("matrix4 translation", p:Translation())
  Trace.quat("matrix4 rotation", p:Rotation())
  Trace.vec3("matrix4 scale", p:Scale())
  Trace.bool("equals", t:Equals(Matrix3x4(Vector3(1, 2, 3), Quaternion(30, 45, 60), Vector3(2, 0.5, 1.5))))
end

return S
