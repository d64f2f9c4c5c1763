"""``python -m nomercy``: the same program as the ``nomercy`` command.

The entry point of the command line, not part of the core: it is the one module of
``src/nomercy/*.py`` that imports an adapter.
"""

from nomercy.cli import app

if __name__ == "__main__":
    app(prog_name="nomercy")
