"""Urho3D's Serializer and Deserializer (engine/lua/runtime/58_serializer.lua): one codec for File and VectorBuffer,
byte for byte in Urho3D's binary layout."""

from __future__ import annotations

import struct

import pytest

from engine.testing import engine_eval, lua, new_engine

HEX = "local function hex(s) return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end)) end\n"


def sdbm(name: str) -> int:
    """Urho3D's StringHash of `name`, computed here independently of the engine."""
    h = 0
    for c in name.encode():
        h = (c + (h << 6) + (h << 16) - h) & 0xFFFFFFFF
    return h


def f32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


def packed(x: float, max_abs: float) -> int:
    """Urho3D's WritePackedVector3 coordinate: (short)Round(Clamp(x) * 32767 / maxAbsCoord) in float32."""
    m = f32(max_abs)
    v = f32(f32(max(-m, min(m, f32(x)))) * f32(32767.0 / m))
    return int(v + 0.5) if v >= 0 else -int(-v + 0.5)


def written(calls: str) -> str:
    """The bytes (hex) a VectorBuffer holds after `calls` (Lua using `b`)."""
    return str(lua(HEX + f"local b = VectorBuffer()\n{calls}\nreturn hex(b:GetData())"))


@pytest.mark.parametrize(("calls", "expected"), [
    ("b:WriteVLE(300)", b"\xac\x02"),
    ("b:WriteVLE(0) b:WriteVLE(127) b:WriteVLE(128)", b"\x00\x7f\x80\x01"),
    ("b:WriteVLE(0x1fffffff)", b"\xff\xff\xff\xff"),
    ("b:WriteStringHash('Position')", struct.pack("<I", sdbm("Position"))),
    ("b:WriteStringHash(StringHash('Score'))", struct.pack("<I", sdbm("Score"))),
    ("b:WritePackedVector3(Vector3(1, -0.5, 3), 2)",
     struct.pack("<hhh", packed(1, 2), packed(-0.5, 2), packed(3, 2))),
    ("b:WritePackedQuaternion(Quaternion(2, 0, 0, 0))", struct.pack("<hhhh", 32767, 0, 0, 0)),
    ("b:WriteVariant(Variant(7))", b"\x01" + struct.pack("<i", 7)),
    ("b:WriteVariant(Variant(1.5))", b"\x03" + struct.pack("<f", 1.5)),
    ("b:WriteVariant(Variant('hi'))", b"\x09hi\x00"),
    ("b:WriteVariant(Variant(Vector3(1, 2, 3)))", b"\x05" + struct.pack("<fff", 1, 2, 3)),
    ("b:WriteVariantData(Variant(true))", b"\x01"),
    ("b:WriteNetID(0x12345678)", b"\x78\x56\x34"),
    ("b:WriteFileID('AB')", b"AB  "),
    ("b:WriteFileID('USCNX')", b"USCN"),
    ("b:WriteString('a\\0b')", b"a\x00"),
    ("b:WriteLine('x')", b"x\r\n"),
    ("b:WriteShort(-2) b:WriteUShort(65535) b:WriteByte(-1) b:WriteUByte(256 + 5)", b"\xfe\xff\xff\xff\xff\x05"),
    ("b:WriteInt64(-2) b:WriteUInt64(2^64 - 2^11)", struct.pack("<qQ", -2, 2**64 - 2**11)),
    ("b:WriteIntRect(IntRect(1, -2, 3, 4))", struct.pack("<iiii", 1, -2, 3, 4)),
    ("b:WriteRect(Rect(1, 2, 3, 4))", struct.pack("<ffff", 1, 2, 3, 4)),
    ("b:WriteQuaternion(Quaternion(1, 0, 0, 0))", struct.pack("<ffff", 1, 0, 0, 0)),
    ("b:WriteMatrix3(Matrix3(1, 2, 3, 4, 5, 6, 7, 8, 9))", struct.pack("<9f", *range(1, 10))),
    ("b:WriteBoundingBox(BoundingBox(Vector3(-1, -2, -3), Vector3(1, 2, 3)))",
     struct.pack("<6f", -1, -2, -3, 1, 2, 3)),
    ("b:WriteResourceRef(ResourceRef('Material', 'M.xml'))", struct.pack("<I", sdbm("Material")) + b"M.xml\x00"),
    ("local l = ResourceRefList('Material') l.names = {'a', 'b'} b:WriteResourceRefList(l)",
     struct.pack("<I", sdbm("Material")) + b"\x02a\x00b\x00"),
    ("b:WriteVariantVector({1, 'x'})", b"\x02\x01" + struct.pack("<i", 1) + b"\x09x\x00"),
    ("local m = VariantMap() m['Score'] = 3 b:WriteVariantMap(m)",
     b"\x01" + struct.pack("<I", sdbm("Score")) + b"\x01" + struct.pack("<i", 3)),
    ("local s = VectorBuffer() s:WriteUByte(9) b:WriteBuffer(s) b:Write(s)", b"\x01\x09\x09"),
    ("local s = VectorBuffer() s:WriteUByte(9) b:WriteVariant(Variant(s))", b"\x0a\x01\x09"),
])
def test_bytes_are_urho3ds(calls: str, expected: bytes) -> None:
    assert written(calls) == expected.hex()


def test_a_variant_map_is_written_in_key_hash_order() -> None:
    keys = ["Alpha", "Beta", "Gamma", "Delta"]
    body = "".join(f"m['{k}'] = {i} " for i, k in enumerate(keys))
    expected = b"\x04" + b"".join(struct.pack("<I", sdbm(k)) + b"\x01" + struct.pack("<i", keys.index(k))
                                  for k in sorted(keys, key=sdbm))
    assert written(f"local m = VariantMap() {body} b:WriteVariantMap(m)") == expected.hex()


ROUND_TRIP = """
local checks = {
  {"Int", -123456}, {"Int64", -9007199254740993}, {"Short", -1234}, {"Byte", -5}, {"UInt", 4000000000},
  {"UInt64", 1234567890123}, {"UShort", 65000}, {"UByte", 250}, {"Bool", true}, {"Float", 0.25},
  {"Double", 0.1}, {"IntRect", IntRect(1, 2, 3, 4)}, {"IntVector2", IntVector2(-7, 8)},
  {"IntVector3", IntVector3(1, -2, 3)}, {"Rect", Rect(0.5, 1.5, 2.5, 3.5)}, {"Vector2", Vector2(1.5, -2)},
  {"Vector3", Vector3(1, 2, 3.25)}, {"Vector4", Vector4(1, 2, 3, 4)}, {"Quaternion", Quaternion(0.5, 0.5, 0.5, 0.5)},
  {"Matrix3", Matrix3(1, 2, 3, 4, 5, 6, 7, 8, 9)},
  {"Matrix3x4", Matrix3x4(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)},
  {"Matrix4", Matrix4(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)},
  {"Color", Color(1, 0.5, 0.25, 0.75)}, {"BoundingBox", BoundingBox(Vector3(-1, -2, -3), Vector3(1, 2, 3))},
  {"String", "héllo"}, {"FileID", "ABCD"}, {"StringHash", StringHash("Velocity")}, {"VLE", 2000000},
  {"NetID", 0x123456}, {"Line", "a line"}, {"ResourceRef", ResourceRef("Texture2D", "Textures/A.png")},
  {"PackedVector3", Vector3(1, -2, 300), 32767}, {"PackedQuaternion", Quaternion(0.5, 0.5, 0.5, 0.5)},
}
local function same(a, b)
  if type(a) == "number" and type(b) == "number" then return a == b end
  return a == b or tostring(a) == tostring(b)
end
local function run(s)
  for _, c in ipairs(checks) do
    local ok = s["Write" .. c[1]](s, c[2], c[3])
    if ok ~= true then return "Write" .. c[1] .. " gave " .. tostring(ok) end
  end
  s:WriteVariant(Variant(Vector3(4, 5, 6)))
  s:WriteVariantVector({Variant(1), Variant("two")})
  local list = ResourceRefList("Material"); list.names = {"a.xml", "b.xml"}
  s:WriteResourceRefList(list)
  local inner = VectorBuffer(); inner:WriteInt(99)
  s:WriteBuffer(inner)
  return s
end
local function back(r)
  local bad = {}
  for _, c in ipairs(checks) do
    local v = r["Read" .. c[1]](r, c[3])
    if not same(v, c[2]) then bad[#bad + 1] = c[1] .. ": " .. tostring(v) .. " ~= " .. tostring(c[2]) end
  end
  if tostring(r:ReadVariant():GetVector3()) ~= "4 5 6" then bad[#bad + 1] = "Variant" end
  local vv = r:ReadVariantVector()
  if #vv ~= 2 or vv[1]:GetInt() ~= 1 or vv[2]:GetString() ~= "two" then bad[#bad + 1] = "VariantVector" end
  local l = r:ReadResourceRefList()
  if l.type ~= StringHash("Material") or l.names[2] ~= "b.xml" then bad[#bad + 1] = "ResourceRefList" end
  if r:ReadBuffer():ReadInt() ~= 99 then bad[#bad + 1] = "Buffer" end
  if not r:IsEof() then bad[#bad + 1] = "not at the end: " .. r:GetPosition() .. " of " .. r:GetSize() end
  return table.concat(bad, "; ")
end
"""


def test_every_typed_member_round_trips_through_a_vector_buffer() -> None:
    assert lua(ROUND_TRIP + "local b = run(VectorBuffer()) b:Seek(0) return back(b)") == ""


def test_every_typed_member_round_trips_through_a_file_the_game_writes() -> None:
    assert lua(ROUND_TRIP + """
      local f = File("/user/save/all.bin", FILE_WRITE) run(f) f:Close()
      local r = File("/user/save/all.bin", FILE_READ)
      return {back(r), r:GetSize(), fileSystem:FileExists("/user/save/all.bin")}
    """) == ["", lua(ROUND_TRIP + "return run(VectorBuffer()):GetSize()"), True]
    assert lua(ROUND_TRIP + """
      local f = File("save/all.bin", FILE_WRITE) run(f) f:Close()
      return back(File("save/all.bin", FILE_READ))""") == ""


def test_a_variant_map_written_to_a_file_reads_back_equal() -> None:
    out = lua("""
      local m = VariantMap()
      m["Score"] = 42
      m["Name"] = "hero"
      m["Pos"] = Vector3(1, 2, 3)
      m["Big"] = Variant(123456789012, "Int64")
      m["Ratio"] = Variant(0.1, "Double")
      m["Tex"] = Variant(ResourceRef("Texture2D", "a.png"))
      local inner = VariantMap(); inner["Deep"] = true
      m["Inner"] = inner
      local f = File("saves/state.bin", FILE_WRITE)
      local ok = f:WriteVariantMap(m)
      f:Close()
      local r = File("saves/state.bin", FILE_READ)
      local back = r:ReadVariantMap()
      return {ok, back["Score"]:GetInt(), back["Name"]:GetString(), tostring(back["Pos"]:GetVector3()),
              back["Big"]:GetTypeName(), back["Big"]:GetInt64(), back["Ratio"]:GetDouble(),
              back["Tex"]:GetResourceRef().name, back["Tex"]:GetResourceRef().type == StringHash("Texture2D"),
              back["Inner"]:GetVariantMap()["Deep"]:GetBool(),
              back:GetInt("Score"), r:IsEof()}
    """)
    assert out == [True, 42, "hero", "1 2 3", "Int64", 123456789012, 0.1, "a.png", True, True, 42, True]


def test_a_map_from_foreign_bytes_is_read_by_name() -> None:
    """Bytes written elsewhere carry key hashes only: the map still answers to the names."""
    assert lua(f"""
      local b = VectorBuffer()
      b:WriteVLE(1) b:WriteUInt({sdbm("Zqxw")}) b:WriteUByte(1) b:WriteInt(7)
      b:Seek(0)
      local m = b:ReadVariantMap()
      return {{m["Zqxw"]:GetInt(), m:GetInt("Zqxw"), m[StringHash("Zqxw")]:GetInt()}}
    """) == [7, 7, 7]


def test_reads_past_the_end_give_zeros_and_leave_the_stream_at_its_end() -> None:
    out = lua("""
      local b = VectorBuffer()
      b:WriteUShort(513)
      b:Seek(0)
      local i = b:ReadInt()
      local after = {b:GetPosition(), b:IsEof()}
      local v = b:ReadVector3()
      return {i, after, tostring(v), b:ReadString(), b:ReadVariant():GetTypeName(), b:ReadVLE(), b:ReadFloat(),
              b:ReadFileID(), b:Read(10):GetSize(), b:ReadVariantMap():GetInt("x"), #b:ReadVariantVector(),
              b:ReadLine(), b:ReadBool(), b:ReadStringHash():Value(), b:ReadNetID()}
    """)
    assert out == [513, [2, True], "0 0 0", "", "None", 0, 0.0, "", 0, 0, 0, "", False, 0, 0]


def test_a_count_past_the_end_stops_at_the_end() -> None:
    assert lua("""
      local b = VectorBuffer()
      b:WriteVLE(100000000) b:WriteUByte(1) b:WriteInt(5)
      b:Seek(0)
      local list = b:ReadVariantVector()
      return {#list, list[1]:GetInt(), b:IsEof()}
    """) == [1, 5, True]


def test_read_line_ends_at_lf_cr_or_crlf() -> None:
    assert lua("""
      local b = VectorBuffer()
      b:Write("one\\rtwo\\r\\nthree\\nfour")
      b:Seek(0)
      return {b:ReadLine(), b:ReadLine(), b:ReadLine(), b:ReadLine(), b:IsEof()}
    """) == ["one", "two", "three", "four", True]


def test_a_file_refuses_the_wrong_direction_as_urho3d_does() -> None:
    engine = new_engine()
    out = lua("""
      local w = File("save/a.bin", FILE_WRITE)
      local read = w:ReadInt()
      w:WriteInt(5) w:Close()
      local r = File("save/a.bin", FILE_READ)
      local closed = File()
      return {read, r:WriteInt(1), r:ReadInt(), closed:ReadInt(), closed:WriteInt(1), closed:IsEof()}
    """, engine)
    assert out == [0, False, 5, 0, False, True]
    log = [str(e["message"]) for e in engine.report().log]
    assert log == ["File not opened for reading", "File not opened for writing"]


def test_one_codec_serves_both_classes() -> None:
    engine = new_engine()
    assert engine_eval(engine, """
      local des, ser = E.IMPL.Deserializer.methods, E.IMPL.Serializer.methods
      local file, buf = E.IMPL.File.bound_methods, E.IMPL.VectorBuffer.bound_methods
      return {file.ReadVariantMap == des.ReadVariantMap, buf.ReadVariantMap == des.ReadVariantMap,
              file.WritePackedVector3 == ser.WritePackedVector3, buf.WritePackedVector3 == ser.WritePackedVector3}
    """) == [True, True, True, True]


def test_bad_arguments_fail_at_the_games_line() -> None:
    out = lua("""
      local b = VectorBuffer()
      local r = {}
      r[1] = select(2, pcall(function() b:WriteVector3("x") end))
      r[2] = select(2, pcall(function() b:WriteVariantMap({}) end))
      local m = VariantMap(); m["self"] = m
      r[3] = select(2, pcall(function() b:WriteVariantMap(m) end))
      r[4] = select(2, pcall(function() b:WriteInt({}) end))
      return r
    """)
    assert out == [
        "test:4: bad argument #1 to 'WriteVector3' (Vector3 expected, got string)",
        "test:5: bad argument #1 to 'WriteVariantMap' (VariantMap expected, got table)",
        "test:7: WriteVariantMap: Variants nested deeper than 64 levels (a map or vector that holds itself?)",
        "test:8: bad argument #1 to 'WriteInt' (number expected, got table)",
    ]
