"""What every server package stands on, importing none of them.

The settings, the wire's models (:mod:`.protocol`), rate limits, log lines, metrics, nickname
rules, the client's address, the shared table declarations (:mod:`.tables`), and the schema's
revisions with their migrations (:mod:`.schema`, ``migrations/``), with the rule of which
stored rooms a release continues (:mod:`.upgrades`).

The packages import one way, ``http`` → ``games`` → ``rooms`` → ``players`` → ``base``
(``tests/server/test_layers.py`` keeps it so). Issue 40 drew settings, protocol, limits,
addresses and metrics inside ``http/``, but ``rooms``, ``players`` and ``games`` all use them;
with them at the edge every package would import upwards, so they sit here, below all four.
"""
