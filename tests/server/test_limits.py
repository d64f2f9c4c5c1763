"""Token buckets with a fake clock: bursts, refill and the bounded per-address table."""

from __future__ import annotations

from nomercy.server.base.limits import KeyedLimiter, TokenBucket, per_minute


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_bucket_allows_a_burst_then_refills_at_the_rate() -> None:
    clock = Clock()
    bucket = TokenBucket(rate=2.0, burst=3, clock=clock)
    assert [bucket.allow() for _ in range(4)] == [True, True, True, False]
    clock.now += 0.5  # one token back
    assert bucket.allow() and not bucket.allow()
    clock.now += 100  # never more than the burst
    assert sum(bucket.allow() for _ in range(10)) == 3


def test_guessing_limit_is_per_address_and_charged_only_on_failure() -> None:
    clock = Clock()
    limiter = per_minute(2, clock=clock)
    assert not limiter.blocked("a")
    limiter.charge("a")
    limiter.charge("a")
    assert limiter.blocked("a") and not limiter.blocked("b")
    clock.now += 30  # a minute's worth refills one per 30 s
    assert not limiter.blocked("a")


def test_the_address_table_is_bounded() -> None:
    limiter = KeyedLimiter(1.0, 1, max_keys=3)
    for key in "abcdef":
        limiter.allow(key)
    assert len(limiter._buckets) == 3
