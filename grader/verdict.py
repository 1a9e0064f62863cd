"""The verdict of one grade: the three levels' evidence, the pins that say what produced it, and its digest.

The typed model and its JSON are `evidence.Verdict`; this module supplies the pins: the engine's and the
grader's content-derived builds and the hash of the effective settings.  Wall times are kept beside the verdict
(`GradeResult.timings`), never inside it, so the same deliverable, task, battery, engine, grader and settings
always give the same digest.
"""

from __future__ import annotations

from engine import API_VERSION, ENGINE_NAME, ENGINE_VERSION, engine_build
from evidence import EngineInfo, GraderInfo, Levels, Verdict

from ._settings import settings_hash
from ._version import GRADER_VERSION, grader_build
from .levels import engine_settings
from .tasks import Task, param_values


def engine_info() -> EngineInfo:
    return EngineInfo(name=ENGINE_NAME, version=ENGINE_VERSION, api_version=API_VERSION, build=engine_build())


def grader_info() -> GraderInfo:
    return GraderInfo(version=GRADER_VERSION, build=grader_build())


def task_settings_hash(task: Task) -> str:
    """The hash of the settings a grade of `task` runs under (engine settings, the task's limits, the grader's)."""
    return settings_hash(engine_settings(task), task.limits.as_dict())


def build_verdict(*, task: Task, task_hash: str, battery_hash: str, deliverable_hash: str, levels: Levels) -> Verdict:
    return Verdict.build(task_id=task.qualified_id, task_hash=task_hash, battery_hash=battery_hash,
                         deliverable_hash=deliverable_hash, engine=engine_info(), grader=grader_info(),
                         settings_hash=task_settings_hash(task), levels=levels,
                         params=param_values(task) if task.param_specs else None)
