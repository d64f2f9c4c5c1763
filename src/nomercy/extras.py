"""The optional extras, and the one-line error a missing one gives.

A feature that needs a package of an extra imports it through :func:`require`. Without the
package, the user gets :class:`MissingExtra`, whose message is one line that names the
feature, the extra and the command that installs it; the command line prints that line
alone (no traceback). It is an ``ImportError`` (it is one) and a ``RuntimeError`` (what
these features raised before, so older callers still catch it).
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["MissingExtra", "require"]


class MissingExtra(ImportError, RuntimeError):
    """``feature`` needs ``extra``, and its package ``name`` is not installed."""

    def __init__(self, feature: str, extra: str, missing: str | None = None) -> None:
        detail = f" ({missing} is not installed)" if missing else ""
        super().__init__(
            f"{feature} needs the {extra} extra: pip install 'nomercy[{extra}]'{detail}", name=missing
        )
        self.feature = feature
        self.extra = extra


def require(module: str, extra: str, feature: str) -> ModuleType:
    """``import module``, or :class:`MissingExtra` naming ``extra`` when it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(feature, extra, exc.name or module) from None
