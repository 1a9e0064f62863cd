"""A run with roles: one server and N clients, each its own Engine (its own Lua state, sandbox and limits) running
the same game, stepped in lockstep and joined by an in-memory transport (docs/platform.md, "Roles").

The server's Engine is the run: the battery runs in it and its frame loop drives the others.  After each of the
server's frames (engine/lua/runtime/67_network.lua, `E.net_after_frame`) `NetRun.frame` takes what the server sent,
steps every client one frame in order (client1 first), takes what each sent, and hands the server what reached it.
A message sent in frame f is read by its receiver at the BeginFrame of frame f + 1 + latency (+ the sender's
SetSimulatedLatency in frames, never before what the sender sent the same receiver earlier); messages due in the
same frame are read in the order they were sent.  Only hex strings of the engine's codec (67_netcodec.lua) cross
between the states: no Lua or Python object of one role is ever handed to another.

A late client (the setting net_late_clients: the last N roles) does not start with the run: it is not stepped and
nothing reaches it until the battery joins it (`h.join`), at some server frame F.  Then its Start() runs and it
connects, as a device that opens the game then; its own frames count from 0 there, so a message due at server
frame D is read at its frame D - F.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._errors import BadInputError

if TYPE_CHECKING:
    from ._engine import Engine

SERVER = "server"
MAX_CLIENTS = 8


def client_names(count: int) -> list[str]:
    """The client roles' names: client1 ... clientN."""
    return [f"client{i}" for i in range(1, count + 1)]


def _items(table: Any) -> list[Any]:
    """A Lua array's items in index order."""
    return [table[i] for i in range(1, len(table) + 1)] if table is not None else []


class NetRun:
    """The roles of one run and the transport between them."""

    def __init__(self, server: Engine, clients: dict[str, Engine], latency_frames: int,
                 late: list[str] | None = None) -> None:
        self.server = server
        self.clients = clients
        self.latency = latency_frames
        self.link_up = {name: True for name in clients}
        self.late = set(late or [])
        self.last_due: dict[tuple[str, str], int] = {}   # (sender, receiver) -> the latest due frame sent
        # the server frame each client's frame 0 is at (late clients: where they joined); None: not joined yet
        self.started_at: dict[str, int | None] = {name: None if name in self.late else 0 for name in clients}

    def role(self, name: str) -> Engine:
        if name == SERVER:
            return self.server
        engine = self.clients.get(name)
        if engine is None:
            known = ", ".join([SERVER, *self.clients])
            raise BadInputError(f"no role named {name!r} in this run (roles: {known})")
        return engine

    def _deliver(self, engine: Engine, messages: list[dict[str, Any]]) -> None:
        if not messages:
            return
        with engine.unmetered():
            engine.E.net_deliver(engine.runtime.table_from(messages, recursive=True))

    def _to_client(self, name: str, hex_data: str, due: int) -> None:
        """A message from the server to a started client, due at server frame `due` (in the client's frames)."""
        started = self.started_at[name]
        if started is not None and self.link_up[name]:
            self._deliver(self.clients[name], [{"from": SERVER, "hex": hex_data, "due": due - started}])

    def _take(self, engine: Engine) -> list[tuple[str, str, int]]:
        with engine.unmetered():
            return [(str(m["to"]), str(m["hex"]), int(m["delay"] or 0)) for m in _items(engine.E.net_take_outbox())]

    # Called by the server's Lua after each of its frames, with what the server sent during it.
    def _due(self, sender: str, to: str, due: int, delay: Any) -> int:
        """`due` plus the sender's simulated latency (SetSimulatedLatency), never before what the sender sent to
        `to` earlier: a link delivers in the order things were sent, as RakNet's ordered channels do."""
        key = (sender, to)
        at = max(due + int(delay or 0), self.last_due.get(key, 0))
        self.last_due[key] = at
        return at

    def frame(self, server_outbox: Any) -> Any:
        due = self.server.frame + 1 + self.latency
        for item in _items(server_outbox):
            to, hex_data = str(item["to"]), str(item["hex"])
            if to in self.clients:
                self._to_client(to, hex_data, self._due(SERVER, to, due, item["delay"]))
        inbound: list[dict[str, Any]] = []
        for name, engine in self.clients.items():
            if self.started_at[name] is None:
                continue
            engine.run_frames(1)
            refused = False
            for to, hex_data, delay in self._take(engine):
                if to != SERVER:
                    continue
                if self.link_up[name]:
                    inbound.append({"from": name, "hex": hex_data, "due": self._due(name, SERVER, due, delay)})
                else:
                    refused = True
            if refused:   # no route to the server: the client hears of it (a connection attempt fails)
                self._deliver(engine, [{"from": SERVER, "hex": "", "due": due - (self.started_at[name] or 0)}])
        return self.server.runtime.table_from(inbound, recursive=True)

    def start(self) -> None:
        """Each client's Start(), in order, after the server's; then the clients that did not connect join.  Late
        clients wait for `join`."""
        starting = [name for name in self.clients if name not in self.late]
        for name in starting:
            self._start_client(name)
        # what the roles sent while starting is read in frame 1, as if sent in frame 0
        due = self.server.frame + 1 + self.latency
        for to, hex_data, delay in self._take(self.server):
            if to in self.clients:
                self._to_client(to, hex_data, self._due(SERVER, to, due, delay))
        for name in starting:
            self._deliver(self.server, [{"from": name, "hex": hex_data, "due": self._due(name, SERVER, due, delay)}
                                        for to, hex_data, delay in self._take(self.clients[name]) if to == SERVER])

    def _start_client(self, name: str) -> None:
        engine = self.clients[name]
        engine.start()
        with engine.unmetered():
            engine.E.net_auto_connect()

    def join(self, name: str) -> None:
        """A late client starts now (its Start(), then it connects); its first frame is the server's next."""
        engine = self.role(name)
        if name not in self.late:
            late = ", ".join(sorted(self.late)) or "none"
            raise BadInputError(f"{name} is not a late client of this run (late clients: {late})")
        if self.started_at[name] is not None:
            return
        self.started_at[name] = self.server.frame
        self._start_client(name)
        due = self.server.frame + 1 + self.latency
        self._deliver(self.server, [{"from": name, "hex": hex_data, "due": self._due(name, SERVER, due, delay)}
                                    for to, hex_data, delay in self._take(engine) if to == SERVER])

    def disconnect(self, name: str) -> None:
        """The link to client `name` is lost: both ends hear it at their next frame; nothing gets through until
        `reconnect`."""
        engine = self.role(name)
        if name == SERVER or not self.link_up[name]:
            return
        self.link_up[name] = False
        due = self.server.frame + 1
        started = self.started_at[name]
        if started is not None:
            self._deliver(engine, [{"from": SERVER, "hex": "", "due": due - started}])
            self._deliver(self.server, [{"from": name, "hex": "", "due": due}])

    def reconnect(self, name: str) -> None:
        """The link to client `name` is back, and the client connects again as it last did."""
        engine = self.role(name)
        if name == SERVER:
            return
        self.link_up[name] = True
        if self.started_at[name] is None:
            return   # a late client not joined yet connects when it joins
        with engine.unmetered():
            engine.E.net_reconnect()

    def call(self, name: str, request: str) -> str:
        """A battery's operation on another role's harness (engine/lua/harness.lua, h.role): hex in, hex out."""
        engine = self.role(name)
        with engine.unmetered():
            return str(engine.E.xrole_op(request))

    def reports(self) -> dict[str, Any]:
        return {name: engine.report() for name, engine in self.clients.items()}
