"""Interval math against published values."""

from __future__ import annotations

import math

import pytest

from nomercy.sim.stats import mean_ci, newcombe_diff, paired_diff, rate, wilson


@pytest.mark.parametrize(
    ("k", "n", "low", "high"),
    [
        # Newcombe (1998), Statistics in Medicine 17, table I, method 3 (Wilson score)
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        (5, 10, 0.2366, 0.7634),
    ],
)
def test_wilson_interval_matches_published_values(k: int, n: int, low: float, high: float) -> None:
    lo, hi = wilson(k, n)
    assert lo == pytest.approx(low, abs=1e-4)
    assert hi == pytest.approx(high, abs=1e-4)


def test_wilson_stays_in_bounds_and_narrows_with_more_games() -> None:
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(10, 10)
    assert 0 < lo < 1 and hi == pytest.approx(1.0)
    narrow = wilson(2500, 10_000)
    wide = wilson(25, 100)
    assert narrow[1] - narrow[0] < (wide[1] - wide[0]) / 5
    with pytest.raises(ValueError, match="11 successes in 10 trials"):
        wilson(11, 10)
    r = rate(30, 120)
    assert r.p == 0.25 and r.low < 0.25 < r.high and "25.0%" in str(r)


def test_newcombe_difference_matches_the_paper() -> None:
    """Newcombe (1998), Statistics in Medicine 17, 873-890, table II example (a): 56/70 vs 48/80."""
    d = newcombe_diff(48, 80, 56, 70)
    assert d.diff == pytest.approx(0.2, abs=1e-4)
    assert d.low == pytest.approx(0.0524, abs=1e-4)
    assert d.high == pytest.approx(0.3339, abs=1e-4)
    assert d.significant


def test_mean_and_paired_difference() -> None:
    m = mean_ci([1.0, 2.0, 3.0, 4.0])
    assert m.mean == 2.5
    assert m.sd == pytest.approx(math.sqrt(5 / 3))
    assert m.high - m.mean == pytest.approx(1.959964 * m.sd / 2, rel=1e-5)
    a = [float(i % 7) for i in range(200)]
    b = [x + 1.0 for x in a]
    d = paired_diff(a, b)
    assert d.diff == pytest.approx(1.0) and d.low == pytest.approx(1.0) and d.significant
    same = paired_diff(a, a)
    assert same.diff == 0 and not same.significant
    with pytest.raises(ValueError, match="differ in size"):
        paired_diff(a, b[:-1])
