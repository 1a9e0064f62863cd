"""The network subsystem of a standalone run: a process with no peers keeps Urho3D's state and answers."""

from __future__ import annotations

import pytest
from lupa import LuaError

from engine.testing import lua


def test_remote_event_registration_is_remembered_by_name_or_hash() -> None:
    assert lua("""
    network:RegisterRemoteEvent("PlayerShot")
    network:RegisterRemoteEvent(StringHash("Hello"))
    local before = {network:CheckRemoteEvent("PlayerShot"), network:CheckRemoteEvent(StringHash("PlayerShot")),
                    network:CheckRemoteEvent("Hello"), network:CheckRemoteEvent("Nope")}
    network:UnregisterRemoteEvent("PlayerShot")
    local after = network:CheckRemoteEvent("PlayerShot")
    network:UnregisterAllRemoteEvents()
    return before, after, network:CheckRemoteEvent("Hello")
    """) == [[True, True, True, False], False, False]


def test_a_server_runs_alone_and_a_connection_cannot_start() -> None:
    assert lua("""
    local started, running = network:StartServer(2345), network.serverRunning
    local again = network:StartServer(2345)
    local connected = network:Connect("127.0.0.1", 2345, nil)
    local clients = #network:GetClientConnections()
    local server = network:GetServerConnection() == nil
    network:StopServer()
    return started, running, again, connected, clients, server, network:IsServerRunning()
    """) == [True, True, True, False, 0, True, False]


def test_settings_round_trip_and_remote_events_reach_nobody() -> None:
    assert lua("""
    network.updateFps = 20
    network:SetSimulatedLatency(40)
    network:BroadcastRemoteEvent("Hello", true, VariantMap())
    return network:GetUpdateFps(), network.simulatedLatency, GetNetwork() == network
    """) == [20, 40, True]


def test_an_event_type_must_be_a_name_or_a_hash() -> None:
    with pytest.raises(LuaError, match="event type"):
        lua("network:RegisterRemoteEvent(42)")
