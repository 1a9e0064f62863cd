-- LuaScripts/Utilities/2D/Sample2D.lua: the grader engine's own version of the helper library Urho3D's Urho2D
-- samples (49_Urho2DIsometricDemo, 50_Urho2DPlatformer) load with `require "LuaScripts/Utilities/2D/Sample2D"`
-- after the sample framework.  Written for this project from what those samples call; the gameplay numbers
-- (speeds, sizes, radii, frictions) are the ones the samples are tuned for.
--
-- What a game gets from it (globals):
--   CreateCollisionShapesFromTMXObjects(tileMapNode, layer, info)  a static body on the map's node with a shape
--                                     per object of an object layer (boxes, circles, polygons, chains)
--   CreateCharacter(info, createObject, friction, position, scale)  the Spriter imp "Imp" with a dynamic body
--   PopulateMovingEntities(layer), PopulateCoins(layer), PopulateTriggers(layer)  clones placed at the layer's
--                                     placeholder objects; moving ones follow their polyline (Mover.lua)
--   CreateTrigger(), CreateEnemy(), CreateOrc(), CreateCoin(), CreateMovingPlatform()  the templates cloned
--   CreatePathFromPoints(object, offset), Zoom(camera), CreateUIContent(title), HandleExitButton(),
--   HandlePlayButton(), SaveScene(initial), ReloadScene(reInit), SpawnEffect(node), PlaySound(name),
--   CreateBackgroundSprite(info, scale, texture, animate), GetScreenJoystickPatchString()
--   CAMERA_MIN_DIST, CAMERA_MAX_DIST, MOVE_SPEED, MOVE_SPEED_X, MOVE_SPEED_SCALE, LIFES, zoom, demoFilename,
--   character2DNode
--
-- The game defines the `Character2D` script object class the character gets; Mover comes from
-- LuaScripts/Utilities/2D/Mover.lua, loaded by CreateScriptObject the first time an entity needs it.

CAMERA_MIN_DIST = 0.1
CAMERA_MAX_DIST = 6
MOVE_SPEED = 23          -- world units a second (the character's impulses and forces scale with it)
MOVE_SPEED_X = 2.5       -- horizontal speed on isometric maps
MOVE_SPEED_SCALE = 1     -- vertical / horizontal speed: the tiles' aspect ratio, set by CreateCharacter
LIFES = 3
zoom = 2
demoFilename = ""
character2DNode = nil

local MOVER_FILE = "LuaScripts/Utilities/2D/Mover.lua"

----------------------------------------------------------------------------------------------------
-- Physics from a map's object layer
----------------------------------------------------------------------------------------------------

-- Box and circle centres: an orthogonal map's object position is its bottom-left corner; an isometric map's is
-- the top corner of a diamond, half a tile left of its centre line (the box is turned 45 degrees to match).
local function shapeCenter(object, info)
  if info.orientation == O_ORTHOGONAL then
    return object.position + object.size / 2
  end
  return object.position + Vector2(info.tileWidth / 2, 0)
end

local function addVertices(shape, object)
  local count = object.numPoints
  shape.vertexCount = count
  for i = 0, count - 1 do
    shape:SetVertex(i, object:GetPoint(i))
  end
end

local shapeMakers = {
  [OT_RECTANGLE] = function(node, object, info)
    local box = node:CreateComponent("CollisionBox2D")
    box.size = object.size
    box.center = shapeCenter(object, info)
    if info.orientation ~= O_ORTHOGONAL then
      box.angle = 45
    end
    return box
  end,
  [OT_ELLIPSE] = function(node, object, info)
    -- Box2D has no ellipse: a circle as wide as the object
    local circle = node:CreateComponent("CollisionCircle2D")
    circle.radius = object.size.x / 2
    circle.center = shapeCenter(object, info)
    return circle
  end,
  [OT_POLYGON] = function(node, object)
    local polygon = node:CreateComponent("CollisionPolygon2D")
    addVertices(polygon, object)
    return polygon
  end,
  [OT_POLYLINE] = function(node, object)
    local chain = node:CreateComponent("CollisionChain2D")
    addVertices(chain, object)
    return chain
  end,
}

function CreateCollisionShapesFromTMXObjects(tileMapNode, tileMapLayer, info)
  local body = tileMapNode:CreateComponent("RigidBody2D")
  body.bodyType = BT_STATIC
  for i = 0, tileMapLayer:GetNumObjects() - 1 do
    local object = tileMapLayer:GetObject(i)
    local make = shapeMakers[object.objectType]
    if make == nil then
      break   -- a tile object ends the layer's shapes, as in Urho3D's samples
    end
    local shape = make(tileMapNode, object, info)
    if object:HasProperty("Friction") then
      shape.friction = ToFloat(object:GetProperty("Friction"))
    else
      shape.friction = 0.8
    end
  end
end

----------------------------------------------------------------------------------------------------
-- The character and the entities placed on the map
----------------------------------------------------------------------------------------------------

-- An animated sprite from a Spriter file, playing `animation`, drawn on sprite layer `layer`.
local function addAnimation(node, file, animation, layer)
  local sprite = node:CreateComponent("AnimatedSprite2D")
  sprite.animationSet = cache:GetResource("AnimationSet2D", file)
  sprite.animation = animation
  sprite:SetLayer(layer)
  return sprite
end

local function addBody(node, bodyType)
  local body = node:CreateComponent("RigidBody2D")
  if bodyType ~= nil then
    body.bodyType = bodyType
  end
  return body
end

local function addCircle(node, radius, trigger)
  local circle = node:CreateComponent("CollisionCircle2D")
  circle.radius = radius
  if trigger then
    circle.trigger = true
  end
  return circle
end

function CreateCharacter(info, createObject, friction, position, scale)
  local node = scene_:CreateChild("Imp")
  node.position = position
  node:SetScale(scale)
  -- above the map (sprite layer 0) and the orcs (layer 1)
  addAnimation(node, "Urho2D/imp/imp.scml", "idle", 3)
  local body = addBody(node, BT_DYNAMIC)
  body.allowSleep = false
  local circle = addCircle(node, 1.1)
  circle.friction = friction
  circle.restitution = 0.1
  character2DNode = node
  if createObject then
    node:CreateScriptObject("Character2D")
  end
  MOVE_SPEED_SCALE = info.tileHeight / info.tileWidth
end

function CreateTrigger()
  local node = scene_:CreateChild("Trigger")   -- clones take their object's type as name
  addBody(node, BT_STATIC)
  node:CreateComponent("CollisionBox2D").trigger = true
  return node
end

function CreateEnemy()
  local node = scene_:CreateChild("Enemy")
  node:CreateComponent("StaticSprite2D").sprite = cache:GetResource("Sprite2D", "Urho2D/Aster.png")
  addBody(node, BT_STATIC)
  addCircle(node, 0.25)
  return node
end

function CreateOrc()
  local node = scene_:CreateChild("Orc")
  node.scale = character2DNode.scale
  addAnimation(node, "Urho2D/Orc/Orc.scml", "run", 2)
  addBody(node)
  addCircle(node, 1.3, true)
  return node
end

function CreateCoin()
  local node = scene_:CreateChild("Coin")
  node:SetScale(0.5)
  addAnimation(node, "Urho2D/GoldIcon.scml", "idle", 2)
  addBody(node, BT_STATIC)
  addCircle(node, 0.32, true)
  return node
end

function CreateMovingPlatform()
  local node = scene_:CreateChild("MovingPlatform")
  node.scale = Vector3(3, 1, 0)
  node:CreateComponent("StaticSprite2D").sprite = cache:GetResource("Sprite2D", "Urho2D/Box.png")
  addBody(node, BT_STATIC)
  local box = node:CreateComponent("CollisionBox2D")
  box.size = Vector2(0.32, 0.32)
  box.friction = 0.8
  return node
end

function CreatePathFromPoints(object, offset)
  local path = {}
  for i = 0, object.numPoints - 1 do
    path[#path + 1] = object:GetPoint(i) + offset
  end
  return path
end

-- Each polyline placeholder names its entity by its type; enemies ride a little lower than their path.
function PopulateMovingEntities(movingEntitiesLayer)
  local templates = {
    Enemy = {node = CreateEnemy(), offset = Vector2(0, -0.32)},
    Orc = {node = CreateOrc(), offset = Vector2(0, 0)},
    MovingPlatform = {node = CreateMovingPlatform(), offset = Vector2(0, 0)},
  }
  for i = 0, movingEntitiesLayer:GetNumObjects() - 1 do
    local object = movingEntitiesLayer:GetObject(i)
    if object.objectType == OT_POLYLINE then
      local template = templates[object.type]
      if template == nil then
        break   -- an unknown entity type ends the placement, as in Urho3D's samples
      end
      local clone = template.node:Clone()
      clone.position2D = object:GetPoint(0) + template.offset
      local mover = clone:CreateScriptObject(MOVER_FILE, "Mover")
      mover.path = CreatePathFromPoints(object, template.offset)
      if object:HasProperty("Speed") then
        mover.speed = ToFloat(object:GetProperty("Speed"))
      end
    end
  end
  for _, name in ipairs({"Enemy", "Orc", "MovingPlatform"}) do
    templates[name].node:Remove()
  end
end

function PopulateCoins(coinsLayer)
  local template = CreateCoin()
  local count = coinsLayer:GetNumObjects()
  for i = 0, count - 1 do
    local object = coinsLayer:GetObject(i)
    template:Clone().position2D = object.position + object.size / 2 + Vector2(0, 0.16)
  end
  local character = character2DNode:GetScriptObject()
  character.remainingCoins = count
  character.maxCoins = count
  template:Remove()
end

function PopulateTriggers(triggersLayer)
  -- the template stays in the scene, as in Urho3D's samples (a one-pixel sensor at the origin)
  local template = CreateTrigger()
  for i = 0, triggersLayer:GetNumObjects() - 1 do
    local object = triggersLayer:GetObject(i)
    if object.objectType == OT_RECTANGLE then
      local clone = template:Clone()
      clone.name = object.type
      clone:GetComponent("CollisionBox2D").size = object.size
      clone.position2D = object.position + object.size / 2
    end
  end
end

----------------------------------------------------------------------------------------------------
-- Camera zoom: mouse wheel, PageUp, PageDown (the global `zoom` follows the camera's)
----------------------------------------------------------------------------------------------------
local function setZoom(camera, value)
  zoom = Clamp(value, CAMERA_MIN_DIST, CAMERA_MAX_DIST)
  camera.zoom = zoom
end

function Zoom(camera)
  setZoom(camera, camera.zoom + input.mouseMoveWheel * 0.1)
  if input:GetKeyDown(KEY_PAGEUP) then
    setZoom(camera, camera.zoom * 1.01)
  end
  if input:GetKeyDown(KEY_PAGEDOWN) then
    setZoom(camera, camera.zoom * 0.99)
  end
end

----------------------------------------------------------------------------------------------------
-- UI: coin and life counters, the start / game-over screen with its PLAY and EXIT buttons, instructions
----------------------------------------------------------------------------------------------------
local function addText(parent, name, font, size, text)
  local label = parent:CreateChild("Text", name)
  label:SetFont(font, size)
  label.text = text
  return label
end

local function addCounter(name, textName, texture, width, height, hAlign, x, value, font)
  local icon = ui.root:CreateChild("BorderImage", name)
  icon.texture = cache:GetResource("Texture2D", texture)
  icon:SetSize(width, height)
  icon:SetAlignment(hAlign, VA_TOP)
  icon:SetPosition(x, 5)
  local label = addText(icon, textName, font, 24, value)
  label:SetAlignment(HA_CENTER, VA_CENTER)
  label.textEffect = TE_SHADOW
  return icon
end

local function addButton(name, textName, caption, x, handler, font)
  local button = ui.root:CreateChild("Button", name)
  button:SetStyleAuto()
  button.focusMode = FM_RESETFOCUS
  button:SetSize(100, 50)
  button:SetAlignment(HA_CENTER, VA_CENTER)
  button:SetPosition(x, 0)
  addText(button, textName, font, 24, caption):SetAlignment(HA_CENTER, VA_CENTER)
  SubscribeToEvent(button, "Released", handler)
  return button
end

function CreateUIContent(demoTitle)
  ui.root.defaultStyle = cache:GetResource("XMLFile", "UI/DefaultStyle.xml")
  local font = cache:GetResource("Font", "Fonts/Anonymous Pro.ttf")

  -- the in-game counters first, so that the full-screen UI made after them covers them
  local coins = addCounter("Coins", "CoinsText", "Urho2D/GoldIcon.png", 50, 50, HA_LEFT, 5,
    character2DNode:GetScriptObject().remainingCoins, font)
  coins.imageRect = IntRect(0, 64, 60, 128)
  addCounter("Life", "LifeText", "Urho2D/imp/imp_all.png", 70, 80, HA_RIGHT, -5, LIFES, font)

  local fullUI = ui.root:CreateChild("Window", "FullUI")
  fullUI:SetStyleAuto()
  fullUI:SetSize(ui.root.width, ui.root.height)
  fullUI.enabled = false   -- only the buttons react to input

  local title = fullUI:CreateChild("BorderImage", "Title")
  title:SetMinSize(fullUI.width, 50)
  title.texture = cache:GetResource("Texture2D", "Textures/HeightMap.png")
  title:SetFullImageRect()
  title:SetAlignment(HA_CENTER, VA_TOP)
  addText(title, "TitleText", font, 24, demoTitle):SetAlignment(HA_CENTER, VA_CENTER)

  local picture = fullUI:CreateChild("BorderImage", "Sprite")
  picture.texture = cache:GetResource("Texture2D", "Urho2D/imp/imp_all.png")
  picture:SetSize(238, 271)
  picture:SetAlignment(HA_CENTER, VA_CENTER)
  picture:SetPosition(0, -ui.root.height / 4)

  addButton("ExitButton", "ExitText", "EXIT", -100, "HandleExitButton", font)
  addButton("PlayButton", "PlayText", "PLAY", 100, "HandlePlayButton", font)

  local instructions = addText(ui.root, "Instructions", font, 15,
    "Move with WASD or the arrow keys\n" ..
    "Zoom with PageUp, PageDown or the mouse wheel\n" ..
    "F5 saves the scene, F7 reloads it\n" ..
    "Z shows the debug geometry\n" ..
    "Space fights")
  instructions.textAlignment = HA_CENTER
  instructions:SetAlignment(HA_CENTER, VA_CENTER)
  instructions:SetPosition(0, ui.root.height / 4)

  input.mouseVisible = true
end

function HandleExitButton()
  engine:Exit()
end

function HandlePlayButton()
  local fullUI = ui.root:GetChild("FullUI", true)
  if fullUI ~= nil then
    -- the first PLAY: uncover and unpause the scene
    fullUI:Remove()
    scene_.updateEnabled = true
  else
    -- PLAY after a game over: start the level again
    ReloadScene(true)
  end
  ui.root:GetChild("Instructions", true).text = ""
  ui.root:GetChild("ExitButton", true).visible = false
  ui.root:GetChild("PlayButton", true).visible = false
  input.mouseVisible = false
end

----------------------------------------------------------------------------------------------------
-- Saving and reloading the scene (Data/Scenes/<demoFilename>.xml, and <demoFilename>InGame.xml for F5 / F7)
----------------------------------------------------------------------------------------------------
local function sceneFile(initial)
  local name = demoFilename
  if not initial then
    name = name .. "InGame"
  end
  return fileSystem:GetProgramDir() .. "Data/Scenes/" .. name .. ".xml"
end

function SaveScene(initial)
  scene_:SaveXML(sceneFile(initial))
end

function ReloadScene(reInit)
  scene_:LoadXML(sceneFile(reInit))
  -- loading made new nodes: find the character again
  character2DNode = scene_:GetChild("Imp", true)
  if character2DNode == nil then
    return
  end
  local character = character2DNode:GetScriptObject()
  local lifes, coins = character.remainingLifes, character.remainingCoins
  if reInit then   -- a new game: full lives and every coin back
    lifes, coins = LIFES, character.maxCoins
  end
  character.remainingLifes = lifes
  character.remainingCoins = coins
  ui.root:GetChild("LifeText", true).text = lifes
  ui.root:GetChild("CoinsText", true).text = coins
end

----------------------------------------------------------------------------------------------------
-- Effects, sounds, background
----------------------------------------------------------------------------------------------------
function SpawnEffect(node)
  local emitterNode = node:CreateChild("Emitter")
  emitterNode:SetScale(0.5 / node.scale.x)   -- the same size whatever the node's scale
  emitterNode:CreateComponent("ParticleEmitter2D").effect = cache:GetResource("ParticleEffect2D", "Urho2D/sun.pex")
end

function PlaySound(soundName)
  local source = scene_:CreateChild("Sound"):CreateComponent("SoundSource")
  source:Play(cache:GetResource("Sound", "Sounds/" .. soundName))
end

-- A sprite behind everything (sprite layer -99) in the map's middle, tinted a random colour (from the run's
-- seeded random numbers); `animate` swings it about Z, 180 degrees and back every two seconds, at 0.05 speed.
function CreateBackgroundSprite(info, scale, texture, animate)
  local node = scene_:CreateChild("Background")
  node.position = Vector3(info.mapWidth / 2, info.mapHeight / 2, 0)
  node:SetScale(scale)
  local sprite = node:CreateComponent("StaticSprite2D")
  sprite.sprite = cache:GetResource("Sprite2D", texture)
  local r = Random(0, 1)
  local g = Random(0, 1)
  local b = Random(0, 1)
  sprite.color = Color(r, g, b, 1)
  sprite.layer = -99
  if animate then
    local swing = ValueAnimation:new()
    for i, angle in ipairs({0, 180, 0}) do
      swing:SetKeyFrame(i - 1, Variant(Quaternion(0, 0, angle)))
    end
    node:SetAttributeAnimation("Rotation", swing, WM_LOOP, 0.05)
  end
end

----------------------------------------------------------------------------------------------------
-- The screen joystick on touch devices: button 0 fights (SPACE), button 1 jumps (UP)
----------------------------------------------------------------------------------------------------
local function relabelButton(index, label, key)
  local button = string.format("/element/element[./attribute[@name='Name' and @value='Button%d']]", index)
  return string.format('<remove sel="%s/attribute[@name=\'Is Visible\']" />', button) ..
    string.format('<replace sel="%s/element[./attribute[@name=\'Name\' and @value=\'Label\']]' ..
      '/attribute[@name=\'Text\']/@value">%s</replace>', button, label) ..
    string.format('<add sel="%s"><element type="Text"><attribute name="Name" value="KeyBinding" />' ..
      '<attribute name="Text" value="%s" /></element></add>', button, key)
end

function GetScreenJoystickPatchString()
  return "<patch>" .. relabelButton(0, "Fight", "SPACE") .. relabelButton(1, "Jump", "UP") .. "</patch>"
end
