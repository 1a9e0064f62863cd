"""Parameterised batteries (battery/params.toml): declarations refused with the file and field named, draws pinned
by seed on every machine, values rendered into the prompt, the workspace and the solutions, read by the battery,
recorded in the verdict, replayed, and drawn per edition; an answer memorised under one draw fails another."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from engine import BadInputError, Engine, EngineSettings
from grader.pipeline import grade
from grader.tasks import (
    DEFAULT_SEED,
    TaskError,
    edition_seed,
    find_task,
    load_task,
    param_values,
    prompt_text,
    solution_folder,
    with_params,
    with_params_seed,
    workspace_folder,
)
from grader.tasks._params import draw, format_value, load_params, render_text
from tests.grader.conftest import PARAM_BATTERY as BATTERY

ROOT = Path(__file__).resolve().parents[2]

@pytest.mark.parametrize(("text", "message"), [
    ('[x]\nkind = "int"\nmin = 1\n', "field x.'max' must be a number"),
    ('[x]\nkind = "dice"\n', "field x.'kind' must be one of int, float, choice, points"),
    ('[x]\nkind = "int"\nmin = 1\nmax = 2\nstep = 1\n', "unknown key x.'step' for kind 'int'"),
    ('[x]\nkind = "float"\nmin = 0\nmax = 1\nstep = 0.3\n', "max - min a whole number of steps"),
    ('[x]\nkind = "choice"\nvalues = []\n', "field x.'values' must be a list of distinct"),
    ('[Big]\nkind = "int"\nmin = 1\nmax = 2\n', "parameter name 'Big' must match"),
    ('[p]\nkind = "points"\ncount = 9\nx = [0, 1]\ny = [0, 1]\nspacing = 2\n', "[p]: cannot place 9 points"),
    ('[p]\nkind = "points"\ncount = 2\nx = [1, 0]\ny = [0, 1]\n', "low 1 is above high 0"),
    ("", "declares no parameter"),
    ("[x\n", "params.toml: "),
])
def test_a_bad_declaration_is_refused_naming_the_file_and_the_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "params.toml"
    path.write_text(text)
    with pytest.raises(TaskError) as err:
        load_params(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value), str(err.value)


SPECS = """
[n]
kind = "int"
min = -5
max = 5

[speed]
kind = "float"
min = 1.5
max = 3.0
step = 0.25

[spots]
kind = "points"
count = 4
x = [-8, 8]
y = [-6, 6]
step = 0.5
spacing = 3
avoid = [[0, 0]]
"""


def test_draws_are_pinned_by_seed_on_every_machine(tmp_path: Path) -> None:
    """The draw is SHA-256 in counter mode: these values are the same for every Python and machine, forever (a
    change of the algorithm is a new DRAW_FORMAT and changes every parameterised task's values)."""
    path = tmp_path / "params.toml"
    path.write_text(SPECS)
    specs = load_params(path)
    values = draw(specs, "task-a", "seed-1")
    assert values == draw(specs, "task-a", "seed-1")
    script = ("import json, sys; from pathlib import Path; from grader.tasks._params import draw, load_params; "
              "print(json.dumps(draw(load_params(Path(sys.argv[1])), 'task-a', 'seed-1')))")
    fresh = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, check=True)
    assert json.loads(fresh.stdout) == values   # a fresh process (another hash seed) draws the same
    assert values == {"n": 4, "speed": 2.5, "spots": [[5.5, 0.5], [7.5, 6.0], [-8.0, 3.5], [-6.5, -4.0]]}
    assert draw(specs, "task-b", "seed-1") != values and draw(specs, "task-a", "seed-2") != values
    for seed in range(40):   # every draw keeps to its declaration
        v = draw(specs, "t", f"s{seed}")
        assert -5 <= v["n"] <= 5 and 1.5 <= v["speed"] <= 3.0 and (v["speed"] * 4).is_integer()
        pts = [tuple(p) for p in v["spots"]]
        assert all(-8 <= x <= 8 and -6 <= y <= 6 and (2 * x).is_integer() and (2 * y).is_integer() for x, y in pts)
        for i, p in enumerate(pts):
            assert all(((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2) ** 0.5 >= 3 for q in [(0.0, 0.0), *pts[i + 1:]])


def test_values_render_for_prose_lua_and_json() -> None:
    assert [format_value(v, "text") for v in (7, 2.5, 3.0, "north", [[1.0, -3.0], [4.5, 2.0]])] == [
        "7", "2.5", "3", "north", "(1, -3), (4.5, 2)"]
    assert [format_value(v, "lua") for v in (7, 2.5, 3.0, "no\"rth", [[1.0, -3.0]])] == [
        "7", "2.5", "3.0", '"no\\"rth"', "{{1.0, -3.0}}"]
    assert format_value([[1.0, 2.5]], "json") == "[[1.0, 2.5]]"
    text = "a {{params.n}} b {{ params.n | lua }} {{params.p|json}} {{x}} {{1, 2}}"
    assert render_text(text, {"n": 2.0, "p": [[0.5, 1.0]]}, "f") == "a 2 b 2.0 [[0.5, 1.0]] {{x}} {{1, 2}}"


@pytest.mark.parametrize(("text", "message"), [
    ("ok\nline {{params.nope}}\n", "prompt.md:2: unknown parameter 'nope' (known: n)"),
    ("{{params.n|yaml}}", "prompt.md:1: unknown format 'yaml'"),
    ("one\ntwo\n{{params.n extra}}", "prompt.md:3: '{{params.' that is not a placeholder"),
])
def test_a_bad_placeholder_is_refused_naming_the_file_and_line(text: str, message: str) -> None:
    with pytest.raises(TaskError) as err:
        render_text(text, {"n": 1}, "prompt.md")
    assert str(err.value) == message or str(err.value).startswith(message), str(err.value)


def test_a_prompt_naming_an_undeclared_parameter_is_refused_at_load(make_task: Callable[..., Path]) -> None:
    root = make_task()
    (root / "prompt.md").write_text("Put the Box at x = {{params.x}}.\n")
    with pytest.raises(TaskError, match=r"prompt.md:1: unknown parameter 'x' \(known: none: the task has no "):
        load_task(root, "suite")


def test_the_agent_the_battery_and_the_solutions_see_the_drawn_values(param_task: Path) -> None:
    task = load_task(param_task, "suite")
    assert task.params_seed == DEFAULT_SEED
    values = param_values(task)
    assert prompt_text(task) == f"Make a Box at x = {values['x']} whose Label variable is {values['label']}.\n"
    assert (workspace_folder(task) / "notes.txt").read_text() == f"target x: {values['x']}\n"
    assert "{{params.x}}" in (param_task / "workspace" / "notes.txt").read_text()   # the template is untouched
    oracle = solution_folder(task, "oracle")
    assert oracle.name == "oracle" and oracle != task.paths.oracle
    assert f"Vector3({values['x']}, 0, 0)" in (oracle / "scripts" / "main.lua").read_text()
    wrong = solution_folder(task, "wrong-x")   # the patch applies to the oracle as written, then renders
    assert f"Vector3({values['x']} + 1, 0, 0)" in (wrong / "scripts" / "main.lua").read_text()
    other = with_params(task, {"x": 2 if values["x"] != 2 else 3, "label": values["label"]})
    assert solution_folder(other, "oracle") != oracle   # rendered once per values
    result = grade(task, oracle)
    assert result.verdict.passed and result.verdict.params == values
    assert not grade(task, wrong).verdict.passed


def test_an_answer_memorised_under_one_draw_fails_another(param_task: Path) -> None:
    task = load_task(param_task, "suite")
    seeds = [s for s in (f"edition-{k}" for k in range(20)) if with_params_seed(task, s).params != task.params]
    other = with_params_seed(task, seeds[0])
    memorised = solution_folder(task, "oracle")
    assert grade(other, solution_folder(other, "oracle")).verdict.passed
    verdict = grade(other, memorised).verdict
    assert not verdict.passed and verdict.params == param_values(other)
    # the same deliverable under other values is other evidence: its digest and its settings hash differ
    assert verdict.evidence_digest != grade(task, memorised).verdict.evidence_digest


def test_recorded_values_must_be_ones_the_declaration_allows(param_task: Path) -> None:
    task = load_task(param_task, "suite")
    for bad, message in (({"x": 2}, "do not match"), ({"x": 10, "label": "north"}, "x=10 is not a value"),
                         ({"x": 2.0, "label": "north"}, "x=2.0 is not a value"),
                         ({"x": 2, "label": "up"}, "label='up' is not a value")):
        with pytest.raises(TaskError, match=message):
            with_params(task, bad)


def test_validation_certifies_every_draw_and_the_memorised_check(param_task: Path) -> None:
    from grader.validate import validate_task

    task = load_task(param_task, "suite")
    result = validate_task(task, repeats=1, draws=3)
    assert result.ok, [(s.solution, s.problems) for s in result.solutions]
    names = [s.solution for s in result.solutions]
    assert names == ["oracle", "nop", "wrong-x", "oracle @validate-1", "nop @validate-1", "wrong-x @validate-1",
                     "memorised @validate-1", "oracle @validate-2", "nop @validate-2", "wrong-x @validate-2",
                     "memorised @validate-2"]
    # a battery that ignores its parameters is caught: the default draw's oracle passes under the others
    fixed = param_values(task)
    (param_task / "battery" / "main.lua").write_text(BATTERY.replace(
        "local P = harness.params()", f'local P = {{x = {fixed["x"]}, label = "{fixed["label"]}"}}'))
    blind = validate_task(load_task(param_task, "suite"), repeats=1, draws=2)
    memo = next(s for s in blind.solutions if s.solution == "memorised @validate-1")
    assert not memo.ok and "the battery does not check what its parameters change" in memo.problems[0]


def test_the_battery_reads_its_parameters_as_a_fresh_copy(tmp_path: Path) -> None:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "main.lua").write_text("function Start() end\n")
    settings = EngineSettings(battery_params=json.dumps({"n": 3, "spots": [[1.5, -2.0]], "label": "east"}))
    engine = Engine(tmp_path, settings)
    engine.run_battery("""
local p = harness.params()
p.n = 99; p.spots[1][1] = 0
local again = harness.params()
requirement("R1", {capabilities = {"scene"}}, function(check)
  check.equal("n", again.n, 3)
  check.equal("n is an integer", math.type(again.n), "integer")
  check.equal("a point", again.spots[1][1], 1.5)
  check.equal("label", again.label, "east")
  check.truthy("the game cannot see them", harness.global("params") == nil)
end)
""", "battery/main.lua")
    (req,) = engine.requirements()
    assert req["passed"], req["checks"]
    for bad in ("[1]", "{"):
        with pytest.raises(BadInputError, match="setting 'battery_params'"):
            Engine(tmp_path, EngineSettings(battery_params=bad))


def test_the_public_coin_collector_is_parameterised() -> None:
    task = find_task("public/coin-collector")
    assert [s.name for s in task.param_specs] == ["pickup_radius", "coin_value"]
    text = prompt_text(task)
    assert "{{" not in text and f"at most **{format_value(param_values(task)['pickup_radius'], 'text')}**" in text
    drawn = {with_params_seed(task, edition_seed(k)).params for k in range(12)}
    assert len(drawn) >= 4, "editions get different values"


def test_an_edition_draws_its_tasks_values_from_its_root_seed(tmp_path: Path) -> None:
    from grader import editions
    from grader.tasks import load_suite
    from ledger import Ledger

    suite = load_suite(ROOT / "batteries" / "public")
    ledger = Ledger(f"sqlite:///{tmp_path / 'ledger.db'}")
    a, _, _ = editions.create(ledger, "nightly-a", suite, root_seed=11)
    b, _, _ = editions.create(ledger, "nightly-b", suite, root_seed=12)
    coin = [t for t in suite.tasks if t.id == "coin-collector"]
    (in_a,) = editions.edition_tasks(ledger, a, coin)
    (in_b,) = editions.edition_tasks(ledger, b, coin)
    assert in_a.params_seed == "edition-11" and in_b.params_seed == "edition-12"
    assert in_a.params == with_params_seed(coin[0], "edition-11").params
    assert in_a.params != in_b.params
    plain = [t for t in suite.tasks if not t.param_specs][:1]
    assert editions.edition_tasks(ledger, a, plain) == plain   # a task without parameters is itself
