"""Urho2D tile maps (engine/lua/runtime/65_tilemap2d.lua, docs/urho2d.md): TmxFile2D read from Tiled maps, the
TileMap2D component and its layers' nodes, Tile2D and TileMapObject2D, the orientations' conversions, and the Urho2D
sample library (engine/lua/lib/LuaScripts/Utilities/2D/Sample2D.lua, Mover.lua) run as Urho3D's samples 49 and 50 use
it.

The maps are this test's own. Expected positions come from Urho2D's formulas (TileMapDefs2D.cpp) mirrored here in
single precision.
"""

from __future__ import annotations

import base64
import importlib.util
import struct
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from engine.testing import lua, new_engine

REPO = Path(__file__).resolve().parents[2]
PIXEL_SIZE_F = 0.01


def f32(x: float) -> float:
    return float(struct.unpack("<f", struct.pack("<f", x))[0])


PS = f32(PIXEL_SIZE_F)


def trunc(v: float) -> int:
    return int(v)


class Info:
    """TileMapInfo2D with Urho2D's conversions, in single precision."""

    def __init__(self, orientation: int, width: int, height: int, tile_w: float, tile_h: float) -> None:
        self.o, self.w, self.h = orientation, width, height
        self.tw, self.th = f32(f32(tile_w) * PS), f32(f32(tile_h) * PS)

    def map_height(self) -> float:
        if self.o == 2:
            return f32(f32((self.h + 1) * 0.5) * self.th)
        return f32(self.h * self.th)

    def convert(self, px: float, py: float) -> tuple[float, float]:
        if self.o == 1:
            ix, iy = f32(f32(px * PS) / self.th), f32(f32(py * PS) / self.th)
            return (f32(f32(f32(f32(self.w + ix) - iy) * self.tw) * 0.5),
                    f32(f32(f32(f32(f32(self.h * 2.0) - ix) - iy) * self.th) * 0.5))
        return f32(px * PS), f32(self.map_height() - f32(py * PS))

    def tile_position(self, x: int, y: int) -> tuple[float, float]:
        if self.o == 1:
            return f32(f32((self.w + x - y - 1) * self.tw) * 0.5), f32(f32((self.h * 2 - x - y - 2) * self.th) * 0.5)
        if self.o == 2:
            py = f32(f32((self.h - 1 - y) * 0.5) * self.th)
            return (f32(x * self.tw), py) if y % 2 == 0 else (f32(f32(x + 0.5) * self.tw), py)
        return f32(x * self.tw), f32((self.h - 1 - y) * self.th)

    def tile_index(self, px: float, py: float) -> tuple[bool, int, int]:
        px, py = f32(px), f32(py)
        if self.o == 1:
            ox = f32(f32(px / self.tw) - f32(self.h * 0.5))
            oy = f32(py / self.th)
            x, y = trunc(f32(f32(self.w - oy) + ox)), trunc(f32(f32(self.h - oy) - ox))
        elif self.o == 2:
            y = trunc(f32((self.h - 1) - f32(f32(py * 2.0) / self.th)))
            x = trunc(f32(px / self.tw)) if y % 2 == 0 else trunc(f32(f32(px / self.tw) - 0.5))
        else:
            x, y = trunc(f32(px / self.tw)), self.h - 1 - trunc(f32(py / self.th))
        return 0 <= x < self.w and 0 <= y < self.h, x, y


def b64_layer(gids: list[int]) -> str:
    return base64.b64encode(struct.pack(f"<{len(gids)}I", *gids)).decode("ascii")


GROUND = [1, 2, 0, 4, 0x80000002, 3, 3, 0, 5, 6, 7, 8]          # 4 x 3, one tile flipped horizontally
DECOR = [0, 0, 9, 0, 0, 0xC0000001, 0, 0, 0, 0, 0, 10]

ORTHO = f"""<?xml version="1.0" encoding="UTF-8"?>
<map version="1.2" orientation="orthogonal" width="4" height="3" tilewidth="32" tileheight="32">
 <tileset firstgid="1" name="terrain" tilewidth="32" tileheight="32" spacing="2" margin="1">
  <image source="art/terrain.png" width="137" height="69"/>
  <tile id="1"><properties><property name="solid" value="true"/></properties></tile>
 </tileset>
 <tileset firstgid="9" source="art/props.tsx"/>
 <layer name="Ground" width="4" height="3">
  <properties><property name="kind" value="floor"/></properties>
  <data encoding="csv">
{",".join(str(g) for g in GROUND[:4])},
{",".join(str(g) for g in GROUND[4:8])},
{",".join(str(g) for g in GROUND[8:])}
</data>
 </layer>
 <layer name="Decor" width="4" height="3">
  <data encoding="base64">
   {b64_layer(DECOR)}
  </data>
 </layer>
 <layer name="Hidden" width="4" height="3" visible="0">
  <data>{"".join(f'<tile gid="{g}"/>' for g in [1] * 12)}</data>
 </layer>
 <objectgroup name="Things">
  <object id="1" name="spawn" type="Start" x="16" y="40" width="24" height="8">
   <properties><property name="Friction" value="0.25"/></properties>
  </object>
  <object id="2" x="64" y="32" width="20" height="20"><ellipse/></object>
  <object id="3" x="10" y="90"><polygon points="0,0 32,0 16,-16"/></object>
  <object id="4" type="Path" x="5" y="5"><polyline points="0,0 50,4.5"/></object>
  <object id="5" x="96" y="64" gid="10"/>
  <object id="6" x="1" y="1"><polyline points="7,7"/>
   <properties><property name="lost" value="yes"/></properties></object>
 </objectgroup>
 <imagelayer name="Sky"><image source="art/sky.png"/></imagelayer>
</map>
"""

PROPS_TSX = """<?xml version="1.0" encoding="UTF-8"?>
<tileset name="props" tilewidth="32" tileheight="48">
 <tile id="0"><image width="32" height="48" source="art/barrel.png"/>
  <properties><property name="loot" value="gold"/></properties></tile>
 <tile id="1"><image width="32" height="32" source="art/crate.png"/></tile>
</tileset>
"""

ISO = """<?xml version="1.0" encoding="UTF-8"?>
<map version="1.0" orientation="isometric" width="5" height="5" tilewidth="64" tileheight="32">
 <tileset firstgid="1" name="iso" tilewidth="64" tileheight="64">
  <tileoffset x="0" y="16"/>
  <image source="art/iso.png" width="128" height="64"/>
 </tileset>
 <layer name="Floor" width="5" height="5">
  <data encoding="csv">1,1,1,1,1,1,2,2,2,1,1,2,0,2,1,1,2,2,2,1,1,1,1,1,1</data>
 </layer>
 <objectgroup name="Shapes">
  <object id="1" x="32" y="64" width="32" height="32"/>
  <object id="2" x="64" y="32" gid="2"/>
 </objectgroup>
</map>
"""

FILES: dict[str, str | bytes] = {"maps/level.tmx": ORTHO, "maps/art/props.tsx": PROPS_TSX, "maps/iso.tmx": ISO,
                                 "maps/art/terrain.png": b"png", "maps/art/sky.png": b"png",
                                 "maps/art/barrel.png": b"png", "maps/art/crate.png": b"png",
                                 "maps/art/iso.png": b"png"}

MAIN = """
function Start()
  scene_ = Scene()
  mapNode = scene_:CreateChild("Map")
  map = mapNode:CreateComponent("TileMap2D")
  map.tmxFile = cache:GetResource("TmxFile2D", "maps/level.tmx")
  isoNode = scene_:CreateChild("Iso")
  iso = isoNode:CreateComponent("TileMap2D")
  iso:SetTmxFile(cache:GetResource("TmxFile2D", "maps/iso.tmx"))
end
"""

ORTHO_INFO = Info(0, 4, 3, 32, 32)
ISO_INFO = Info(1, 5, 5, 64, 32)


def game(files: dict[str, str | bytes] | None = None, main: str = MAIN) -> Any:
    engine = new_engine(main, files or FILES)
    engine.start()
    return engine


def errors(engine: Any) -> list[str]:
    return [e["message"] for e in engine.report().log if e["level"] == "ERROR"]


def test_the_map_info_and_layers_follow_the_tmx_file() -> None:
    engine = game()
    got = lua("""local i = map.info
      local out = {i.orientation, i.width, i.height, i.tileWidth, i.tileHeight, i.mapWidth, i.mapHeight, map.numLayers}
      for n = 0, map.numLayers - 1 do
        local l = map:GetLayer(n)
        out[#out + 1] = {l.node.name, l.layerType, l.drawOrder, l.visible, l.width, l.height}
      end
      out[#out + 1] = map:GetLayer(map.numLayers) == nil
      out[#out + 1] = mapNode:GetChild("_root_").temporary
      return out""", engine)
    assert got[:8] == [0, 4, 3, ORTHO_INFO.tw, ORTHO_INFO.th, f32(4 * ORTHO_INFO.tw), ORTHO_INFO.map_height(), 5]
    assert got[8:13] == [["Ground", 0, 0, True, 4, 3], ["Decor", 0, 10, True, 4, 3], ["Hidden", 0, 20, False, 4, 3],
                         ["Things", 1, 30, True, 0, 0], ["Sky", 2, 40, True, 0, 0]]
    assert got[13:] == [True, True]
    assert errors(engine) == []


def test_tiles_read_from_csv_base64_and_xml_data() -> None:
    engine = game()
    got = lua("""local ground, decor, hidden = map:GetLayer(0), map:GetLayer(1), map:GetLayer(2)
      local function gids(l)
        local out = {}
        for y = 0, 2 do for x = 0, 3 do local t = l:GetTile(x, y); out[#out + 1] = t and t.gid or 0 end end
        return out
      end
      local flipped, both = ground:GetTile(0, 1), decor:GetTile(1, 1)
      return gids(ground), gids(decor), gids(hidden), {flipped.gid, flipped:GetFlipX(), flipped:GetFlipY(),
        flipped:GetSwapXY()}, {both:GetFlipX(), both:GetFlipY()}, ground:GetTile(4, 0) == nil,
        ground:GetTile(-1, 0) == nil, ground:HasProperty("kind"), ground:GetProperty("kind"), ground:GetProperty("x"),
        ground:GetTile(1, 0):HasProperty("solid"), ground:GetTile(1, 0):GetProperty("solid"),
        ground:GetTile(0, 0):HasProperty("solid")""", engine)
    assert got[0] == [g & 0x0FFFFFFF for g in GROUND]
    assert got[1] == [g & 0x0FFFFFFF for g in DECOR] and got[2] == [1] * 12
    assert got[3] == [2, True, False, False] and got[4] == [True, True]
    assert got[5:] == [True, True, True, "floor", "", True, "true", False]


def test_tile_sprites_are_cut_from_the_image_by_margin_and_spacing() -> None:
    """137 x 69 pixels, margin 1, spacing 2: four 32-pixel columns and two rows (gids 1 to 8)."""
    engine = game()
    got = lua("""local out = {}
      for y = 0, 2 do for x = 0, 3 do
        local t = map:GetLayer(0):GetTile(x, y)
        if t then local r = t.sprite.rectangle; out[#out + 1] = {t.gid, r.left, r.top, r.right, r.bottom} end
      end end
      local s = map:GetLayer(0):GetTile(0, 0).sprite
      return out, {s.hotSpot.x, s.hotSpot.y}, s.texture.name""", engine)
    rects = {1 + c + 4 * r: [1 + 34 * c, 1 + 34 * r, 33 + 34 * c, 33 + 34 * r] for r in range(2) for c in range(4)}
    assert got[0] == [[g & 0xFF] + rects[g & 0xFF] for g in GROUND if g]
    assert got[1:] == [[0.0, 0.0], "maps/art/terrain.png"]


def test_tile_nodes_sit_at_urho2ds_positions_with_their_sprites() -> None:
    engine = game()
    got = lua("""local ground = map:GetLayer(0)
      local out = {}
      for y = 0, 2 do for x = 0, 3 do
        local n = ground:GetTileNode(x, y)
        if n then
          local s = n:GetComponent("StaticSprite2D")
          out[#out + 1] = {x, y, n.name, n.position.x, n.position.y, n.temporary, s.layer, s.orderInLayer, s.flipX,
            s.sprite == ground:GetTile(x, y).sprite}
        else
          out[#out + 1] = {x, y, ground:GetTile(x, y) == nil}
        end
      end end
      return out, ground.node:GetNumChildren(false), map:GetLayer(2):GetTileNode(0, 0).enabled,
        map:GetLayer(1):GetTileNode(2, 0):GetComponent("StaticSprite2D").layer""", engine)
    cells, count, hidden_enabled, decor_layer = got
    expected = []
    for y in range(3):
        for x in range(4):
            gid = GROUND[y * 4 + x]
            if gid:
                px, py = ORTHO_INFO.tile_position(x, y)
                expected.append([x, y, "Tile", px, py, True, 0, y * 4 + x, bool(gid & 0x80000000), True])
            else:
                expected.append([x, y, True])
    assert cells == expected
    assert count == sum(1 for g in GROUND if g)
    assert hidden_enabled is False and decor_layer == 10


def test_objects_convert_to_world_positions_and_sizes() -> None:
    engine = game()
    got = lua("""local things = map:GetLayer(3)
      local out = {}
      for i = 0, things.numObjects - 1 do
        local o = things:GetObject(i)
        local pts = {}
        for k = 0, o.numPoints - 1 do local p = o:GetPoint(k); pts[#pts + 1] = {p.x, p.y} end
        local n = things:GetObjectNode(i)
        out[#out + 1] = {o.objectType, o.name, o.type, o.position.x, o.position.y, o.size.x, o.size.y, pts,
          o.tileGid, n.name, n.position.x, n.position.y}
      end
      local spawn, tile, lost = things:GetObject(0), things:GetObject(4), things:GetObject(5)
      return out, things:GetObject(6) == nil, spawn:GetProperty("Friction"), spawn:HasProperty("Friction"),
        lost:HasProperty("lost"), tile.tileSprite == map:GetLayer(1):GetTile(3, 2).sprite,
        things:GetObjectNode(4):GetComponent("StaticSprite2D").orderInLayer,
        things:GetObjectNode(0):GetComponent("StaticSprite2D") == nil""", engine)
    objects = got[0]
    i = ORTHO_INFO
    spawn = i.convert(16, f32(40 + 8))
    assert objects[0] == ([0, "spawn", "Start", *spawn, f32(24 * PS), f32(8 * PS), [], 0, "Object", *spawn])
    ellipse = i.convert(64, f32(32 + 20))
    assert objects[1] == [1, "", "", *ellipse, f32(20 * PS), f32(20 * PS), [], 0, "Object", *ellipse]
    poly = [list(i.convert(f32(10 + dx), f32(90 + dy))) for dx, dy in ((0, 0), (32, 0), (16, -16))]
    assert objects[2] == [2, "", "", 0.0, 0.0, 0.0, 0.0, poly, 0, "Object", 0.0, 0.0]
    line = [list(i.convert(f32(5 + dx), f32(5 + dy))) for dx, dy in ((0, 0), (50, f32(4.5)))]
    assert objects[3] == [3, "", "Path", 0.0, 0.0, 0.0, 0.0, line, 0, "Object", 0.0, 0.0]
    tile = i.convert(96, 64)
    # a tile object without a size takes its sprite's size in pixels (32 x 32, the crate), as Urho2D does
    assert objects[4] == [4, "", "", *tile, 32.0, 32.0, [], 10, "Object", *tile]
    # one point only: Urho2D keeps the object without points and without its properties
    assert objects[5] == [3, "", "", 0.0, 0.0, 0.0, 0.0, [], 0, "Object", 0.0, 0.0]
    assert got[1:] == [True, "0.25", True, False, True, trunc(f32(f32(10.0 - tile[1]) * 100)), True]


def test_external_collection_tileset_is_packed_as_urho2d_packs_it() -> None:
    """Images of 32 x 48 and 32 x 32 (plus a pixel each way) in a 128 x 128 area: (0, 0), then right of it."""
    engine = game()
    got = lua("""local barrel, crate = map:GetLayer(1):GetTile(2, 0), map:GetLayer(1):GetTile(3, 2)
      local a, b = barrel.sprite.rectangle, crate.sprite.rectangle
      return {a.left, a.top, a.right, a.bottom}, {b.left, b.top, b.right, b.bottom}, barrel:GetProperty("loot"),
        barrel.sprite.texture.width, barrel.sprite.texture == crate.sprite.texture,
        {barrel.sprite.hotSpot.x, barrel.sprite.hotSpot.y}""", engine)
    assert got == [[0, 0, 32, 48], [33, 0, 65, 32], "gold", 128, True, [0.0, 0.0]]


def test_image_layer_node_at_the_maps_top_left() -> None:
    engine = game()
    got = lua("""local sky = map:GetLayer(4)
      local n = sky.imageNode
      local s = n:GetComponent("StaticSprite2D")
      return n.name, n.position.x, n.position.y, s.layer, s.orderInLayer, s.sprite.hotSpot.y,
        s.sprite.texture.name""", engine)
    assert got == ["Tile", 0.0, ORTHO_INFO.map_height(), 40, 0, 1.0, "maps/art/sky.png"]


def test_orthogonal_index_and_position_round_trip() -> None:
    engine = game()
    got = lua("""local out = {}
      for y = -1, 3 do for x = -1, 4 do
        local p = map:TileIndexToPosition(x, y)
        local c = Vector2(p.x + map.info.tileWidth / 2, p.y + map.info.tileHeight / 2)
        out[#out + 1] = {p.x, p.y, {map:PositionToTileIndex(p)}, {map:PositionToTileIndex(c)}}
      end end
      return out""", engine)
    i = ORTHO_INFO
    k = 0
    for y in range(-1, 4):
        for x in range(-1, 5):
            px, py = i.tile_position(x, y)
            centre = (px + i.tw / 2, py + i.th / 2)
            assert got[k] == [px, py, list(i.tile_index(px, py)), list(i.tile_index(*centre))], (x, y)
            if 0 <= x < 4 and 0 <= y < 3:
                assert got[k][3] == [True, x, y]
            k += 1


def test_isometric_index_and_position_round_trip() -> None:
    """Urho2D's isometric TileIndexToPosition gives the tile's corner; its diamond's centre is half a tile up and
    right, and PositionToTileIndex of that centre gives the tile back."""
    engine = game()
    got = lua("""local out = {}
      for y = 0, 4 do for x = 0, 4 do
        local p = iso:TileIndexToPosition(x, y)
        local c = p + Vector2(iso.info.tileWidth / 2, iso.info.tileHeight / 2)
        out[#out + 1] = {p.x, p.y, {iso:PositionToTileIndex(p)}, {iso:PositionToTileIndex(c)}}
      end end
      local far = {iso:PositionToTileIndex(Vector2(-5, -5))}
      local i = iso.info
      return out, far, {i.mapWidth, i.mapHeight}, iso:GetLayer(0):GetTileNode(2, 2) == nil,
        iso:GetLayer(0):GetTileNode(1, 3).position.x""", engine)
    i = ISO_INFO
    k = 0
    for y in range(5):
        for x in range(5):
            px, py = i.tile_position(x, y)
            centre = (f32(px + f32(i.tw / 2)), f32(py + f32(i.th / 2)))
            assert got[0][k] == [px, py, list(i.tile_index(px, py)), [True, x, y]], (x, y)
            assert list(i.tile_index(*centre)) == [True, x, y]
            k += 1
    assert got[1] == list(i.tile_index(-5, -5)) and got[1][0] is False
    assert got[2:] == [[f32(5 * i.tw), f32(5 * i.th)], True, i.tile_position(1, 3)[0]]


def test_isometric_objects_and_tile_objects() -> None:
    engine = game()
    got = lua("""local shapes = iso:GetLayer(1)
      local box, tile = shapes:GetObject(0), shapes:GetObject(1)
      local s = shapes:GetObjectNode(1):GetComponent("StaticSprite2D")
      return {box.position.x, box.position.y, box.size.x, box.size.y}, {tile.position.x, tile.position.y},
        {s.useHotSpot, s.hotSpot.x, s.hotSpot.y, s.layer}, iso:GetLayer(0):GetTile(0, 0).sprite.hotSpot.y""", engine)
    i = ISO_INFO
    assert got[0] == [*i.convert(32, f32(64 + 32)), f32(32 * PS), f32(32 * PS)]
    assert got[1] == list(i.convert(64, 32))
    assert got[2] == [True, 0.5, 0.0, 10]
    assert got[3] == 0.25   # the tile set's offset: 16 of 64 pixels


def test_staggered_positions_alternate_rows() -> None:
    staggered = ISO.replace('orientation="isometric"', 'orientation="staggered"')
    engine = game({**FILES, "maps/iso.tmx": staggered})
    got = lua("""local out = {}
      for y = 0, 4 do for x = 0, 4 do
        local p = iso:TileIndexToPosition(x, y)
        out[#out + 1] = {p.x, p.y, {iso:PositionToTileIndex(p + Vector2(0.01, 0.01))}}
      end end
      return out, iso.info.mapHeight""", engine)
    i = Info(2, 5, 5, 64, 32)
    k = 0
    for y in range(5):
        for x in range(5):
            px, py = i.tile_position(x, y)
            assert got[0][k] == [px, py, list(i.tile_index(f32(px + 0.01), f32(py + 0.01)))]
            k += 1
    assert got[1] == i.map_height()


def test_visibility_draw_order_and_changing_the_file() -> None:
    engine = game()
    got = lua("""local ground = map:GetLayer(0)
      ground:SetVisible(false)
      local hidden = ground:GetTileNode(0, 0).enabled
      ground:SetDrawOrder(7)
      local layer = ground:GetTileNode(1, 0):GetComponent("StaticSprite2D").layer
      local root = mapNode:GetChild("_root_")
      map.tmxFile = nil
      local emptied = {map.numLayers, root:GetNumChildren(false), map.info.width}
      map:SetTmxFile(cache:GetResource("TmxFile2D", "maps/iso.tmx"))
      return hidden, layer, emptied, map.numLayers, mapNode:GetChild("_root_") == root,
        root:GetChild(0).name, map.tmxFile.name""", engine)
    # Urho2D keeps the info of the last file when the file is set to none
    assert got == [False, 7, [0, 0, 4], 2, True, "Floor", "maps/iso.tmx"]


def test_scene_files_and_clones_remake_the_layers() -> None:
    engine = game()
    got = lua("""scene_:SaveXML("saved.xml")
      local copy = Scene()
      copy:LoadXML("saved.xml")
      local m = copy:GetChild("Map"):GetComponent("TileMap2D")
      local clone = mapNode:Clone()
      local cm = clone:GetComponent("TileMap2D")
      local roots = 0
      for i = 0, clone:GetNumChildren(false) - 1 do if clone:GetChild(i).name == "_root_" then roots = roots + 1 end end
      return m.tmxFile.name, m.numLayers, copy:GetChild("Map"):GetChild("_root_"):GetNumChildren(false),
        cm.numLayers, roots, cm:GetLayer(0):GetTileNode(0, 0) ~= map:GetLayer(0):GetTileNode(0, 0)""", engine)
    assert got == ["maps/level.tmx", 5, 5, 5, 1, True]


def test_edge_offset_reaches_every_tile_sprite() -> None:
    engine = game()
    got = lua("""local f = map.tmxFile
      local before = map:GetLayer(0):GetTile(0, 0).sprite.textureEdgeOffset
      f.edgeOffset = 0.5
      return before, f.edgeOffset, map:GetLayer(0):GetTile(0, 0).sprite.textureEdgeOffset,
        map:GetLayer(1):GetTile(2, 0).sprite.textureEdgeOffset""", engine)
    assert got == [f32(0.00005), 0.5, 0.5, 0.5]


@pytest.mark.parametrize(("change", "message"), [
    (('version="1.2"', 'version="2.0"'), "Invalid TMX version: 2.0"),
    (('orientation="orthogonal"', 'orientation="hexagonalish"'), "Unsupported orientation type hexagonalish"),
    (('art/terrain.png', 'art/missing.png'), "Could not load texture maps/art/missing.png"),
    (('<data encoding="csv">', '<data encoding="csv" compression="zlib">'), "Compression not supported now"),
    (('<data encoding="csv">', '<data encoding="hex">'), "Invalid encoding: hex"),
    (('art/props.tsx', 'art/nothing.tsx'), "Load TSX file failed maps/art/nothing.tsx"),
    (('name="terrain" tilewidth="32" tileheight="32" spacing="2"', 'name="terrain" tilewidth="0" tileheight="32"'),
     "tile set 'terrain' has tiles of no size"),
])
def test_files_urho2d_refuses_log_its_error_and_load_nothing(change: tuple[str, str], message: str) -> None:
    engine = game({**FILES, "maps/level.tmx": ORTHO.replace(*change)})
    assert lua("return map.tmxFile == nil, map.numLayers, mapNode:GetChild('_root_') == nil", engine) == [
        True, 0, True]
    assert any(message in e for e in errors(engine)), errors(engine)


def test_the_samples_stock_maps_load_from_the_derived_data() -> None:
    """Urho3D's samples 36, 49 and 50 name stock maps; the engine serves what it derived of them
    (engine/data/stock_data.json.gz). Expected layer names come from that data."""
    from engine._stock_data import xml_files

    files = xml_files()
    names = {}
    for name in ("Urho2D/isometric_grass_and_water.tmx", "Urho2D/Tilesets/Ortho.tmx", "Urho2D/Tilesets/atrium.tmx"):
        root = ET.fromstring(files[name])
        names[name] = [c.get("name") for c in root if c.tag in ("layer", "objectgroup", "imagelayer")]
    engine = new_engine("""function Start()
      scene_ = Scene()
      maps = {}
      for _, name in ipairs({"Urho2D/isometric_grass_and_water.tmx", "Urho2D/Tilesets/Ortho.tmx",
                             "Urho2D/Tilesets/atrium.tmx"}) do
        local m = scene_:CreateChild(name):CreateComponent("TileMap2D")
        m.tmxFile = cache:GetResource("TmxFile2D", name)
        maps[name] = m
      end
    end""")
    engine.start()
    got = lua("""local out = {}
      for name, m in pairs(maps) do
        local layers = {}
        for i = 0, m.numLayers - 1 do layers[#layers + 1] = m:GetLayer(i).node.name end
        out[name] = layers
      end
      local grass = maps["Urho2D/isometric_grass_and_water.tmx"]
      return out, grass.info.orientation, grass:GetLayer(0):GetTile(0, 0).gid""", engine)
    assert got[0] == names
    assert got[1:] == [1, 24]
    assert errors(engine) == []


def test_create_script_object_from_a_file_runs_the_file_once() -> None:
    files: dict[str, str | bytes] = {"scripts/Walker.lua": "loads = (loads or 0) + 1\nWalker = ScriptObject()\n"
                                     "function Walker:Start() self.steps = 3 end\n"}
    engine = new_engine("""function Start()
      scene_ = Scene()
      a = scene_:CreateChild("A"):CreateScriptObject("scripts/Walker.lua", "Walker")
      b = scene_:CreateChild("B"):CreateScriptObject("scripts/Walker.lua", "Walker")
      c = scene_:CreateChild("C"):CreateScriptObject("scripts/Nowhere.lua", "Walker")
    end""", files)
    engine.start()
    assert lua("return loads, a.steps, b.steps, c == nil, scene_:GetChild('C'):GetNumComponents()", engine) == [
        1, 3, 3, True, 0]
    assert "Could not find resource scripts/Nowhere.lua" in errors(engine)


def test_string_conversions() -> None:
    got = lua("""return ToFloat("0.8"), ToFloat(" 2.5e1x"), ToInt("-12abc"), ToInt("ff", 16), ToUInt("7"),
      ToBool("yes"), ToBool("0"), ToVector2("1 2").y, ToVector2("1").x, ToColor("1 0 0").a,
      ToVector4("1 2", true).y, ToIntRect("1 2 3 4").right""")
    assert got == [f32(0.8), 25.0, -12, 255, 7, True, False, 2.0, 0.0, 1.0, 2.0, 3]


# ------------------------------------------------------------------------------------------------
# The Urho2D sample library, used as Urho3D's samples 49 (isometric) and 50 (platformer) use it
# ------------------------------------------------------------------------------------------------

def _load_conformance() -> Any:
    spec = importlib.util.spec_from_file_location("bench_conformance", REPO / "bench" / "conformance.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


PLATFORMER = """require "LuaScripts/Utilities/Sample"
require "LuaScripts/Utilities/2D/Sample2D"

Hero = ScriptObject()
function Hero:Start() self.remainingCoins, self.maxCoins, self.remainingLifes = 0, 0, 3 end
function Hero:Update(timeStep)
  local body = self.node:GetComponent("RigidBody2D")
  if input:GetKeyDown(KEY_D) then self.node:Translate(Vector3(1.8 * timeStep, 0, 0)) end
  if input:GetKeyPress(KEY_W) then body:ApplyLinearImpulse(Vector2(0, 0.17) * MOVE_SPEED, body.massCenter, true) end
end

function Start()
  demoFilename = "Platform"
  SampleStart()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
  scene_:CreateComponent("PhysicsWorld2D")
  cameraNode = Node()
  local camera = cameraNode:CreateComponent("Camera")
  camera.orthographic = true
  renderer:SetViewport(0, Viewport:new(scene_, camera))
  local mapNode = scene_:CreateChild("TileMap")
  local map = mapNode:CreateComponent("TileMap2D")
  map.tmxFile = cache:GetResource("TmxFile2D", "%s")
  local info = map.info
  Character2D = Hero
  CreateCharacter(info, true, 0.8, Vector3(1, 8, 0), 0.2)
  CreateCollisionShapesFromTMXObjects(mapNode, map:GetLayer(map.numLayers - 1), info)
  PopulateMovingEntities(map:GetLayer(map.numLayers - 2))
  PopulateCoins(map:GetLayer(map.numLayers - 3))
  if info.orientation == O_ORTHOGONAL then
    PopulateTriggers(map:GetLayer(map.numLayers - 4))
    CreateBackgroundSprite(info, 3.5, "Textures/HeightMap.png", true)
  end
  CreateUIContent("TILE MAP TEST")
  SubscribeToEvent("Update", function() Zoom(camera) end)
  SubscribeToEvent("PhysicsBeginContact2D", function(eventType, eventData)
    local a, b = eventData["NodeA"]:GetPtr("Node"), eventData["NodeB"]:GetPtr("Node")
    local other = a.name == "Imp" and b or a
    if other.name == "Coin" then
      other:Remove()
      local hero = character2DNode:GetScriptObject()
      hero.remainingCoins = hero.remainingCoins - 1
      ui.root:GetChild("CoinsText", true).text = hero.remainingCoins
      PlaySound("Powerup.wav")
    elseif other.name == "Enemy" or other.name == "Orc" then
      if not character2DNode:GetChild("Emitter", true) then SpawnEffect(character2DNode) end
    end
  end)
end
"""


@pytest.mark.parametrize("tmx", ["Urho2D/Tilesets/Ortho.tmx", "Urho2D/Tilesets/atrium.tmx"])
def test_a_sample_style_game_on_the_stock_maps_runs_clean_for_30_seconds(tmp_path: Path, tmx: str) -> None:
    conformance = _load_conformance()
    (tmp_path / "50_TileGame.lua").write_text(PLATFORMER % tmx)
    [result] = list(conformance.run_all([tmp_path], seconds=30.0))
    assert result["outcome"] == "clean", result
    assert result["frames"] == 1800 or result["exit_requested"], result


def test_sample2d_places_the_maps_entities() -> None:
    engine = new_engine(PLATFORMER % "Urho2D/Tilesets/Ortho.tmx")
    engine.start()
    before = lua("""local map = scene_:GetChild("TileMap"):GetComponent("TileMap2D")
      local coins, moving, triggers = map:GetLayer(map.numLayers - 3), map:GetLayer(map.numLayers - 2),
        map:GetLayer(map.numLayers - 4)
      local function count(name) local n = 0
        for _, c in ipairs(scene_:GetChildren(false)) do if c.name == name then n = n + 1 end end
        return n end
      local kinds = {}
      for i = 0, moving.numObjects - 1 do local t = moving:GetObject(i).type; kinds[t] = (kinds[t] or 0) + 1 end
      local orc = scene_:GetChild("Orc")
      local first = moving:GetObject(0)
      local shapes = scene_:GetChild("TileMap"):GetNumComponents() - 2
      return count("Coin"), coins.numObjects, character2DNode:GetScriptObject().maxCoins,
        count("Orc"), kinds.Orc, count("Enemy"), kinds.Enemy, count("MovingPlatform"), kinds.MovingPlatform,
        orc:GetComponent("AnimatedSprite2D").animation, orc:GetScriptObject().speed,
        count("Climb") > 0, count("Lava") > 0, shapes, MOVE_SPEED_SCALE,
        ui.root:GetChild("CoinsText", true).text, ui.root:GetChild("LifeText", true).text,
        scene_:GetChild("Background"):GetComponent("StaticSprite2D").layer,
        scene_:GetChild("Coin"):GetComponent("AnimatedSprite2D").animationSet.name""", engine)
    assert before[0] == before[1] == before[2] > 0
    assert before[3] == before[4] and before[5] == before[6] and before[7] == before[8]
    assert before[9:13] == ["run", 0.8, True, True]
    assert before[13] > 0 and before[14] == 1.0
    # clones keep their sprites' attributes (Urho3D's Node::Clone copies them)
    assert before[15:] == [str(before[0]), "3", -99, "Urho2D/GoldIcon.scml"]
    start = lua("local p = scene_:GetChild('MovingPlatform').position2D return {p.x, p.y}", engine)
    engine.run_frames(60)
    moved = lua("local p = scene_:GetChild('MovingPlatform').position2D return {p.x, p.y}", engine)
    assert moved != start
    assert errors(engine) == []
