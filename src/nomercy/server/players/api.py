"""The players' router: accounts and sign-in, profiles, ratings and standings, the daily deal's
boards (a daily table itself is a room: :mod:`nomercy.server.rooms.api`)."""

from __future__ import annotations

from fastapi import APIRouter

from nomercy.server.players import auth, daily_api, profiles, ratings, standings

router = APIRouter()
for part in (auth.router, daily_api.router, profiles.router, ratings.router, standings.router):
    router.include_router(part)
