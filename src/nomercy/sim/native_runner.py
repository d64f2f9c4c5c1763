"""The games of a run on the native engine: the rows the Python engine gives, faster.

``RunSpec(engine="native")`` plays its chunks here (``nomercy simulate --engine native``).
Game ``i`` is dealt from the same :func:`~nomercy.sim.spec.game_seed`, each seat's
policy draws from the same ``random.Random(bot_seed(...))`` over the legal actions in the
reference's order, and the counts come from the table before and after every action
(:mod:`nomercy.native.sim`; the table counts what reshuffles put into the draw pile, so
cards drawn need no replay on the reference engine). So a row is equal to the
one :func:`~nomercy.sim.runner.play_game` (the Python engine) gives, and any chunk can
play in any worker.

Only bots with a native policy can sit at a native table (:data:`NATIVE_BOTS`: ``random``
and ``heuristic``, alone or mixed); the others are refused by :func:`check` before any
game starts, as is a ``random`` or ``heuristic`` name that no longer makes the built-in
bot the native policy reproduces.
"""

from __future__ import annotations

from hashlib import sha512

import numpy as np

from nomercy.native import Batch
from nomercy.native import layout as L
from nomercy.native import sim as K
from nomercy.sim.spec import Row, RunSpec, make_row, random_is_plain

__all__ = ["MAX_STEPS", "NATIVE_BOTS", "catch_miss", "check", "derive_seeds", "run_chunk"]

#: Bot name -> the native policy that makes its choices (``nomercy.native.sim``): the
#: same choices from the same seed, checked by tests/sim/test_native_engine.py.
NATIVE_BOTS: dict[str, int] = {"random": K.P_RANDOM, "heuristic": K.P_HEURISTIC}

#: Actions after which a round counts as endless (``bots.runner.play_round``'s limit).
MAX_STEPS = 100_000

_REASONS = ("played_out", "last_standing")


def catch_miss() -> float:
    """The ``heuristic`` bot's chance to miss a catch, as ``make("heuristic")`` sets it;
    :class:`ValueError` if that name no longer makes the built-in :class:`HeuristicBot`
    (whose choices the native policy reproduces)."""
    from nomercy.bots import make
    from nomercy.bots.heuristic import HeuristicBot

    bot = make("heuristic", seed=0)
    if type(bot) is not HeuristicBot:
        raise ValueError("the 'heuristic' bot is not the built-in one here: use --engine python")
    return bot.catch_miss


def check(spec: RunSpec) -> None:
    """Refuse (:class:`ValueError`) a run the native engine cannot play as the Python one."""
    missing = sorted({name for name in spec.bots if name not in NATIVE_BOTS})
    if missing:
        bots = "bots" if len(missing) > 1 else "bot"
        raise ValueError(
            f"{bots} {', '.join(missing)} {'have' if len(missing) > 1 else 'has'} no native version "
            f"(native bots: {', '.join(NATIVE_BOTS)}): use --engine python"
        )
    if "random" in spec.bots and not random_is_plain():
        raise ValueError("the 'random' bot is not the built-in one here: use --engine python")
    if "heuristic" in spec.bots:
        catch_miss()
    if spec.players > L.MAX_PLAYERS:
        raise ValueError(
            f"{spec.players} players: a native table seats at most {L.MAX_PLAYERS}, use --engine python"
        )
    Batch(spec.rules, 1, spec.players)  # the deck must deal to every seat (S2)


def derive_seeds(kind: str, parts: list[tuple[int, ...]]) -> list[int]:
    """``[derive_seed(kind, *p) for p in parts]``, the generators seeded natively.

    ``random.Random(text)`` seeds from ``int.from_bytes(text + sha512(text))``: the bytes
    are hashed here, the key's words fed to MT19937 in :func:`nomercy.native.sim.derive_seeds`
    (a test checks it against :func:`~nomercy.seeding.derive_seed`).
    """
    if not parts:
        return []
    prefix = f"nomercy-{kind}:"
    texts = [(prefix + ":".join(map(str, map(int, p)))).encode() for p in parts]
    blobs = [(text + sha512(text).digest())[::-1] for text in texts]  # little-endian: word 0 first
    size = -(-max(len(b) for b in blobs) // 4) * 4
    keys = np.frombuffer(b"".join(b.ljust(size, b"\0") for b in blobs), "<u4").reshape(len(blobs), -1)
    out = np.zeros(len(blobs), np.int64)
    K.derive_seeds(keys, np.zeros(K.MT_WORDS, np.int64), out)
    return out.tolist()


def run_chunk(spec: RunSpec, start: int, stop: int) -> list[Row]:
    """Rows of games ``start`` (inclusive) to ``stop`` (exclusive), played natively."""
    check(spec)
    if stop <= start:
        return []
    n = spec.players
    batch = Batch(spec.rules, 1, n)
    table = batch.tables[0]
    indexes = range(start, stop)
    seeds = derive_seeds("sim", [(spec.seed, i) for i in indexes])  # spec.game_seed
    game_seeds = np.array(seeds, np.int64)
    bot_seeds = np.array(derive_seeds("bot", [(s, seat) for s in seeds for seat in range(n)]), np.int64)
    bot_seeds = bot_seeds.reshape(len(seeds), n)  # spec.bot_seed(s, seat)
    kinds = np.array([NATIVE_BOTS[name] for name in spec.bots], np.int64)
    miss = catch_miss() if "heuristic" in spec.bots else 0.0
    mt = np.zeros((L.MAX_PLAYERS, K.MT_WORDS), np.int32)
    stats = np.zeros((len(seeds), K.NUM_STATS), np.int64)
    cursor = np.zeros(K.CURSOR, np.int64)
    mask = np.zeros(L.NUM_ACTIONS, np.uint8)
    scratch = np.zeros(L.NUM_ACTIONS + 1, np.int64)
    actions = np.zeros(L.NUM_ACTIONS + 1, np.int64)
    sitting = np.zeros(L.MAX_PLAYERS, np.int64)
    code = K.play_games(
        table,
        batch.encoded,
        batch.deck,
        n,
        game_seeds,
        bot_seeds,
        kinds,
        mt,
        stats,
        cursor,
        mask,
        scratch,
        actions,
        sitting,
        MAX_STEPS,
        miss,
    )
    if code != K.DONE:
        raise RuntimeError(f"game {start + int(cursor[K.C_GAME])} did not end within {MAX_STEPS} actions")
    rows = []
    for g, (index, seed) in enumerate(zip(indexes, seeds, strict=True)):
        v = stats[g].tolist()
        k = v[K.S_KNOCKOUTS]
        rows.append(
            make_row(
                spec,
                index,
                seed,
                v[K.S_DEALER],
                v[K.S_FIRST],
                v[K.S_WINNER],
                _REASONS[v[K.S_REASON]],
                (v[K.S_DECISIONS], v[K.S_DRAWN], v[K.S_LARGEST], v[K.S_CATCHES], v[K.S_RESHUFFLES]),
                [
                    (seat, None if by < 0 else by)
                    for seat, by in zip(
                        v[K.S_KO_SEAT : K.S_KO_SEAT + k], v[K.S_KO_BY : K.S_KO_BY + k], strict=True
                    )
                ],
                v[K.S_POINTS : K.S_POINTS + n],
            )
        )
    return rows
