"""The heuristic's score weights as plain numbers: the reference's and the tuned ones.

``heuristic.py`` and ``policy.py`` make their read-only numpy arrays (``BASE_WEIGHTS``,
``TUNED_WEIGHTS``) from these; the expert's native playouts (``nomercy.native.search``)
read them here, with no numpy.
"""

from __future__ import annotations

from typing import Final

__all__ = ["TUNED", "WEIGHTS"]

#: Each weight's name and the reference's value, in the order of ``P``'s entries.
WEIGHTS: Final = (
    ("stack_base", 50.0),  # rule 2: stacking, less the card's draw value per card
    ("stack_per_card", 2.0),
    ("stack_ko", 100.0),
    ("stack_near_out", 10.0),
    ("stack_insurance", 80.0),  # rule 3 while stacking
    ("take_per_card", 3.0),
    ("take_near_limit", 20.0),
    ("draw", 50.0),
    ("challenge_per_card", 1.5),
    ("danger_points", 0.4),  # rule 4
    ("wild_keep", 6.0),
    ("points", 0.1),
    ("color_held", 2.0),  # rule 5
    ("self_draw_follow", 4.0),
    ("self_draw_alone", 40.0),
    ("draw_ko", 100.0),  # rule 6
    ("draw_near_out", 25.0),
    ("draw_base", 3.0),
    ("draw_per_card", 0.5),
    ("draw_insurance", 20.0),  # rule 3
    ("seven_gain", 6.0),  # rule 7
    ("seven_threat", 0.5),
    ("zero_gain", 4.0),
    ("discard_shed", 6.0),  # rule 8
    ("discard_base", 8.0),
    ("discard_danger", 12.0),
    ("skip_all", 8.0),  # rule 9
    ("skip_all_danger", 10.0),
    ("skip", 4.0),
    ("skip_near_out", 15.0),
    ("reverse_near_out", 12.0),
    ("roulette_ko", 40.0),  # rule 10
    ("roulette_near_out", 20.0),
    ("roulette_base", 3.0),
)

#: ``tune(Rules(), players=2, iterations=300, games=20000, seed=1, gain=40)`` (``benchmarks/tune_policy.py``),
#: rounded to three significant figures; the order is ``WEIGHT_NAMES``'.
TUNED: Final[tuple[float, ...]] = (
    5.36,
    1.9,
    48.6,
    16.4,
    715.0,
    1.2,
    200.0,
    162.0,
    6.04,
    0.123,
    3.57,
    0.0621,
    0.0745,
    230.0,
    23.2,
    99.4,
    10.4,
    1.05,
    0.408,
    25.6,
    9.97,
    0.0698,
    10.5,
    6.38,
    6.76,
    9.53,
    7.98,
    3.47,
    3.94,
    29.4,
    2.38,
    162.0,
    35.6,
    152.0,
)
