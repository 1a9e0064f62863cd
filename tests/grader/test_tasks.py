"""Task loading (refusals name file and field) and hashes (independent of order, mtimes, line endings)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import services_setting
from grader.levels import engine_settings, run_l2
from grader.tasks import TaskError, battery_hash, dataset_hash, load_suite, load_task, task_hash

from .conftest import TASK_TOML


def test_a_valid_task_loads(make_task: Callable[..., Path]) -> None:
    task = load_task(make_task(), "suite")
    assert task.qualified_id == "suite/tiny"
    assert task.difficulty.value == "easy"
    assert task.limits.l2_sim_seconds == 5.0
    assert task.entry == "scripts/main.lua"
    suite = load_suite(task.paths.root.parent)
    assert [t.id for t in suite.tasks] == ["tiny"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('difficulty = "easy"', 'difficulty = "trivial"'), "field 'difficulty' must be easy, medium or hard"),
        (('title = "Tiny"\n', ""), "missing field 'title'"),
        (('category = "scene"', 'category = 7'), "field 'category' must be str"),
        (("[limits]", "colour = 1\n[limits]"), "unknown key 'colour'"),
        (("l2_sim_seconds = 5", "l2_sim_seconds = -5"), "field limits.'l2_sim_seconds' must be positive"),
        (("l2_sim_seconds = 5", "speed = 5"), "unknown key limits.'speed'"),
        (('id = "tiny"', 'id = "other"'), "but the folder is named"),
        (('required = ["scripts/*.lua"]', 'required = ["../x"]'), "outside the deliverable"),
        (('title = "Tiny"', 'title = "Tiny'), "task.toml"),
        (("[limits]", "[network]\nclients = 9\n[limits]"), "network.'clients' must be a whole number"),
        (("[limits]", "[network]\nclients = 1\nlag = 2\n[limits]"), "unknown key network.'lag'"),
        (("[limits]", "[network]\nlatency_frames = -1\n[limits]"), "field network.'latency_frames' must be"),
        (("[limits]", "[network]\nclients = 2\nlate_clients = 3\n[limits]"),
         "field network.'late_clients' must be a whole number from 0 to network.'clients' (2)"),
    ],
)
def test_bad_task_toml_is_refused_naming_the_field(make_task: Callable[..., Path], change: tuple[str, str],
                                                    message: str) -> None:
    root = make_task(task_toml=TASK_TOML.replace(*change))
    with pytest.raises(TaskError) as err:
        load_task(root)
    assert message in str(err.value)
    assert "task.toml" in str(err.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[R1]\nlayer = "polish"\ncapabilities = []\n', "field R1.'layer' must be completeness or richness"),
        ('[R1]\ncapabilities = ["Bad Tag"]\n', "field R1.capabilities has a bad tag 'Bad Tag'"),
        ('[R1]\ncapabilities = []\ncolour = 1\n', "unknown key R1.'colour'"),
        ('[R1]\ndescription = "x"\n', "missing field R1.'capabilities'"),
        ('[R1]\nlayer = "richness"\ncapabilities = []\n', "needs at least one completeness requirement"),
        ('["has space"]\ncapabilities = []\n', "requirement id 'has space' must match"),
    ],
)
def test_a_bad_requirement_manifest_is_refused_naming_the_field(make_task: Callable[..., Path], text: str,
                                                                message: str) -> None:
    with pytest.raises(TaskError) as err:
        load_task(make_task(requirements=text))
    assert message in str(err.value) and "requirements.toml" in str(err.value)


def test_the_manifest_is_part_of_the_battery_hash(make_task: Callable[..., Path]) -> None:
    root = make_task()
    task = load_task(root)
    assert [(r.id, r.layer.value, r.capabilities) for r in task.requirements] == [("R1", "completeness", ("scene",))]
    before = battery_hash(task, "1")
    (root / "battery" / "requirements.toml").write_text('[R1]\ncapabilities = ["scene", "motion"]\n')
    assert battery_hash(load_task(root), "1") != before


def test_missing_parts_are_refused(make_task: Callable[..., Path]) -> None:
    root = make_task()
    (root / "battery" / "main.lua").unlink()
    with pytest.raises(TaskError, match=r"battery/main\.lua: missing"):
        load_task(root)
    root = make_task("m")
    (root / "battery" / "requirements.toml").unlink()
    with pytest.raises(TaskError, match=r"battery/requirements\.toml: missing"):
        load_task(root)
    root = make_task("b")
    (root / "prompt.md").unlink()
    with pytest.raises(TaskError, match=r"prompt\.md: missing"):
        load_task(root)


def _hashes(root: Path) -> tuple[str, str]:
    task = load_task(root)
    return task_hash(task), battery_hash(task, "1")


def test_hashes_ignore_order_mtimes_and_crlf_checkouts(make_task: Callable[..., Path], tmp_path: Path) -> None:
    root = make_task()
    (root / "workspace" / "docs").mkdir()
    (root / "workspace" / "docs" / "b.md").write_text("line one\nline two\n")
    (root / "workspace" / "docs" / "a.md").write_text("alpha\n")
    before = _hashes(root)
    # same content, files created in another order, other mtimes, CRLF line endings, task.toml reformatted
    copy = tmp_path / "copy" / "tiny"
    copy.parent.mkdir()
    shutil.copytree(root, copy)
    for path in sorted(copy.rglob("*"), reverse=True):
        if path.is_file():
            data = path.read_bytes()
            path.unlink()
            path.write_bytes(data.replace(b"\n", b"\r\n"))
            os.utime(path, (1_000_000, 1_000_000))
    toml = copy / "task.toml"
    toml.write_text("# reformatted\n" + toml.read_text().replace(" = ", "   =   "))
    assert _hashes(copy) == before


def test_one_changed_byte_changes_the_hash(make_task: Callable[..., Path]) -> None:
    root = make_task()
    th, bh = _hashes(root)
    (root / "prompt.md").write_text("Make a Box at x = 4.\n")
    assert _hashes(root)[0] != th
    (root / "battery" / "main.lua").write_text((root / "battery" / "main.lua").read_text() + " ")
    assert _hashes(root)[1] != bh
    assert battery_hash(load_task(root), "1") != battery_hash(load_task(root), "2")


def test_dataset_hash_is_order_independent() -> None:
    rows = [("a", "1" * 64, "2" * 64), ("b", "3" * 64, "4" * 64)]
    assert dataset_hash(rows) == dataset_hash(list(reversed(rows)))
    assert dataset_hash(rows) != dataset_hash(rows[:1])


PLATFORM_TOML = """
[user]
id = 7
nickname = "Me"
iscores = { best = 40 }

[[players]]
id = 3
nickname = "Ann"
iscores = { best = 90 }
values = { title = "champion" }

[ad]
outcomes = ["cancelled"]
delay_frames = 5
"""

PLATFORM_BATTERY = """
local h = harness
h.start()
h.run_frames(10)
requirement("R1", function(check)
  check.equal("the game saw the seeded leader", h.global("leader"), "Ann")
  check.equal("the game's score is in the cloud", h.cloud().iscores.best, 95)
  check.equal("the ad was cancelled", h.global("ad"), "embed manual close")
end)
"""

PLATFORM_GAME = """function Start()
  clientCloud:GetRankList("best", 0, 1, {ok = function(list)
    GetUserNickname({userIds = {list[1].userId}, onSuccess = function(n) leader = n[1].nickname end})
  end})
  clientCloud:SetInt("best", 95)
  sdk:ShowRewardVideoAd(function(r) ad = r.msg end)
end
"""


def test_network_roles_come_from_task_toml(make_task: Callable[..., Path]) -> None:
    plain = load_task(make_task("plain"))
    assert (engine_settings(plain).net_clients, engine_settings(plain).net_latency_frames) == (0, 0)
    root = make_task(task_toml=TASK_TOML.replace("[limits]", "[network]\nclients = 3\nlatency_frames = 2\n"
                                                                "late_clients = 1\n[limits]"))
    task = load_task(root)
    assert (task.network.clients, task.network.latency_frames, task.network.late_clients) == (3, 2, 1)
    settings = engine_settings(task)
    assert (settings.net_clients, settings.net_latency_frames, settings.net_late_clients) == (3, 2, 1)
    before = task_hash(task)
    (root / "task.toml").write_text(TASK_TOML.replace("[limits]", "[network]\nclients = 2\n[limits]"))
    assert task_hash(load_task(root)) != before


def test_the_platform_world_comes_from_battery_platform_toml(make_task: Callable[..., Path]) -> None:
    plain = load_task(make_task("plain"))
    assert plain.services == "{}" and engine_settings(plain).services == "{}"
    root = make_task(battery=PLATFORM_BATTERY)
    before = battery_hash(load_task(root), "1")
    (root / "battery" / "platform.toml").write_text(PLATFORM_TOML)
    task = load_task(root)
    assert battery_hash(task, "1") != before
    assert task.services == services_setting({
        "user": {"id": 7, "nickname": "Me", "iscores": {"best": 40}},
        "players": [{"id": 3, "nickname": "Ann", "iscores": {"best": 90}, "values": {"title": "champion"}}],
        "ad": {"outcomes": ["cancelled"], "delay_frames": 5}})
    assert engine_settings(task).services == task.services
    (root / "solutions" / "oracle" / "scripts" / "main.lua").write_text(PLATFORM_GAME)
    result = run_l2(task, root / "solutions" / "oracle")
    assert result.passed, result.checks()
    evidence = result.platform
    assert [(c["service"], c["method"], c["outcome"]) for c in evidence["calls"]] == [
        ("clientCloud", "GetRankList", "ok"), ("clientCloud", "SetInt", "ok"), ("sdk", "ShowRewardVideoAd", "error"),
        ("lobby", "GetUserNickname", "ok")]


@pytest.mark.parametrize(("text", "message"), [
    ("[user]\nid = \"seven\"\n", "field 'user.id' must be an integer"),
    ("[[http]]\nmethod = \"GET\"\n", "http[1] needs exactly one of 'url'"),
    ("[network]\nlatency = 3\n", "unknown key 'network.latency'"),
    ("[user\n", "platform.toml"),
])
def test_a_bad_platform_toml_is_refused_naming_the_field(make_task: Callable[..., Path], text: str,
                                                         message: str) -> None:
    root = make_task()
    (root / "battery" / "platform.toml").write_text(text)
    with pytest.raises(TaskError) as err:
        load_task(root)
    assert message in str(err.value)
    assert "battery/platform.toml" in str(err.value)


def test_a_held_out_task_goes_by_its_hash_and_no_suite_may_take_that_name(
        make_task: Callable[..., Path]) -> None:
    root = make_task("secret-task").parent
    (root / "suite.toml").write_text('name = "vault"\nversion = "1.0.0"\nvisibility = "held-out"\n')
    (task,) = load_suite(root).tasks
    assert task.heldout and task.qualified_id == f"held-out/{task_hash(task)[:16]}"
    assert "secret-task" not in task.qualified_id and "vault" not in task.qualified_id
    (root / "suite.toml").write_text('name = "held-out"\nversion = "1.0.0"\nvisibility = "public"\n')
    with pytest.raises(TaskError, match=r"suite.toml: field 'name': 'held-out' is reserved"):
        load_suite(root)


def test_validating_a_task_by_its_folder_loads_that_task_alone(make_task: Callable[..., Path],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """`grader tasks validate FOLDER` does not load the repository's suites: a half-written neighbour (another task
    being authored beside it) cannot stop it."""
    from click.testing import CliRunner

    import grader.cli.tasks as tasks_cli
    from grader.cli import cli

    def broken() -> list[object]:
        raise TaskError("batteries/public/half-written/prompt.md: missing")

    monkeypatch.setattr(tasks_cli, "repository_suites", broken)
    root = make_task()
    result = CliRunner().invoke(cli, ["tasks", "validate", str(root), "--repeats", "1"])
    assert result.exit_code == 0, result.output
    assert "all behave as declared" in result.output
    by_id = CliRunner().invoke(cli, ["tasks", "validate", "public/coin-collector"])
    assert by_id.exit_code == 2 and "half-written/prompt.md: missing" in by_id.output
