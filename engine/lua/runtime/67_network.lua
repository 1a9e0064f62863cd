-- Network, standalone: a run is one process with no peers and never touches a network (docs/platform.md).
-- Games written for UrhoX's server/client split set up their networking when they load even when played alone:
-- they register remote events, may start a server, ask for the server connection.  Those calls keep Urho3D's
-- state and answers for a process with no peers: registrations are remembered (CheckRemoteEvent), a started
-- server runs with no client connections, a connection attempt cannot start (Connect returns false), and a
-- broadcast remote event reaches no one.  (Several roles joined in one run are issue 19's next step.)
local sformat, tostring, type = string.format, tostring, type
local E = E

local function event_hash(event_type)
  if type(event_type) == "string" then return E.sdbm(event_type) end
  if E.is(event_type, "StringHash") then return event_type.value_ end
  error("bad argument: an event type (a string or a StringHash) expected", 3)
end

local nstate = {allowed = {}, server = false, port = nil, update_fps = 30, latency = 0, loss = 0.0,
  client_timeout = 5000, server_timeout = 0, paused_timeout = 5000, package_dir = "", password = ""}
E.network_state = nstate

local Network = class("Network")
local N = Network.methods
N.RegisterRemoteEvent = function(_, event_type) nstate.allowed[event_hash(event_type)] = true end
N.UnregisterRemoteEvent = function(_, event_type) nstate.allowed[event_hash(event_type)] = nil end
N.UnregisterAllRemoteEvents = function() nstate.allowed = {} end
N.CheckRemoteEvent = function(_, event_type) return nstate.allowed[event_hash(event_type)] == true end
N.StartServer = function(_, port)
  if nstate.server then return true end   -- Urho3D: a running server is not started twice
  nstate.server, nstate.port = true, port
  E.log("INFO", sformat("Started server on port %d (standalone: no client can connect)", port or 0))
  return true
end
N.StartServerWithTransport = function(self, port) return N.StartServer(self, port) end
N.StopServer = function()
  if nstate.server then E.log("INFO", "Stopped server") end
  nstate.server, nstate.port = false, nil
end
N.IsServerRunning = function() return nstate.server end
N.Connect = function(_, address, port)
  E.log("ERROR", sformat("Failed to connect to server %s:%s: this run has no network",
    tostring(address), tostring(port)))
  return false
end
N.ConnectWithTransport = N.Connect
N.Disconnect = function() end
N.GetServerConnection = function() return nil end
N.GetClientConnections = function() return {} end
N.BroadcastRemoteEvent = function(_, a, b)
  -- (eventType, inOrder, data) or (scene|node, eventType, inOrder, data): checked, then sent to no one
  event_hash((type(a) == "string" or E.is(a, "StringHash")) and a or b)
end
N.BroadcastMessage = function() end
N.SetUpdateFps = function(_, fps) nstate.update_fps = fps end
N.GetUpdateFps = function() return nstate.update_fps end
N.SetSimulatedLatency = function(_, ms) nstate.latency = ms end
N.GetSimulatedLatency = function() return nstate.latency end
N.SetSimulatedPacketLoss = function(_, loss) nstate.loss = loss end
N.GetSimulatedPacketLoss = function() return nstate.loss end
N.SetClientConnectionTimeout = function(_, ms) nstate.client_timeout = ms end
N.GetClientConnectionTimeout = function() return nstate.client_timeout end
N.SetServerConnectionTimeout = function(_, ms) nstate.server_timeout = ms end
N.GetServerConnectionTimeout = function() return nstate.server_timeout end
N.SetPausedTimeout = function(_, ms) nstate.paused_timeout = ms end
N.GetPausedTimeout = function() return nstate.paused_timeout end
N.SetPackageCacheDir = function(_, path) nstate.package_dir = path end
N.GetPackageCacheDir = function() return nstate.package_dir end
N.SetPassword = function(_, password) nstate.password = password end
N.DiscoverHosts = function() end   -- no host ever answers
N.SetDiscoveryBeacon = function() end
GLOBALS.network = E.new_object("Network")
FUNCTIONS.GetNetwork = function() return GLOBALS.network end
