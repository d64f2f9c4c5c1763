"""Solo play with no server: the table of one person against bots, in the page.

:mod:`nomercy.solo.table` holds the table (it speaks the server's protocol,
``docs/protocol.md``), :mod:`nomercy.solo.worker` the JSON-string functions that the
page's Web Worker calls through Pyodide, :mod:`nomercy.solo.frames` a kept round's
replay. Pure Python and the standard library only, so that Pyodide runs it
(``tests/solo/test_pyodide_safe.py`` keeps it so).
"""

from __future__ import annotations

from nomercy.solo.table import SoloError, SoloTable

__all__ = ["SoloError", "SoloTable"]
