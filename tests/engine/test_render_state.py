"""Rendering state that nothing draws: techniques and passes (read from a game's technique file), the rest of
Material, the Texture base class and its level arithmetic, Camera projections and frustums, Renderer settings,
Viewport, DebugRenderer, Zone and Light derived values. Expected values follow Urho3D's sources (Technique.cpp,
Material.cpp, Texture.cpp and the OpenGL texture backend, Camera.cpp, Renderer.cpp/.h, DebugRenderer.cpp, Zone.cpp,
Light.cpp), worked out by hand."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import pytest

from engine import Engine, EngineSettings
from engine.testing import lua, new_engine

TECHNIQUE = """<technique vs="LitSolid" ps="LitSolid" psdefines="DIFFMAP">
    <pass name="base" />
    <pass name="litbase" psdefines="AMBIENT" />
    <pass name="light" depthtest="equal" depthwrite="false" blend="add" />
    <pass name="Shadow" vs="Shadow" ps="Shadow" psdefines="X" />
    <pass name="refract" desktop="true" cull="none" lighting="perpixel" alphatocoverage="true" vsexcludes="NOUV" />
    <pass psdefines="NAMELESS" />
</technique>
"""


@pytest.fixture(scope="module")
def engine() -> Any:
    e = new_engine("function Start() end\n", {"Techniques/Mine.xml": TECHNIQUE})
    e.start()
    return e


def close(a: list[float], b: list[float], tol: float = 1e-5) -> bool:
    return len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b, strict=True))


def test_a_technique_file_carries_its_passes_with_their_attributes(engine: Any) -> None:
    got = lua("""
    local t = cache:GetResource("Technique", "Techniques/Mine.xml")
    local light, base = t:GetPass("LIGHT"), t:GetPass("base")
    local shadow, refract = t:GetPass("shadow"), t:GetPass("refract")
    return {t:GetNumPasses(), t:GetPassTypes(), t.desktop, t.supported,
      {light.depthTestMode, light.depthWrite, light.blendMode, light.lightingMode, light.cullMode},
      {base.vertexShader, base.pixelShader, base.pixelShaderDefines, base.vertexShaderDefines, base.lightingMode,
       base.depthTestMode, base.index},
      t:GetPass("litbase").pixelShaderDefines, t:GetPass("litbase").lightingMode,
      {shadow.name, shadow.vertexShader, shadow.pixelShaderDefines, shadow.index, shadow.lightingMode},
      {refract.desktop, refract.cullMode, refract.lightingMode, refract.alphaToCoverage,
       refract.vertexShaderDefineExcludes, refract.index >= 8}}
    """, engine)
    assert got[0] == 5   # the pass without a name is an error, not a pass
    assert got[1] == ["base", "light", "litbase", "shadow", "refract"]   # by pass index
    assert got[2] is False and got[3] is True
    assert got[4] == [1, False, 1, 2, 3]   # CMP_EQUAL, BLEND_ADD, per-pixel, the material's cull
    assert got[5] == ["LitSolid", "LitSolid", "DIFFMAP ", "", 1, 4, 0]
    assert got[6] == "DIFFMAP AMBIENT" and got[7] == 2
    assert got[8] == ["shadow", "Shadow", "X", 7, 0]   # a pass's own ps replaces the shared defines
    assert got[9] == [True, 0, 2, True, "NOUV", True]


def test_desktop_passes_are_unsupported_on_mobile_and_supported_on_desktop(engine: Any) -> None:
    code = """
    local t = cache:GetResource("Technique", "Techniques/Mine.xml")
    local c = t:Clone("Desk"); c:SetIsDesktop(true)
    return {tostring(t:GetSupportedPass("refract") ~= nil), tostring(t:GetSupportedPass("base") ~= nil),
            c.supported, c:GetName()}
    """
    assert lua(code, engine) == ["false", "true", False, "Desk"]   # the default platform is Android
    game = Path(tempfile.mkdtemp(prefix="grader-test-game-"))
    (game / "scripts").mkdir()
    (game / "scripts" / "main.lua").write_text("function Start() end\n")
    (game / "Techniques").mkdir()
    (game / "Techniques" / "Mine.xml").write_text(TECHNIQUE)
    desktop = Engine(game, EngineSettings().with_overrides(platform="Windows"))
    desktop.start()
    assert lua(code, desktop) == ["true", "true", True, "Desk"]


def test_passes_are_created_removed_and_cloned_by_name(engine: Any) -> None:
    got = lua("""
    local t = cache:GetResource("Technique", "Techniques/Mine.xml"):Clone()
    local p = t:CreatePass("Glow")
    local again = t:CreatePass("glow")
    p.blendMode = BLEND_ADDALPHA; p:SetDepthWrite(false); p.pixelShader = "Glow"
    local q = t:CreatePass("another")
    t:RemovePass("LIGHT")
    local copy = t:Clone("Copy")
    local cp = copy:GetPass("glow")
    return {p == again, p.name, q.index - p.index, t:HasPass("light"), t:HasPass("Glow"), t:GetNumPasses(),
            t:HasPass("never-made"), tostring(t:GetPass("never-made")), copy:GetNumPasses(), cp ~= p,
            cp.blendMode, cp.depthWrite, cp.pixelShader, cp.pixelShaderDefines, #copy:GetPasses()}
    """, engine)
    assert got == [True, "glow", 1, False, True, 6, False, "nil", 6, True, 4, False, "Glow", "", 6]


def test_a_new_material_has_urho3d_defaults(engine: Any) -> None:
    got = lua("""
    local m = Material:new()
    local b = m.depthBias
    return {m:GetNumTechniques(), m:GetTechnique(0):GetName(), m.cullMode, m.shadowCullMode, m.specular,
            m.lineAntiAlias, m.alphaToCoverage, m.vertexShaderDefines, {b.constantBias, b.slopeScaledBias},
            m:GetUVTiling():ToString(), m:GetUVOffset():ToString(), m:GetTexRotation(), m:GetUVSpeed():ToString()}
    """, engine)
    assert got == [1, "Techniques/NoTexture.xml", 1, 1, False, False, False, "", [0.0, 0.0], "1 1", "0 0", 0.0, "0 0"]


def test_material_technique_entries_defines_and_sorting(engine: Any) -> None:
    got = lua("""
    local t = cache:GetResource("Technique", "Techniques/Mine.xml")
    local m = Material:new()
    m:SetNumTechniques(3)
    m:SetTechnique(0, t, QUALITY_LOW, 0)
    m:SetTechnique(1, t, QUALITY_HIGH, 0)
    m:SetTechnique(2, t:Clone("Far"), QUALITY_LOW, 50)
    m:SetTechnique(5, t)   -- beyond the end: ignored
    m:SortTechniques()
    local order = {m:GetTechnique(0):GetName(), m:GetNumTechniques()}
    m:SetPixelShaderDefines("PACKED")
    local with = m:GetTechnique(1)
    return {order, with ~= t, with == m:GetTechnique(1), with:GetPass("litbase").pixelShaderDefines,
            m:GetPass(1, "base").pixelShaderDefines, t:GetPass("litbase").pixelShaderDefines,
            m:GetPixelShaderDefines(), tostring(m:GetPass(1, "nopass"))}
    """, engine)
    assert got == [["Far", 3], True, True, "DIFFMAP AMBIENT PACKED", "DIFFMAP  PACKED", "DIFFMAP AMBIENT", "PACKED",
                   "nil"]


def test_material_uv_transform_keeps_uoffset_and_voffset(engine: Any) -> None:
    got = lua("""
    local m = Material:new()
    m:SetUVTransform(Vector2(0.25, 0.5), 90, Vector2(2, 3))
    local a = {m:GetUVOffset().x, m:GetUVOffset().y, m:GetTexRotation(), m:GetUVTiling().x, m:GetUVTiling().y}
    m:SetUVTiling(Vector2(1, 1)); m:SetTexRotation(0); m:SetUVOffset(Vector2(0.1, 0.2))
    m:SetUVSpeed(Vector2(0.5, 0))
    local c = m:Clone("copy")
    return {a, c:GetUVOffset():ToString(), c:GetUVSpeed():ToString()}
    """, engine)
    assert close(got[0], [0.25, 0.5, 90.0, 2.0, 3.0])
    assert got[1] == "0.1 0.2" and got[2] == "0.5 0"


def test_uv_members_and_set_uv_transform_write_the_same_shader_parameters(engine: Any) -> None:
    # the parameters are not readable from Lua: read them from the material's record
    lua("""uv_a = Material:new(); uv_a:SetUVTransform(Vector2(0.25, 0.5), 90, Vector2(2, 3))
           uv_b = Material:new(); uv_b:SetUVOffset(Vector2(0.25, 0.5)); uv_b:SetTexRotation(90)
           uv_b:SetUVTiling(Vector2(2, 3))
           uv_c = Material:new(); uv_c:SetUVTransform(Vector2(0, 0), 0, 4)""", engine)

    def params(name: str) -> list[float]:
        p = engine.E.REC[engine.game_env[name]].params
        u, v = p["UOffset"].value_, p["VOffset"].value_
        return [u.x, u.y, u.z, u.w, v.x, v.y, v.z, v.w]

    # repeat, then a quarter turn about the texture's centre, then the offset (Material::SetUVTransform)
    assert close(params("uv_a"), [0.0, 2.0, 0.0, 0.25, -3.0, 0.0, 0.0, 3.5])
    assert close(params("uv_b"), params("uv_a"))
    assert close(params("uv_c"), [4.0, 0.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0])


def test_material_specular_follows_mat_spec_color_and_depth_bias_is_validated(engine: Any) -> None:
    got = lua("""
    local m = Material:new()
    local out = {m.specular}
    m:SetShaderParameter("MatSpecColor", Vector4(0, 0.5, 0, 1)); out[#out+1] = m.specular
    m:SetShaderParameter("MatSpecColor", Vector3(0, 0, 0)); out[#out+1] = m.specular
    m:SetShaderParameter("MatSpecColor", Color(1, 1, 1)); out[#out+1] = m.specular   -- not a vector: unchanged
    m:SetShaderParameter("MatSpecColor", Vector3(1, 0, 0)); m:RemoveShaderParameter("MatSpecColor")
    out[#out+1] = m.specular
    m.depthBias = BiasParameters(5, -20, -1)
    local b = m:GetDepthBias()
    out[#out+1] = {b.constantBias, b.slopeScaledBias, b.normalOffset}
    m.lineAntiAlias = true; out[#out+1] = m:GetLineAntiAlias()
    m:SetSurfaceTexture("Albedo", Texture2D:new()); out[#out+1] = m:GetSurfaceTexture("Albedo") ~= nil
    out[#out+1] = tostring(m:GetSurfaceTexture("Other"))
    out[#out+1] = m:SetSurfaceShader("Shaders/Custom.glsl"); out[#out+1] = m:GetSurfaceShader()
    return out
    """, engine)
    assert got == [False, True, False, False, False, [1.0, -16.0, 0.0], True, True, "nil", True, "Shaders/Custom.glsl"]


def test_texture_defaults_levels_and_data_sizes(engine: Any) -> None:
    got = lua("""
    local t = Texture2D:new()
    local out = {{t.width, t.levels, t.filterMode, t:GetAddressMode(COORD_U), t.format, t.multiSample, t.anisotropy,
                  t.borderColor:ToString(), t.sRGB, t:GetMipsToSkip(QUALITY_LOW), t:GetMipsToSkip(QUALITY_HIGH)}}
    out[#out+1] = t:SetSize(256, 64, Graphics:GetRGBAFormat())
    out[#out+1] = {t.levels, t:GetLevelWidth(3), t:GetLevelHeight(7), t:GetLevelWidth(9), t:GetLevelWidth(10),
                   t.components, t:GetDataSize(10, 10), t:GetRowDataSize(5), t.compressed, t.usage}
    out[#out+1] = t:SetSize(0, 4, Graphics:GetRGBAFormat())
    out[#out+1] = t.width
    t:SetMipsToSkip(QUALITY_LOW, 0)
    out[#out+1] = {t:GetMipsToSkip(QUALITY_LOW), t:GetMipsToSkip(QUALITY_MEDIUM), t:GetMipsToSkip(QUALITY_HIGH)}
    local rgb = Texture2D:new(); rgb:SetSize(7, 3, Graphics:GetRGBFormat(), TEXTURE_DYNAMIC)
    out[#out+1] = {rgb.levels, rgb.components, rgb:GetDataSize(7, 3)}
    return out
    """, engine)
    assert got[0] == [0, 0, 5, 0, 0, 1, 0, "1 1 1 1", False, 2, 0]
    assert got[1] is True
    # 256x64: 9 levels; a level past the count is 0 wide, the last one (9 = count, Urho3D's bound) 1 pixel
    assert got[2] == [9, 32, 1, 1, 0, 4, 400, 20, False, 0]
    assert got[3] is False and got[4] == 256
    assert got[5] == [0, 0, 0]   # lower quality never skips more than higher
    assert got[6] == [1, 3, 63]   # a dynamic texture has one level


def test_render_target_textures_clamp_filter_nearest_and_have_surfaces(engine: Any) -> None:
    got = lua("""
    local rt = Texture2D:new()
    rt:SetNumLevels(1)
    local ok = rt:SetSize(128, 64, Graphics:GetRGBFormat(), TEXTURE_RENDERTARGET)
    local ms = Texture2D:new()
    local bad = ms:SetSize(32, 32, Graphics:GetRGBAFormat(), TEXTURE_STATIC, 4)
    local cube = TextureCube:new()
    local c_ok = cube:SetSize(64, Graphics:GetRGBAFormat(), TEXTURE_RENDERTARGET, 2)
    local vol = Texture3D:new()
    local v_ok, v_bad = vol:SetSize(16, 8, 32, Graphics:GetRGBAFormat()), vol:SetSize(4, 4, 4, 0, TEXTURE_RENDERTARGET)
    local arr = Texture2DArray:new()
    local a_ok = arr:SetSize(3, 32, 32, Graphics:GetRGBAFormat(), TEXTURE_RENDERTARGET)
    return {ok, rt.levels, rt.filterMode, rt:GetAddressMode(COORD_U), rt:GetAddressMode(COORD_V),
            rt:GetAddressMode(COORD_W), rt:GetRenderSurface():GetWidth(), bad,
            c_ok, cube.levels, cube.width, cube.multiSample, cube.autoResolve, cube.filterMode,
            cube:GetRenderSurface(FACE_NEGATIVE_Z) ~= nil,
            cube:GetRenderSurface(FACE_NEGATIVE_Z) ~= cube:GetRenderSurface(FACE_POSITIVE_X),
            v_ok, v_bad, vol.levels, vol.width,
            a_ok, arr.layers, arr.levels, arr:GetRenderSurface() ~= nil}
    """, engine)
    assert got == [True, 1, 0, 2, 2, 0, 128, False, True, 7, 64, 2, True, 0, True, True, True, False, 6, 16, True, 3,
                   6, True]


def test_a_stock_texture_reports_its_size_and_whole_mip_chain(engine: Any) -> None:
    assert lua("""local s = cache:GetResource("Texture2D", "Textures/Spot.png")
                  return {s.width, s.height, s.levels, s:GetLevelWidth(2)}""", engine) == [128, 128, 8, 32]


CAMERA = """
local scene = Scene()
local n = scene:CreateChild("cam"); n.position = Vector3(0, 0, -10)
local cam = n:CreateComponent("Camera")
cam.aspectRatio = 2.0
"""


def test_camera_frustums_distances_and_gpu_projection(engine: Any) -> None:
    got = lua(CAMERA + """
    local f = cam:GetFrustum()
    local near, far = Vector3(), Vector3()
    local rn, rf = cam:GetFrustumSize(near, far)
    local sf = cam:GetSplitFrustum(5, 5000)
    local vs = cam:GetViewSpaceSplitFrustum(1, 2)
    local g = cam:GetGPUProjection()
    return {f:IsInside(Vector3(0, 0, 0)), f:IsInside(Vector3(0, 0, -20)), {near.x, near.y, near.z},
            {far.x, far.y, far.z},
            rn == near, {sf.vertices_[1].z, sf.vertices_[5].z}, {vs.vertices_[1].z, vs.vertices_[5].z},
            cam:GetDistanceSquared(Vector3(3, 4, -10)), cam:GetLodDistance(100, 2, 1), cam:IsProjectionValid(),
            {g.m22, g.m23, g.m32}, cam:GetViewSpaceFrustum().vertices_[1].z}
    """, engine)
    t = math.tan(math.radians(22.5))
    assert got[0] == 2 and got[1] == 0   # INSIDE, OUTSIDE
    assert close(got[2], [0.1 * t * 2, 0.1 * t, 0.1])
    assert close(got[3], [1000 * t * 2, 1000 * t, 1000], 1e-3)
    assert got[4] is True
    assert close(got[5], [-5.0, 990.0])   # split clamped to the far clip, then moved to the camera
    assert close(got[6], [1.0, 2.0])
    assert got[7] == 25.0 and got[8] == 50.0 and got[9] is True
    q = 1000 / (1000 - 0.1)
    assert close(got[10], [2 * q - 1, -2 * q * 0.1, 1.0])
    assert close([got[11]], [0.1])


def test_camera_custom_projection_until_a_projection_setter(engine: Any) -> None:
    got = lua(CAMERA + """
    cam:SetProjection(Matrix4(1,0,0,0, 0,1,0,0, 0,0,2,-1, 0,0,1,0))
    local out = {cam.nearClip, cam.farClip, cam.autoAspectRatio, cam.projection.m22, cam:IsProjectionValid()}
    local vf = cam:GetViewSpaceFrustum()
    out[#out+1] = {vf.vertices_[1].z, vf.vertices_[5].z, vf.vertices_[5].x}
    cam.farClip = 500
    out[#out+1] = {cam.nearClip, cam.farClip, cam.projection.m22}
    out[#out+1] = {cam.reverseZ, cam:GetFarthestDepthValue(), cam.handedness}
    cam.reverseZ = true; out[#out+1] = {cam:UseReverseZ(), cam:GetFarthestDepthValue()}
    return out
    """, engine)
    # z_ndc = 2 - 1/z: 0 at z = 0.5, 1 at z = 1
    assert close(got[0:2], [0.5, 1.0]) and got[2] is False and got[3] == 2.0 and got[4] is True
    assert close(got[5], [0.5, 1.0, 1.0])
    assert close(got[6], [0.1, 500.0, 500 / (500 - 0.1)])
    assert got[7] == [False, 1.0, 0] and got[8] == [True, 0.0]


def test_renderer_settings_follow_urho3d_defaults_and_clamps(engine: Any) -> None:
    got = lua("""
    local r = renderer
    local out = {{r.textureAnisotropy, r.textureFilterMode, r.shadowSoftness, r:GetVSMShadowParameters():ToString(),
                  r.vsmMultiSample, r.reuseShadowMaps, r.maxShadowMaps, r.minInstances, r.maxSortedInstances,
                  r.occlusionBufferSize, r.occluderSizeThreshold, r.threadedOcclusion, r.mobileShadowBiasMul,
                  r.mobileShadowBiasAdd, r.mobileNormalOffsetMul, r.numExtraInstancingBufferElements}}
    r.textureAnisotropy = 0; r.shadowMapSize = 100; r.maxShadowMaps = 0; r.minInstances = -3
    r:SetVSMShadowParameters(-1, 2); r.vsmMultiSample = 99; r.numExtraInstancingBufferElements = 9
    r.textureQuality = 7; r.materialQuality = 99; r.occluderSizeThreshold = -1
    out[#out+1] = {r.textureAnisotropy, r.shadowMapSize, r.maxShadowMaps, r.minInstances,
                   r:GetVSMShadowParameters():ToString(), r.vsmMultiSample, r.numExtraInstancingBufferElements,
                   r.textureQuality, r.materialQuality, r.occluderSizeThreshold}
    out[#out+1] = {r:GetNumViews(), r:GetNumBatches(), r:GetNumPrimitives(), r:GetNumGeometries(true),
                   r:GetNumLights(), r:GetNumShadowMaps(), r:GetNumOccluders()}
    out[#out+1] = {r.defaultTechnique:GetName(), r.defaultLightRamp:GetName(), r.defaultLightSpot:GetName(),
                   r.defaultMaterial == r:GetDefaultMaterial()}
    return out
    """, engine)
    assert got[0] == [4, 2, 1.0, "1e-07 0.9", 1, True, 1, 2, 1000, 256, 0.025, False, 1.0, 0.0, 1.0, 0]
    assert got[1] == [1, 128, 1, 1, "0 1", 16, 4, 2, 15, 0.0]
    assert got[2] == [0, 0, 0, 0, 0, 0, 0]
    assert got[3] == ["Techniques/NoTexture.xml", "Textures/Ramp.png", "Textures/Spot.png", True]


def test_viewports_for_a_scene_and_the_cull_camera(engine: Any) -> None:
    got = lua(CAMERA + """
    local other = Scene()
    local a, b, c = Viewport:new(scene, cam), Viewport:new(other, cam), Viewport:new(scene, cam)
    renderer:SetViewport(0, a); renderer:SetViewport(1, b); renderer:SetViewport(3, c)
    local out = {renderer:GetViewportForScene(scene, 0) == a, renderer:GetViewportForScene(scene, 1) == c,
                 tostring(renderer:GetViewportForScene(scene, 2)), renderer:GetViewportForScene(other, 0) == b,
                 tostring(a.cullCamera)}
    a.cullCamera = cam; out[#out+1] = a:GetCullCamera() == cam
    for i = 0, 3 do renderer:SetViewport(i, nil) end
    return out
    """, engine)
    assert got == [True, True, "nil", True, "nil", True]


def test_debug_renderer_view_comes_from_the_camera(engine: Any) -> None:
    got = lua(CAMERA + """
    local dr = scene:CreateComponent("DebugRenderer")
    local out = {dr:GetView().m23, dr:GetProjection().m32}
    dr:SetView(cam)
    local box = BoundingBox(Vector3(-1, -1, -1), Vector3(1, 1, 1))
    out[#out+1] = dr:IsInside(box)
    out[#out+1] = dr:IsInside(BoundingBox(Vector3(-1, -1, -30), Vector3(1, 1, -29)))
    out[#out+1] = dr:IsInside(BoundingBox(Vector3(-1, -1, -10.5), Vector3(1, 1, 1)))   -- crossing counts as inside
    out[#out+1] = dr:GetView().m23
    out[#out+1] = dr:GetProjection().m32
    out[#out+1] = dr:GetFrustum().vertices_[1].z
    dr:Render()
    return out
    """, engine)
    assert got[0] == 0.0 and got[1] == 0.0   # identity until SetView
    assert got[2] is True and got[3] is False and got[4] is True
    assert got[5] == 10.0 and got[6] == 1.0 and close([got[7]], [-9.9])


def test_zone_inside_is_in_node_space_and_light_derived_values(engine: Any) -> None:
    got = lua("""
    local scene = Scene()
    local zn = scene:CreateChild("z"); zn.position = Vector3(100, 0, 0); zn.scale = Vector3(2, 2, 2)
    local z = zn:CreateComponent("Zone")
    local out = {z:IsInside(Vector3(115, 0, 0)), z:IsInside(Vector3(125, 0, 0)), z:GetInverseWorldTransform().m03}
    local ln = scene:CreateChild("l"); ln.position = Vector3(0, 5, 0)
    local l = ln:CreateComponent("Light")
    out[#out+1] = {l:GetNumShadowSplits(), l.shadowMaxExtrusion}
    l:SetShadowCascade(CascadeParameters(10, 20, 30, 40, 2))
    l.shadowMaxExtrusion = -5
    out[#out+1] = {l:GetNumShadowSplits(), l:GetShadowCascade().fadeStart, l.shadowMaxExtrusion}
    l.color = Color(0.5, 0.25, 1); l.brightness = 2
    out[#out+1] = {l:GetEffectiveColor():ToString(), l.negative, l:GetEffectiveSpecularIntensity()}
    l.brightness = -1
    out[#out+1] = {l:IsNegative(), l:GetEffectiveSpecularIntensity()}
    l.lightType = LIGHT_SPOT; l.range = 10; l.fov = 90
    local f = l:GetFrustum()
    out[#out+1] = {f.vertices_[5].x, f.vertices_[5].y, f.vertices_[5].z}
    local c = l:GetColorFromTemperature()
    out[#out+1] = {c.r, c.g, c.b}
    return out
    """, engine)
    assert got[0] is True and got[1] is False and got[2] == -50.0
    assert got[3] == [1, 1000.0]
    assert got[4] == [1, 1.0, 0.0]   # one cascade on mobile graphics (Android)
    assert got[5] == ["1 0.5 2 1", False, 2.0]
    assert got[6] == [True, 1.0]
    assert close(got[7], [10.0, 15.0, 10.0])
    assert close(got[8], [1.03663, 0.984088, 1.04973], 1e-4)


def test_a_stock_technique_carries_its_passes() -> None:
    """Urho3D's stock techniques load with their passes (engine/data/make_stock.py keeps the attributes a technique
    reads): DiffNormal's light pass adds, tests depth equal and writes no depth; its depth pass has its own shaders."""
    engine = new_engine("function Start() end", {})
    engine.start()
    out = lua("""
    local t = cache:GetResource("Technique", "Techniques/DiffNormal.xml")
    local light, depth, base = t:GetPass("light"), t:GetPass("depth"), t:GetPass("base")
    return {t:GetNumPasses(), t:HasPass("litbase"), t:HasPass("litalpha"), light.blendMode == BLEND_ADD,
            light.depthTestMode == CMP_EQUAL, light.depthWrite, light:GetPixelShaderDefines(),
            depth:GetVertexShader(), base:GetVertexShader(), base:GetPixelShaderDefines()}
    """, engine)
    assert out == [8, True, False, True, True, False, "DIFFMAP NORMALMAP", "Depth", "LitSolid", "DIFFMAP "]
