"""Finished rounds: kept games (:mod:`.store`, :mod:`.kept`), replays, reviews and the coach.
Imports ``rooms``, ``players`` and ``base``."""
