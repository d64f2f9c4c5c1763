"""``RunSpec(engine="native")`` (``--engine native``): the rows of the Python engine, exactly.

The native loop must list the legal actions in the reference's order, reproduce each
seat's ``random.Random(bot_seed)`` and count the row's numbers from the table; every
piece is checked against the Python engine here, then whole rows, on every backend.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

from nomercy import Rules, new_game
from nomercy.sim.backends import InProcess, LocalProcesses, RayBackend, execute
from nomercy.sim.runner import Row, RunSpec, run_chunk
from nomercy.testing import BASE_MIXES, deal_cases

pytest.importorskip("numpy", reason="the native engine needs the fast extra: pip install 'nomercy[fast]'")

import numpy as np

from nomercy.native import Batch, index_action
from nomercy.native import layout as L
from nomercy.native import sim as K
from nomercy.native.kernels import mt_below

MIXES = {**BASE_MIXES, "rlcard": Rules.preset("rlcard")}
CASES = deal_cases(MIXES)


def _ordered(batch: Batch, seat: int) -> list[object]:
    mask = np.zeros(L.NUM_ACTIONS, np.uint8)
    scratch = np.zeros(L.NUM_ACTIONS + 1, np.int64)
    out = np.zeros(L.NUM_ACTIONS + 1, np.int64)
    table = batch.tables[0]
    count = K.ordered_legal(table, batch.encoded, seat, mask, scratch, out)
    assert not mask.any(), "the mask must be left all zeros"
    actor = int(table[L.CURRENT]) if seat < 0 else seat
    return [index_action(int(a), actor, batch.players) for a in out[1 : count + 1]]


@pytest.mark.parametrize("mix", sorted(MIXES))
def test_legal_actions_come_in_the_reference_order(mix: str) -> None:
    """The random bot picks by position, so the list must be the reference's, in order,
    for the deciding seat and for every other seat (out-of-turn catches and Uno calls)."""
    rules = MIXES[mix]
    rng = random.Random(mix)
    for players in (2, 3, 4, 6):
        if players * rules.hand_size + 1 > sum(n for _, n in rules.deck):
            continue
        batch = Batch(rules, 1, players)
        for seed in range(6):
            state = new_game(players, rules, seed)
            batch.deal(0, seed)
            while state.current is not None:
                assert _ordered(batch, -1) == state.legal_actions()
                for seat in range(players):
                    assert _ordered(batch, seat) == state.legal_actions(seat)
                seat = state.current
                if state.uno_open and rng.random() < 0.3:  # a catch or a late call, sometimes
                    others = [x for x in range(players) if x != seat and state.legal_actions(x)]
                    seat = rng.choice(others) if others else seat
                action = rng.choice(state.legal_actions(seat))
                state.apply(action, seat)
                batch.step(0, action, seat)


@pytest.mark.parametrize(
    "seed", [0, 1, 7, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**40 + 5, 2**63 - 1, 2**64 - 1]
)
def test_bot_generators_are_cpythons_random(seed: int) -> None:
    """random.Random(seed): choice (getrandbits with rejection) and random(), in turn."""
    mt = np.zeros(K.MT_WORDS, np.int32)
    K.seed_rng(mt, np.uint64(seed).astype(np.int64))
    ref = random.Random(seed)
    for n in [1, 2, 3, 5, 8, 13, 100, 224, 1, 7] * 30:
        assert mt_below(mt, 0, n) == ref.randrange(n)
        assert K.mt_random(mt) == ref.random()


def test_the_random_policy_is_choice_over_the_reference_order() -> None:
    """``choose`` for P_RANDOM: ``rng.choice(state.legal_actions())``, turn after turn."""
    batch = Batch(Rules(), 1, 3)
    batch.deal(0, 5)
    state = batch.state(0)
    mt = np.zeros(K.MT_WORDS, np.int32)
    K.seed_rng(mt, 77)
    ref = random.Random(77)
    mask, lst = np.zeros(L.NUM_ACTIONS, np.uint8), np.zeros(L.NUM_ACTIONS + 1, np.int64)
    actions = np.zeros(L.NUM_ACTIONS + 1, np.int64)
    table = batch.tables[0]
    for _ in range(60):
        if state.current is None:
            break
        seat = state.current
        chosen = K.choose(table, batch.encoded, batch.deck, seat, K.P_RANDOM, mt, actions, mask, lst)
        expected = ref.choice(state.legal_actions())
        assert index_action(int(chosen), seat, 3) == expected
        state.apply(expected, seat)
        batch.step(0, int(chosen), seat)
        assert not mask.any()


def _both(spec: RunSpec) -> tuple[list[Row], list[Row]]:
    native = RunSpec(
        **{f: getattr(spec, f) for f in RunSpec.__dataclass_fields__ if f != "engine"}, engine="native"
    )
    return run_chunk(spec, 0, spec.games), native.play_chunk(0, spec.games)


@pytest.mark.parametrize(("mix", "players"), CASES, ids=[f"{m}-{p}p" for m, p in CASES])
def test_native_rows_equal_the_python_rows(mix: str, players: int) -> None:
    """Every field of every row, for many seeds, each rule mix and 2-6 players."""
    spec = RunSpec(games=24, players=players, rules=MIXES[mix], seed=100 + players, label=mix)
    python, native = _both(spec)
    for a, b in zip(python, native, strict=True):
        assert a == b, {k: (a[k], b[k]) for k in a if a[k] != b[k]}


def _seating(players: int, case: int) -> tuple[str, ...]:
    """All heuristic, or random and heuristic mixed (which seat starts varies by case)."""
    if case % 2 == 0:
        return ("heuristic",) * players
    return tuple("heuristic" if (seat + case // 2) % 2 else "random" for seat in range(players))


@pytest.mark.parametrize(
    ("mix", "players", "case"),
    [(m, p, i) for i, (m, p) in enumerate(CASES)],
    ids=[f"{m}-{p}p-{'heuristic' if i % 2 == 0 else 'mixed'}" for i, (m, p) in enumerate(CASES)],
)
def test_heuristic_and_mixed_seatings_give_the_python_rows(mix: str, players: int, case: int) -> None:
    """The heuristic policy (its choices and its catches, asked in the reaction round),
    alone and beside random bots, for each rule mix and 2-6 players."""
    bots = _seating(players, case)
    spec = RunSpec(games=8, players=players, bots=bots, rules=MIXES[mix], seed=200 + case, label=mix)
    python, native = _both(spec)
    for a, b in zip(python, native, strict=True):
        assert a == b, {k: (a[k], b[k]) for k in a if a[k] != b[k]}


def test_heuristic_catches_and_misses_are_the_python_bots() -> None:
    """Enough heuristic games that catches are made (the reaction round) and missed (the
    catch_miss draw), on every backend."""
    spec = RunSpec(games=40, players=5, bots=("heuristic", "random") * 2 + ("heuristic",), seed=31)
    native = RunSpec(
        **{**{f: getattr(spec, f) for f in ("games", "players", "bots", "seed")}, "engine": "native"}
    )
    expected = run_chunk(spec, 0, 40)
    assert sum(r["catches"] for r in expected) > 0
    assert native.play_chunk(0, 40) == expected
    assert execute(native, InProcess(), chunk_size=9).rows == expected
    assert execute(native, LocalProcesses(workers=2), chunk_size=11).rows == expected


def test_the_rows_cover_what_the_native_loop_counts_apart() -> None:
    """Reshuffles (replayed on the reference), catches, knock-outs and stacks all occur."""
    rows: list[Row] = []
    for mix, players in [("no_mercy", 6), ("classic", 4), ("no_mercy_mixed", 5)]:
        spec = RunSpec(games=60, players=players, rules=MIXES[mix], seed=3)
        python, native = _both(spec)
        assert python == native
        rows += native
    assert sum(r["reshuffles"] for r in rows) > 20
    assert sum(r["catches"] for r in rows) > 0
    assert sum(r["knockouts"] for r in rows) > 20
    assert max(r["largest_stack"] for r in rows) >= 10
    assert {r["reason"] for r in rows} == {"played_out", "last_standing"}


def test_chunks_and_worker_processes_give_the_python_rows() -> None:
    spec = RunSpec(games=60, players=4, seed=9)
    native = RunSpec(games=60, players=4, seed=9, engine="native")
    expected = run_chunk(spec, 0, 60)
    assert native.play_chunk(0, 17) + native.play_chunk(17, 18) + native.play_chunk(18, 60) == expected
    assert execute(native, InProcess(), chunk_size=7).rows == expected
    assert execute(native, LocalProcesses(workers=2), chunk_size=9).rows == expected


def test_a_local_ray_gives_the_python_rows() -> None:
    pytest.importorskip("ray")
    spec = RunSpec(games=30, players=3, seed=4)
    native = RunSpec(games=30, players=3, seed=4, engine="native")
    assert execute(native, RayBackend(address="local", workers=2), chunk_size=8).rows == run_chunk(
        spec, 0, 30
    )


def test_what_the_native_engine_cannot_play_is_refused_before_any_game() -> None:
    with pytest.raises(ValueError, match="unknown engine 'rust': choose from python, native"):
        RunSpec(games=1, engine="rust")
    with pytest.raises(
        ValueError,
        match=r"bot expert has no native version \(native bots: random, heuristic\): use --engine python",
    ):
        RunSpec(games=1, players=2, bots=("heuristic", "expert"), engine="native")
    with pytest.raises(ValueError, match="seats at most 6"):
        RunSpec(games=1, players=7, rules=Rules(max_players=8), engine="native")
    assert RunSpec(games=1, players=7, rules=Rules(max_players=8)).play_chunk(
        0, 1
    )  # the Python engine seats 7


def test_a_heuristic_that_is_not_the_built_in_one_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """The native policy reproduces HeuristicBot: another class under that name plays Python."""
    import nomercy.bots as bots
    from nomercy.bots.heuristic import HeuristicBot

    class Bolder(HeuristicBot):
        pass

    bots.available()  # the built-in bots registered first
    monkeypatch.setitem(bots._REGISTRY, "heuristic", Bolder)
    with pytest.raises(ValueError, match="'heuristic' bot is not the built-in one"):
        RunSpec(games=1, players=2, bots=("heuristic",), engine="native")
    RunSpec(games=1, players=2, bots=("random",), engine="native")  # a seating without it plays


def test_without_the_fast_extra_the_native_engine_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import nomercy.sim

    for name in [m for m in sys.modules if m.startswith(("nomercy.native", "nomercy.sim.native_runner"))]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.delattr(nomercy.sim, "native_runner", raising=False)
    monkeypatch.setitem(sys.modules, "numpy", None)
    with pytest.raises(ImportError, match=r"pip install 'nomercy\[fast\]'"):
        RunSpec(games=1, engine="native")
    RunSpec(games=1)  # the Python engine needs nothing more


def test_simulate_and_compare_take_the_engine_option(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from nomercy.cli import app
    from nomercy.sim.results import read_results

    runner = CliRunner(env={"COLUMNS": "200"})
    expected = run_chunk(RunSpec(games=30, players=3, seed=2), 0, 30)
    out = tmp_path / "native.csv"
    args = ["simulate", "-n", "30", "-p", "3", "-s", "2", "-w", "1", "--no-progress", "--engine", "native"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "native engine" in result.output
    assert list(read_results(out).rows()) == [dict(r, rules="no_mercy") for r in expected]
    result = runner.invoke(app, [*args, "--bots", "expert"])
    assert result.exit_code == 2 and "no native version" in result.output
    heuristic = runner.invoke(
        app, [*args, "--bots", "heuristic,random,heuristic", "--out", str(tmp_path / "h.csv")]
    )
    assert heuristic.exit_code == 0, heuristic.output
    spec = RunSpec(games=30, players=3, seed=2, bots=("heuristic", "random", "heuristic"))
    assert list(read_results(tmp_path / "h.csv").rows()) == [
        dict(r, rules="no_mercy") for r in run_chunk(spec, 0, 30)
    ]
    result = runner.invoke(app, ["simulate", "-n", "1", "--engine", "rust", "--no-progress"])
    assert result.exit_code == 2 and "unknown engine" in result.output
    tables = {}
    for engine in ("python", "native"):
        md = tmp_path / f"{engine}.md"
        result = runner.invoke(
            app,
            [
                "compare", "-n", "40", "-p", "3", "-w", "1", "-V", "stack_color=match", "--no-progress",
                "--engine", engine, "--html", str(tmp_path / f"{engine}.html"), "--md", str(md),
            ],
        )  # fmt: skip
        assert result.exit_code == 0, result.output
        tables[engine] = md.read_text(encoding="utf-8")
    assert tables["native"] == tables["python"]


def test_seeds_derived_natively_are_derive_seeds() -> None:
    from nomercy.seeding import derive_seed
    from nomercy.sim.native_runner import derive_seeds
    from nomercy.sim.runner import bot_seed, game_seed

    parts = [(0, 0), (0, 1), (1, 0), (2**63 - 1, 5), (12345678901234567, 999999)] + [
        (7, i) for i in range(200)
    ]
    assert derive_seeds("sim", parts) == [game_seed(a, b) for a, b in parts]
    assert derive_seeds("bot", parts) == [bot_seed(a, b) for a, b in parts]
    assert derive_seeds("x", [(1, 2, 3), (4,), ()]) == [
        derive_seed("x", 1, 2, 3),
        derive_seed("x", 4),
        derive_seed("x"),
    ]
    assert derive_seeds("sim", []) == []


def test_an_endless_round_is_an_error_naming_the_game(monkeypatch: pytest.MonkeyPatch) -> None:
    from nomercy.sim import native_runner

    monkeypatch.setattr(native_runner, "MAX_STEPS", 5)
    with pytest.raises(RuntimeError, match="game 3 did not end within 5 actions"):
        RunSpec(games=2, seed=1, engine="native").play_chunk(3, 5)
