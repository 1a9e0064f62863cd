-- MathDefs helpers, Random's sequence after SetRandomSeed, and StringHash values.
local S = {frames = 2}

function S.Start()
  scene_ = Scene()
  Trace.num("lerp", Lerp(2, 10, 0.3))
  Trace.num("clamp low", Clamp(-3, 0, 5))
  Trace.num("clamp high", Clamp(7.5, 0, 5))
  Trace.num("smoothstep", SmoothStep(0, 10, 3))
  Trace.num("sin", Sin(30))
  Trace.num("cos", Cos(60))
  Trace.num("tan", Tan(45))
  Trace.num("asin", Asin(0.5))
  Trace.num("acos", Acos(-0.5))
  Trace.num("atan", Atan(1))
  Trace.num("atan2", Atan2(-1, -1))
  Trace.num("abs", Abs(-2.5))
  Trace.num("sign", Sign(-0.1))
  Trace.num("floor", Floor(-1.5))
  Trace.num("round", Round(2.5))
  Trace.num("ceil", Ceil(1.2))
  Trace.int("floor to int", FloorToInt(-1.5))
  Trace.int("round to int", RoundToInt(-2.5))
  Trace.int("ceil to int", CeilToInt(1.2))
  Trace.bool("equals", Equals(0.1 + 0.2, 0.3))
  Trace.bool("power of two", IsPowerOfTwo(64))
  Trace.int("next power of two", NextPowerOfTwo(100))
  Trace.num("inverse lerp", InverseLerp(2, 10, 4))
  Trace.int("string hash Update", StringHash("Update"):Value())
  Trace.int("string hash empty", StringHash(""):Value())
  Trace.int("string hash mixed", StringHash("MyCustomEvent_42"):Value())
  Trace.str("string hash text", StringHash("Node"):ToString())
  SetRandomSeed(1234)
  Trace.int("seed", GetRandomSeed())
  local r = {}
  for i = 1, 10 do r[i] = Random() end
  Trace.nums("random", r)
  local ranged = {}
  for i = 1, 10 do ranged[i] = Random(5) end
  Trace.nums("random range", ranged)
  local between = {}
  for i = 1, 10 do between[i] = Random(-2, 3) end
  Trace.nums("random min max", between)
  local ints = {}
  for i = 1, 10 do ints[i] = RandomInt(0, 100) end
  Trace.nums("random int", ints)
  local normal = {}
  for i = 1, 6 do normal[i] = RandomNormal(10, 2) end
  Trace.nums("random normal", normal)
  Trace.int("seed after", GetRandomSeed())
end

return S
