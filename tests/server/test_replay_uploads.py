"""Uploaded records (``POST /api/records/replay``) cannot stall the server (issue 40).

The route needs no sign-in, so it is bounded in every way a caller could push it: a record
a room could not have played (more seats than a room has, S1; a larger deck, C3) and one
whose replay would cost more than the budget of moves times seats are refused before any
move is replayed; one client address has a rate and one replay at a time; the process runs
a few at once and refuses the rest with ``busy`` and ``Retry-After``; the work runs on a
worker (a process of its own on the server), so the event loop answers ``/healthz`` meanwhile.
"""

from __future__ import annotations

import dataclasses
import random
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import httpx
import pytest

pytest.importorskip("fastapi")

from nomercy.record import GameRecord
from nomercy.rules import PRESETS, Rules
from nomercy.server import Settings, create_app
from nomercy.server.base.limits import Slots
from nomercy.server.games import kept as kept_module
from nomercy.server.games.replays import (
    ROOM_DECK_CARDS,
    ROOM_SEATS,
    RecordRefused,
    replay_frames,
    within_bounds,
)
from nomercy.server.http.services import Services, services_if_started
from patience import WAIT_SECONDS

from .conftest import ServerProcess

if TYPE_CHECKING:
    from starlette.testclient import TestClient

ROUTE = "/api/records/replay"


def started(app: Any) -> Services:
    """The services of a started test app."""
    made = services_if_started(app)
    assert made is not None
    return made


def played(players: int, rules: Rules | None = None, seed: int = 1, most: int | None = None) -> GameRecord:
    """A legal record: random play to the round's end (or ``most`` moves)."""
    record, state = GameRecord.start(players, rules=rules, seed=seed)
    rng = random.Random(seed)
    while state.outcome is None and (most is None or len(record.actions) < most):
        seat = state.current
        assert seat is not None
        action = rng.choice(state.legal_actions(seat))
        state.apply(action, seat)
        record.add(seat, action)
    return record


# -- the bounds, decided from the rules --------------------------------------------------


def test_a_room_seats_and_deck_are_what_the_server_offers() -> None:
    """S1, C3: the bounds come from what a room may be created with, not a number of their own."""
    from pydantic import ValidationError

    from nomercy.server.base.protocol import CreateRoom

    with pytest.raises(ValidationError, match="seats"):
        CreateRoom(nickname="Ann", seats=ROOM_SEATS + 1)
    assert CreateRoom(nickname="Ann", seats=ROOM_SEATS).seats == ROOM_SEATS
    assert max(sum(n for _, n in r.deck) for r in PRESETS.values()) == ROOM_DECK_CARDS


def test_more_seats_than_a_room_has_is_refused_before_any_move_S1() -> None:
    rules = dataclasses.replace(PRESETS["no_mercy"], max_players=ROOM_SEATS + 1)
    record = played(ROOM_SEATS + 1, rules, most=3)
    with pytest.raises(RecordRefused) as refused:
        within_bounds(record, 10**9)
    assert refused.value.step == "load" and "(S1)" in refused.value.detail
    within_bounds(played(ROOM_SEATS, dataclasses.replace(rules, max_players=ROOM_SEATS), most=3), 10**9)


def test_a_deck_larger_than_a_room_plays_is_refused_C3() -> None:
    base = PRESETS["no_mercy"]
    bigger = dataclasses.replace(base, deck=tuple((code, n * 2) for code, n in base.deck))
    with pytest.raises(RecordRefused) as refused:
        within_bounds(played(2, bigger, most=3), 10**9)
    assert refused.value.step == "load" and "(C3)" in refused.value.detail


def test_the_budget_counts_moves_times_seats() -> None:
    record = played(4, seed=3)
    cost = len(record.actions) * record.players
    within_bounds(record, cost)  # exactly the budget: replayed
    with pytest.raises(RecordRefused) as refused:
        within_bounds(record, cost - 1)
    assert refused.value.step == "load"
    assert f"at most {(cost - 1) // 4} moves at 4 seats" in refused.value.detail


def test_full_rounds_at_the_most_seats_fit_the_default_budget_comfortably() -> None:
    """A No Mercy round at a room's most seats, played to its end, costs a fraction of it."""
    budget = Settings().replay_seat_steps
    rules = dataclasses.replace(PRESETS["no_mercy"], max_players=ROOM_SEATS)
    for seed in range(10):
        record = played(ROOM_SEATS, rules, seed=seed)
        assert len(record.actions) * ROOM_SEATS * 3 <= budget, (seed, len(record.actions))
        within_bounds(record, budget)


def test_slots_bound_the_total_and_each_key() -> None:
    slots = Slots(total=2, per_key=1)
    assert slots.take("a") and not slots.take("a")  # one at a time per address
    assert slots.take("b") and not slots.take("c")  # two in all
    slots.release("a")
    assert slots.take("c") and slots.running == 2
    slots.release("b")
    slots.release("c")
    assert slots.running == 0 and slots.take("a")
    with pytest.raises(ValueError, match="no slot"):
        slots.release("b")


# -- through a real server -----------------------------------------------------------------


def test_a_real_server_refuses_what_is_over_a_bound_and_replays_the_rest(start_server: Any) -> None:
    record = played(4, seed=3)
    cost = len(record.actions) * 4
    server: ServerProcess = start_server(
        NOMERCY_REPLAY_SEAT_STEPS=str(cost), NOMERCY_REPLAYS_PER_MINUTE="100"
    )
    url = server.url + ROUTE
    good = httpx.post(url, content=record.to_json().encode(), timeout=WAIT_SECONDS)
    assert good.status_code == 200, good.text
    assert len(good.json()["frames"]) == len(record.actions) + 1

    longer = played(4, seed=3)
    longer.actions.append(longer.actions[-1])  # one move more than the budget allows
    over = httpx.post(url, content=longer.to_json().encode(), timeout=WAIT_SECONDS)
    assert over.status_code == 400, over.text
    detail = over.json()["detail"]
    assert detail["code"] == "bad_record" and detail["step"] == "load"  # refused before replay

    rules = dataclasses.replace(PRESETS["no_mercy"], max_players=ROOM_SEATS + 1)
    seats = httpx.post(
        url, content=played(ROOM_SEATS + 1, rules, most=1).to_json().encode(), timeout=WAIT_SECONDS
    )
    assert seats.status_code == 400 and "(S1)" in seats.json()["detail"]["detail"], seats.text


def test_one_address_has_a_rate_and_another_its_own(start_server: Any) -> None:
    server: ServerProcess = start_server(NOMERCY_REPLAYS_PER_MINUTE="3")
    body = played(2, seed=2).to_json().encode()
    url = server.url + ROUTE
    answers = [httpx.post(url, content=body, timeout=WAIT_SECONDS) for _ in range(4)]
    assert [a.status_code for a in answers] == [200, 200, 200, 429], [a.text for a in answers]
    assert answers[-1].json()["detail"]["code"] == "rate_limited"
    assert int(answers[-1].headers["retry-after"]) > 0
    other = httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.0.2"), trust_env=False)
    with other:
        assert other.post(url, content=body, timeout=WAIT_SECONDS).status_code == 200


def test_the_answer_is_gzipped_when_the_client_accepts_it(server: ServerProcess) -> None:
    record = played(4, seed=4)
    raw = httpx.post(
        server.url + ROUTE,
        content=record.to_json().encode(),
        headers={"Accept-Encoding": "gzip"},
        timeout=WAIT_SECONDS,
    )
    assert raw.status_code == 200 and raw.headers["content-encoding"] == "gzip"
    assert len(raw.json()["frames"]) == len(record.actions) + 1  # httpx decodes it
    plain = httpx.post(
        server.url + ROUTE, content=record.to_json().encode(), headers={"Accept-Encoding": "identity"}
    )
    assert "content-encoding" not in plain.headers and plain.json() == raw.json()


# -- off the event loop, a few at once ----------------------------------------------------


@pytest.fixture
def blocked(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[TestClient, threading.Event, threading.Event]]:
    """An app whose replays wait for ``release`` once they have ``begun`` (in process)."""
    from starlette.testclient import TestClient  # imported here: its import warns

    begun, release = threading.Event(), threading.Event()
    real = replay_frames

    def slow(record: GameRecord) -> Any:
        begun.set()
        assert release.wait(WAIT_SECONDS), "the test never released the replay"
        return real(record)

    monkeypatch.setattr(kept_module, "replay_frames", slow)
    app = create_app(
        Settings(
            database_url=sqlite_url, allowed_hosts=("testserver",), replays_at_once=2, replays_per_address=1
        )
    )
    with TestClient(app) as client:
        # Threads here (the server's own pool is of processes), so that the patch applies.
        started(app).games.replay_pool = ThreadPoolExecutor(2)
        try:
            yield client, begun, release
        finally:
            release.set()


pytestmark = pytest.mark.filterwarnings("ignore:Using `httpx` with `starlette.testclient`")


def test_a_replay_runs_off_the_event_loop_and_one_address_runs_one_at_a_time(
    blocked: tuple[TestClient, threading.Event, threading.Event],
) -> None:
    client, begun, release = blocked
    body = played(2, seed=2).to_json().encode()
    first: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: first.update(answer=client.post(ROUTE, content=body)))
    worker.start()
    try:
        assert begun.wait(WAIT_SECONDS)
        # The replay is running (and waiting): the event loop still answers.
        assert client.get("/healthz").json() == {"ok": True}
        second = client.post(ROUTE, content=body)
        assert second.status_code == 429, second.text
        assert second.json()["detail"]["code"] == "busy" and int(second.headers["retry-after"]) > 0
    finally:
        release.set()
        worker.join(WAIT_SECONDS)
    assert first["answer"].status_code == 200, first["answer"].text
    # The slot is free again once the work has ended.
    assert client.post(ROUTE, content=body).status_code == 200


def test_the_process_runs_a_few_at_once_whoever_asks(
    blocked: tuple[TestClient, threading.Event, threading.Event],
) -> None:
    """Two other addresses hold the two slots: a third address is refused, not queued."""
    client, _begun, release = blocked
    release.set()  # the replays that do run end at once
    body = played(2, seed=2).to_json().encode()
    slots = started(client.app).games.replay_slots
    held = [address for address in ("10.0.0.1", "10.0.0.2") if slots.take(address)]
    assert len(held) == 2
    try:
        third = client.post(ROUTE, content=body)
        assert third.status_code == 429 and third.json()["detail"]["code"] == "busy", third.text
    finally:
        for address in held:
            slots.release(address)
    assert client.post(ROUTE, content=body).status_code == 200
