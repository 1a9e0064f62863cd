"""UrhoX's stock LightGroup presets (engine/data/stock/LightGroup/) load into the structure TapTap's rendering guide
documents, with its light brightness per preset; and the Zone properties the guide documents have its defaults."""

from __future__ import annotations

import pytest

from engine._engine import stock_resources
from engine.testing import lua, new_engine

# TapTap's table: preset, the light's brightness, and its colour's family as the guide names it
PRESETS = [("Daytime", 3.0, "warm white"), ("Dusk", 5.0, "orange"), ("Sandstorm", 6.0, "warm yellow"),
           ("Night", 0.8, "cool blue"), ("Midnight", 1.1, "cool blue"), ("DarkNight", 1.3, "purple-blue"),
           ("BloodNight", 0.55, "cold white")]

GAME = """
function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree")
end
"""


def test_the_presets_are_stock_xml_files() -> None:
    names = sorted(n for n in stock_resources() if n.startswith("LightGroup/"))
    assert names == sorted(f"LightGroup/{p}.xml" for p, _, _ in PRESETS)
    assert {stock_resources()[n]["type"] for n in names} == {"XMLFile"}


@pytest.mark.parametrize(("preset", "brightness", "family"), PRESETS)
def test_a_preset_loads_into_the_documented_structure(preset: str, brightness: float, family: str) -> None:
    engine = new_engine(GAME, {})
    engine.start()
    out = lua(f"""
    local file = cache:GetResource("XMLFile", "LightGroup/{preset}.xml")
    local group = scene_:CreateChild("LightGroup")
    local loaded = group:LoadXML(file:GetRoot())
    local zone = group:GetComponent("Zone")
    local sun = group:GetChild("Directional Light")
    local light = group:GetComponent("Light", true)
    local c = light.color
    return {{loaded, group.name, group.numChildren, group:GetNumComponents(), zone.priority,
            zone.fogEnd > zone.fogStart, sun:GetComponent("Light") == light, light.lightType == LIGHT_DIRECTIONAL,
            light.castShadows, light.brightness, c.r, c.g, c.b, sun.direction.y < 0,
            group:GetComponent("Zone", true) == zone}}
    """, engine)
    assert out[:10] == [True, "LightGroup", 1, 1, -1, True, True, True, True, brightness]
    r, g, b = out[10:13]
    assert out[13:] == [True, True]   # the sun shines downwards; the recursive search finds the same zone
    if family in ("warm white", "warm yellow", "orange"):
        assert r >= g >= b and (r - b > 0.3) == (family != "warm white")
    elif family == "cool blue":
        assert b > g > r
    elif family == "purple-blue":
        assert b > r > g
    else:   # cold white
        assert b >= g >= r and r > 0.8


def test_instantiate_xml_takes_a_presets_name_and_the_log_names_a_missing_one() -> None:
    engine = new_engine(GAME, {})
    engine.start()
    out = lua("""
    local node = scene_:InstantiateXML("LightGroup/Dusk.xml", Vector3.ZERO, Quaternion.IDENTITY, LOCAL)
    return {node:GetComponent("Light", true).brightness, node.ID >= 0x1000000,
            node:GetChild("Directional Light") ~= nil, cache:GetResource("XMLFile", "LightGroup/Noon.xml") == nil}
    """, engine)
    assert out == [5.0, True, True, True]
    assert [e["message"] for e in engine.report().log] == ["Could not find resource LightGroup/Noon.xml"]


def test_a_games_own_file_under_a_presets_name_wins() -> None:
    engine = new_engine(GAME, {"LightGroup/Daytime.xml": '<node><attribute name="Name" value="Mine" /></node>'})
    engine.start()
    out = lua("""
    local group = scene_:CreateChild("LightGroup")
    group:LoadXML(cache:GetResource("XMLFile", "LightGroup/Daytime.xml"):GetRoot())
    return {group.name, group:GetNumComponents()}
    """, engine)
    assert out == ["Mine", 0]


def test_the_zones_documented_urhox_properties_have_their_defaults() -> None:
    engine = new_engine(GAME, {})
    engine.start()
    out = lua("""
    local z = scene_:CreateComponent("Zone")
    local out = {z.fogDensity, z.autoExposureEnabled, z.vignetteEnabled, z.vignetteIntensity,
                 z.ambientSource == AMBIENT_PREBAKED, z.ambientIntensity, z.sourceTexture == nil,
                 z.vignetteTexture == nil}
    z.fogDensity = 0.5; z.autoExposureEnabled = true; z:SetVignetteIntensity(2); z.ambientSource = AMBIENT_SKYBOX
    z.ambientIntensity = 1
    local back = {z:GetFogDensity(), z:GetAutoExposureEnabled(), z.vignetteIntensity, z.ambientSource == AMBIENT_SKYBOX,
                  z:GetAmbientIntensity(), renderer:GetDefaultZone().fogDensity}
    return {out, back}
    """, engine)
    assert out == [[1.0, False, False, 1.0, True, 0.3, True, True], [0.5, True, 2, True, 1, 1.0]]


def test_the_undocumented_urhox_rendering_extras_are_state() -> None:
    """Bloom, SSR, SSGI, FXAA, volumetric lights...: UrhoX's extras with this engine's neutral defaults, set and read
    back (nothing is drawn)."""
    engine = new_engine(GAME, {})
    engine.start()
    out = lua("""
    local z = scene_:CreateComponent("Zone")
    local before = {z.bloomPlusEnabled, z.bloomMode == BLOOM_MODE_LEGACY, z:GetBloomUESize(2), z.ssrEnabled}
    z.bloomPlusEnabled = true; z:SetBloomMode(BLOOM_MODE_UE); z:SetBloomUESize(2, 0.5)
    z:SetBloomUETint(1, Color(1, 0, 0)); z.ambientColor = Color(0.2, 0.3, 0.4)
    local l = scene_:CreateComponent("Light")
    local light_before = {l.volumetricEnabled, l.punctualLight, l.outerConeAngle}
    l.volumetricEnabled = true; l:SetOuterConeAngle(30); l:SetStatic(true)
    return {before, {z.bloomPlusEnabled, z.bloomMode == BLOOM_MODE_UE, z:GetBloomUESize(2), z:GetBloomUETint(1).g,
            z:GetAmbientStartColor().b}, light_before, {l.volumetricEnabled, l.outerConeAngle}}
    """, engine)
    assert out[0] == [False, True, 1.0, False]
    assert out[1][:4] == [True, True, 0.5, 0.0] and abs(out[1][4] - 0.4) < 1e-6
    assert out[2:] == [[False, True, 15.0], [True, 30]]


def test_the_renderers_volumetric_fog_settings_are_state() -> None:
    engine = new_engine(GAME, {})
    engine.start()
    out = lua("""
    local before = {renderer:GetVolumetricFogFroxelEnabled(), renderer:GetVolumetricFogGridSizeZ()}
    renderer:SetVolumetricFogFroxelEnabled(true); renderer:SetVolumetricFogGridSizeZ(32)
    renderer:SetVolumetricFogHistoryWeight(0.5)
    local ok = pcall(renderer.SetVolumetricFogGridPixelSize, renderer, "x")
    return {before, {renderer:GetVolumetricFogFroxelEnabled(), renderer:GetVolumetricFogGridSizeZ(),
            renderer:GetVolumetricFogHistoryWeight()}, ok}
    """, engine)
    assert out == [[False, 64], [True, 32, 0.5], False]


def test_a_local_fog_volume_is_state() -> None:
    engine = new_engine(GAME, {})
    engine.start()
    out = lua("""
    local f = scene_:CreateChild("Fog"):CreateComponent("LocalFogVolume")
    local before = {f.radialExtinction, f.phaseG, f.albedo.g}
    f.radialExtinction = 0.25; f:SetAlbedo(Color(0.5, 0.4, 0.3)); f.maxDrawDistance = 80
    return {before, {f:GetRadialExtinction(), f.maxDrawDistance}, f:GetAlbedo().r}
    """, engine)
    assert out[:2] == [[1.0, 0.0, 1.0], [0.25, 80]] and abs(out[2] - 0.5) < 1e-6
