"""``python -m nomercy.cli``: the same program as the ``nomercy`` command."""

from nomercy.cli import main

main()
