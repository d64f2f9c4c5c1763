"""Confidence intervals shared by the tournament and the simulator (standard library only)."""

from __future__ import annotations

import math

__all__ = ["Z95", "wilson"]

#: The normal quantile of a two-sided 95% interval.
Z95 = 1.959963984540054


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of ``k`` successes in ``n`` trials (``(0, 1)`` when n is 0).

    It stays inside [0, 1] and behaves for rare events and small samples, which is why
    win rates and knock-out frequencies use it rather than the normal interval.
    """
    if n <= 0:
        return 0.0, 1.0
    if not 0 <= k <= n:
        raise ValueError(f"{k} successes in {n} trials")
    p = k / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)
