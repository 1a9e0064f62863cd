"""Statistics and boards: exact intervals, the paired task bootstrap, exact ranks, and their properties."""

from __future__ import annotations

import hashlib
import json
import math
from fractions import Fraction

import numpy as np
import pytest

from grader.stats import (
    BOOTSTRAP,
    EXACT,
    AttemptRecord,
    Board,
    Price,
    Requirement,
    TaskInfo,
    analyse,
    board_dict,
    board_spawn_id,
    build_board,
    build_requirement_board,
    clopper_pearson,
    competition_ranks,
    cost_per_task,
    edition_boards,
    is_counted,
    time_per_task,
)
from grader.stats._bootstrap import BLOCK, board_rng
from grader.stats._quantiles import interpolated, tail_levels

SEED = 20240601


def task_hashes(count: int) -> tuple[str, ...]:
    return tuple(sorted(hashlib.sha256(f"task-{i}".encode()).hexdigest() for i in range(count)))


def make_board(n: np.ndarray, c: np.ndarray, models: tuple[str, ...] | None = None, key: str = "overall") -> Board:
    names = models or tuple(f"model-{i}" for i in range(n.shape[0]))
    return Board(key=key, models=names, tasks=task_hashes(n.shape[1]), n=n, c=c)


def random_board(models: int = 6, tasks: int = 40, reps: int = 3, seed: int = 7) -> Board:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.1, 0.9, size=(models, 1)) * rng.uniform(0.3, 1.0, size=(1, tasks))
    n = np.full((models, tasks), reps)
    return make_board(n, rng.binomial(n, p))


# --- Clopper–Pearson reference values -------------------------------------------------------------------------

@pytest.mark.parametrize(("passes", "attempts", "expected"), [
    (0, 30, (0.0, 0.115703)),
    (7, 20, (0.153909, 0.592189)),
    (1, 100, (0.000253, 0.054459)),
    (30, 30, (0.884297, 1.0)),
])
def test_clopper_pearson_reference_values(passes: int, attempts: int, expected: tuple[float, float]) -> None:
    lower, upper = clopper_pearson(passes, attempts)
    assert (round(lower, 6), round(upper, 6)) == expected


def test_degenerate_models_get_the_exact_interval_on_pooled_attempts() -> None:
    n = np.array([[3, 3, 3, 3], [2, 4, 2, 2], [3, 3, 3, 3], [3, 3, 3, 3]])
    c = np.array([[0, 0, 0, 0], [1, 2, 1, 1], [3, 3, 3, 3], [0, 1, 2, 3]])
    result = analyse(make_board(n, c), SEED, replicates=500)
    by_name = {s.model: s for s in result.models}
    assert by_name["model-0"].ci_method == EXACT and by_name["model-0"].ci == clopper_pearson(0, 12)
    assert by_name["model-1"].ci_method == EXACT and by_name["model-1"].ci == clopper_pearson(5, 10)
    assert by_name["model-2"].ci_method == EXACT and by_name["model-2"].ci == clopper_pearson(12, 12)
    assert by_name["model-3"].ci_method == BOOTSTRAP
    assert by_name["model-1"].score_exact == Fraction(1, 2)


# --- properties ----------------------------------------------------------------------------------------------

def test_doubling_every_attempt_leaves_bootstrap_cis_and_rank_ranges_bit_identical() -> None:
    board = random_board()
    n = board.n.copy()
    n[:, ::3] = 2  # mixed attempt counts, so the common denominator changes when doubled
    c = np.minimum(board.c, n)
    n[0], c[0] = 4, 2  # one degenerate model (every rate 1/2)
    once = analyse(make_board(n, c), SEED, replicates=2000)
    twice = analyse(make_board(2 * n, 2 * c), SEED, replicates=2000)
    assert once.models[0].ci_method == EXACT
    for a, b in zip(once.models, twice.models, strict=True):
        assert a.rank == b.rank and a.rank_range == b.rank_range and a.score == b.score
        if a.ci_method == BOOTSTRAP:
            assert b.ci_method == BOOTSTRAP and a.ci == b.ci  # bit-identical floats
    assert np.array_equal(once.replicate_scores(), twice.replicate_scores())


def test_identical_per_task_rates_give_identical_ranks_and_ranges() -> None:
    board = random_board(models=5)
    n, c = board.n.copy(), board.c.copy()
    n[4], c[4] = 2 * n[1], 2 * c[1]  # model-4 has model-1's per-task rates from twice the attempts
    result = analyse(make_board(n, c), SEED, replicates=2000)
    one, four = result.stats("model-1"), result.stats("model-4")
    assert (one.rank, one.rank_range, one.ci, one.score) == (four.rank, four.rank_range, four.ci, four.score)
    assert np.array_equal(result.replicate_ranks[:, 1], result.replicate_ranks[:, 4])


def test_a_dominating_model_ranks_no_worse_in_every_replicate() -> None:
    board = random_board(models=6, tasks=30)
    n, c = board.n.copy(), board.c.copy()
    c[5] = np.minimum(c[2] + (np.arange(30) % 4 == 0), n[2])  # model-5 >= model-2 on every task, same n
    n[5] = n[2]
    result = analyse(make_board(n, c), SEED, replicates=3000)
    assert (result.replicate_ranks[:, 5] <= result.replicate_ranks[:, 2]).all()
    assert result.stats("model-5").rank <= result.stats("model-2").rank


def test_permuting_the_model_order_changes_no_per_model_field() -> None:
    board = random_board(models=7)
    order = [3, 6, 0, 5, 1, 4, 2]
    permuted = Board(key=board.key, models=tuple(board.models[i] for i in order), tasks=board.tasks,
                     n=board.n[order], c=board.c[order])
    first, second = analyse(board, SEED, replicates=1500), analyse(permuted, SEED, replicates=1500)
    assert first.as_dict() == second.as_dict()
    for model in board.models:
        assert first.stats(model) == second.stats(model)


def test_replicate_sd_matches_the_analytic_standard_error() -> None:
    rng = np.random.default_rng(11)
    tasks = 300
    n = np.full((2, tasks), 4)
    c = rng.binomial(n, rng.uniform(0, 1, size=(2, tasks)))
    result = analyse(make_board(n, c), SEED)
    rates = c[0] / n[0]
    expected = np.std(rates, ddof=1) * math.sqrt((tasks - 1) / tasks) / math.sqrt(tasks)
    observed = np.std(result.replicate_scores()[:, 0], ddof=1)
    assert abs(observed / expected - 1) < 0.03


def test_replicates_are_exact_task_means_of_the_shared_draw() -> None:
    """Rebuild the first replicates by hand: every model is scored on the same resampled tasks, exactly."""
    rng = np.random.default_rng(3)
    n = rng.integers(1, 6, size=(3, 12))
    c = rng.binomial(n, 0.5)
    board = make_board(n, c, key="category:physics")
    result = analyse(board, SEED, replicates=BLOCK)
    draws = board_rng(SEED, "category:physics").integers(0, 12, size=(BLOCK, 12), dtype=np.int64)
    for b in range(0, BLOCK, 97):
        for m in range(3):
            exact = sum(Fraction(int(c[m, t]), int(n[m, t])) for t in draws[b]) / 12
            assert result.replicate_scores()[b, m] == float(exact)


@pytest.mark.parametrize(("largest", "dtype"), [(43, np.int64), (59, object)])
def test_huge_common_denominators_stay_exact(largest: int, dtype: type) -> None:
    primes = [p for p in (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59) if p <= largest]
    n = np.array([primes, primes[::-1]])  # lcm * T beyond 2**53 (int64 path) or 2**63 (Python ints)
    c = np.array([[p // 2 for p in primes], [p // 3 for p in primes[::-1]]])
    result = analyse(make_board(n, c), SEED, replicates=50)
    assert result.replicate_numerators.dtype == dtype
    draws = board_rng(SEED, "overall").integers(0, len(primes), size=(50, len(primes)), dtype=np.int64)
    for b in (0, 17, 49):
        exact = sum(Fraction(int(c[0, t]), int(n[0, t])) for t in draws[b]) / len(primes)
        assert result.replicate_scores()[b, 0] == float(exact)


def test_same_inputs_and_seed_give_byte_identical_output() -> None:
    attempts, tasks = edition_fixture()
    runs = [json.dumps(edition_boards(attempts, tasks, SEED, replicates=800), sort_keys=True) for _ in range(2)]
    assert runs[0] == runs[1]
    shuffled = list(reversed(attempts))
    assert json.dumps(edition_boards(shuffled, tasks, SEED, replicates=800), sort_keys=True) == runs[0]
    assert json.dumps(edition_boards(attempts, tasks, SEED + 1, replicates=800), sort_keys=True) != runs[0]


# --- ranks ---------------------------------------------------------------------------------------------------

def test_competition_ranks_with_exact_ties() -> None:
    # model-1 and model-2 tie exactly (3/5 as rationals) though their float sums differ in the last bit.
    n = np.full((4, 3), 10)
    c = np.array([[9, 9, 9], [1, 2, 3], [3, 2, 1], [0, 1, 0]])
    assert sum(c[1] / n[1]) != sum(c[2] / n[2])  # the float trap this guards against
    result = analyse(make_board(n, c), SEED, replicates=200)
    assert [s.rank for s in result.models] == [1, 2, 2, 4]
    assert competition_ranks([Fraction(9, 10), Fraction(1, 5), Fraction(1, 5), Fraction(1, 30)]) == [1, 2, 2, 4]
    assert [s.rank for s in sorted(result.models, key=lambda s: s.rank)] == [1, 2, 2, 4]


def test_rank_ranges_are_whole_ranks_containing_plausible_orders() -> None:
    result = analyse(random_board(models=8, tasks=20, reps=2), SEED, replicates=2000)
    for s in result.models:
        low, high = s.rank_range
        assert isinstance(low, int) and isinstance(high, int) and 1 <= low <= high <= 8


# --- counting rule and refusals ------------------------------------------------------------------------------

def attempt(model: str, task: str, outcome: str = "completed", passed: bool = False, **kw: object) -> AttemptRecord:
    return AttemptRecord(model=model, task_hash=task, outcome=outcome, effective_passed=passed, **kw)


def test_counting_rule() -> None:
    t = task_hashes(1)
    tasks = [TaskInfo(t[0], "scene", "easy")]
    records = [attempt("a", t[0], "completed", True), attempt("a", t[0], "agent_error"),
               attempt("a", t[0], "agent_timeout"), attempt("a", t[0], "infra_error", True),
               attempt("a", t[0], "infra_timeout", True), attempt("a", t[0], "hung", True)]
    board = build_board("overall", records, tasks)
    assert board.n.tolist() == [[3]] and board.c.tolist() == [[1]]
    with pytest.raises(ValueError, match="unknown attempt outcome"):
        is_counted("crashed")


def test_a_missing_cell_is_refused_with_a_reason_never_renormalised() -> None:
    t = task_hashes(3)
    tasks = [TaskInfo(h, "scene", "easy") for h in t]
    records = [attempt(m, h, passed=True) for m in ("a", "b") for h in t]
    records.append(attempt("c", t[0], passed=True))
    records.append(attempt("c", t[1], "infra_error", passed=True))  # not counted: the cell stays empty
    board = build_board("overall", records, tasks)
    assert set(board.refused) == {"c"}
    assert "no counted attempt on 2 of 3 tasks" in board.refused["c"]
    result = analyse(board, SEED, replicates=100)
    assert [s.model for s in result.models] == ["a", "b"]
    out = result.as_dict()
    assert out["refused"] == [{"model": "c", "reason": board.refused["c"]}]
    with pytest.raises(KeyError, match="no counted attempt"):
        result.stats("c")


def test_board_validates_its_inputs() -> None:
    with pytest.raises(ValueError, match="canonical order"):
        Board(key="x", models=("a",), tasks=("b", "a"), n=np.ones((1, 2)), c=np.zeros((1, 2)))
    with pytest.raises(ValueError, match="0 <= c <= n"):
        Board(key="x", models=("a",), tasks=("a",), n=np.ones((1, 1)), c=2 * np.ones((1, 1)))


# --- pairwise, seeds, time, cost, capability resolution ------------------------------------------------------

def test_pairwise_difference_and_resolution() -> None:
    n = np.full((3, 40), 4)
    rng = np.random.default_rng(5)
    c = np.stack([rng.binomial(4, 0.9, 40), rng.binomial(4, 0.2, 40), rng.binomial(4, 0.2, 40)])
    c[2] = c[1]
    result = analyse(make_board(n, c), SEED, replicates=2000)
    strong = result.pairwise("model-0", "model-1")
    assert strong["resolved"] and strong["ahead"] == "model-0" and strong["ci"][0] > 0
    assert strong["difference"] == float(result.stats("model-0").score_exact - result.stats("model-1").score_exact)
    same = result.pairwise("model-1", "model-2")
    assert not same["resolved"] and same["ahead"] is None and same["ci"] == [0.0, 0.0]
    assert len(result.pairwise_all()) == 3


def test_board_seeds_derive_from_the_root_and_the_key() -> None:
    assert board_spawn_id("overall") == int(hashlib.sha256(b"overall").hexdigest()[:16], 16)
    first = board_rng(SEED, "overall").integers(0, 1000, 8)
    assert np.array_equal(first, board_rng(SEED, "overall").integers(0, 1000, 8))
    assert not np.array_equal(first, board_rng(SEED, "category:ui").integers(0, 1000, 8))
    seed = analyse(random_board(), SEED, replicates=10).as_dict()["seed"]
    assert seed == {"root": SEED, "spawn_key": [board_spawn_id("overall")], "bit_generator": "PCG64"}


def test_time_per_task_uses_only_tasks_every_model_completed() -> None:
    t = task_hashes(3)
    tasks = [TaskInfo(h) for h in t]
    records = [
        attempt("a", t[0], wall_seconds=10.0), attempt("b", t[0], wall_seconds=30.0),
        attempt("a", t[1], wall_seconds=2.0), attempt("b", t[1], "agent_error", wall_seconds=500.0),
        attempt("a", t[2], wall_seconds=4.0), attempt("a", t[2], "infra_error", wall_seconds=900.0),
        attempt("b", t[2], wall_seconds=6.0), attempt("b", t[2], "agent_timeout", wall_seconds=20.0),
    ]
    times, comparable = time_per_task(build_board("overall", records, tasks), records)
    assert comparable == 2  # t[1]: b never completed it
    assert times == {"a": (10.0 + 4.0) / 2, "b": (30.0 + (6.0 + 20.0) / 2) / 2}


def test_cost_is_list_price_times_tokens_and_never_estimated() -> None:
    t = task_hashes(2)
    tasks = [TaskInfo(h) for h in t]
    records = [
        attempt("a", t[0], tokens_in=1_000_000, tokens_out=100_000), attempt("a", t[1], tokens_in=0, tokens_out=0),
        attempt("b", t[0], tokens_in=10, tokens_out=10), attempt("b", t[1]),  # unmetered
        attempt("c", t[0], tokens_in=1, tokens_out=1), attempt("c", t[1], tokens_in=1, tokens_out=1),  # no price
    ]
    prices = {"a": Price(3.0, 15.0), "b": Price(1.0, 1.0)}
    costs = cost_per_task(build_board("overall", records, tasks), records, prices)
    assert costs == {"a": pytest.approx((3.0 + 1.5) / 2), "b": None, "c": None}
    out = board_dict(build_board("overall", records, tasks), records, SEED, prices=prices, replicates=10)
    assert {row["model"]: row["cost_per_task_usd"] for row in out["models"]}["b"] is None


def edition_fixture() -> tuple[list[AttemptRecord], list[TaskInfo]]:
    rng = np.random.default_rng(2)
    hashes = task_hashes(12)
    tasks = []
    for i, h in enumerate(hashes):
        requirements = (Requirement("R1", "completeness", ("scene",)),
                        Requirement("R2", "completeness", ("input",) if i % 2 else ("scene",)),
                        Requirement("R3", "richness", ("audio",)))
        tasks.append(TaskInfo(h, ("scene", "ui")[i % 2], ("easy", "hard")[i % 3 == 0], i >= 10, requirements))
    records = []
    for m, skill in (("alpha", 0.8), ("beta", 0.5), ("gamma", 0.3)):
        for task in tasks:
            for rep in range(3):
                passed = {r.id for r in task.requirements if rng.uniform() < skill}
                records.append(AttemptRecord(m, task.task_hash, "completed", {"R1", "R2"} <= passed,
                                             frozenset(passed), wall_seconds=float(rep + 1), tokens_in=100 * rep,
                                             tokens_out=50))
    records.append(AttemptRecord("gamma", hashes[0], "infra_error", True))
    return records, tasks


def test_edition_boards_and_capability_resolution() -> None:
    records, tasks = edition_fixture()
    out = edition_boards(records, tasks, SEED, prices={"alpha": Price(1.0, 2.0)}, replicates=300)
    assert out["statistics"]["numpy"] == np.__version__ and out["statistics"]["algorithm"]
    assert sorted(out["boards"]) == ["category:scene", "category:ui", "difficulty:easy", "difficulty:hard",
                                     "heldout", "overall"]
    assert out["boards"]["overall"]["tasks"] == 10 and out["boards"]["heldout"]["tasks"] == 2
    assert sorted(out["capability_resolution"]) == ["capability:audio", "capability:input", "capability:scene",
                                                    "layer:completeness", "layer:richness"]
    scene = build_requirement_board("capability:scene", records, [t for t in tasks if not t.heldout],
                                    lambda r: "scene" in r.capabilities)
    assert scene.n[0].tolist() == [6 if len([r for r in t.requirements if "scene" in r.capabilities]) == 2 else 3
                                   for t in sorted(tasks[:10], key=lambda t: t.task_hash)]
    costs = {row["model"]: row["cost_per_task_usd"] for row in out["boards"]["overall"]["models"]}
    assert costs["beta"] is None and costs["alpha"] == pytest.approx((0 + 100 + 200) / 3 / 1e6 + 50 * 2 / 1e6)
    json.dumps(out, sort_keys=True, allow_nan=False)


def test_the_overall_board_carries_the_pairwise_view() -> None:
    tasks = [TaskInfo(f"{i:064x}", "scene", "easy") for i in range(12)]
    attempts = []
    for i, t in enumerate(tasks):
        attempts.append(AttemptRecord(model="strong", task_hash=t.task_hash, outcome="completed",
                                      effective_passed=True))
        attempts.append(AttemptRecord(model="weak", task_hash=t.task_hash, outcome="completed",
                                      effective_passed=i % 4 == 0))
    out = edition_boards(attempts, tasks, root_seed=7, replicates=2000)
    (pair,) = out["boards"]["overall"]["pairwise"]
    assert (pair["a"], pair["b"]) == ("strong", "weak")
    assert pair["resolved"] is True and pair["ahead"] == "strong"
    assert pair["ci"][0] > 0 and pair["difference"] == 0.75


# --- exact quantile levels (issue 11, defect 1) ----------------------------------------------------------------

def test_tail_levels_are_exact_fractions() -> None:
    assert tail_levels(0.95) == (Fraction(1, 40), Fraction(39, 40))
    assert tail_levels(0.9) == (Fraction(1, 20), Fraction(19, 20))
    assert 1.0 - 0.95 != 0.05  # why: the float route puts the lower level just above 2.5%
    with pytest.raises(ValueError):
        tail_levels(1.0)


# Two models on 40 tasks: model "b" is first in about 2.5% of replicates, so for some root seeds exactly 250 of
# the 10,000 replicates (the 2.5% level) rank it first.  By definition (the 250th smallest replicate rank) its
# range then starts at 1; the float level 0.025000000000000022 took the 251st and gave 2.
BOUNDARY_A = "1100011010111011110100111100110011011001"
BOUNDARY_B = "0000101000010110111011001100000001100001"


def boundary_board() -> Board:
    c = np.array([[int(x) for x in BOUNDARY_A], [int(x) for x in BOUNDARY_B]])
    return make_board(np.ones_like(c), c, ("a", "b"))


def test_rank_range_takes_the_250th_replicate_rank_on_a_boundary() -> None:
    board = boundary_board()
    on_boundary = []
    for seed in range(400):
        result = analyse(board, seed)
        for i, stats in enumerate(result.models):
            ranks = np.sort(result.replicate_ranks[:, i])
            assert stats.rank_range == (int(ranks[249]), int(ranks[9749])), (seed, stats.model)
        if int((result.replicate_ranks[:, 1] <= 1).sum()) == 250:
            on_boundary.append(seed)
            assert result.stats("b").rank_range == (1, 2)
    assert on_boundary == [140, 142, 191, 390, 394]  # the sweep does reach the boundary


def test_interpolated_quantiles_are_exact_then_rounded_once() -> None:
    rng = np.random.default_rng(11)
    numerators = rng.integers(0, 1000, size=(10_000, 3))
    denominator = 997
    for level in tail_levels(0.95):
        got = interpolated(numerators, denominator, level)
        for column, value in enumerate(got):
            ordered = sorted(int(v) for v in numerators[:, column])
            h = (len(ordered) - 1) * level
            low = int(h)
            exact = (ordered[low] + (h - low) * (ordered[low + 1] - ordered[low])) / denominator
            assert value == float(Fraction(exact))


def test_clopper_pearson_uses_the_exact_levels() -> None:
    from scipy.stats import beta

    assert clopper_pearson(7, 20) == pytest.approx((float(beta.ppf(0.025, 7, 14)), float(beta.ppf(0.975, 8, 13))),
                                                   rel=1e-14)


def test_pairwise_ci_uses_the_same_exact_quantile_as_the_scores() -> None:
    result = analyse(boundary_board(), 140)
    view = result.pairwise("a", "b")
    diffs = (result.replicate_numerators[:, 0] - result.replicate_numerators[:, 1])[:, None]
    assert view["ci"] == [interpolated(diffs, result.denominator, level)[0] for level in tail_levels(0.95)]


def test_clopper_pearson_agrees_with_scipy_stats_beta_quantiles() -> None:
    """The definition is scipy.stats.beta.ppf.  At 0% and 100% clopper_pearson evaluates Beta(1, n) and Beta(n, 1)
    quantiles in closed form, equal to scipy's bit for bit; other counts invert the binomial tail itself (boards
    never import scipy), within 1e-10 relative of scipy, across small and large boards and other confidence
    levels."""
    from scipy.stats import beta

    worst = 0.0
    for confidence, (low, high) in ((0.95, (0.025, 0.975)), (0.9, (0.05, 0.95)), (0.99, (0.005, 0.995))):
        for attempts in (*range(1, 200), 250, 1000, 4096, 10_007, 123_457):
            for passes in sorted({0, 1, attempts // 3, attempts - 1, attempts}):
                lower = 0.0 if passes == 0 else float(beta.ppf(low, passes, attempts - passes + 1))
                upper = 1.0 if passes == attempts else float(beta.ppf(high, passes + 1, attempts - passes))
                ours = clopper_pearson(passes, attempts, confidence)
                if passes in (0, attempts):
                    assert ours == (lower, upper), (passes, attempts)
                else:
                    worst = max(worst, abs(ours[0] - lower) / lower, abs(ours[1] - upper) / upper)
                    assert 0 < ours[0] < passes / attempts < ours[1] < 1, (passes, attempts)
    assert worst < 1e-10
