"""Pad a learned bot's weights file of encoding 2 for encoding 3's observation.

    python scripts/pad_rules_inputs.py IN.npz [OUT.npz]     # OUT defaults to IN

Encoding 3 appended the house rules to the observation (the ``rules`` section). Every first
layer of the file (``w0``, and ``p{n}_w0`` of a table size's own network) gets zero input
weights for that section, so the network gives the logits it gave before and ignores the
rules until trained with varied rules. The bot pads such a file when it loads it
(``nomercy.bots.learned.pad_inputs``); this writes the padded file once, as the shipped
``learned.npz`` was. A file already of today's width is written unchanged.
"""

from __future__ import annotations

import sys
from pathlib import Path

# A tool of the learned bot, not the core: it needs numpy (the learned extra) and the bot.
import numpy as np  # noqa: TID251, TID253

from nomercy.bots.learned import pad_inputs  # noqa: TID251


def pad_file(src: Path, dst: Path) -> list[str]:
    """Write ``src``'s arrays to ``dst`` with every first layer padded; the padded names."""
    with np.load(src) as data:
        arrays = {k: data[k] for k in data.files}
    padded = []
    for key, array in arrays.items():
        if key == "w0" or key.endswith("_w0"):
            wide = pad_inputs(array)
            if wide.shape != array.shape:
                padded.append(key)
            arrays[key] = wide
    np.savez(dst, **arrays)
    return padded


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2):
        print(__doc__, file=sys.stderr)
        return 2
    src = Path(argv[0])
    dst = Path(argv[1]) if len(argv) == 2 else src
    padded = pad_file(src, dst)
    print(f"{dst}: padded {', '.join(padded) or 'nothing (already of this width)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
