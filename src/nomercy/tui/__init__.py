"""The terminal game: a person against bots, drawn with Rich.

Small modules, one job each: :mod:`hand` (how a hand is ordered and numbered),
:mod:`render` (Rich renderables: the table, the hand, the log, the scoreboard),
:mod:`inputs` (what a typed line means), :mod:`session` (seats, bots, save and resume),
:mod:`game` (the loop that asks the person and drives the bots) and :mod:`replay`
(showing a saved or finished game move by move). ``nomercy play`` and ``nomercy replay``
in :mod:`nomercy.cli` are thin wrappers around them.
"""
