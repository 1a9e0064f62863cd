"""Battery self-tests: the oracle passes everything and is L1-clean, nop fails, each wrong solution (a patch
against the oracle) fails exactly what solutions/expect.toml names, and every run of a solution gives the same
digest, the engine started pre-booted and cold in turn (engine/_runner.py's start modes).

A parameterised task (battery/params.toml) is certified under its default draw and under `draws - 1` more seeds
(`validate-1`, ...): each time the oracle, nop and every wrong solution rendered with that draw's values; and the
oracle of the default draw, handed in under another draw with different values, must fail ("memorised"): the
battery reads its parameters, so an answer remembered from one edition does not pass the next."""

from __future__ import annotations

import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from engine import START_MODES
from evidence import L2Result, digest

from .drivers import prepare_workspace
from .l1 import analyse
from .levels import run_l2
from .tasks import Task, TaskError, solution_folder, with_params_seed, wrong_solution_names

DRAWS = 3   # parameter draws a parameterised task is certified under (the default one and two more)


@dataclass
class SolutionCheck:
    solution: str
    ok: bool
    problems: list[str] = field(default_factory=list)
    digests: list[str] = field(default_factory=list)


@dataclass
class TaskValidation:
    task: str
    solutions: list[SolutionCheck]

    @property
    def ok(self) -> bool:
        return all(s.ok for s in self.solutions)


def _expectations(task: Task) -> dict[str, set[str]]:
    path = task.paths.expect
    wrong = wrong_solution_names(task)
    if not wrong:
        return {}
    if not path.is_file():
        raise TaskError(f"{path}: missing (the task has wrong-*.patch solutions)")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out: dict[str, set[str]] = {}
    for name in wrong:
        entry = data.get(name)
        if not isinstance(entry, dict) or not isinstance(entry.get("fail"), list) or not entry["fail"]:
            raise TaskError(f"{path}: [{name}] needs fail = [requirement ids]")
        out[name] = {str(x) for x in entry["fail"]}
    extra = sorted(set(data) - set(wrong))
    if extra:
        raise TaskError(f"{path}: [{extra[0]}] names no solutions/{extra[0]}.patch")
    return out


def _l2_digest(task: Task, deliverable: Path, start: str) -> tuple[L2Result, str]:
    result = run_l2(task, deliverable, start=start)
    return result, digest(result.to_json())


def validate_task(task: Task, repeats: int = 2, wrong_repeats: int | None = None,
                  draws: int = DRAWS) -> TaskValidation:
    """Every solution `repeats` times, the engine started pre-booted and cold in turn, one digest required of each;
    `wrong_repeats` runs the wrong solutions fewer times (the tests' certification: the oracle and nop prove the
    start modes agree, each wrong solution that it fails what it declares).  A parameterised task: the same under
    each of `draws` draws (the extra ones once per solution), and the memorised check (module docstring)."""
    checks = _validate_draw(task, repeats, wrong_repeats, "")
    for k in range(1, draws if task.param_specs else 1):
        seed = f"validate-{k}"
        drawn = with_params_seed(task, seed)
        checks += _validate_draw(drawn, 1, 1, f" @{seed}")
        checks.append(_memorised(task, drawn, seed))
    return TaskValidation(task.qualified_id, checks)


def _memorised(task: Task, drawn: Task, seed: str) -> SolutionCheck:
    """The oracle of `task`'s draw handed in under `drawn`'s values must fail L2 (when they differ)."""
    check = SolutionCheck(f"memorised @{seed}", True)
    if drawn.params == task.params:
        check.problems.append(f"draw {seed} gives the default draw's values ({task.params}): draw another seed")
    else:
        with tempfile.TemporaryDirectory(prefix="grader-validate-") as tmp:
            workspace = Path(tmp) / "memorised"
            prepare_workspace(task, workspace, f"replay:{solution_folder(task, 'oracle')}")
            result, d = _l2_digest(drawn, workspace, START_MODES[0])
            check.digests = [d]
            if result.passed:
                check.problems.append(f"the oracle written for {task.params} passes under {drawn.params}: the "
                                      f"battery does not check what its parameters change")
    check.ok = not check.problems
    return check


def _validate_draw(task: Task, repeats: int, wrong_repeats: int | None, suffix: str) -> list[SolutionCheck]:
    expectations = _expectations(task)
    checks: list[SolutionCheck] = []
    with tempfile.TemporaryDirectory(prefix="grader-validate-") as tmp:
        cases: list[tuple[str, str, set[str] | None]] = [("oracle", "oracle", None), ("nop", "nop", None)]
        cases += [(name, f"replay:{solution_folder(task, name)}", expectations[name])
                  for name in wrong_solution_names(task)]
        for label, spec, must_fail in cases:
            workspace = Path(tmp) / label
            prepare_workspace(task, workspace, spec)
            check = SolutionCheck(label + suffix, True)
            times = repeats if must_fail is None or wrong_repeats is None else wrong_repeats
            runs = [_l2_digest(task, workspace, START_MODES[i % len(START_MODES)]) for i in range(times)]
            check.digests = [d for _, d in runs]
            result = runs[0][0]
            if len(set(check.digests)) != 1:
                check.problems.append("runs gave different evidence digests (" + ", ".join(
                    f"{START_MODES[i % len(START_MODES)]} {d[:12]}" for i, d in enumerate(check.digests)) + ")")
            failed = {r.id for r in result.requirements if not r.passed}
            if label == "oracle":
                if failed or not result.passed:
                    check.problems.append(f"oracle fails {sorted(failed)} (outcome {result.outcome})")
                findings = [f"{d.file}:{d.line} {d.code}" for d in analyse(workspace).diagnostics]
                if findings:   # a reference solution is L1-clean: every finding on it would be noise on others
                    check.problems.append(f"oracle has L1 findings: {', '.join(findings)}")
            elif label == "nop":
                if result.passed:
                    check.problems.append("the untouched workspace passes L2")
            else:
                assert must_fail is not None
                if failed != must_fail:
                    check.problems.append(f"fails {sorted(failed)}, expected exactly {sorted(must_fail)}")
            check.ok = not check.problems
            checks.append(check)
    return checks
