"""The RL guide's table generator, re-exported from :mod:`nomercy.encoding.docs` (its home
beside the tables it writes); ``python -m nomercy.rl.docs`` still runs it."""

from __future__ import annotations

from nomercy.encoding.docs import BEGIN, DOC, END, main, render, tables

__all__ = ["BEGIN", "DOC", "END", "main", "render", "tables"]

if __name__ == "__main__":
    raise SystemExit(main())
