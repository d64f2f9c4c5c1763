"""The action table and the observation encoding (nomercy.encoding)."""

from __future__ import annotations

import random

import pytest

np = pytest.importorskip("numpy", reason="the rl extra is not installed")
pytest.importorskip("gymnasium", reason="the rl extra is not installed")

import nomercy  # noqa: E402
from nomercy import Catch, Color, Decision, Play, determinize  # noqa: E402
from nomercy import encoding as enc  # noqa: E402
from nomercy.cards import Card  # noqa: E402
from nomercy.views import player_view  # noqa: E402

from .helpers import PLAYERS, PRESETS, random_states  # noqa: E402


def test_the_table_is_fixed_and_has_no_duplicates() -> None:
    keys = [enc.action_meaning(i) for i in range(enc.NUM_ACTIONS)]
    assert len(set(keys)) == enc.NUM_ACTIONS == 224
    assert enc.ENV_VERSION == 3  # 3: the rules section (the action table is that of 2)
    # Spot checks of the documented order: plays by Card.index, plain then uno.
    assert keys[0] == "play R0" and keys[1] == "play R0 uno"
    assert keys[-5:] == [f"catch +{k}" for k in range(1, 6)]
    some = {"draw", "pass", "take", "challenge", "uno", "color R", "color B", "play WCR", "play W+10 G uno"}
    assert some <= set(keys)


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_legal_action_round_trips_through_its_index(players: int, preset: str) -> None:
    rules = PRESETS[preset]
    seen: set[int] = set()
    for seed in range(6):
        for state in random_states(players, rules, seed):
            for seat in range(players):
                for action in state.legal_actions(seat):
                    index = enc.action_to_index(action, seat, players)
                    assert enc.index_to_action(player_view(state, seat), index) == action
                    seen.add(index)
                view = player_view(state, seat)
                mask = enc.legal_mask(view)
                assert mask.dtype == np.int8
                assert sorted(np.flatnonzero(mask)) == sorted(
                    enc.action_to_index(a, seat, players) for a in view.legal_actions
                )
    assert len(seen) > 40  # the random rounds reached a good part of the table


def test_seats_in_actions_are_relative_to_the_actor() -> None:
    """N1 Seven targets and U2 catches: the same index means 'the next seat' from everywhere."""
    seven = Card(Color.GREEN, nomercy.Face.SEVEN)
    state = nomercy.new_game(4, seed=1)
    i = enc.action_to_index(Play(seven, None, 3, False), 2, 4)
    assert enc.action_meaning(i) == "play G7 @+1"
    assert enc.index_to_action(state, i, seat=0) == Play(seven, None, 1, False)
    j = enc.action_to_index(Catch(0), 3, 4)
    assert enc.action_meaning(j) == "catch +1"
    assert enc.index_to_action(state, j, seat=1) == Catch(2)


def test_bad_indices_are_refused_with_a_reason() -> None:
    state = nomercy.new_game(2, seed=3)
    with pytest.raises(ValueError, match="outside"):
        enc.index_to_action(state, enc.NUM_ACTIONS)
    catch_far = enc.NUM_ACTIONS - 1  # catch +5
    with pytest.raises(ValueError, match="2-seat table"):
        enc.index_to_action(state, catch_far)
    with pytest.raises(ValueError, match="seat 2 to 6"):
        enc.check_table(7, nomercy.Rules(max_players=8))


@pytest.mark.parametrize("players", PLAYERS)
@pytest.mark.parametrize("preset", list(PRESETS))
def test_observations_never_contain_another_seats_cards(players: int, preset: str) -> None:
    """A state and a re-deal of everything the seat cannot see observe the same."""
    rules = PRESETS[preset]
    rng = random.Random(players)
    checked = 0
    for seed in range(4):
        for state in random_states(players, rules, seed + 100):
            seat = rng.randrange(players)
            view = player_view(state, seat)
            other = determinize(view, rng)
            hidden_differs = (
                any(
                    sorted(state.hands[s], key=Card.sort_key) != sorted(other.hands[s], key=Card.sort_key)
                    for s in range(players)
                    if s != seat
                )
                or state.draw_pile != other.draw_pile
            )
            if not hidden_differs:
                continue
            assert np.array_equal(enc.observe(view), enc.observe(player_view(other, seat)))
            assert np.array_equal(enc.legal_mask(view), enc.legal_mask(player_view(other, seat)))
            checked += 1
    assert checked > 50


def test_observation_sections_hold_what_the_table_says() -> None:
    state = nomercy.new_game(4, seed=11)
    seat = 2
    view = player_view(state, seat)
    obs = enc.observe(view)
    assert obs.shape == (enc.OBS_SIZE,) and obs.dtype == np.float32
    sec = {s.name: obs[s.start : s.stop] for s in enc.OBS_SECTIONS}
    assert sec["hand"].sum() == len(view.hand)
    for card in view.hand:
        assert sec["hand"][card.index] == view.hand.count(card)
    assert sec["top"][view.top.index] == 1 and sec["top"].sum() == 1
    assert list(sec["hand_sizes"][:4]) == [view.hand_sizes[(seat + k) % 4] for k in range(4)]
    assert list(sec["seat_present"]) == [1, 1, 1, 1, 0, 0]
    assert sec["current_player"][(view.current_player - seat) % 4] == 1
    assert sec["decision"][int(Decision.PLAY)] == 1
    assert sec["discard"].sum() == len(view.discard)
    assert sec["draw_pile_size"][0] == view.draw_pile_size
    with pytest.raises(ValueError, match="spectator"):
        enc.observe(player_view(state, None))


def test_the_old_import_paths_re_export_the_one_encoding() -> None:
    """``nomercy.rl.encoding`` and ``nomercy.rl.fast_encoding`` (the paths the docs and older
    code use) hand out ``nomercy.encoding``'s own objects, not copies."""
    from nomercy.encoding import fast
    from nomercy.rl import encoding as old
    from nomercy.rl import fast_encoding as old_fast

    for name in old.__all__:
        assert getattr(old, name) is getattr(enc, name), name
    assert old_fast.StateEncoder is fast.StateEncoder
    assert old_fast.legal_index_list is fast.legal_index_list
