"""The encoding is complete in every encoder: each of the three (the reference from a view,
the fast one from a state, the native one from a native table) writes every section of
``OBS_SECTIONS`` and no other, with the same numbers, and maps every action of the one
table both ways. A section or an action left out of any of them fails here."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

np = pytest.importorskip("numpy", reason="the encoders need numpy: pip install 'nomercy[learned]'")

from nomercy import GameState, Rules, new_game  # noqa: E402
from nomercy.encoding import (  # noqa: E402  # noqa: E402
    ACTIONS,
    MAX_PLAYERS,
    NUM_ACTIONS,
    OBS_SECTIONS,
    OBS_SIZE,
    action_to_index,
    fast,
    reference,
    seat_action,
)
from nomercy.views import player_view  # noqa: E402

E = pytest.importorskip("nomercy.native.encode", reason="the native encoder needs the fast extra")
from nomercy.native import Batch, action_index, index_action  # noqa: E402

NAMES = [s.name for s in OBS_SECTIONS]
#: Rule mixes that between them reach every section: knock-outs set aside (M1, M2) or
#: buried, drawn cards to play (T2), the W6 challenge, stacks (K1, K2).
RULES = {
    "no_mercy": Rules(),
    "no_mercy+discard_bottom": Rules(knockout_hand="discard_bottom", uno_timing="holding_one"),
    "classic": Rules.preset("classic"),
    "classic+challenge": Rules.preset("classic").replace(
        wild_draw4_challenge=True, wild_draw4_restricted=False
    ),
    "rlcard": Rules.preset("rlcard"),
    # The rules section under a mix of non-default house rules (each an input since encoding 3).
    "house_mix": Rules(
        hand_size=6,
        first_card="apply",
        draw_rule="one",
        draw_when_playable=True,
        two_player_reverse="opponent",
        two_player_reverse_draw="opponent",
        roulette_color="revealed",
        draw10_stackable=False,
        stack_color="match",
        mercy_limit=18,
        uno_penalty=3,
        uno_timing="own_play",
        last_card_draw="apply",
        play_drawn_at_once=True,
    ),
}


@pytest.mark.parametrize(
    ("encoder", "declared"),
    [("reference", list(reference.WRITERS)), ("fast", list(fast.SECTIONS)), ("native", list(E.SECTIONS))],
)
def test_every_encoder_declares_each_section_once(encoder: str, declared: list[str]) -> None:
    assert sorted(declared) == sorted(NAMES), f"{encoder}: missing {set(NAMES) - set(declared)}"
    assert len(declared) == len(set(declared)), encoder


def test_the_native_offsets_are_the_sections_starts() -> None:
    starts = {s.name: s.start for s in OBS_SECTIONS}
    assert list(E.OFFSETS) == [starts[name] for name in E.SECTIONS]
    assert list(E.ACTION_LOOKUP) == list(range(NUM_ACTIONS))


def _positions(players: int, rules: Rules, seed: int, steps: int = 160) -> Iterator[GameState]:
    """The states of a random round, out-of-turn actions (catches, late calls) taken too."""
    rng = random.Random(seed)
    state = new_game(players, rules, seed=seed)
    for _ in range(steps):
        if state.is_over:
            return
        yield state
        seat = state.current
        assert seat is not None
        others = [s for s in range(players) if s != seat and state.legal_actions(s)]
        if others and rng.random() < 0.5:
            other = rng.choice(others)
            state.apply(rng.choice(state.legal_actions(other)), other)
        else:
            state.apply(rng.choice(state.legal_actions()))


def test_the_three_encoders_write_every_section_alike() -> None:
    """Every section is written (non-zero somewhere) by each encoder, which agree bit for bit
    on the observation and the mask at every sampled position."""
    written = {name: dict.fromkeys(NAMES, False) for name in ("reference", "fast", "native")}
    checked = 0
    for preset, rules in RULES.items():
        for players in range(2, MAX_PLAYERS + 1):
            batch = Batch(rules, 1, players)
            encoder = fast.StateEncoder()
            native_obs = np.zeros(OBS_SIZE, np.float32)
            native_mask = np.zeros(NUM_ACTIONS, np.int8)
            scratch = np.zeros(NUM_ACTIONS, np.uint8)
            lst = np.zeros(NUM_ACTIONS + 1, np.int64)
            offsets = np.array(E.OFFSETS, np.int64)
            lookup = np.array(E.ACTION_LOOKUP, np.int64)
            for state in _positions(players, rules, seed=players * 7 + len(preset)):
                batch.load(0, state)
                for seat in range(players):
                    view = player_view(state, seat)
                    obs = {
                        "reference": reference.observe(view),
                        "fast": encoder.observe(state, seat),
                        "native": native_obs,
                    }
                    E.observe(batch.tables[0], seat, offsets, E.rules_row(rules), native_obs)
                    E.mask(batch.tables[0], batch.encoded, seat, lookup, native_mask, scratch, lst)
                    assert np.array_equal(obs["reference"], obs["fast"]), (preset, players, seat)
                    assert np.array_equal(obs["reference"], native_obs), (preset, players, seat)
                    mask = reference.legal_mask(view)
                    assert np.array_equal(mask, encoder.mask(state, seat)), (preset, players, seat)
                    assert np.array_equal(mask, native_mask), (preset, players, seat)
                    for name, vector in obs.items():
                        for s in OBS_SECTIONS:
                            written[name][s.name] |= bool(vector[s.start : s.stop].any())
                    checked += 1
    assert checked > 1000
    for name, sections in written.items():
        assert [s for s, seen in sections.items() if not seen] == [], f"{name} never wrote these sections"


def _offset(index: int) -> int:
    """The seat offset table entry ``index`` names (a Seven's target, a catch), or 0."""
    action = ACTIONS[index]
    target: int | None = getattr(action, "target", None)
    seat: int = getattr(action, "seat", 0)
    return target or seat


@pytest.mark.parametrize("players", range(2, MAX_PLAYERS + 1))
def test_every_action_maps_both_ways_in_every_encoder(players: int) -> None:
    """Each index of the table (whose seat offset exists at this table) is an action of the
    reference's, the fast encoder's and the native engine's, and comes back to itself."""
    reached = set()
    for seat in range(players):
        for index in range(NUM_ACTIONS):
            try:
                action = seat_action(index, seat, players)
            except ValueError:
                assert _offset(index) >= players, index  # refused only for a seat past the table
                continue
            assert action_to_index(action, seat, players) == index
            assert fast.legal_index_list([action], seat, players) == [index]
            assert index_action(index, seat, players) == action
            assert action_index(action, seat, players) == index
            reached.add(index)
    beyond = {i for i in range(NUM_ACTIONS) if _offset(i) >= players}
    assert reached == set(range(NUM_ACTIONS)) - beyond
    if players == MAX_PLAYERS:
        assert reached == set(range(NUM_ACTIONS))  # every entry is some table's action
