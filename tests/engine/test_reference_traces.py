"""Fidelity against Urho3D itself: every recorded scenario, run here, must agree with Urho3D's trace.

The traces under tests/reference/urho3d/traces/ were recorded by running the scenarios in Urho3D (headless, at the
commit their headers name; docs/fidelity.md). This test does not need Urho3D: it runs each scenario in this engine
with the same recorder and compares (engine/differential.py). A scenario that needs API this engine does not
implement yet is skipped as "not implemented: <API>" — listed by pytest's -ra, never a silent pass — and is
compared as soon as the API exists.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from engine.differential import (
    Agreement,
    Status,
    Tolerances,
    check_scenario,
    compare,
    load_tolerances,
    parse_trace,
    read_trace,
    trace_files,
)

REFERENCE = Path(__file__).resolve().parent.parent / "reference" / "urho3d"
LUA_DIR = REFERENCE / "lua"
TRACES = trace_files(REFERENCE / "traces")
TABLE = load_tolerances(REFERENCE / "tolerances.toml")
SCENARIOS = sorted(p.stem for p in (LUA_DIR / "scenarios").glob("*.lua"))
KNOWN = {name: str(row["reason"]) for name, row in tomllib.loads(
    (REFERENCE / "known_disagreements.toml").read_text(encoding="utf-8")).get("scenario", {}).items()}
RECORDER_VERSION = re.search(r'RECORDER_VERSION = "([^"]+)"', (LUA_DIR / "recorder.lua").read_text()).group(1)


def _outcome(result: Agreement) -> None:
    if result.status == Status.NOT_IMPLEMENTED:
        pytest.skip(f"{result.scenario}: not implemented: {', '.join(result.not_implemented)}")
    if result.scenario in KNOWN:
        assert not result.agrees, f"{result.scenario} agrees now: remove it from known_disagreements.toml"
        pytest.xfail(f"{result.scenario}: known disagreement: {KNOWN[result.scenario]} ({result.summary()})")
    assert result.agrees, f"{result.scenario} disagrees with Urho3D: {result.summary()}"


@pytest.mark.parametrize("name", sorted(TRACES))
def test_scenario_agrees_with_urho3d(name: str) -> None:
    _outcome(check_scenario(LUA_DIR, read_trace(TRACES[name]), TABLE))


def test_every_scenario_is_recorded_and_every_trace_has_a_scenario() -> None:
    assert sorted(TRACES) == SCENARIOS
    assert len(TRACES) >= 30


def test_every_known_disagreement_names_a_scenario_and_why() -> None:
    assert set(KNOWN) <= set(SCENARIOS)
    assert all(len(reason) > 20 for reason in KNOWN.values())


@pytest.mark.parametrize("name", sorted(TRACES))
def test_trace_names_its_reference_and_is_current(name: str) -> None:
    trace = read_trace(TRACES[name])
    assert re.fullmatch(r"[0-9a-f]{40}", str(trace.header.get("urho3d_commit"))), trace.header
    assert trace.header["recorder"] == RECORDER_VERSION, "re-record: the recorder changed since"
    assert trace.header["scenario"] == name
    assert trace.domain in TABLE.domains
    assert not trace.errors, f"the scenario raised in Urho3D itself: {trace.errors[0]}"
    assert len(trace.frames) == trace.header["frames"] + 1
    assert TRACES[name].stat().st_size < 512 * 1024


# The comparison itself, on small hand-made traces (these test the comparer, they are not references).
HEADER = '{"recorder":"1","scenario":"s","domain":"math","step":0.016667,"frames":1}'
FRAME0 = '{"f":0,"ev":[],"val":[["x",[1,2,3]]],"nodes":[[1,"",null,true,[0,0,0],[1,0,0,0],[1,1,1],[],0]]}'
FRAME1 = ('{"f":1,"ev":[["Update",{"TimeStep":0.016667}]],"val":[],'
          '"nodes":[[1,"",null,true,[0,0,0],[1,0,0,0],[1,1,1],[],0],'
          '[2,"Ball",1,true,[0.5,-1.25,2],[0.707107,0,0.707107,0],[1,1,1],["StaticModel"],1]]}')
TIGHT = Tolerances(position=1e-4, rotation=1e-4, scale=1e-4, value=1e-4, event=1e-5)


def _trace(*frames: str) -> object:
    return parse_trace([HEADER, *frames])


def test_identical_traces_agree() -> None:
    result = compare(_trace(FRAME0, FRAME1), _trace(FRAME0, FRAME1), TIGHT)
    assert result.agrees and result.frames_compared == 2


def test_a_wrong_sign_is_a_divergence_at_its_frame() -> None:
    ours = FRAME1.replace("[0.5,-1.25,2]", "[0.5,1.25,2]")
    result = compare(_trace(FRAME0, FRAME1), _trace(FRAME0, ours), TIGHT)
    assert result.status == Status.DISAGREE
    assert result.first_divergence == 1
    assert result.deviation["position"] == pytest.approx(2.5)
    assert "Ball#2 position[1]" in result.problems[0]


def test_a_node_rotation_and_its_negation_are_the_same_rotation() -> None:
    ours = FRAME1.replace("[0.707107,0,0.707107,0]", "[-0.707107,0,-0.707107,0]")
    assert compare(_trace(FRAME0, FRAME1), _trace(FRAME0, ours), TIGHT).agrees
    turned = FRAME1.replace("[0.707107,0,0.707107,0]", "[0.707107,0,-0.707107,0]")
    assert compare(_trace(FRAME0, FRAME1), _trace(FRAME0, turned), TIGHT).status == Status.DISAGREE


def test_deviation_within_tolerance_agrees_and_is_reported() -> None:
    ours = FRAME1.replace("[0.5,-1.25,2]", "[0.50005,-1.25,2]")
    result = compare(_trace(FRAME0, FRAME1), _trace(FRAME0, ours), TIGHT)
    assert result.agrees
    assert result.deviation["position"] == pytest.approx(5e-5)


@pytest.mark.parametrize(("ours", "what"), [
    (FRAME1.replace('"Ball"', '"Bell"'), "node Bell#2"),
    (FRAME1.replace('["StaticModel"],1', '[],0'), "with []"),
    (FRAME1.replace('"Update"', '"PostUpdate"'), "events ['PostUpdate']"),
    (FRAME1.replace(',true,[0.5', ',false,[0.5'), "disabled"),
])
def test_structure_is_compared_exactly(ours: str, what: str) -> None:
    result = compare(_trace(FRAME0, FRAME1), _trace(FRAME0, ours), TIGHT)
    assert result.status == Status.DISAGREE
    assert what in result.problems[0]


def test_missing_frames_are_a_divergence() -> None:
    result = compare(_trace(FRAME0, FRAME1), _trace(FRAME0), TIGHT)
    assert result.status == Status.DISAGREE
    assert "1 frame lines here, 2 in Urho3D" in result.problems[-1]


def test_accepted_differences_are_listed_not_failed() -> None:
    ref = FRAME0.replace('["x",[1,2,3]]', '["x",[1,2,3]],["y",true]')
    ours = FRAME0.replace('["x",[1,2,3]]', '["x",[1,2,3]],["y",false]')
    result = compare(_trace(ref, FRAME1), _trace(ours, FRAME1), TIGHT, accept=("y",))
    assert result.agrees and result.first_divergence is None
    assert result.accepted == ["frame 0: y: false here, true in Urho3D"]
    assert compare(_trace(ref, FRAME1), _trace(ours, FRAME1), TIGHT).status == Status.DISAGREE


def test_tolerance_overrides_need_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "t.toml"
    path.write_text("[domain.math]\nposition=1\nrotation=1\nscale=1\nvalue=1\nevent=1\n[scenario.x]\nvalue=2\n")
    with pytest.raises(Exception, match="must give a reason"):
        load_tolerances(path)
