-- Network: the `network` subsystem and Connection objects, in two kinds of run (docs/platform.md).
--
-- Standalone (the default): a run is one process with no peers and never touches a network.  Games written for
-- UrhoX's server/client split set up their networking when they load even when played alone: registrations are
-- remembered (CheckRemoteEvent), a started server runs with no client connections, a connection attempt cannot
-- start (Connect returns false), and a broadcast remote event reaches no one.
--
-- With roles (the setting net_clients > 0): one server and N clients, each its own Lua state running the same game,
-- stepped in lockstep and joined by the engine's in-memory transport (engine/_netrun.py).  What a role sends
-- leaves at the end of its frame and is read at the receiver's next BeginFrame, `net_latency_frames` later, in
-- send order, as Urho3D's Network reads its packets (Network::Update on BeginFrame) and sends its buffers at its
-- update rate (Network::PostUpdate on RenderUpdate).  Scene replication is 67_network_replication.lua.
local sformat, tostring, type, ipairs, error = string.format, tostring, type, ipairs, error
local mfloor = math.floor
local E = E
local REC = E.REC
local config = E.host.config

local function event_hash(event_type)
  if type(event_type) == "string" then return E.sdbm(event_type) end
  if E.is(event_type, "StringHash") then return event_type.value_ end
  error("bad argument: an event type (a string or a StringHash) expected", 3)
end

local nstate = {allowed = {}, server = false, port = nil, update_fps = 30, latency = 0, loss = 0.0,
  client_timeout = 5000, server_timeout = 0, paused_timeout = 5000, package_dir = "", password = "",
  role = "", connections = {}, by_peer = {}, server_conn = nil, outbox = {}, inbox = {}, update_acc = 0.0,
  last_connect = nil, reconnecting = false}
E.network_state = nstate

E.on_configure(function(c)
  nstate.role = c.net_role or ""
  nstate.max_clients = c.net_clients or 0
end)
local function is_server_role() return nstate.role == "server" end
local function is_client_role() return nstate.role ~= "" and nstate.role ~= "server" end
E.net_is_server_role, E.net_is_client_role = is_server_role, is_client_role
FUNCTIONS.IsNetworkMode = function() return nstate.role ~= "" end
FUNCTIONS.IsServerMode = function() return nstate.role == "server" end
-- UrhoX's runtime mode is "server" or "client" (its annotations name no third): a standalone run is a client, as the
-- dev kit's own fallback for binaries without the binding answers.
FUNCTIONS.IsClientMode = function() return nstate.role ~= "server" end
FUNCTIONS.GetRuntimeMode = function() return nstate.role == "server" and "server" or "client" end

----------------------------------------------------------------------------------------------------
-- The transport: messages are codec bytes (67_netcodec.lua) as hex, addressed by role name
----------------------------------------------------------------------------------------------------
-- Frames a message of this role waits beyond the run's latency: its SetSimulatedLatency, as RakNet's network
-- simulator delays every packet a peer sends (a packet sent at t arrives at t + latency: read at the first frame
-- that begins then or later).
local function extra_frames()
  local ms = nstate.latency
  if ms <= 0 then return 0 end
  return math.tointeger(math.ceil(ms / 1000 / E.clock.step - 1e-9)) or 0
end
local function post(to, message)
  -- a message carries encoded data (hex) and, for scene updates, a whole scene's attributes
  nstate.outbox[#nstate.outbox + 1] = {to = to, delay = extra_frames(),
    hex = E.hex(E.net_encode(message, "network message", nil, 4 * E.NET_MAX_WAITING))}
end
-- A message sent on a connection leaves at the next network update (Connection::SendAllBuffers).  What waits is
-- bounded, so a game cannot make the host carry unbounded data between the states.
E.NET_MAX_WAITING = 16 * 1024 * 1024
nstate.waiting = 0
-- Simulated packet loss (SetSimulatedPacketLoss): an unreliable message (controls, SendMessage with reliable
-- false) is dropped with that probability, drawn from a stream of this role's own (the run's seed and the role's
-- name, never the game's math.random); reliable ones arrive, as RakNet resends them.
local loss_state = 0
local function lost()
  if nstate.loss <= 0 then return false end
  local x = loss_state   -- xorshift64*
  x = x ~ (x >> 12); x = x ~ (x << 25); x = x ~ (x >> 27)
  loss_state = x
  return ((x * 0x2545F4914F6CDD1D) >> 11) * (1.0 / 9007199254740992) < nstate.loss
end
E.on_configure(function(config)
  loss_state = ((math.tointeger(config.seed) or 0) * 0x9E3779B97F4A7C15) ~ E.sdbm(config.net_role or "")
  if loss_state == 0 then loss_state = 0x9E3779B97F4A7C15 end
end)
local function queue(c, message, unreliable)
  if unreliable and lost() then return end
  local size = #(message.hex or "") + #(message.data or "")
  if nstate.waiting + size > E.NET_MAX_WAITING then
    error(sformat("grader: more than %d bytes of network messages waiting for the next network update",
      E.NET_MAX_WAITING), 0)
  end
  nstate.waiting = nstate.waiting + size
  c.sendq[#c.sendq + 1] = message
end
local function flush(c)
  for _, m in ipairs(c.sendq) do post(c.peer, m) end
  c.sendq = {}
end
E.net_queue = queue

-- The host's side: what this role sent since the last call, and messages for it (due: the frame to read them).
function E.net_take_outbox()
  local out = nstate.outbox
  nstate.outbox = {}
  return out
end
function E.net_deliver(list)
  for _, m in ipairs(list) do
    nstate.inbox[#nstate.inbox + 1] = {from = m.from, hex = m.hex, due = m.due}
  end
end

----------------------------------------------------------------------------------------------------
-- Connection
----------------------------------------------------------------------------------------------------
local Connection = class("Connection")
local CM = Connection.methods
local function crec(self)
  local r = REC[self]
  if r == nil or r.kind ~= "connection" then error("invalid 'self' (a Connection was expected)", 3) end
  return r
end
local function new_connection(peer, is_client)
  local r = {kind = "connection", peer = peer, is_client = is_client, identity = E.VariantMap_new(),
    scene = nil, scene_loaded = false, controls = E.Controls_new(), timestamp = 0, position = nil, rotation = nil,
    connected = true, connect_pending = false, sendq = {}, log_statistics = false, pulse_mask = 0, repl = nil}
  local proxy = E.new_object("Connection", r)
  r.proxy = proxy
  return r
end
local function copy_controls(c)
  local out = E.Controls_new()
  out.buttons, out.yaw, out.pitch = mfloor(c.buttons or 0), (c.yaw or 0) + 0.0, (c.pitch or 0) + 0.0
  if E.is(c.extraData, "VariantMap") then out.extraData = E.IMPL.VariantMap.new(c.extraData) end
  return out
end
local function address_of(r) return r.is_client and r.peer or "server" end

CM.ToString = function(self) local r = crec(self); return sformat("%s:%d", address_of(r), nstate.port or 0) end
CM.GetAddress = function(self) return address_of(crec(self)) end
CM.GetPort = function(self) crec(self); return nstate.port or 0 end
CM.IsClient = function(self) return crec(self).is_client end
CM.IsConnected = function(self) local r = crec(self); return r.connected and not r.connect_pending end
CM.IsConnectPending = function(self) return crec(self).connect_pending end
CM.SetConnectPending = function(self, v) crec(self).connect_pending = v and true or false end
CM.IsSceneLoaded = function(self) return crec(self).scene_loaded end
CM.GetIdentity = function(self) return crec(self).identity end
CM.SetIdentity = function(self, identity)
  crec(self).identity = E.is(identity, "VariantMap") and E.IMPL.VariantMap.new(identity) or E.VariantMap_new()
end
CM.GetControls = function(self) return crec(self).controls end
CM.SetControls = function(self, controls)
  if not E.is(controls, "Controls") then error("bad argument #1 to 'SetControls' (Controls expected)", 2) end
  crec(self).controls = copy_controls(controls)
end
CM.GetTimeStamp = function(self) return crec(self).timestamp end
CM.GetPosition = function(self) local r = crec(self); return r.position or E.Vector3_new(0, 0, 0) end
CM.SetPosition = function(self, p) local r = crec(self); r.position = E.Vector3_new(p.x, p.y, p.z) end
CM.GetRotation = function(self) local r = crec(self); return r.rotation or E.Quaternion_new(1, 0, 0, 0) end
CM.SetRotation = function(self, q)
  local r = crec(self)
  r.rotation = E.Quaternion_new(q.w, q.x, q.y, q.z)
  if r.position == nil then r.position = E.Vector3_new(0, 0, 0) end
end
CM.GetLogStatistics = function(self) return crec(self).log_statistics end
CM.SetLogStatistics = function(self, v) crec(self).log_statistics = v and true or false end
CM.GetPulseButtonMask = function(self) return crec(self).pulse_mask end
CM.SetPulseButtonMask = function(self, v) crec(self).pulse_mask = mfloor(v) end
CM.GetRoundTripTime = function(self)
  crec(self)
  return (2 * ((config.net_latency_frames or 0) + 1)) * config.time_step * 1000.0
end
CM.GetLastHeardTime = function(self) crec(self); return 0 end
for _, name in ipairs({"GetBytesInPerSec", "GetBytesOutPerSec", "GetPacketsInPerSec", "GetPacketsOutPerSec",
                       "GetNumDownloads"}) do
  CM[name] = function(self) crec(self); return 0 end
end
CM.GetDownloadName = function(self) crec(self); return "" end
CM.GetDownloadProgress = function(self) crec(self); return 1.0 end
CM.GetScene = function(self) local r = crec(self); return r.scene and r.scene.proxy end

-- Connection::SetScene: on the server, the client is told to load the scene (the replication starts once it
-- says it has); on a client, the scene replication will fill.
CM.SetScene = function(self, scene)
  local r = crec(self)
  local s = scene ~= nil and E.node_rec(scene) or nil
  if s ~= nil and not s.is_scene then error("bad argument #1 to 'SetScene' (Scene expected)", 2) end
  r.scene, r.scene_loaded, r.repl = s, false, nil
  if s ~= nil and r.is_client then queue(r, {k = "loadscene"}) end
end

local function send_remote(r, node, event_type, in_order, data, fname)
  local name = E.event_name_of(event_type)
  if name == nil then error(sformat("bad argument to '%s' (an event type expected)", fname), 3) end
  if data ~= nil and not E.is(data, "VariantMap") then
    if type(data) == "table" and E.dgetmt(data) == nil then
      local map = E.VariantMap_new()
      for k, v in pairs(data) do map[k] = v end
      data = map
    else
      error(sformat("bad argument to '%s' (VariantMap expected, got %s)", fname, type(data)), 3)
    end
  end
  local message = {k = node and "rne" or "re", name = name, hash = event_hash(event_type),
    data = data or E.VariantMap_new()}
  if node then
    local n = E.node_rec(node)
    if n.scene ~= r.scene then
      E.log("ERROR", "Sender node is not in the connection's scene, can not send remote node event")
      return
    end
    if n.id >= 0x01000000 then
      E.log("ERROR", "Sender node has a local ID, can not send remote node event")
      return
    end
    message.node = n.id
  end
  -- encoded now: what the game changes in the map later does not change what was sent (Urho3D copies it)
  message.hex = E.hex(E.net_encode(message.data, fname .. " data"))
  message.data = nil
  queue(r, message)
end
CM.SendRemoteEvent = function(self, a, b, c, d)
  local r = crec(self)
  if type(a) == "table" and E.REC[a] and E.REC[a].kind == "node" then
    return send_remote(r, a, b, c, d, "SendRemoteEvent")
  end
  return send_remote(r, nil, a, b, c, "SendRemoteEvent")
end
CM.SendMessage = function(self, msg_id, reliable, _in_order, buffer)
  local r = crec(self)
  local data = ""
  if buffer ~= nil then
    local b = REC[buffer]
    if b == nil or b.kind ~= "vbuf" then error("bad argument #4 to 'SendMessage' (VectorBuffer expected)", 2) end
    data = b.data
  end
  queue(r, {k = "msg", id = mfloor(msg_id), data = data}, reliable == false)
end
CM.Disconnect = function(self)
  local r = crec(self)
  if not r.connected then return end
  if r.is_client then
    post(r.peer, {k = "kick"})
    nstate.pending_local = nstate.pending_local or {}
    nstate.pending_local[#nstate.pending_local + 1] = r   -- ClientDisconnected at the next frame's network read
    r.connected = false
  else
    E.network_disconnect()
  end
end
CM.SendPackageToClient = function() end

----------------------------------------------------------------------------------------------------
-- Network
----------------------------------------------------------------------------------------------------
local Network = class("Network")
local N = Network.methods
N.RegisterRemoteEvent = function(_, event_type) nstate.allowed[event_hash(event_type)] = true end
N.UnregisterRemoteEvent = function(_, event_type) nstate.allowed[event_hash(event_type)] = nil end
N.UnregisterAllRemoteEvents = function() nstate.allowed = {} end
N.CheckRemoteEvent = function(_, event_type) return nstate.allowed[event_hash(event_type)] == true end
-- The match's size as the game's project declares it: `.project/settings.json`'s
-- {"@runtime": {"multiplayer": {"max_players": N}}} (TapTap Maker's project settings), a whole number from 1; nil
-- when the file, the key or a usable value is missing (the platform's own limit is then unknown: no limit here).
local SETTINGS = ".project/settings.json"
local function declared_max_players()
  if not E.fs_in_folder(SETTINGS) then return nil end
  local ok, settings = pcall(E.cjson_decode, E.fs_read(SETTINGS))
  local runtime = ok and type(settings) == "table" and settings["@runtime"] or nil
  local mp = type(runtime) == "table" and runtime.multiplayer or nil
  local n = type(mp) == "table" and mp.max_players or nil
  if math.type(n) == "float" and n == math.floor(n) then n = math.tointeger(n) end
  if math.type(n) ~= "integer" or n < 1 then
    if ok == false or n ~= nil then E.log("WARNING", SETTINGS .. ": no usable @runtime.multiplayer.max_players") end
    return nil
  end
  return n
end

N.StartServer = function(_, port, max_connections)
  if nstate.server then return true end   -- Urho3D: a running server is not started twice
  nstate.server, nstate.port = true, port
  nstate.max_connections = max_connections ~= nil and E.tolua_int(max_connections, "StartServer", 2) or 128
  nstate.max_players = nstate.role ~= "" and declared_max_players() or nil
  if nstate.role == "" then
    E.log("INFO", sformat("Started server on port %d (standalone: no client can connect)", port or 0))
  else
    E.log("INFO", sformat("Started server on port %d", port or 0))
  end
  return true
end
N.StartServerWithTransport = function(self, port, _protocol, max_connections)
  return N.StartServer(self, port, max_connections)
end
N.StopServer = function()
  if not nstate.server then return end
  for _, r in ipairs(nstate.connections) do
    if r.connected then post(r.peer, {k = "kick"}) end
    r.connected = false
  end
  nstate.connections, nstate.by_peer = {}, {}
  E.log("INFO", "Stopped server")
  nstate.server, nstate.port = false, nil
end
N.IsServerRunning = function() return nstate.server end

local function connect(address, port, scene, identity)
  if is_client_role() then
    if nstate.server_conn ~= nil then
      local r = REC[nstate.server_conn]
      if r.connect_pending or r.connected then
        E.log("WARNING", "Already connected to server")
        return true
      end
    end
    local r = new_connection("server", false)
    r.connect_pending = true
    r.scene = scene ~= nil and E.node_rec(scene) or nil
    r.identity = E.is(identity, "VariantMap") and E.IMPL.VariantMap.new(identity) or E.VariantMap_new()
    nstate.server_conn = r.proxy
    nstate.last_connect = {address = address, port = port, scene = scene, identity = identity}
    E.log("INFO", sformat("Connecting to server %s:%s, Client: %s", tostring(address), tostring(port), nstate.role))
    post("server", {k = "connect", port = math.tointeger(port) or 0})
    return true
  end
  E.log("ERROR", sformat("Failed to connect to server %s:%s: this run has no network",
    tostring(address), tostring(port)))
  return false
end
N.Connect = function(_, address, port, scene, identity) return connect(address, port, scene, identity) end
N.ConnectWithTransport = function(_, address, port, scene, _protocol, identity)
  return connect(address, port, scene, identity)
end
function E.network_disconnect()
  local c = nstate.server_conn
  if c == nil then return end
  local r = REC[c]
  if r.connected and not r.connect_pending then post("server", {k = "disconnect"}) end
  r.connected = false
  nstate.server_conn = nil
  E.log("INFO", "Disconnected from server")
  E.send_event("ServerDisconnected", {})
end
N.Disconnect = function() E.network_disconnect() end
-- as Urho3D: the connection while it is being made too (connectPending true, connected false)
N.GetServerConnection = function() return nstate.server_conn end
N.GetClientConnections = function()
  local out = {}
  for _, r in ipairs(nstate.connections) do out[#out + 1] = r.proxy end
  return out
end
local function connections_of(scene)
  local out = {}
  for _, r in ipairs(nstate.connections) do
    if r.connected and (scene == nil or r.scene == scene) then out[#out + 1] = r end
  end
  return out
end
-- (eventType, inOrder, data), (scene, eventType, inOrder, data) or (node, eventType, inOrder, data)
N.BroadcastRemoteEvent = function(_, a, b, c, d)
  if type(a) == "string" or E.is(a, "StringHash") then
    event_hash(a)
    for _, r in ipairs(connections_of(nil)) do send_remote(r, nil, a, b, c, "BroadcastRemoteEvent") end
    return
  end
  event_hash(b)
  local n = E.node_rec(a)
  if n.is_scene then
    for _, r in ipairs(connections_of(n)) do send_remote(r, nil, b, c, d, "BroadcastRemoteEvent") end
  else
    for _, r in ipairs(connections_of(n.scene)) do send_remote(r, a, b, c, d, "BroadcastRemoteEvent") end
  end
end
N.BroadcastMessage = function(_, msg_id, reliable, in_order, buffer)
  for _, r in ipairs(connections_of(nil)) do CM.SendMessage(r.proxy, msg_id, reliable, in_order, buffer) end
end
N.SetUpdateFps = function(_, fps)
  nstate.update_fps = math.max(mfloor(fps), 1)
  nstate.update_acc = 0.0
end
N.GetUpdateFps = function() return nstate.update_fps end
N.SetSimulatedLatency = function(_, ms) nstate.latency = math.max(E.tolua_int(ms, "SetSimulatedLatency", 1), 0) end
N.GetSimulatedLatency = function() return nstate.latency end
N.SetSimulatedPacketLoss = function(_, loss)
  nstate.loss = math.min(math.max(E.tolua_number(loss, "SetSimulatedPacketLoss", 1), 0.0), 1.0)
end
N.GetSimulatedPacketLoss = function() return nstate.loss end
N.SetClientConnectionTimeout = function(_, ms) nstate.client_timeout = ms end
N.GetClientConnectionTimeout = function() return nstate.client_timeout end
N.SetServerConnectionTimeout = function(_, ms) nstate.server_timeout = ms end
N.GetServerConnectionTimeout = function() return nstate.server_timeout end
N.SetPausedTimeout = function(_, ms) nstate.paused_timeout = ms end
N.GetPausedTimeout = function() return nstate.paused_timeout end
-- NAT punch-through needs a NAT master server, which a grading run never reaches: StartNATClient and
-- AttemptNATPunchtrough end as Urho3D's do when the master does not answer (the failure events at the next frame).
N.SetNATServerInfo = function(_, address, port)
  nstate.nat_server = {address = E.tolua_string(address, "SetNATServerInfo", 1),
    port = E.tolua_int(port, "SetNATServerInfo", 2)}
end
N.GetGUID = function() return nstate.guid or "" end
local function send_next_frame(event, data)
  E.platform.schedule(1, function() E.send_event(event, data) end)   -- the next frame, in any run
end
N.StartNATClient = function()
  local nat = nstate.nat_server
  if nat == nil or nat.port == 0 then
    E.log("ERROR", "NAT master server address incorrect!")
    return
  end
  nstate.guid = nstate.guid or "4096"   -- RakNet's GUID of this peer: a fixed one (no NAT master assigns it)
  E.log("INFO", "GUID: " .. nstate.guid)
  send_next_frame("NetworkNatMasterConnectionFailed", {})
end
N.AttemptNATPunchtrough = function(_, guid, _scene, _identity)
  E.tolua_string(guid, "AttemptNATPunchtrough", 1)
  local nat = nstate.nat_server or {address = "", port = 0}
  send_next_frame("NetworkNatPunchtroughFailed", {Address = nat.address, Port = nat.port})
end
N.SetPackageCacheDir = function(_, path) nstate.package_dir = path end
N.GetPackageCacheDir = function() return nstate.package_dir end
N.SetPassword = function(_, password) nstate.password = password end
N.DiscoverHosts = function() end   -- no host ever answers
N.SetDiscoveryBeacon = function() end
GLOBALS.network = E.new_object("Network")
FUNCTIONS.GetNetwork = function() return GLOBALS.network end

----------------------------------------------------------------------------------------------------
-- Reading messages (Network::Update, at BeginFrame before the game's handlers)
----------------------------------------------------------------------------------------------------
local function remote_event(r, m)
  if not nstate.allowed[m.hash] then
    E.log("WARNING", sformat("Discarding not allowed remote event %08X", m.hash))
    return
  end
  local data = E.net_decode(E.unhex(m.hex))
  local values = E.variant_map_store[data]
  values.Connection = E.Variant_new("Ptr", r.proxy)
  if m.k == "re" then
    E.send_event(m.name, data, nil)
    return
  end
  if r.scene == nil then
    E.log("ERROR", "Can not receive remote node event without an assigned scene")
    return
  end
  local node = r.scene.nodes[m.node]
  if node == nil then
    E.log("WARNING", "Missing sender for remote node event, discarding")
    return
  end
  E.send_event(m.name, data, node.proxy)
end
local function network_message(r, m)
  E.send_event("NetworkMessage", {Connection = r.proxy, MessageID = m.id,
    Data = E.Variant_new("Buffer", m.data)})
end

local function client_left(r, why)
  if not r.connected and why ~= "local" then return end
  r.connected = false
  local keep = {}
  for _, x in ipairs(nstate.connections) do if x ~= r then keep[#keep + 1] = x end end
  nstate.connections = keep
  nstate.by_peer[r.peer] = nil
  E.log("INFO", sformat("Client %s disconnected", CM.ToString(r.proxy)))
  E.send_event("ClientDisconnected", {Connection = r.proxy}, r.proxy)
end

local function server_read(from, m)
  local r = nstate.by_peer[from]
  if m == nil then   -- the link was lost
    if r then client_left(r, "lost") end
    return
  end
  if m.k == "connect" then
    if not nstate.server or (m.port ~= 0 and m.port ~= nstate.port) then
      post(from, {k = "reject"})
      return
    end
    if r ~= nil then return end
    local open = 0
    for _, c in ipairs(nstate.connections) do if c.connected then open = open + 1 end end
    if open >= nstate.max_connections then   -- RakNet refuses it: the server is full
      post(from, {k = "reject"})
      return
    end
    if nstate.max_players ~= nil and open >= nstate.max_players then   -- the match is full: the platform refuses
      E.log("WARNING", sformat("Refused client %s: the match holds max_players = %d (%s)", from, nstate.max_players,
        SETTINGS))
      post(from, {k = "reject"})
      return
    end
    r = new_connection(from, true)
    nstate.connections[#nstate.connections + 1] = r
    nstate.by_peer[from] = r
    E.log("INFO", sformat("Client %s connected", CM.ToString(r.proxy)))
    post(from, {k = "accept"})
    E.send_event("ClientConnected", {Connection = r.proxy}, r.proxy)
    return
  end
  if r == nil or not r.connected then return end
  if m.k == "identity" then
    r.identity = E.net_decode(E.unhex(m.hex))
    local data = E.IMPL.VariantMap.new(r.identity)
    local values = E.variant_map_store[data]
    values.Connection = E.Variant_new("Ptr", r.proxy)
    values.Allow = E.Variant_new("Bool", true)
    E.send_event("ClientIdentity", data, r.proxy)
    local allow = values.Allow
    if allow == nil or not allow.value_ then CM.Disconnect(r.proxy) end
  elseif m.k == "sceneloaded" then
    if r.scene == nil then
      E.log("WARNING", "Received a SceneLoaded message without an assigned scene from client " .. CM.ToString(r.proxy))
      return
    end
    r.scene_loaded = true
    E.send_event("ClientSceneLoaded", {Connection = r.proxy}, r.proxy)
  elseif m.k == "controls" then
    local c = E.Controls_new()
    c.buttons, c.yaw, c.pitch = m.buttons, m.yaw, m.pitch
    c.extraData = E.net_decode(E.unhex(m.extra))
    r.controls, r.timestamp = c, m.timestamp
    if m.position then r.position = m.position end
    if m.rotation then r.rotation = m.rotation end
  elseif m.k == "re" or m.k == "rne" then
    remote_event(r, m)
  elseif m.k == "msg" then
    network_message(r, m)
  elseif m.k == "disconnect" then
    client_left(r, "disconnect")
  end
end

local function client_read(m)
  local c = nstate.server_conn
  local r = c and REC[c]
  if r == nil then return end
  if m == nil or m.k == "kick" or m.k == "reject" then
    local failed = r.connect_pending
    nstate.server_conn = nil
    r.connected = false
    if failed then
      E.log("ERROR", "Failed to connect to server")
      E.send_event("ConnectFailed", {})
    else
      E.log("INFO", "Disconnected from server")
      E.send_event("ServerDisconnected", {})
    end
    return
  end
  if m.k == "accept" then
    r.connect_pending = false
    E.log("INFO", "Connected to server!")
    queue(r, {k = "identity", hex = E.hex(E.net_encode(r.identity, "identity"))})
    E.send_event("ServerConnected", {})
    if nstate.reconnecting then
      nstate.reconnecting = false
      E.send_event("NetworkReconnected", {})
    end
  elseif m.k == "loadscene" then
    if r.scene == nil then
      E.log("ERROR", "Can not handle LoadScene message without an assigned scene")
      return
    end
    E.IMPL.Scene.methods.Clear(r.scene.proxy, true, false)   -- the replicated part; local nodes stay
    r.scene_loaded = true
    queue(r, {k = "sceneloaded"})
  elseif m.k == "scene" then
    if r.scene ~= nil and E.net_apply_scene_update then E.net_apply_scene_update(r.scene, m) end
  elseif m.k == "re" or m.k == "rne" then
    remote_event(r, m)
  elseif m.k == "msg" then
    network_message(r, m)
  end
end

local function net_begin_frame()
  local frame = E.clock.frame
  if nstate.pending_local then
    local list = nstate.pending_local
    nstate.pending_local = nil
    for _, r in ipairs(list) do client_left(r, "local") end
  end
  local keep, due = {}, {}
  for _, m in ipairs(nstate.inbox) do
    if m.due <= frame then due[#due + 1] = m else keep[#keep + 1] = m end
  end
  nstate.inbox = keep
  for _, item in ipairs(due) do
    local m = item.hex ~= "" and E.net_decode(E.unhex(item.hex)) or nil
    if is_server_role() then server_read(item.from, m) else client_read(m) end
  end
end

----------------------------------------------------------------------------------------------------
-- Sending (Network::PostUpdate, at RenderUpdate before the game's handlers, at the update rate)
----------------------------------------------------------------------------------------------------
local function net_post_update(step)
  nstate.update_acc = nstate.update_acc + step
  local interval = 1.0 / nstate.update_fps
  if nstate.update_acc < interval then return end
  E.send_event("NetworkUpdate", {})
  nstate.update_acc = math.fmod(nstate.update_acc, interval)
  if nstate.server then
    local prepared = E.net_prepare_scenes and E.net_prepare_scenes(nstate.connections)
    for _, r in ipairs(nstate.connections) do
      if r.connected then
        if r.scene ~= nil and r.scene_loaded and E.net_scene_update then E.net_scene_update(r, prepared) end
        flush(r)
      end
    end
  end
  local c = nstate.server_conn
  local r = c and REC[c]
  if r ~= nil and not r.connect_pending then
    if r.scene ~= nil and r.scene_loaded then
      local ct = r.controls
      local extra = E.is(ct.extraData, "VariantMap") and ct.extraData or E.VariantMap_new()
      queue(r, {k = "controls", buttons = mfloor(ct.buttons or 0) & 0xffffffff, yaw = (ct.yaw or 0) + 0.0,
        pitch = (ct.pitch or 0) + 0.0, timestamp = r.timestamp,
        extra = E.hex(E.net_encode(extra, "controls extraData")), position = r.position, rotation = r.rotation},
        true)   -- unreliable, as Urho3D sends controls
      r.timestamp = (r.timestamp + 1) & 0xff
    end
    flush(r)
  end
  nstate.waiting = 0
  E.send_event("NetworkUpdateSent", {})
end

-- A client role connects by itself once its Start() returned, unless the game connected (UrhoX's runtime joins
-- the players to the match): to the server role, with the game's first scene.
function E.net_auto_connect()
  if not is_client_role() or nstate.server_conn ~= nil or nstate.last_connect ~= nil then return end
  local scene = E.scenes[1]
  connect("server", 0, scene and scene.proxy, nil)
end
-- The battery's h.reconnect: the client connects again as it did last (NetworkReconnecting, then the
-- connection's events and NetworkReconnected).
function E.net_reconnect()
  if not is_client_role() or nstate.server_conn ~= nil then return end
  local last = nstate.last_connect or {address = "server", port = 0}
  nstate.reconnecting = true
  E.send_event("NetworkReconnecting", {})
  nstate.last_connect = nil
  connect(last.address, last.port, last.scene, last.identity)
end
-- The battery's view of this role's network: connections and their state.
function E.net_view()
  local out = {role = nstate.role, server_running = nstate.server, port = nstate.port, connections = {}}
  for i, r in ipairs(nstate.connections) do
    out.connections[i] = {peer = r.peer, scene_loaded = r.scene_loaded, buttons = r.controls.buttons,
      yaw = r.controls.yaw, pitch = r.controls.pitch, timestamp = r.timestamp}
  end
  local c = nstate.server_conn
  if c then
    local r = REC[c]
    out.server_connection = {connected = r.connected and not r.connect_pending, pending = r.connect_pending,
      scene_loaded = r.scene_loaded}
  end
  return out
end

-- Only a run with roles reads and sends (a standalone run sends no NetworkUpdate, as before roles existed).  The
-- server role drives the run's other roles: after each of its frames the host (engine/_netrun.py) takes what it
-- sent, steps every client one frame, and hands back what reached the server.
E.on_configure(function()
  if nstate.role == "" then return end
  E.net_begin_frame, E.net_post_update = net_begin_frame, net_post_update
  if nstate.role ~= "server" then return end
  function E.net_after_frame()
    local inbound = E.host_call(E.host.net_frame, E.net_take_outbox())
    if inbound then E.net_deliver(inbound) end
  end
end)
