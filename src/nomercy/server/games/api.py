"""The kept games' router: kept games, replays, reviews (:mod:`nomercy.server.games.kept`)."""

from __future__ import annotations

from fastapi import APIRouter

from nomercy.server.games import kept

router = APIRouter()
router.include_router(kept.router)
