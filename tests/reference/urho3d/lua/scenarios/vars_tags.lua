-- Node variables of each type and tags: what GetVar gives back, and the scene's tag queries.  Keys are StringHash:
-- Urho3D's Lua binding (a release build, without tolua's argument checks) crashes on a plain string key.
local S = {frames = 3, record = 3}

function S.Start()
  scene_ = Scene()
  local a = scene_:CreateChild("A")
  a:SetVar(StringHash("int"), Variant(7))
  a:SetVar(StringHash("float"), Variant(2.5))
  a:SetVar(StringHash("bool"), Variant(true))
  a:SetVar(StringHash("string"), Variant("text"))
  a:SetVar(StringHash("vector"), Variant(Vector3(1, 2, 3)))
  a:SetVar(StringHash("hashed"), Variant(11))
  Trace.int("int", a:GetVar(StringHash("int")):GetInt())
  Trace.num("float", a:GetVar(StringHash("float")):GetFloat())
  Trace.num("int as float", a:GetVar(StringHash("int")):GetFloat())
  Trace.int("float as int", a:GetVar(StringHash("float")):GetInt())
  Trace.bool("bool", a:GetVar(StringHash("bool")):GetBool())
  Trace.str("string", a:GetVar(StringHash("string")):GetString())
  Trace.vec3("vector", a:GetVar(StringHash("vector")):GetVector3())
  Trace.int("hashed", a:GetVar(StringHash("hashed")):GetInt())
  Trace.bool("missing is empty", a:GetVar(StringHash("missing")):IsEmpty())
  Trace.str("type name", a:GetVar(StringHash("vector")):GetTypeName())
  for i = 1, 4 do
    local n = scene_:CreateChild("Tagged" .. i)
    if i % 2 == 0 then n:AddTag("even") end
    n:AddTag("all")
    n:CreateChild("Inner" .. i):AddTag("inner")
  end
  a:AddTags("x;y;z", 59)   -- Urho3D's binding takes the separator as a char code; a string or none adds nothing
  Trace.bool("a has x", a:HasTag("x"))
  Trace.bool("a has z", a:HasTag("z"))
  Trace.bool("a has y", a:HasTag("y"))
  Trace.int("even nodes", #scene_:GetNodesWithTag("even"))
  Trace.int("all children", #scene_:GetChildrenWithTag("all", false))
  Trace.int("inner recursive", #scene_:GetChildrenWithTag("inner", true))
  Trace.int("inner direct", #scene_:GetChildrenWithTag("inner", false))
end

return S
