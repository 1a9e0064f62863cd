"""RenderPath as state (56_render_path.lua): Urho3D's default path (RenderPaths/Forward.xml), post-process effects
appended from the stock PostProcess files, tags enabled, toggled and removed case-insensitively, shader parameters
set where a command has them, commands handed out by reference and copied by Clone and the adders."""

from __future__ import annotations

from engine.testing import lua


def test_a_cloned_default_path_with_bloom_and_fxaa_appended() -> None:
    out = lua("""
    local vp = Viewport:new(Scene(), nil)
    local base = vp:GetRenderPath()
    local path = base:Clone()
    path:Append(cache:GetResource("XMLFile", "PostProcess/Bloom.xml"))
    path:Append(cache:GetResource("XMLFile", "PostProcess/FXAA2.xml"))
    path:SetShaderParameter("BloomMix", Variant(Vector2(0.9, 0.6)))
    path:SetShaderParameter("NotAParameter", Variant(1.0))
    path:SetEnabled("Bloom", false)
    local out = {base:GetNumCommands(), path:GetNumCommands(), path:GetNumRenderTargets(), path:IsAdded("bloom"),
                 path:IsEnabled("Bloom"), path:IsEnabled("FXAA2"), path:GetShaderParameter("NotAParameter"):IsEmpty()}
    path:ToggleEnabled("Bloom")
    local bright = path:GetCommand(7)
    local clear = path:GetCommand(0)
    for _, v in ipairs({path:IsEnabled("Bloom"), path:GetShaderParameter("BloomMix"):GetVector2().y,
                        bright.tag, bright.type == CMD_QUAD, bright:GetOutputName(0), bright.pixelShaderDefines,
                        bright:GetShaderParameter("BloomThreshold"):GetFloat(), bright:GetTextureName(TU_DIFFUSE),
                        clear.type == CMD_CLEAR, clear.useFogColor, clear.clearFlags,
                        base:GetCommand(4):GetTextureName(TU_ENVIRONMENT)}) do
      out[#out + 1] = v
    end
    bright.enabled = false   -- GetCommand hands out the path's own command
    out[#out + 1] = path:GetCommand(7).enabled
    path:RemoveCommands("Bloom"); path:RemoveRenderTargets("bloom")
    out[#out + 1] = path:GetNumCommands(); out[#out + 1] = path:GetNumRenderTargets()
    vp.renderPath = path
    out[#out + 1] = vp:GetRenderPath() == path and base:GetNumCommands() == 7
    return out
    """)
    assert out == [7, 12, 2, True, False, True, True,
                   True, 0.6, "Bloom", True, "BlurV", "BRIGHT", 0.3, "viewport",
                   True, True, 7, "viewport",
                   False, 8, 0, True]


def test_commands_and_targets_built_in_code() -> None:
    out = lua("""
    local path = RenderPath()
    local cmd = RenderPathCommand()
    cmd.tag = "Grey"; cmd.type = CMD_QUAD; cmd.pixelShaderName = "GreyScale"
    cmd:SetTextureName(TU_DIFFUSE, "viewport")
    cmd:SetShaderParameter("Amount", Variant(0.5))
    cmd:SetOutput(1, "second")
    path:AddCommand(cmd)
    cmd.enabled = false        -- AddCommand copied it
    local info = RenderTargetInfo()
    info.name = "half"; info.tag = "Grey"; info.sizeMode = SIZE_VIEWPORTDIVISOR; info.size = Vector2(2, 2)
    path:AddRenderTarget(info)
    path:InsertCommand(0, RenderPathCommand())
    local kept = path:GetCommand(1)
    return {path:GetNumCommands(), kept.enabled, kept:GetNumOutputs(), kept:GetOutputName(1),
            path:GetShaderParameter("Amount"):GetFloat(), path:IsEnabled("grey"), path:GetNumRenderTargets()}
    """)
    assert out == [2, True, 2, "second", 0.5, True, 1]
