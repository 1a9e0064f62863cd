"""Platform services as deterministic fakes: clientCloud, serverCloud, sdk, lobby, GetUserNickname and http.

Every answer arrives on a later frame (never inside the call), in call order; the world comes from the
`services` setting; every call is in the run's `platform` evidence, identical across processes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine import BadInputError, Engine, EngineSettings, RunRequest, run_evidence, run_in_subprocess
from engine._platform import ServicesError, normalize_services, services_setting
from engine.testing import lua

# A game's log: LOG gets "<frame> <text>" lines; L(...) appends one.
PRELUDE = """
LOG = {}
function L(...)
  local parts = {}
  for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
  LOG[#LOG + 1] = time:GetFrameNumber() .. " " .. table.concat(parts, " ")
end
"""

MakeEngine = Callable[..., Engine]


@pytest.fixture
def game(make_game: Callable[..., Path]) -> MakeEngine:
    """game(start_body, world=None, **settings) -> an engine whose Start() runs start_body, started."""

    def make(start_body: str, world: dict[str, Any] | None = None, extra: str = "", **settings: Any) -> Engine:
        main = PRELUDE + extra + "\nfunction Start()\n" + start_body + "\nend\n"
        engine = Engine(make_game(main), EngineSettings(services=services_setting(world or {}), **settings))
        engine.start()
        return engine

    return make


def game_log(engine: Engine) -> list[str]:
    return lua("return LOG", engine) or []


def calls(engine: Engine) -> list[dict[str, Any]]:
    return engine.report().platform["calls"]


# ---------------------------------------------------------------------------------------------------------------
# defaults and timing
# ---------------------------------------------------------------------------------------------------------------


def test_defaults_without_a_world(game: MakeEngine) -> None:
    engine = game("""
      L("ids", clientCloud.userId, lobby:GetMyUserId(), clientScore.userId, clientCloud.mapName == "")
      L("rect", sdk:GetNativeExitMenuRect())
      GetUserNickname({userIds = {clientCloud.userId}, onSuccess = function(list)
        L("nick", list[1].userId, list[1].nickname) end})
    """)
    engine.run_frames(3)
    assert game_log(engine) == ["0 ids 10001 10001 10001 true", "0 rect nil", "2 nick 10001 Player"]


def test_answers_come_on_a_later_frame_in_call_order(game: MakeEngine) -> None:
    engine = game("""
      clientCloud:SetInt("a", 1, {ok = function() L("set") end})
      clientCloud:Get("a", {ok = function(v, i) L("get", i.a) end})
      L("after the calls")
    """, world={"network": {"latency_frames": 5}})
    assert game_log(engine) == ["0 after the calls"]
    engine.run_frames(4)
    assert game_log(engine) == ["0 after the calls"]
    assert [c["outcome"] for c in calls(engine)] == ["pending", "pending"]
    engine.run_frames(1)
    assert game_log(engine) == ["0 after the calls", "5 set", "5 get 1"]
    assert [(c["seq"], c["frame"], c["due"], c["outcome"]) for c in calls(engine)] == [
        (1, 0, 5, "ok"), (2, 0, 5, "ok")]


def test_answers_arrive_after_begin_frame_and_before_update(game: MakeEngine) -> None:
    engine = game("""
      SubscribeToEvent("BeginFrame", function() if time:GetFrameNumber() == 2 then L("begin frame") end end)
      SubscribeToEvent("Update", function()
        if time:GetFrameNumber() == 2 then L("update") end
        if time:GetFrameNumber() == 1 then clientCloud:Get("k", {ok = function() L("answer") end}) end
      end)
      clientCloud:Get("k", {ok = function() L("first answer") end})
    """)
    engine.run_frames(3)
    assert game_log(engine) == ["2 begin frame", "2 first answer", "2 update", "3 answer"]


def test_an_error_in_a_callback_is_recorded_and_the_others_still_run(game: MakeEngine) -> None:
    engine = game("""
      clientCloud:Get("k", {ok = function() error("boom in ok") end})
      clientCloud:Get("k", {ok = function() L("second") end})
    """)
    engine.run_frames(2)
    report = engine.report()
    assert game_log(engine) == ["2 second"]
    assert report.outcome == "lua_error"
    assert "boom in ok" in report.errors[0]["message"]
    assert report.errors[0]["phase"] == "clientCloud:Get" and report.errors[0]["frame"] == 2


# ---------------------------------------------------------------------------------------------------------------
# clientCloud
# ---------------------------------------------------------------------------------------------------------------


def test_values_and_iscores_are_separate_and_stored_as_copies(game: MakeEngine) -> None:
    engine = game("""
      local cfg = {music = true, list = {1, 2}}
      clientCloud:Set("cfg", cfg)
      cfg.music = false                                  -- changing the table later changes nothing stored
      clientCloud:Set("name", "Ann")
      clientCloud:SetInt("gold", 10)
      clientCloud:Add("gold", -3)
      clientCloud:Add("gems", 2.9)                       -- integers, truncated like C++ does
      clientCloud:BatchGet():Key("cfg"):Key("name"):Key("gold"):Key("gems"):Key("none"):Fetch({ok = function(v, i)
        L(tostring(v.cfg.music), #v.cfg.list, v.name, i.gold, i.gems, v.gold, i.cfg, v.none, i.none)
        v.cfg.music = "changed by the game"
        clientCloud:Get("cfg", {ok = function(v2, i2) L(tostring(v2.cfg.music), next(i2)) end})
      end})
    """)
    engine.run_frames(4)
    assert game_log(engine) == ["2 true 2 Ann 7 2 nil nil nil nil", "4 true nil"]


def test_batch_set_and_delete(game: MakeEngine) -> None:
    engine = game("""
      clientCloud:BatchSet():Set("cfg", {a = 1}):SetInt("lvl", 3):Add("lvl", 2):Add("runs", 1):Save("start", {
        ok = function()
          L("saved")
          clientCloud:BatchSet():Delete("cfg"):Delete("lvl"):Save("clean", {ok = function()
            clientCloud:BatchGet():Key("cfg"):Key("lvl"):Key("runs"):Fetch({ok = function(v, i)
              L(v.cfg, i.lvl, i.runs) end})
          end})
        end})
    """)
    engine.run_frames(6)
    assert game_log(engine) == ["2 saved", "6 nil nil 1"]
    assert [c["method"] for c in calls(engine)] == ["BatchSet:Save", "BatchSet:Save", "BatchGet:Fetch"]
    assert calls(engine)[0]["args"] == '"start", {Set "cfg"; SetInt "lvl", 3; Add "lvl", 2; Add "runs", 1}'


def test_wrong_argument_types_are_lua_errors_in_the_call(game: MakeEngine) -> None:
    engine = game("""
      L(pcall(clientCloud.SetInt, clientCloud, "k", "ten"))
      L(pcall(clientCloud.Get, clientCloud, 42, {}))
      L(pcall(clientCloud.Set, clientCloud, "f", {fn = function() end}))
    """)
    log = game_log(engine)
    assert "bad argument #2 to 'SetInt' (number expected, got string)" in log[0]
    assert "bad argument #1 to 'Get' (string expected, got number)" in log[1]
    assert "clientCloud:Set: the value cannot be stored" in log[2]
    assert calls(engine) == []


RANKED = {
    "user": {"id": 50, "nickname": "Me", "iscores": {"score": 70, "runs": 4}},
    "players": [
        {"id": 30, "nickname": "Cat", "iscores": {"score": 90}, "values": {"title": "champion"}},
        {"id": 10, "nickname": "Ann", "iscores": {"score": 70, "runs": 9}},
        {"id": 20, "nickname": "Bob", "iscores": {"score": 40}},
        {"id": 40, "nickname": "Dan", "values": {"score": "not an integer"}},
    ],
}


def test_rank_lists_order_by_score_then_user_id(game: MakeEngine) -> None:
    engine = game("""
      local function show(tag) return function(list)
        local parts = {}
        for _, it in ipairs(list) do
          parts[#parts + 1] = it.userId .. ":" .. it.iscore.score .. ":" .. tostring(it.iscore.runs) .. ":"
            .. tostring(it.score.title) .. ":" .. tostring(it.player == it.userId)
        end
        L(tag, table.concat(parts, " "))
      end end
      clientCloud:GetRankList("score", 0, 10, {ok = show("desc")}, "runs", "title")
      clientCloud:GetRankList("score", 1, 2, {ok = show("page")})
      clientCloud:GetRankList("score", 0, 10, true, {ok = show("asc")})
      for _, id in ipairs({30, 10, 50, 20, 40}) do
        clientCloud:GetUserRank(id, "score", {ok = function(rank, s) L("rank", id, rank, s) end})
      end
      clientCloud:GetRankTotal("score", {ok = function(n) L("total", n) end})
    """, world=RANKED)
    engine.run_frames(2)
    assert game_log(engine) == [
        "2 desc 30:90:nil:champion:true 10:70:9:nil:true 50:70:4:nil:true 20:40:nil:nil:true",
        "2 page 10:70:nil:nil:true 50:70:nil:nil:true",
        "2 asc 20:40:nil:nil:true 10:70:nil:nil:true 50:70:nil:nil:true 30:90:nil:nil:true",
        "2 rank 30 1 90", "2 rank 10 2 70", "2 rank 50 3 70", "2 rank 20 4 40", "2 rank 40 nil nil",
        "2 total 4",
    ]


def test_a_new_score_moves_the_player_up(game: MakeEngine) -> None:
    engine = game("""
      clientCloud:SetInt("score", 95, {ok = function()
        clientCloud:GetUserRank(clientCloud.userId, "score", {ok = function(rank, s) L(rank, s) end})
      end})
    """, world=RANKED)
    engine.run_frames(4)
    assert game_log(engine) == ["4 1 95"]


# ---------------------------------------------------------------------------------------------------------------
# the world, the harness and the call log
# ---------------------------------------------------------------------------------------------------------------


BATTERY = """
local h = harness
h.cloud_set_int("coins", 12)
h.cloud_set("profile", {level = 3})
h.start()
h.run_frames(3)
local me = h.cloud()
local other = h.cloud(30)
local ranks = h.rank_list("score")
requirement("R1", function(check)
  check.equal("the game saw the seeded coins", h.global("seen"), 12)
  check.equal("the game's write reached the cloud", me.iscores.best, 77)
  check.equal("values are decoded", me.values.profile.level, 3)
  check.equal("other players are there", other.nickname, "Cat")
  check.equal("the rank list is ordered", ranks[1].user_id .. "," .. ranks[2].user_id, "30,10")
  check.equal("the current user", h.user_id(), 50)
  check.equal("calls are logged", #h.platform_calls("clientCloud"), 2)
  check.equal("nothing is pending", h.platform_pending(), 0)
end)
"""


def test_the_battery_seeds_and_inspects_the_cloud(make_game: Callable[..., Path]) -> None:
    main = """
      function Start()
        clientCloud:Get("coins", {ok = function(v, i) seen = i.coins end})
        clientCloud:SetInt("best", 77)
      end
    """
    engine = Engine(make_game(main), EngineSettings(services=services_setting(RANKED)))
    engine.run_battery(BATTERY, "battery/main.lua")
    reqs = engine.requirements()
    assert [(c["name"], c["passed"]) for c in reqs[0]["checks"] if not c["passed"]] == []
    assert reqs[0]["passed"]


def test_the_call_log_is_bounded(game: MakeEngine) -> None:
    engine = game("for i = 1, 2100 do sdk:VibrateLong() end")
    report = engine.report()
    assert len(report.platform["calls"]) == 2000 and report.platform["dropped"] == 100
    assert any("platform call log full" in e["message"] for e in report.log)
    assert report.platform["calls"][-1]["seq"] == 2000


def test_logged_arguments_are_short_sorted_and_valid_utf8(game: MakeEngine) -> None:
    engine = game(r"""
      clientCloud:Set("k", string.rep("x", 500))
      clientCloud:Set("bin", "\255\254 caf\195\169")
      clientCloud:Set("utf", "café 世界")
      clientCloud:Set("t", {b = 1, a = {2, 3}, [5] = true})
      sdk:VibrateShort({z = 1, y = {1, 2}, [3] = false, f = print})
    """)
    args = [c["args"] for c in calls(engine)]
    assert len(args[0].encode()) <= 200 and args[0].endswith("...")
    assert args[1] == '"bin", "\\xFF\\xFE caf\\xC3\\xA9"'
    assert args[2] == '"utf", "café 世界"'
    assert args[3] == '"t", {"5":true,"a":[2,3],"b":1}'   # a stored value is logged as the JSON it is stored as
    assert args[4] == "{[3]=false,f=<function>,y={1,2},z=1}"


# ---------------------------------------------------------------------------------------------------------------
# failures and limits
# ---------------------------------------------------------------------------------------------------------------


def test_injected_failures_hit_the_numbered_calls(game: MakeEngine) -> None:
    world = {"failures": [
        {"service": "clientCloud", "method": "Get", "calls": [2, 3], "code": -7, "reason": "flaky"},
        {"service": "clientCloud", "method": "SetInt", "timeout": True},
    ]}
    engine = game("""
      for i = 1, 4 do
        clientCloud:Get("k", {ok = function() L("ok", i) end, error = function(c, r) L("error", i, c, r) end})
      end
      clientCloud:SetInt("k", 1, {timeout = function() L("timeout") end})
      clientCloud:SetInt("k", 2, {error = function(c, r) L("no timeout callback", c, r) end})
      clientCloud:Get("k", {ok = function(v, i) L("stored", i.k) end})
    """, world=world)
    engine.run_frames(2)
    assert game_log(engine) == ["2 ok 1", "2 error 2 -7 flaky", "2 error 3 -7 flaky", "2 ok 4", "2 timeout",
                                "2 no timeout callback -2 timeout", "2 stored nil"]
    assert [c["outcome"] for c in calls(engine)] == ["ok", "error", "error", "ok", "timeout", "timeout", "ok"]


def test_the_documented_request_rate_is_enforced_per_simulated_minute(game: MakeEngine) -> None:
    engine = game("""
      for i = 1, 301 do
        clientCloud:SetInt("n", i, {error = function(c, r) L("refused", i, c, r) end})
      end
    """)
    engine.run_frames(2)
    assert game_log(engine) == ["2 refused 301 -429 send failed"]
    lua('clientCloud:SetInt("n", 0, {error = function() L("still refused") end})', engine)
    engine.run_frames(60 * 60 - 1)
    lua('clientCloud:SetInt("n", 0, {ok = function() L("accepted") end})', engine)
    engine.run_frames(2)
    assert game_log(engine)[1:] == ["4 still refused", f"{60 * 60 + 3} accepted"]


def test_keys_values_and_batches_are_bounded(game: MakeEngine) -> None:
    engine = game("""
      local function report(tag) return {ok = function() L(tag, "ok") end, error = function(c, r) L(tag, c, r) end} end
      clientCloud:SetInt(string.rep("k", 129), 1, report("long key"))
      clientCloud:Set("big", string.rep("x", 256 * 1024 + 1), report("big value"))
      local b = clientCloud:BatchSet()
      for i = 1, 1001 do b:SetInt("k" .. i, i) end
      b:Save("too many", report("batch"))
    """)
    engine.run_frames(2)
    assert game_log(engine) == [
        "2 long key -400 key longer than 128 bytes",
        "2 big value -413 value of 262145 bytes (most 262144)",
        "2 batch -429 more than 1000 operations in one batch",
    ]


def test_a_user_may_hold_a_bounded_number_of_keys(game: MakeEngine) -> None:
    world = {"user": {"iscores": {f"k{i}": i for i in range(1000)}}}
    engine = game("""
      clientCloud:SetInt("k1", 5, {ok = function() L("existing key ok") end})
      clientCloud:SetInt("new", 1, {error = function(c, r) L("new key", c, r) end})
    """, world=world)
    engine.run_frames(2)
    assert game_log(engine) == ["2 existing key ok", "2 new key -413 more than 1000 keys"]


# ---------------------------------------------------------------------------------------------------------------
# serverCloud
# ---------------------------------------------------------------------------------------------------------------


def test_server_cloud_shares_the_world_and_commits_whole(game: MakeEngine) -> None:
    engine = game("""
      serverCloud:Get(30, "title", {ok = function(s, i, ss) L("title", s.title, next(ss)) end})
      local ok = serverCloud:BatchCommit("buy")
      ok:MoneyAdd(50, "gold", 100):ScoreAddInt(50, "score", 5)
      local _, list_id = ok:ListAdd(50, "inv", {item = "sword"})
      ok:Commit({ok = function()
        L("bought", list_id)
        local bad = serverCloud:BatchCommit("overspend")
        bad:ScoreSetInt(50, "score", 0):MoneyCost(50, "gold", 500)
        bad:Commit({error = function(c, r)
          L("refused", c, r)
          serverCloud.money:Get(50, {ok = function(m) L("gold", m.gold) end})
          clientCloud:Get("score", {ok = function(v, i) L("score", i.score) end})
          serverCloud.list:Get(50, "inv", {ok = function(l) L("inv", #l, l[1].value.item, l[1].list_id) end})
        end})
      end})
    """, world=RANKED)
    engine.run_frames(6)
    assert game_log(engine) == ["2 title champion nil", "2 bought 1", "4 refused -402 not enough gold: 100 < 500",
                                "6 gold 100", "6 score 75", "6 inv 1 sword 1"]


def test_server_cloud_batch_get_for_several_players(game: MakeEngine) -> None:
    engine = game("""
      serverCloud:BatchGet():Player(30):Player(10):Key("score"):Key("title"):Fetch({ok = function(results)
        for _, r in ipairs(results) do L(r.userId, r.iscore.score, r.score.title) end
      end})
      serverCloud:BatchGet(10):Key("runs"):Fetch({ok = function(s, i, ss) L("single", i.runs) end})
      serverCloud:GetRankList("score", 1, 2, {ok = function(list) L("top", list[1].userId, list[2].userId) end})
      serverCloud:IsOldPlayer(30, {ok = function(old) L("old", old) end})
    """, world=RANKED | {"players": [*RANKED["players"], {"id": 60, "old": True}]})
    engine.run_frames(2)
    assert game_log(engine) == ["2 30 90 champion", "2 10 70 nil", "2 single 9", "2 top 30 10", "2 old false"]


def test_server_lists_messages_items_and_quotas(game: MakeEngine) -> None:
    engine = game("""
      local id = serverCloud.list:Add(50, "notes", "first")
      serverCloud.list:Modify(id, "edited")
      serverCloud.list:ModifyKey(id, "memo")
      serverCloud.list:GetById(id, {ok = function(items) L("list", items[1].key, items[1].value, items[1].time) end})
      serverCloud.list:Delete(99, {error = function(c, r) L("delete", c, r) end})
      serverCloud.message:Send(10, "gift", 50, {coins = 5}, {ok = function(code) L("sent", code) end})
      serverCloud.message:Get(50, "gift", false, {ok = function(msgs)
        L("inbox", #msgs, msgs[1].value.coins)
        serverCloud.message:MarkRead(msgs[1].message_id, {ok = function()
          serverCloud.message:Get(50, "gift", false, {ok = function(m) L("unread", #m) end})
        end})
      end})
      local item = serverCloud.item:Add(50, "potion", "Potion", 2, {hp = 10})
      serverCloud.item:Use(50, item, 3, {error = function(c, r) L("use", c) end})
      serverCloud.item:Use(50, item, {ok = function()
        serverCloud.item:Get(50, {ok = function(items) L("items", items[1].count) end})
      end})
      for i = 1, 3 do
        serverCloud.quota:Add(50, "daily", 1, 2, "day", 1, {ok = function() L("quota", i) end,
          error = function(c) L("quota full", i, c) end})
      end
    """, world=RANKED, epoch=1767225600 + 86400 - 10)
    engine.run_frames(6)
    assert game_log(engine) == [
        "2 list memo edited 2026-01-01 23:59:50", "2 delete -404 no list entry 99", "2 sent 0", "2 inbox 1 5",
        "2 use -402", "2 quota 1", "2 quota 2", "2 quota full 3 -402", "4 items 1", "6 unread 0"]
    # the next day (UTC, on the virtual clock: frame 600 is 10 s later) the quota starts again
    engine.run_frames(600)
    lua("""serverCloud.quota:Add(50, "daily", 2, 2, "day", 1, {ok = function() L("new day") end})""", engine)
    engine.run_frames(2)
    assert game_log(engine)[-1] == "608 new day"


# ---------------------------------------------------------------------------------------------------------------
# sdk, lobby, nicknames
# ---------------------------------------------------------------------------------------------------------------


def test_a_rewarded_ad_ends_at_its_scripted_frame_with_its_scripted_outcome(game: MakeEngine) -> None:
    world = {"ad": {"outcomes": ["cancelled", "completed", "error"], "delay_frames": 30, "message": "no fill"}}
    engine = game("""
      local function show() sdk:ShowRewardVideoAd(function(r) L(r.success, r.msg, r.extra == "") end) end
      show(); show()
      sdk.ShowRewardVideoAd(function(r) L("dot form", r.success, r.msg) end)
      show()
    """, world=world)
    engine.run_frames(29)
    assert game_log(engine) == []
    engine.run_frames(1)
    assert game_log(engine) == ["30 false embed manual close true", "30 true embed success true",
                                "30 dot form false no fill", "30 false no fill true"]
    assert [c["result"] for c in calls(engine)] == ["cancelled", "completed", "error", "error"]


def test_nicknames_through_the_global_and_the_lobby_event(game: MakeEngine) -> None:
    engine = game("""
      SubscribeToEvent("UserNicknameResponse", function(t, d)
        L("event", d["RequestId"]:GetInt(), d["Success"]:GetBool(), d["Nicknames"]:GetString())
      end)
      L("request", lobby:GetUserNickname({30, "10"}))
      GetUserNickname({userIds = {20, 99}, onSuccess = function(list)
        for _, n in ipairs(list) do L(n.userId, "'" .. n.nickname .. "'") end
      end})
      GetUserNickname({userIds = {}})
    """, world=RANKED)
    engine.run_frames(2)
    assert game_log(engine) == [
        "0 request 1",
        '2 event 1 true {"nicknames":[{"nickname":"Cat","userId":30},{"nickname":"Ann","userId":10}]}',
        "2 20 'Bob'", "2 99 ''"]
    assert any("userIds is required" in e["message"] for e in engine.report().log)


def test_nickname_failures_reach_on_error(game: MakeEngine) -> None:
    engine = game("""
      GetUserNickname({userIds = {1}, onSuccess = function() L("ok") end, onError = function(c) L("error", c) end})
    """, world={"failures": [{"service": "lobby", "method": "GetUserNickname", "timeout": True}]})
    engine.run_frames(2)
    assert game_log(engine) == ["2 error -2"]


def test_sdk_odds_and_ends(game: MakeEngine) -> None:
    engine = game("""
      local r = sdk:GetNativeExitMenuRect()
      L(r.left, r.top, r.right, r.bottom)
      L(sdk:VibrateShort(), sdk:VibrateShort("heavy"), sdk:VibrateShort("bad"), sdk:VibrateLong())
      sdk:Pay("a", "b", "c")
    """, world={"sdk": {"exit_menu_rect": [0.9, 0.01, 0.99, 0.05]}})
    report = engine.report()
    assert game_log(engine) == ["0 0.9 0.01 0.99 0.05", "0 true true false true"]
    assert report.outcome == "missing_api" and report.missing_api == ["Sdk:Pay"]


# ---------------------------------------------------------------------------------------------------------------
# http
# ---------------------------------------------------------------------------------------------------------------


HTTP_WORLD = {"http": [
    {"url": "https://api.example.com/users?page=1&q=a%20b", "body": "[1,2]", "headers": {"X-Total": "2"},
     "latency_frames": 4},
    {"method": "POST", "prefix": "https://api.example.com/login", "status": 401, "times": 1},
    {"method": "POST", "prefix": "https://api.example.com/login", "body": "{\"token\":\"t\"}"},
    {"url": "https://down.example.com/", "error": "connection refused"},
    {"url": "https://slow.example.com/", "latency_frames": 100},
]}


def test_http_answers_from_scripted_responses(game: MakeEngine) -> None:
    engine = game("""
      local function on_error(tag) return function(c, code, e) L(tag, "error", code, e) end end
      http:Create():SetUrl("https://api.example.com/users"):AddQuery("page", "1"):AddQuery("q", "a b")
        :OnSuccess(function(c, r)
          L("users", r.statusCode, r.success, r.dataAsString, r:GetHeader("x-total"), r:GetStatusText())
        end):Send()
      for i = 1, 2 do
        http:Create():SetUrl("https://api.example.com/login"):SetMethod(HTTP_POST):SetContentType("application/json")
          :SetBody(cjson.encode({user = "p"})):OnSuccess(function(c, r) L("login", r.dataAsString) end)
          :OnError(on_error("login")):Send()
      end
      http:Create():SetUrl("https://down.example.com/"):OnError(on_error("down")):Send()
      http:Create():SetUrl("https://unknown.example.com/x"):OnError(on_error("unknown")):Send()
      http:Create():SetUrl("https://slow.example.com/"):SetTimeout(500):OnError(on_error("slow")):Send()
      local cancelled = http:Create():SetUrl("https://api.example.com/users"):OnError(on_error("cancelled"))
      cancelled:Send()
      L("active", http.activeRequestCount)
      cancelled:Cancel()
      L("active", http:GetActiveRequestCount())
    """, world=HTTP_WORLD)
    engine.run_frames(40)
    message = "grader: no scripted response for GET https://unknown.example.com/x (the grader never uses the network)"
    assert game_log(engine) == [
        "0 active 7", "0 active 6",
        "2 login error 401 Unauthorized", '2 login {"token":"t"}', "2 down error 0 connection refused",
        f"2 unknown error 0 {message}", "4 users 200 true [1,2] 2 OK", "30 slow error 0 timeout"]
    outcomes = [(c["method"], c["outcome"]) for c in calls(engine)]
    assert outcomes == [("Send", "ok"), ("Send", "error"), ("Send", "ok"), ("Send", "error"), ("Send", "error"),
                        ("Send", "timeout"), ("Send", "cancelled")]
    assert calls(engine)[1]["args"] == '"POST", "https://api.example.com/login", "{\\"user\\":\\"p\\"}"'
    assert any(message in e["message"] for e in engine.report().log)


def test_urho3d_http_requests_read_the_scripted_answers_as_a_stream(game: MakeEngine) -> None:
    """Network:MakeHttpRequest (Urho3D's own client, sample 43) answers from the same rules: INITIALIZING until the
    answer's frame, then the body read as a Deserializer (OPEN while bytes remain, CLOSED after), or ERROR with
    the reason for a failure, an `error` rule or no rule."""
    engine = game("""
      local ok = network:MakeHttpRequest("https://api.example.com/users?page=1&q=a%20b")
      local down = network:MakeHttpRequest("https://down.example.com/", "", {}, "")
      local none = network:MakeHttpRequest("https://nowhere.example.com/", "POST", {"X-A: 1"}, "k=v")
      L("made", ok.URL, ok.verb, none.verb, ok.state, ok.availableSize, ok:IsEof())
      SubscribeToEvent("Update", function()
        if ok.state == HTTP_OPEN then
          L("ok", ok.state, ok.availableSize, ok:ReadByte(), ok:ReadLine(), ok.availableSize, ok.state, ok:IsEof())
        end
        for _, r in ipairs({down, none}) do
          if r.state == HTTP_ERROR and not r.told then r.told = true; L("error", r.verb, r.error) end
        end
      end)
    """, world=HTTP_WORLD)
    engine.run_frames(8)
    message = "grader: no scripted response for POST https://nowhere.example.com/ (the grader never uses the network)"
    assert game_log(engine) == [
        "0 made https://api.example.com/users?page=1&q=a%20b GET POST 0 0 false",
        "2 error GET connection refused", f"2 error POST {message}", "4 ok 2 5 91 1,2] 0 3 true"]
    assert [(c["method"], c["outcome"], c["args"]) for c in calls(engine)] == [
        ("MakeHttpRequest", "ok", '"GET", "https://api.example.com/users?page=1&q=a%20b"'),
        ("MakeHttpRequest", "error", '"GET", "https://down.example.com/"'),
        ("MakeHttpRequest", "error", '"POST", "https://nowhere.example.com/", "k=v"')]


# ---------------------------------------------------------------------------------------------------------------
# the world's format, the setting, determinism, the sandbox
# ---------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("world", "message"), [
    ({"colour": 1}, "unknown key 'colour'"),
    ({"user": {"id": "x"}}, "field 'user.id' must be an integer"),
    ({"players": [{"nickname": "x"}]}, "missing field 'players[1].id'"),
    ({"players": [{"id": 10001}]}, "repeats the id 10001 of user.id"),
    ({"user": {"iscores": {"gold": 1.5}}}, "field 'user.iscores.gold' must be an integer"),
    ({"user": {"values": {"": 1}}}, "bad key ''"),
    ({"network": {"latency_frames": 0}}, "field 'network.latency_frames' must be between 1"),
    ({"ad": {"outcomes": ["skipped"]}}, "field 'ad.outcomes[1]' must be one of completed, cancelled"),
    ({"http": [{"method": "GET"}]}, "http[1] needs exactly one of 'url'"),
    ({"http": [{"url": "u", "error": "x", "status": 200}]}, "'error' (a network failure) excludes 'status'"),
    ({"failures": [{"service": "cloud"}]}, "field 'failures[1].service' must be one of"),
    ({"sdk": {"exit_menu_rect": [0, 0, 2, 1]}}, "field 'sdk.exit_menu_rect' must be"),
])
def test_a_bad_world_is_refused_naming_the_field(world: dict[str, Any], message: str) -> None:
    with pytest.raises(ServicesError) as err:
        normalize_services(world)
    assert message in str(err.value)


def test_the_setting_is_canonical_and_checked_by_the_engine(make_game: Callable[..., Path]) -> None:
    a = services_setting({"players": [{"id": 2, "iscores": {"b": 1, "a": 2}}], "user": {"nickname": "N"}})
    b = services_setting({"user": {"nickname": "N"}, "players": [{"iscores": {"a": 2, "b": 1}, "id": 2}]})
    assert a == b and a == services_setting(normalize_services({"user": {"nickname": "N"}, "players": [
        {"id": 2, "iscores": {"a": 2, "b": 1}}]}))
    with pytest.raises(BadInputError, match=r"setting 'services': field 'user.id' must be an integer"):
        Engine(make_game("function Start() end"), EngineSettings(services='{"user": {"id": true}}'))
    with pytest.raises(BadInputError, match="setting 'services': not JSON"):
        Engine(make_game("function Start() end"), EngineSettings(services="{"))


DETERMINISM_GAME = PRELUDE + """
function Start()
  SubscribeToEvent("Update", function()
    local f = time:GetFrameNumber()
    if f % 7 == 0 and f < 200 then
      clientCloud:SetInt("score", math.random(1, 1000), {ok = function()
        clientCloud:GetRankList("score", 0, 5, {ok = function(list) L(#list, list[1].userId) end}, "runs")
      end})
      http:Create():SetUrl("https://api.example.com/users?page=1&q=a%20b"):OnSuccess(function(c, r)
        L(r.dataAsString) end):Send()
      GetUserNickname({userIds = {30, 10}, onSuccess = function(n) L(n[1].nickname) end})
      serverCloud.list:Add(50, "log", {frame = f, t = os.time()})
    end
    if f == 100 then sdk:ShowRewardVideoAd(function(r) L(r.msg) end) end
  end)
end
"""


def test_two_processes_give_byte_identical_platform_evidence(make_game: Callable[..., Path]) -> None:
    game_dir = make_game(DETERMINISM_GAME)
    world = services_setting(RANKED | {"http": HTTP_WORLD["http"]})
    request = RunRequest(game_dir=str(game_dir), seconds=5.0, settings={"services": world})
    first, second = run_in_subprocess(request), run_in_subprocess(request)
    assert first["outcome"] == "clean"
    assert len(first["platform"]["calls"]) > 100
    assert first["platform"] == second["platform"]
    assert run_evidence(first)["digest"] == run_evidence(second)["digest"]
    other = run_in_subprocess(RunRequest(game_dir=str(game_dir), seconds=5.0,
                                         settings={"services": services_setting(RANKED)}))
    assert run_evidence(other)["digest"] != run_evidence(first)["digest"]


def test_the_fakes_reveal_nothing_of_the_engine(game: MakeEngine) -> None:
    engine = game("""
      L(getmetatable(clientCloud), getmetatable(sdk), getmetatable(http), getmetatable(serverCloud.money))
      local ok, err = pcall(clientCloud.Get, {}, "k", {})
      L(ok, err)
      clientCloud.userId = 1                            -- the game's own view only
      GetUserNickname({userIds = {1}, onSuccess = function() L(lobby:GetMyUserId()) end})
    """)
    engine.run_frames(2)
    log = game_log(engine)
    assert log[0] == "0 false false false false"
    assert "invalid 'self' in call to ClientCloud method" in log[1]
    assert log[2] == "2 10001"


def test_the_documented_world_is_valid() -> None:
    import tomllib

    text = (Path(__file__).resolve().parents[2] / "docs" / "platform.md").read_text(encoding="utf-8")
    block = text.split("```toml\n", 1)[1].split("```", 1)[0]
    world = normalize_services(tomllib.loads(block))
    assert world["user"]["iscores"] == {"high_score": 120} and world["http"][0]["times"] == 1
    assert world["players"][0]["nickname"] == "Alice" and world["failures"][0]["calls"] == [2, 3]
