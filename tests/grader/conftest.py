"""A minimal task built in a temporary folder."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from grader._containers import LABEL_SESSION, SESSION_ENV
from tests._ci import missing_dependency

# This test run's containers, networks and the graders it starts carry this label (inherited through the
# environment): other graders and test runs share the Docker daemon, and the tests look only at their own.
SESSION = os.environ.setdefault(SESSION_ENV, f"tests-{uuid.uuid4().hex[:12]}")

TASK_TOML = """id = "tiny"
title = "Tiny"
category = "scene"
difficulty = "easy"
capabilities = ["scene"]
required = ["scripts/*.lua"]

[limits]
l2_sim_seconds = 5
l2_wall_seconds = 60
"""

BATTERY = """
harness.start()
harness.run(0.5)
local box = harness.find("Box")
requirement("R1", function(check)
  check.truthy("a node named Box exists", box)
  check.near("Box is at x = 3", box and box.world_position.x, 3.0, 1e-6)
end)
"""

REQUIREMENTS = """[R1]
capabilities = ["scene"]
description = "a Box at x = 3"
"""

ORACLE = """function Start()
  local scene = Scene()
  local box = scene:CreateChild("Box")
  box.position = Vector3(3, 0, 0)
end
"""


STARTER_TASKS = ("coin-collector", "move-with-keys", "scene-solar-system")


@pytest.fixture(scope="session")
def starter_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The public suite's three starter tasks as a suite of their own (named public, the same ids): the tests that
    run a whole suite and count what it gives use it, so neither their counts nor their time grow with the suite."""
    import shutil

    public = Path(__file__).resolve().parents[2] / "batteries" / "public"
    root = tmp_path_factory.mktemp("starter") / "public"
    root.mkdir()
    shutil.copyfile(public / "suite.toml", root / "suite.toml")
    for name in STARTER_TASKS:
        shutil.copytree(public / name, root / name)
    return root


def solution_patch(oracle: str, wrong: str, name: str = "wrong-x", path: str = "scripts/main.lua") -> str:
    """A wrong solution's patch against the oracle, as `diff -ruN oracle wrong-x` writes it."""
    import difflib

    return "".join(difflib.unified_diff(oracle.splitlines(keepends=True), wrong.splitlines(keepends=True),
                                        f"oracle/{path}", f"{name}/{path}"))


@pytest.fixture
def make_task(tmp_path: Path) -> Callable[..., Path]:
    def make(name: str = "tiny", task_toml: str = TASK_TOML, battery: str = BATTERY,
             requirements: str = REQUIREMENTS) -> Path:
        root = tmp_path / "suite" / name
        (root / "workspace" / "scripts").mkdir(parents=True)
        (root / "battery").mkdir()
        (root / "solutions" / "oracle" / "scripts").mkdir(parents=True)
        (root / "task.toml").write_text(task_toml.replace('id = "tiny"', f'id = "{name}"'))
        (root / "prompt.md").write_text("Make a Box at x = 3.\n")
        (root / "workspace" / "scripts" / "main.lua").write_text("function Start() end\n")
        (root / "battery" / "main.lua").write_text(battery)
        (root / "battery" / "requirements.toml").write_text(requirements)
        (root / "solutions" / "oracle" / "scripts" / "main.lua").write_text(ORACLE)
        (root / "solutions" / "wrong-x.patch").write_text(solution_patch(ORACLE, ORACLE.replace("3, 0, 0", "2, 0, 0")))
        (root / "solutions" / "expect.toml").write_text('[wrong-x]\nfail = ["R1"]\n')
        suite_toml = root.parent / "suite.toml"
        if not suite_toml.exists():
            suite_toml.write_text('name = "suite"\nversion = "0.1.0"\nvisibility = "public"\n')
        return root

    return make


# A parameterised task (battery/params.toml): test_params.py and the container tests use it.
PARAMS_TOML = """
[x]
kind = "int"
min = 2
max = 9

[label]
kind = "choice"
values = ["north", "south", "east", "west"]
"""
PARAM_BATTERY = """
local P = harness.params()
harness.start()
harness.run(0.5)
local box = harness.find("Box")
requirement("R1", function(check)
  check.truthy("a node named Box exists", box)
  check.near("Box is at x = " .. P.x, box and box.world_position.x, P.x, 1e-6)
  check.equal("Box is tagged", box and box:var("Label"), P.label)
end)
"""
PARAM_ORACLE = """function Start()
  local scene = Scene()
  local box = scene:CreateChild("Box")
  box.position = Vector3({{params.x|lua}}, 0, 0)
  box:SetVar("Label", Variant({{params.label|lua}}))
end
"""


@pytest.fixture
def param_task(make_task: Callable[..., Path]) -> Path:
    """The tiny task with two parameters: where the Box goes and the label it carries."""
    root = make_task(name="tinyp", battery=PARAM_BATTERY)
    (root / "battery" / "params.toml").write_text(PARAMS_TOML)
    (root / "prompt.md").write_text("Make a Box at x = {{params.x}} whose Label variable is {{params.label}}.\n")
    (root / "workspace" / "notes.txt").write_text("target x: {{params.x}}\n")
    (root / "solutions" / "oracle" / "scripts" / "main.lua").write_text(PARAM_ORACLE)
    wrong = PARAM_ORACLE.replace("Vector3({{params.x|lua}}, 0, 0)", "Vector3({{params.x|lua}} + 1, 0, 0)")
    (root / "solutions" / "wrong-x.patch").write_text(solution_patch(PARAM_ORACLE, wrong))
    return root


# Docker, shared by the test_sandbox_* modules: the client (module scope) and the check that a test left no
# container or network behind (modules opt in with `pytestmark = pytest.mark.usefixtures("no_leftovers")`).
def connect_docker() -> Any:
    """The Docker client of the sandbox tests (the other test_sandbox_* modules share these helpers)."""
    try:
        import docker

        client = docker.from_env()
        client.ping()
    except Exception as exc:
        missing_dependency(f"Docker is not available: {exc}")
    return client


def assert_no_leftovers(request: pytest.FixtureRequest) -> None:
    if "docker_client" in request.fixturenames:
        client = request.getfixturevalue("docker_client")
        mine = {"label": f"{LABEL_SESSION}={SESSION}"}
        left = client.containers.list(all=True, filters=mine)
        assert left == [], f"containers left behind: {[c.name for c in left]}"
        networks = client.networks.list(filters=mine)
        assert networks == [], f"networks left behind: {[n.name for n in networks]}"


@pytest.fixture(scope="module")
def docker_client() -> Any:
    return connect_docker()


@pytest.fixture
def no_leftovers(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    assert_no_leftovers(request)
