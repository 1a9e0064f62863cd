-- UIComponent (Urho3D's UI/UIComponent.h): UI drawn into a texture on a 3D object, kept as state. The component
-- has its own root element (not under ui.root), a render-target texture sized as that root (512 x 512 until the
-- game resizes it, and following every resize), and a material (Techniques/Diff.xml) showing the texture, which it
-- puts on its node's StaticModel, making one when the node has none. Nothing is drawn, and input does not reach
-- the 3D UI (Urho3D maps the mouse through the model's texture coordinates); the elements under the root are the
-- game's as anywhere else.
local REC, comp_rec = E.REC, E.comp_rec
local DEFAULT_SIZE, TEXTURE_RENDERTARGET, TU_DIFFUSE = 512, 2, 0

local UC = class("UIComponent")
local function size_texture(c, w, h)
  IMPL.Texture2D.methods.SetSize(c.texture, w, h, IMPL.Graphics.methods.GetRGBAFormat(), TEXTURE_RENDERTARGET)
end
E.COMPONENT_FACTORIES.UIComponent = function(c)
  c.texture = IMPL.Texture2D.new()
  c.root = E.new_ui_element("UIElement")
  c.material = IMPL.Material.new()
  IMPL.Material.methods.SetTechnique(c.material, 0, E.get_resource("Technique", "Techniques/Diff.xml"))
  IMPL.Material.methods.SetTexture(c.material, TU_DIFFUSE, c.texture)
  IMPL.UIElement.methods.SetSize(c.root, DEFAULT_SIZE, DEFAULT_SIZE)
  size_texture(c, DEFAULT_SIZE, DEFAULT_SIZE)
  E.subscribe(c, nil, c.root, "Resized", function(_, data)
    size_texture(c, data.Width:GetInt(), data.Height:GetInt())
  end)
  c.on_scene_set = function(x)
    local node = x.node and x.node.proxy
    if node == nil or x.model_set then return end
    x.model_set = true
    local model = node:GetComponent("StaticModel")
    if model == nil then
      model = node:CreateComponent("StaticModel")
      x.made_model = model
    end
    model:SetMaterial(x.material)
  end
  c.on_removed = function(x)   -- the model it made goes with it, as Urho3D's OnNodeSet(nullptr) removes it
    local model = x.made_model
    x.made_model = nil
    if model ~= nil and REC[model] and not REC[model].removed then model:Remove() end
  end
end
local M = UC.methods
M.GetRoot = function(self) return comp_rec(self).root end
M.GetMaterial = function(self) return comp_rec(self).material end
M.GetTexture = function(self) return comp_rec(self).texture end
