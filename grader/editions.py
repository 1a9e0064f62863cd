"""Editions from the grader's side: the pins this grader would record under, and creating an edition of a suite.

An edition pins the engine's build, the grader's build, the installation's settings (each a content digest), the
suite's dataset task by task, optionally the agents' sandbox profile, and the root seed of its statistics.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine import API_VERSION, engine_build
from ledger import (
    EditionFrozenError,
    EditionPlan,
    Ledger,
    LedgerError,
    Pins,
    PlannedModel,
    SuiteFacts,
    check_edition_pins,
    check_profile,
    create_edition,
    create_planned_edition,
    edition_plan,
    find_edition,
    get_edition,
    publication,
)

from ._settings import installation_settings_hash
from ._version import grader_build
from .models_file import ModelEntry
from .recording import task_facts
from .tasks import (
    Suite,
    Task,
    TaskError,
    battery_hash,
    dataset_hash,
    edition_seed,
    load_suite,
    repository_suites,
    suite_dataset_hash,
    task_hash,
    with_params_seed,
)


def current_pins(suite: Suite, profile_hash: str | None = None) -> Pins:
    """What this grader, on this suite, with this sandbox profile, would record."""
    return Pins(engine_build=engine_build(), grader_build=grader_build(),
                settings_hash=installation_settings_hash(), dataset_hash=suite_dataset_hash(suite, API_VERSION),
                profile_hash=profile_hash)


def derived_root_seed(name: str) -> int:
    """A root seed fixed by the edition's name, so two maintainers creating the same edition agree."""
    return int.from_bytes(hashlib.sha256(f"grader-edition/{name}".encode()).digest()[:4], "big") & 0x7FFFFFFF


def create(ledger: Ledger, name: str, suite: Suite, *, root_seed: int | None = None,
           profile_hash: str | None = None) -> tuple[int, Pins, int]:
    """Append an edition of `suite` pinned to this grader; returns (id, pins, root seed)."""
    pins = current_pins(suite, profile_hash)
    facts = SuiteFacts(suite.name, suite.version, suite.visibility.value, pins.dataset_hash)
    seed = derived_root_seed(name) if root_seed is None else root_seed
    edition_id = create_edition(ledger, name, facts, pins, seed, tasks=[task_facts(t) for t in suite.tasks])
    return edition_id, pins, seed


def edition_tasks(ledger: Ledger, edition_id: int, tasks: Sequence[Task]) -> list[Task]:
    """The tasks as the edition runs them: parameters drawn under its seed (edition_seed of its root seed)."""
    seed = edition_seed(get_edition(ledger, edition_id).root_seed)
    return [with_params_seed(t, seed) for t in tasks]


def check(ledger: Ledger, edition: str | int, suite: Suite | None, profile_hashes: list[str | None]) -> int:
    """The edition's id, after checking that recording under it with this grader, suite and these profiles would
    be accepted (before any work).  The profile is checked first: it is known without the suite."""
    edition_id = find_edition(ledger, edition)
    published = publication(ledger, edition_id)
    if published is not None:
        raise EditionFrozenError(f"edition {edition!r} was published at "
                                 f"{published[0].isoformat(timespec='seconds')}Z: it is frozen, nothing more is "
                                 f"recorded under it")
    if edition_plan(ledger, edition_id) is not None:
        # the ledger would refuse a second counted attempt of a planned one, but only after the work: say it now
        raise LedgerError(f"edition {edition!r} is planned: its attempts are recorded by `grader edition run "
                          f"{edition}`")
    for profile in profile_hashes or [None]:
        check_profile(ledger, edition_id, profile)
    if suite is None:
        raise LedgerError("--edition: the task is not part of a known suite, so it cannot match the edition's "
                          "dataset")
    for profile in profile_hashes or [None]:
        check_edition_pins(ledger, edition_id, current_pins(suite, profile))
    return edition_id


# --- planned editions ------------------------------------------------------------------------------------------

REPOSITORY = "repository:"   # a plan's suite source: a suite of the repository's batteries/, by name


def resolve_suite(ref: str) -> tuple[Suite, str]:
    """`--suite` NAME (a suite of the repository's batteries/) or PATH (a folder with a suite.toml): the suite and
    its source as the plan records it."""
    path = Path(ref)
    if (path / "suite.toml").is_file():
        return load_suite(path.resolve()), str(path.resolve())
    found = [s for s in repository_suites() if s.name == ref]
    if not found:
        raise TaskError(f"--suite {ref}: neither a suite of the repository (known: "
                        f"{', '.join(s.name for s in repository_suites())}) nor a folder with a suite.toml")
    return found[0], REPOSITORY + ref


def load_source(source: str) -> Suite:
    """A suite from the source a plan recorded."""
    if source.startswith(REPOSITORY):
        name = source.removeprefix(REPOSITORY)
        found = [s for s in repository_suites() if s.name == name]
        if not found:
            raise TaskError(f"the edition's suite {name!r} is no longer in the repository's batteries/")
        return found[0]
    if not (Path(source) / "suite.toml").is_file():
        raise TaskError(f"{source}: the edition's suite is no longer there (no suite.toml)")
    return load_suite(Path(source))


def combined_dataset(suites: Sequence[Suite]) -> SuiteFacts:
    """One suite's own dataset; several suites', a dataset over every task by qualified id (suite/task)."""
    if len(suites) == 1:
        s = suites[0]
        return SuiteFacts(s.name, s.version, s.visibility.value, suite_dataset_hash(s, API_VERSION))
    digest = dataset_hash([(t.qualified_id, task_hash(t), battery_hash(t, API_VERSION))
                           for s in suites for t in s.tasks])
    visibility = {s.visibility.value for s in suites}
    return SuiteFacts("+".join(s.name for s in suites)[:64], "+".join(s.version for s in suites)[:64],
                      visibility.pop() if len(visibility) == 1 else "mixed", digest)


@dataclass(frozen=True)
class PlanSummary:
    edition_id: int
    pins: Pins
    root_seed: int
    dataset: SuiteFacts
    models: tuple[str, ...]
    tasks: int
    repetitions: int
    existing: bool = False          # the same plan was already in the ledger under this name

    @property
    def attempts(self) -> int:
        return len(self.models) * self.tasks * self.repetitions


def plan(ledger: Ledger, name: str, suites: Sequence[tuple[Suite, str]], models: Sequence[ModelEntry],
         repetitions: int, *, root_seed: int | None = None, profile_hash: str | None = None) -> PlanSummary:
    """Append an edition of `suites` (suite, source) pinned to this grader, with its plan: every model x task x
    repetition (one transaction: nothing half-written)."""
    names = [s.name for s, _ in suites]
    if len(set(names)) != len(names):
        raise TaskError(f"--suite: suite {sorted({n for n in names if names.count(n) > 1})[0]!r} given twice")
    chosen = [s for s, _ in suites]
    dataset = combined_dataset(chosen)
    pins = Pins(engine_build=engine_build(), grader_build=grader_build(), settings_hash=installation_settings_hash(),
                dataset_hash=dataset.dataset_hash, profile_hash=profile_hash)
    seed = derived_root_seed(name) if root_seed is None else root_seed
    facts = [task_facts(t) for s in chosen for t in s.tasks]
    parts = [SuiteFacts(s.name, s.version, s.visibility.value, suite_dataset_hash(s, API_VERSION)) for s in chosen]
    sources = [{"name": s.name, "version": s.version, "visibility": s.visibility.value,
                "dataset_hash": p.dataset_hash, "source": src} for (s, src), p in zip(suites, parts, strict=True)]
    planned = [m.planned() for m in models]
    labels = tuple(m.label for m in models)
    existing = _same_plan(ledger, name, pins, seed, sources, planned, repetitions)
    if existing is not None:
        return PlanSummary(existing, pins, seed, dataset, labels, len(facts), repetitions, existing=True)
    edition_id = create_planned_edition(ledger, name, dataset, pins, seed, facts,
                                        suites=parts if len(parts) > 1 else [], sources=sources,
                                        models=planned, repetitions=repetitions)
    return PlanSummary(edition_id, pins, seed, dataset, labels, len(facts), repetitions)


def _same_plan(ledger: Ledger, name: str, pins: Pins, seed: int, sources: Sequence[dict[str, Any]],
               models: Sequence[PlannedModel], repetitions: int) -> int | None:
    """The id of the edition `name` when it exists with exactly this plan (planning again is how a nightly script
    that died resumes: it plans, then runs); None when there is no such edition; refused when it differs."""
    try:
        edition_id = find_edition(ledger, name)
    except LedgerError:
        return None
    view = get_edition(ledger, edition_id)
    recorded = edition_plan(ledger, edition_id)
    if recorded is None:
        raise TaskError(f"edition {name!r} exists already, made by `grader edition create` (editions are never "
                        f"changed: pick a new name)")
    asked = [{"label": m.label, "driver": m.driver, **dict(m.entry)} for m in models]
    for what, was, now in (
            ("engine build", view.engine_build, pins.engine_build),
            ("grader build", view.grader_build, pins.grader_build),
            ("settings hash", view.settings_hash, pins.settings_hash),
            ("dataset hash", view.dataset_hash, pins.dataset_hash),
            ("sandbox profile", view.profile_hash, pins.profile_hash),
            ("root seed", view.root_seed, seed),
            ("repetitions", recorded.repetitions, repetitions),
            ("suites", list(recorded.suites), list(sources)),
            ("models", [dict(m) for m in recorded.models], asked)):
        if was != now:
            raise TaskError(f"edition {name!r} exists already with another plan: {what} {_shown(was)} recorded, "
                            f"{_shown(now)} here (editions are never changed: pick a new name)")
    return edition_id


def _shown(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(item.get("label", item.get("name"))) for item in value) or "none"
    return str(value)


@dataclass(frozen=True)
class EditionWork:
    """What running a planned edition needs: its tasks by hash and its models by label."""

    edition_id: int
    name: str
    plan: EditionPlan
    tasks: dict[str, Task]
    models: dict[str, ModelEntry]
    dataset_hash: str              # of the suites as they are now (check_work_pins compares it with the pin)


def edition_work(ledger: Ledger, ref: str | int) -> EditionWork:
    """The planned edition `ref` (name or id), its suites loaded from where the plan found them; refused when it
    has no plan or was published."""
    edition_id = find_edition(ledger, ref)
    view = get_edition(ledger, edition_id)
    planned = edition_plan(ledger, edition_id)
    if planned is None:
        raise LedgerError(f"edition {view.name!r} has no plan (it was made by `grader edition create`): plan one "
                          f"with `grader edition plan`")
    published = publication(ledger, edition_id)
    if published is not None:
        when = published[0].isoformat(timespec="seconds")
        raise EditionFrozenError(f"edition {view.name!r} was published at {when}Z: it is frozen, nothing more is "
                                 f"recorded under it")
    suites = [load_source(str(s["source"])) for s in planned.suites]
    seed = edition_seed(view.root_seed)
    tasks = {task_hash(t): with_params_seed(t, seed) for s in suites for t in s.tasks}
    models = {str(m["label"]): ModelEntry.from_planned(m) for m in planned.models}
    return EditionWork(edition_id, view.name, planned, tasks, models, combined_dataset(suites).dataset_hash)


def check_work_pins(ledger: Ledger, work: EditionWork, profile_hashes: Sequence[str | None]) -> None:
    """Refuse (before any work) when a pin of the edition differs from this grader, its suites as they are now,
    or the sandbox profiles its models' agents run under."""
    for profile in profile_hashes or [None]:
        check_edition_pins(ledger, work.edition_id, Pins(engine_build(), grader_build(), installation_settings_hash(),
                                                         work.dataset_hash, profile))
