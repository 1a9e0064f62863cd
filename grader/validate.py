"""Battery self-tests: the oracle passes everything, nop fails, each wrong-* fails exactly what
solutions/expect.toml names, and every run of a solution gives the same digest."""

from __future__ import annotations

import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from evidence import L2Result, digest

from .drivers import prepare_workspace
from .levels import run_l2
from .tasks import Task, TaskError


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
    wrong = [p.name for p in task.paths.wrong_solutions()]
    if not wrong:
        return {}
    if not path.is_file():
        raise TaskError(f"{path}: missing (the task has wrong-* solutions)")
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out: dict[str, set[str]] = {}
    for name in wrong:
        entry = data.get(name)
        if not isinstance(entry, dict) or not isinstance(entry.get("fail"), list) or not entry["fail"]:
            raise TaskError(f"{path}: [{name}] needs fail = [requirement ids]")
        out[name] = {str(x) for x in entry["fail"]}
    extra = sorted(set(data) - set(wrong))
    if extra:
        raise TaskError(f"{path}: [{extra[0]}] names no wrong-* folder")
    return out


def _l2_digest(task: Task, deliverable: Path) -> tuple[L2Result, str]:
    result = run_l2(task, deliverable)
    return result, digest(result.to_json())


def validate_task(task: Task, repeats: int = 2) -> TaskValidation:
    expectations = _expectations(task)
    checks: list[SolutionCheck] = []
    with tempfile.TemporaryDirectory(prefix="grader-validate-") as tmp:
        cases: list[tuple[str, str, set[str] | None]] = [("oracle", "oracle", None), ("nop", "nop", None)]
        cases += [(p.name, f"replay:{p}", expectations[p.name]) for p in task.paths.wrong_solutions()]
        for label, spec, must_fail in cases:
            workspace = Path(tmp) / label
            prepare_workspace(task, workspace, spec)
            check = SolutionCheck(label, True)
            runs = [_l2_digest(task, workspace) for _ in range(repeats)]
            check.digests = [d for _, d in runs]
            result = runs[0][0]
            if len(set(check.digests)) != 1:
                check.problems.append("runs gave different evidence digests")
            failed = {r.id for r in result.requirements if not r.passed}
            if label == "oracle":
                if failed or not result.passed:
                    check.problems.append(f"oracle fails {sorted(failed)} (outcome {result.outcome})")
            elif label == "nop":
                if result.passed:
                    check.problems.append("the untouched workspace passes L2")
            else:
                assert must_fail is not None
                if failed != must_fail:
                    check.problems.append(f"fails {sorted(failed)}, expected exactly {sorted(must_fail)}")
            check.ok = not check.problems
            checks.append(check)
    return TaskValidation(task.qualified_id, checks)
