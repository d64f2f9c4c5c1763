"""Where and how a benchmark ran, for its ``--json`` output: the generated tables in the
docs print this beside the figures (``benchmarks/tables.py``), so a reader can judge them.

The load average matters on a shared machine: figures taken while other processes compete
for the cores are lower, and the tables say so instead of hiding it.
"""

from __future__ import annotations

import datetime
import os
import platform
import shlex
import sys
from typing import Any


def cpu_model() -> str:
    """The CPU's model name from ``/proc/cpuinfo``, or what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def command_line() -> str:
    """This process's command, the interpreter relative to the working directory."""
    python = os.path.relpath(sys.executable)
    if python.startswith(".."):
        python = "python"
    script = os.path.relpath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return shlex.join([python, script, *sys.argv[1:]])


def metadata() -> dict[str, Any]:
    """The run's command, date and machine; call it when the run ends, so that the load
    average covers the run."""
    import nomercy

    try:
        load: list[float] | None = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        load = None
    return {
        "command": command_line(),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "nomercy": nomercy.__version__,
        "python": f"{platform.python_version()} ({platform.python_implementation()})",
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "load_average": load,
    }
