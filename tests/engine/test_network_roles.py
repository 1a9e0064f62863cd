"""Runs with roles: one server and N clients running the same game in lockstep, joined by the engine's transport."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import EngineSettings, RunRequest, run_evidence, run_in_subprocess
from engine._engine import Engine

CHAT = """
lines = ""
function Start()
  network:RegisterRemoteEvent("ChatMessage")
  SubscribeToEvent("ChatMessage", "HandleChat")
  if IsServerMode() then network:StartServer(2345) end
  SubscribeToEvent("KeyDown", function(_, d)
    if d["Key"]:GetInt() == KEY_H then
      local m = VariantMap()
      m["Text"] = "hello from " .. (IsServerMode() and "server" or "me")
      network:GetServerConnection():SendRemoteEvent("ChatMessage", true, m)
    end
  end)
end
function HandleChat(_, d)
  local text = d["Text"]:GetString()
  if IsServerMode() then
    local out = VariantMap()
    out["Text"] = d["Connection"]:GetPtr("Connection"):GetAddress() .. ": " .. text
    network:BroadcastRemoteEvent("ChatMessage", true, out)
  else
    lines = lines .. "[" .. time:GetFrameNumber() .. "]" .. text
  end
end
"""


def run(game: Path, battery: str, clients: int = 2, latency: int = 0) -> tuple[Engine, list[dict[str, Any]]]:
    engine = Engine(game, EngineSettings(net_clients=clients, net_latency_frames=latency))
    assert engine.run_battery(battery, "battery/main.lua")
    return engine, engine.requirements()


def checks(requirements: list[dict[str, Any]]) -> dict[str, Any]:
    return {c["name"]: c["actual"] for r in requirements for c in r["checks"]}


def test_a_chat_reaches_every_client_through_the_server(make_game: Callable[..., Path]) -> None:
    engine, reqs = run(make_game(CHAT), """
    local h = harness
    h.start(); h.run(0.5)
    local c1, c2 = h.role("client1"), h.role("client2")
    c1.key_down(KEY_H); h.run_frames(1); c1.key_up(KEY_H)
    h.run(0.5)
    requirement("R1", {}, function(check)
      check.equal("modes", tostring(h.global("lines")), "")
      check.equal("client1", c1.global("lines"), "[35]client1: hello from me")
      check.equal("client2", c2.global("lines"), "[35]client1: hello from me")
      check.equal("roles", table.concat(h.roles(), ","), "server,client1,client2")
    end)
    """)
    assert all(c["passed"] for c in reqs[0]["checks"]), reqs
    report = engine.report()
    assert report.outcome == "clean"
    messages = [(e.get("role"), e["frame"], e["message"]) for e in report.log]
    assert (None, 1, "Client client1:2345 connected") in messages
    assert ("client2", 2, "Connected to server!") in messages


def test_latency_delays_every_message_by_its_frames(make_game: Callable[..., Path]) -> None:
    _, reqs = run(make_game(CHAT), """
    local h = harness
    h.start(); h.run(0.5)
    local c1 = h.role("client1")
    c1.key_down(KEY_H); h.run_frames(1); c1.key_up(KEY_H)
    h.run(0.5)
    requirement("R1", {}, function(check) check.equal("late", c1.global("lines"), "[40]client1: hello from me") end)
    """, clients=1, latency=3)
    assert checks(reqs) == {"late": "[40]client1: hello from me"}


MODES = """
function Start()
  mode = (IsServerMode() and "server" or "client") .. "/" .. tostring(IsNetworkMode()) .. "/" .. GetRuntimeMode()
    .. "/" .. tostring(IsClientMode())
end
"""


def test_is_server_mode_is_true_on_the_server_role_only(make_game: Callable[..., Path]) -> None:
    _, reqs = run(make_game(MODES), """
    local h = harness
    h.start()
    requirement("R1", {}, function(check)
      check.equal("server", h.global("mode"), "server/true/server/false")
      check.equal("client", h.role("client1").global("mode"), "client/true/client/true")
    end)
    """, clients=1)
    assert checks(reqs) == {"server": "server/true/server/false", "client": "client/true/client/true"}
    standalone = Engine(make_game(MODES))   # a standalone run is a client, UrhoX's only other runtime mode
    standalone.start()
    assert standalone.E.harness["global"]("mode") == "client/false/client/true"


TYPED = """
got = ""
local function describe(d)
  local b = d["Blob"]:GetBuffer()
  return table.concat({
    d["I"]:GetTypeName(), tostring(d["I"]:GetInt()), d["F"]:GetTypeName(), string.format("%.17g", d["F"]:GetFloat()),
    d["S"]:GetString(), tostring(d["B"]:GetBool()), tostring(d["V2"]:GetVector2()), tostring(d["V3"]:GetVector3()),
    tostring(d["Q"]:GetQuaternion()), tostring(d["C"]:GetColor()), tostring(d["IV"]:GetIntVector2()),
    tostring(b:GetSize()), tostring(b:ReadUByte()), tostring(b:ReadInt()), tostring(b:ReadUByte()),
    d["Nested"]:GetVariantMap()["Deep"]:GetString()}, ";")
end
function Start()
  network:RegisterRemoteEvent("Typed")
  network:RegisterRemoteEvent("Echo")
  if IsServerMode() then
    network:StartServer(1)
    SubscribeToEvent("Typed", function(_, d)
      got = describe(d)
      local conn = d["Connection"]:GetPtr("Connection")
      local out = VariantMap(d)
      out["Connection"] = nil
      conn:SendRemoteEvent("Echo", true, out)
    end)
  else
    SubscribeToEvent("Echo", function(_, d) got = describe(d) end)
    SubscribeToEvent("ServerConnected", function()
      local m = VariantMap()
      m["I"] = -123456789012
      m["F"] = 0.1
      m["S"] = "héllo\\0world"
      m["B"] = true
      m["V2"] = Vector2(1.5, -2)
      m["V3"] = Vector3(1, 2, 3.25)
      m["Q"] = Quaternion(0.5, 0.5, 0.5, 0.5)
      m["C"] = Color(1, 0.5, 0.25, 0.75)
      m["IV"] = IntVector2(7, -8)
      local buf = VectorBuffer()
      buf:WriteUByte(255); buf:WriteInt(42); buf:WriteUByte(0)
      m["Blob"] = buf
      local nested = VariantMap(); nested["Deep"] = "inside"
      m["Nested"] = nested
      network:GetServerConnection():SendRemoteEvent("Typed", true, m)
    end)
  end
end
"""


def test_remote_events_carry_typed_payloads_both_ways(make_game: Callable[..., Path]) -> None:
    engine, reqs = run(make_game(TYPED), """
    local h = harness
    h.start(); h.run(0.3)
    requirement("R1", {}, function(check)
      check.equal("server got", h.global("got"), h.role("client1").global("got"))
    end)
    """, clients=1)
    server_got = engine.E.harness["global"]("got")
    assert server_got == ("Int;-123456789012;Float;0.10000000000000001;héllo\0world;true;1.5 -2;1 2 3.25;"
                          "0.5 0.5 0.5 0.5;1 0.5 0.25 0.75;7 -8;6;255;42;0;inside")
    assert reqs[0]["checks"][0]["passed"], reqs


EVENTS = """
seq = ""
local function note(name) return function() seq = seq .. name .. "," end end
function Start()
  scene_ = Scene()
  for _, e in ipairs({"ClientConnected", "ClientIdentity", "ClientSceneLoaded", "ClientDisconnected",
                      "ServerConnected", "ServerDisconnected", "ConnectFailed", "NetworkReconnecting",
                      "NetworkReconnected"}) do
    SubscribeToEvent(e, note(e))
  end
  if IsServerMode() then
    network:StartServer(7)
    SubscribeToEvent("ClientConnected", function(_, d)
      seq = seq .. "ClientConnected,"
      d["Connection"]:GetPtr("Connection").scene = scene_
    end)
    SubscribeToEvent("ClientIdentity", function(_, d)
      local name = d["Name"] and d["Name"]:GetString() or ""
      seq = seq .. "ClientIdentity(" .. name .. "),"
      if name == "banned" then d["Allow"] = false end
    end)
  else
    SubscribeToEvent("KeyDown", function() network:Disconnect() end)
  end
end
"""


def test_connection_events_come_in_urho3d_order(make_game: Callable[..., Path]) -> None:
    game = make_game(EVENTS.replace("""  else
    SubscribeToEvent("KeyDown\"""", """  else
    local id = VariantMap(); id["Name"] = "player"
    network:Connect("localhost", 7, scene_, id)
    local c = network:GetServerConnection()
    pending = tostring(c.connectPending) .. "/" .. tostring(c.connected)
    SubscribeToEvent("KeyDown\""""))
    _, reqs = run(game, """
    local h = harness
    h.start(); h.run(0.5)
    local c1 = h.role("client1")
    local before = {h.global("seq"), c1.global("seq"), c1.network().server_connection.scene_loaded,
                    #h.network().connections}
    c1.key_down(KEY_SPACE); h.run(0.2)
    local after = {h.global("seq"), c1.global("seq"), #h.network().connections}
    requirement("R1", {}, function(check)
      check.equal("server before", before[1], "ClientConnected,ClientIdentity(player),ClientSceneLoaded,")
      check.equal("client before", before[2], "ServerConnected,")
      check.equal("scene loaded", before[3], true)
      check.equal("pending while connecting", c1.global("pending"), "true/false")
      check.equal("one client", before[4], 1)
      check.equal("server after", after[1],
        "ClientConnected,ClientIdentity(player),ClientSceneLoaded,ClientDisconnected,")
      check.equal("client after", after[2], "ServerConnected,ServerDisconnected,")
      check.equal("no client", after[3], 0)
    end)
    """, clients=1)
    failed = [c for c in reqs[0]["checks"] if not c["passed"]]
    assert not failed, failed


def test_a_lost_link_is_heard_on_both_ends_and_a_reconnect_joins_again(make_game: Callable[..., Path]) -> None:
    _, reqs = run(make_game(EVENTS), """
    local h = harness
    h.start(); h.run(0.3)
    h.disconnect("client2"); h.run(0.2)
    local mid = {h.global("seq"), h.role("client2").global("seq"), h.role("client1").global("seq")}
    h.reconnect("client2"); h.run(0.3)
    requirement("R1", {}, function(check)
      check.equal("server", mid[1], "ClientConnected,ClientConnected,ClientIdentity(),ClientIdentity(),"
        .. "ClientSceneLoaded,ClientSceneLoaded,ClientDisconnected,")
      check.equal("client2", mid[2], "ServerConnected,ServerDisconnected,")
      check.equal("client1 untouched", mid[3], "ServerConnected,")
      check.equal("client2 again", h.role("client2").global("seq"),
        "ServerConnected,ServerDisconnected,NetworkReconnecting,ServerConnected,NetworkReconnected,")
      check.equal("server again", #h.network().connections, 2)
    end)
    """)
    failed = [c for c in reqs[0]["checks"] if not c["passed"]]
    assert not failed, failed


def test_an_identity_the_server_refuses_is_disconnected_and_no_server_means_connect_failed(
        make_game: Callable[..., Path]) -> None:
    banned = EVENTS.replace("""  else
    SubscribeToEvent("KeyDown\"""", """  else
    local id = VariantMap(); id["Name"] = "banned"
    network:Connect("localhost", 7, scene_, id)
    SubscribeToEvent("KeyDown\"""")
    _, reqs = run(make_game(banned), """
    local h = harness
    h.start(); h.run(0.5)
    requirement("R1", {}, function(check)
      check.equal("client", h.role("client1").global("seq"), "ServerConnected,ServerDisconnected,")
      check.equal("server", #h.network().connections, 0)
    end)
    """, clients=1)
    assert all(c["passed"] for c in reqs[0]["checks"]), reqs
    no_server = EVENTS.replace("network:StartServer(7)", "")
    _, reqs = run(make_game(no_server), """
    local h = harness
    h.start(); h.run(0.3)
    requirement("R1", {}, function(check) check.equal("client", h.role("client1").global("seq"), "ConnectFailed,") end)
    """, clients=1)
    assert all(c["passed"] for c in reqs[0]["checks"]), reqs


REPLICATED = """
local players = {}
myNodeId = 0
function Start()
  scene_ = Scene()
  scene_:CreateComponent("Octree", LOCAL)
  network:RegisterRemoteEvent("ClientObjectID")
  if IsServerMode() then
    network:StartServer(2345)
    local floor = scene_:CreateChild("Floor")
    floor.position = Vector3(0, -0.5, 0)
    floor.scale = Vector3(20, 1, 20)
    local sm = floor:CreateComponent("StaticModel")
    sm.model = cache:GetResource("Model", "Models/Box.mdl")
    sm.material = cache:GetResource("Material", "Materials/Stone.xml")
    local light = scene_:CreateChild("Light")
    light:CreateComponent("Light").color = Color(1, 0.5, 0.25, 1)
    local label = scene_:CreateChild("Label")
    label:CreateComponent("Text3D").text = "Arena"
    label:SetVar("round", Variant(3))
    local crate = scene_:CreateChild("Crate")
    crate.position = Vector3(0, 5, 0)
    crate:CreateComponent("RigidBody").mass = 1
    crate:CreateComponent("CollisionShape"):SetBox(Vector3(1, 1, 1))
    scene_:CreateComponent("PhysicsWorld", LOCAL)
    local secret = scene_:CreateChild("ServerOnly", LOCAL)
    secret:CreateChild("UnderLocal")
    SubscribeToEvent("ClientConnected", function(_, d)
      local conn = d["Connection"]:GetPtr("Connection")
      local node = scene_:CreateChild("Player_" .. conn:GetAddress())
      node.position = Vector3(#players * 2, 0, 0)
      node:CreateComponent("StaticModel").model = cache:GetResource("Model", "Models/Sphere.mdl")
      conn.scene = scene_
      players[#players + 1] = {conn = conn, node = node}
      local m = VariantMap(); m["ID"] = node.ID
      conn:SendRemoteEvent("ClientObjectID", true, m)
    end)
    SubscribeToEvent("ClientDisconnected", function(_, d)
      local conn = d["Connection"]:GetPtr("Connection")
      for i, p in ipairs(players) do
        if p.conn == conn then p.node:Remove(); table.remove(players, i); break end
      end
    end)
    SubscribeToEvent("Update", function(_, d)
      local dt = d["TimeStep"]:GetFloat()
      for _, p in ipairs(players) do
        local c = p.conn.controls
        if c:IsDown(1) then p.node:Translate(Vector3(2 * dt, 0, 0)) end
        p.node.rotation = Quaternion(c.yaw, Vector3.UP)
      end
    end)
  else
    scene_:CreateChild("ClientLocal", LOCAL)
    SubscribeToEvent("ClientObjectID", function(_, d) myNodeId = d["ID"]:GetInt() end)
    SubscribeToEvent("Update", function()
      local c = network:GetServerConnection()
      if c == nil then return end
      local ct = Controls()
      ct:Set(1, input:GetKeyDown(KEY_D))
      ct.yaw = 30
      c.controls = ct
    end)
  end
end
"""


def test_a_replicated_scene_reaches_clients_and_a_client_drives_its_own_object(make_game: Callable[..., Path]) -> None:
    _, reqs = run(make_game(REPLICATED), """
    local h = harness
    h.start(); h.run(0.5)
    local c1, c2 = h.role("client1"), h.role("client2")
    requirement("R1", {}, function(check)
      local floor, cfloor = h.find("Floor"), c1.find("Floor")
      check.equal("floor id", cfloor.id, floor.id)
      check.near("floor scale", cfloor.scale, Vector3(20, 1, 20), 0)
      check.near("floor position", cfloor.position, Vector3(0, -0.5, 0), 0)
      check.equal("model", cfloor:component("StaticModel"):get("Model"):GetName(), "Models/Box.mdl")
      check.equal("material", cfloor:component("StaticModel"):call("GetMaterial", 0):GetName(), "Materials/Stone.xml")
      check.equal("light", tostring(c2.find("Light"):component("Light"):get("Color")), "1 0.5 0.25 1")
      check.equal("text", c1.find("Label"):component("Text3D"):get("Text"), "Arena")
      check.equal("var", c1.find("Label"):var("round"), 3)
      check.equal("local node stays", c1.find("ServerOnly"), nil)
      check.equal("nor what is under it", c1.find("UnderLocal"), nil)
      check.equal("client's own local node", c1.find("ClientLocal") ~= nil, true)
      check.equal("object id", c1.global("myNodeId"), h.find("Player_client1").id)
      check.near("falling crate", c1.find("Crate").position.y, h.find("Crate").position.y, 0)
      check.less("it fell", h.find("Crate").position.y, 5)
      check.near("crate velocity", c1.find("Crate"):component("RigidBody"):get("LinearVelocity"),
        h.find("Crate"):component("RigidBody"):get("LinearVelocity"), 0)
    end)
    c1.key_down(KEY_D); h.run(1.0); c1.key_up(KEY_D); h.run(0.2)
    requirement("R2", {}, function(check)
      local x = h.find("Player_client1").position.x
      check.greater("moved on the server", x, 1.5)
      check.near("client1 sees it", c1.find("Player_client1").position.x, x, 0)
      check.near("client2 sees it", c2.find("Player_client1").position.x, x, 0)
      check.near("client2's own did not move", h.find("Player_client2").position.x, 2, 0)
      check.near("yaw from controls", c2.find("Player_client1").rotation, Quaternion(30, Vector3.UP), 1e-9)
    end)
    h.disconnect("client2"); h.run(0.2)
    requirement("R3", {}, function(check)
      check.equal("gone on the server", h.find("Player_client2"), nil)
      check.equal("gone on client1", c1.find("Player_client2"), nil)
    end)
    """)
    failed = [c for r in reqs for c in r["checks"] if not c["passed"]]
    assert not failed, failed


def test_a_client_role_reaches_nothing_of_the_server_but_the_network(make_game: Callable[..., Path]) -> None:
    game = make_game("""
    function Start()
      if IsServerMode() then secret = "server-only"; network:StartServer(1) end
    end
    function Probe()
      local found = {}
      local seen = {}
      local function walk(t, path, depth)
        if seen[t] or depth > 6 then return end
        seen[t] = true
        for k, v in pairs(t) do
          local tv = type(v)
          if tv == "userdata" then found[#found + 1] = path .. "." .. tostring(k) end
          if tv == "table" then walk(v, path .. "." .. tostring(k), depth + 1) end
          local mt = getmetatable(v)
          if type(mt) == "table" then walk(mt, path .. "." .. tostring(k) .. "<mt>", depth + 1) end
        end
      end
      walk(_G, "_G", 0)
      return #found .. ":" .. tostring(secret) .. ":" .. tostring(rawget(_G, "E")) .. ":" .. tostring(python)
        .. ":" .. tostring(rawget(_G, "host")) .. ":" .. tostring(#network:GetClientConnections())
    end
    SubscribeToEvent("KeyDown", function() probe = Probe() end)
    """)
    _, reqs = run(game, """
    local h = harness
    h.start(); h.run(0.2)
    local c1 = h.role("client1")
    c1.key_down(KEY_P); h.run_frames(1)
    requirement("R1", {}, function(check)
      check.equal("probe", c1.global("probe"), "0:nil:nil:nil:nil:0")
      check.equal("server's secret", h.global("secret"), "server-only")
    end)
    """, clients=1)
    assert checks(reqs) == {"probe": "0:nil:nil:nil:nil:0", "server's secret": "server-only"}


def test_a_battery_cannot_step_a_client_alone_nor_name_an_unknown_role(make_game: Callable[..., Path]) -> None:
    _, reqs = run(make_game(MODES), """
    local h = harness
    h.start()
    requirement("R1", {}, function(check)
      check.equal("no run", h.role("client1").run, nil)
      check.contains("unknown role", select(2, pcall(h.role, "client9")), "no role named 'client9'")
      check.contains("read-only", select(2, pcall(function() h.role("client1").x = 1 end)), "read-only")
    end)
    """, clients=1)
    failed = [c for c in reqs[0]["checks"] if not c["passed"]]
    assert not failed, failed


def test_h_role_needs_roles(make_game: Callable[..., Path]) -> None:
    engine = Engine(make_game(MODES))
    assert engine.run_battery("""
    harness.start()
    requirement("R1", {}, function(check)
      check.contains("standalone", select(2, pcall(harness.role, "client1")), "this run has no roles")
      check.equal("no roles", #harness.roles(), 0)
    end)""", "b.lua")
    assert all(c["passed"] for c in engine.requirements()[0]["checks"])


def test_a_client_error_is_reported_with_its_role(make_game: Callable[..., Path]) -> None:
    engine = Engine(make_game("""
    function Start() if not IsServerMode() then SubscribeToEvent("Update", function() error("boom") end) end end
    """), EngineSettings(net_clients=1))
    engine.start()
    engine.run_frames(2)
    report = engine.report()
    assert report.outcome == "lua_error"
    assert {e["phase"] for e in report.errors} == {"client1:Update"}
    assert "boom" in report.errors[0]["message"]


@pytest.mark.parametrize("bad", [-1, 9])
def test_a_bad_client_count_is_refused(make_game: Callable[..., Path], bad: int) -> None:
    from engine import BadInputError

    with pytest.raises(BadInputError, match="net_clients"):
        Engine(make_game(MODES), EngineSettings(net_clients=bad))


def test_a_late_client_starts_when_the_battery_joins_it_and_gets_the_match_as_it_stands(
        make_game: Callable[..., Path]) -> None:
    """[network] late_clients: client2 is not stepped and hears nothing until h.join; then its Start() runs, its
    frames count from 0, it connects and receives the replicated scene as it stands, and the chat reaches it."""
    game = make_game(REPLICATED)
    engine = Engine(game, EngineSettings(net_clients=2, net_late_clients=1))
    assert engine.run_battery("""
    local h = harness
    h.start(); h.run(1.0)
    local c1, c2 = h.role("client1"), h.role("client2")
    local before = {frame = c2.frame(), crate = c2.find("Crate"), mine = h.find("Player_client2")}
    local late_failed = not pcall(h.join, "client1")
    local crate_y = h.find("Crate").position.y
    h.join("client2"); h.run(0.5)
    requirement("R1", {}, function(check)
      check.equal("not stepped before joining", before.frame, 0)
      check.equal("no scene before joining", before.crate, nil)
      check.equal("no player before joining", before.mine, nil)
      check.equal("only late clients join", late_failed, true)
      check.equal("its own frames from the join", c2.frame(), 30)
      check.equal("the server's", h.frame(), 90)
      check.truthy("it joined: its player", h.find("Player_client2") ~= nil)
      check.near("the crate as it stands", c2.find("Crate").position.y, h.find("Crate").position.y, 0)
      check.less("which had fallen before it joined", h.find("Crate").position.y, crate_y + 1e-9)
      check.equal("client1 sees the newcomer", c1.find("Player_client2") ~= nil, true)
    end)
    """, "battery/main.lua")
    failed = [c for r in engine.requirements() for c in r["checks"] if not c["passed"]]
    assert not failed, failed
    assert engine.report().outcome == "clean"


def test_a_run_with_roles_is_bit_identical_across_processes(make_game: Callable[..., Path], tmp_path: Path) -> None:
    game = make_game(REPLICATED)
    battery = tmp_path / "main.lua"
    battery.write_text("""
    local h = harness
    h.start(); h.run(0.5)
    local c1 = h.role("client1")
    c1.key_down(KEY_D); h.run(0.5); c1.key_up(KEY_D)
    h.disconnect("client2"); h.run(0.3); h.reconnect("client2"); h.run(0.5)
    requirement("R1", {}, function(check)
      check.equal("x", h.role("client2").find("Player_client1").position.x, h.find("Player_client1").position.x)
      check.equal("crate", c1.find("Crate").position.y, h.find("Crate").position.y)
    end)
    """)
    request = RunRequest(game_dir=str(game), battery=str(battery), settings={"net_clients": 2})
    digests = set()
    for start in ("cold", "prebooted", "cold"):
        report = run_in_subprocess(request, start=start)
        assert report["outcome"] == "clean", report["errors"]
        assert report["requirements"][0]["passed"], report["requirements"]
        digests.add(run_evidence(report)["digest"])
    assert len(digests) == 1


UPDATES = """
updates, sent = 0, 0
function Start()
  if IsServerMode() then network:StartServer(1) end
  SubscribeToEvent("NetworkUpdate", function() updates = updates + 1 end)
  SubscribeToEvent("NetworkUpdateSent", function() sent = sent + 1 end)
end
"""


def test_network_updates_come_at_the_update_rate_in_runs_with_roles_only(make_game: Callable[..., Path]) -> None:
    game = make_game(UPDATES)
    engine = Engine(game, EngineSettings(net_clients=1))
    engine.start()
    engine.run_frames(60)
    assert (engine.E.harness["global"]("updates"), engine.E.harness["global"]("sent")) == (30, 30)
    client = engine.net.clients["client1"] if engine.net else None
    assert client is not None and client.E.harness["global"]("updates") == 30
    standalone = Engine(game)
    standalone.start()
    standalone.run_frames(60)
    assert standalone.E.harness["global"]("updates") == 0


def test_what_waits_to_be_sent_is_bounded(make_game: Callable[..., Path]) -> None:
    engine = Engine(make_game("""
    function Start()
      network:RegisterRemoteEvent("Big")
      if IsServerMode() then network:StartServer(1); return end
      SubscribeToEvent("ServerConnected", function()
        local m = VariantMap(); m["S"] = string.rep("x", 10000)
        for _ = 1, 20 do network:GetServerConnection():SendRemoteEvent("Big", true, m) end
      end)
    end
    """), EngineSettings(net_clients=1))
    assert engine.net is not None
    engine.net.clients["client1"].E.NET_MAX_WAITING = 100_000   # 16 MiB in a run; a smaller bound to test it
    engine.start()
    engine.run_frames(4)
    errors = engine.report().errors
    assert [e["phase"] for e in errors] == ["client1:ServerConnected"]
    assert "bytes of network messages waiting" in errors[0]["message"]


def test_a_roles_simulated_latency_delays_what_it_sends(make_game: Callable[..., Path]) -> None:
    """SetSimulatedLatency (ms) delays every message the role sends by whole frames (100 ms: 6 at 60 fps), as
    RakNet's network simulator delays a peer's packets; the server's own sends are not delayed."""
    game = make_game(CHAT.replace('function Start()\n', 'function Start()\n'
                                  '  if IsClientMode() then network.simulatedLatency = 100 end\n'
                                  '  latency_read = network:GetSimulatedLatency()\n', 1))
    _, reqs = run(game, """
    local h = harness
    h.start(); h.run(0.5)
    local c1 = h.role("client1")
    c1.key_down(KEY_H); h.run_frames(1); c1.key_up(KEY_H)
    h.run(0.5)
    requirement("R1", {}, function(check)
      check.equal("six frames later", c1.global("lines"), "[41]client1: hello from me")
      check.equal("read back", c1.global("latency_read"), 100)
    end)
    """)
    assert all(c["passed"] for c in reqs[0]["checks"]), reqs


def test_a_full_server_refuses_the_next_client(make_game: Callable[..., Path]) -> None:
    game = make_game(CHAT.replace("network:StartServer(2345)", "network:StartServer(2345, 1)"))
    engine, _ = run(game, "harness.start(); harness.run(0.5)")
    messages = [(e.get("role"), e["message"]) for e in engine.report().log]
    assert (None, "Client client1:2345 connected") in messages
    assert ("client2", "Failed to connect to server") in messages
    assert (None, "Client client2:2345 connected") not in messages


@pytest.mark.parametrize(("settings", "joined", "warnings"), [
    ('{"@runtime": {"multiplayer": {"enabled": true, "max_players": 2}}}', 2, 1),   # one refusal
    ('{"@runtime": {"multiplayer": {"enabled": true, "max_players": 1}}}', 1, 2),   # two refusals
    ('{"@runtime": {"multiplayer": {"enabled": true}}}', 3, 0),
    ('{"@runtime": {"multiplayer": {"max_players": "two"}}}', 3, 1),               # unusable
    ("not json", 3, 1),
])
def test_the_projects_max_players_caps_the_match(make_game: Callable[..., Path], settings: str, joined: int,
                                                 warnings: int) -> None:
    """`.project/settings.json`'s @runtime.multiplayer.max_players is the match's size: the clients beyond it get
    ConnectFailed; a missing or unusable value sets no cap (and an unusable one is a warning)."""
    game = make_game(CHAT, {".project/settings.json": settings})
    engine, _ = run(game, "harness.start(); harness.run(0.5)", clients=3)
    log = [(e.get("role"), e["level"], e["message"]) for e in engine.report().log]
    connected = [m for role, _, m in log if role is None and m.endswith(":2345 connected")]
    assert connected == [f"Client client{i}:2345 connected" for i in range(1, joined + 1)]
    failed = [role for role, _, m in log if m == "Failed to connect to server"]
    assert failed == [f"client{i}" for i in range(joined + 1, 4)]
    warned = [m for role, level, m in log if role is None and level == "WARNING" and "max_players" in m]
    assert len(warned) == warnings, warned


def test_nat_punch_through_fails_as_without_a_nat_master(make_game: Callable[..., Path]) -> None:
    """No NAT master is reachable from a grading run: StartNATClient and AttemptNATPunchtrough end in Urho3D's
    failure events at the next frame; StartNATClient without the server's info logs Urho3D's error."""
    engine = Engine(make_game("""
    seen = {}
    function Start()
      network:StartNATClient()
      network:SetNATServerInfo("nat.example.com", 61111)
      SubscribeToEvent("NetworkNatMasterConnectionFailed", function()
        seen[#seen + 1] = "master " .. time:GetFrameNumber()
      end)
      SubscribeToEvent("NetworkNatPunchtroughFailed", function(_, d)
        seen[#seen + 1] = "punch " .. d["Address"]:GetString() .. ":" .. d["Port"]:GetInt()
      end)
      network:StartNATClient()
      network:AttemptNATPunchtrough(network:GetGUID())
    end
    """))
    engine.start()
    engine.run_frames(3)
    assert list(engine.game_env.seen.values()) == ["master 1", "punch nat.example.com:61111"]
    report = engine.report()
    assert report.outcome == "clean"
    assert [e["message"] for e in report.log if e["level"] == "ERROR"] == ["NAT master server address incorrect!"]


LOSSY = """
unreliable, reliable = 0, 0
function Start()
  if IsServerMode() then
    network:StartServer(2345)
    SubscribeToEvent("NetworkMessage", function(_, d)
      if d["MessageID"]:GetInt() == 100 then unreliable = unreliable + 1 else reliable = reliable + 1 end
    end)
  else
    network.simulatedPacketLoss = 0.5
    loss_read = network.simulatedPacketLoss
    SubscribeToEvent("Update", function()
      local c = network:GetServerConnection()
      if c ~= nil and c.connected then
        c:SendMessage(100, false, false, VectorBuffer())   -- unreliable: may be lost
        c:SendMessage(101, true, true, VectorBuffer())     -- reliable: always arrives
      end
    end)
  end
end
"""


def test_simulated_packet_loss_drops_unreliable_messages_only_and_the_same_ones_every_run(
        make_game: Callable[..., Path]) -> None:
    battery = """
    local h = harness
    h.start(); h.run(2.0)
    requirement("R1", {}, function(check)
      check.truthy("counts", {h.global("reliable"), h.global("unreliable"), h.role("client1").global("loss_read")})
    end)
    """

    def counts(source: str) -> tuple[Any, ...]:
        engine, _ = run(make_game(source), battery, clients=1)
        return (lua_global(engine, "reliable"), lua_global(engine, "unreliable"),
                lua_global(engine.net.role("client1"), "loss_read"), run_evidence(engine.report().as_dict())["digest"])

    lossy, again = counts(LOSSY), counts(LOSSY)
    clean = counts(LOSSY.replace("network.simulatedPacketLoss = 0.5", "network.simulatedPacketLoss = 0"))
    assert lossy == again   # the same messages lost in every run
    assert lossy[0] == clean[0] == clean[1] > 100   # reliable ones all arrive; without loss, every one does
    assert 0.3 * clean[1] < lossy[1] < 0.7 * clean[1] and lossy[2] == 0.5 and clean[2] == 0


def lua_global(engine: Engine, name: str) -> Any:
    return engine.game_env[name]
