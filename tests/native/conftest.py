"""The native engine's tests need the fast extra (numba, numpy); without it they skip."""

from __future__ import annotations

import pytest

pytest.importorskip("numpy", reason="the native engine needs the fast extra: pip install 'nomercy[fast]'")
