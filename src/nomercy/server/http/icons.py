"""The app's icons, drawn by code: a tilted red card on the green felt.

The same picture as SVG (the favicon) and as PNG of any size (the web app manifest and
link previews want bitmaps), so the project ships no image files and no artwork.
"""

from __future__ import annotations

import math
import struct
import zlib
from functools import lru_cache

FELT = (15, 61, 46)
WHITE = (250, 250, 245)
RED = (198, 40, 40)
TILT = math.radians(-14)

SVG = """<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100">
<rect width="100" height="100" rx="22" fill="#0f3d2e"/>
<g transform="rotate(-14 50 50)">
<rect x="26" y="14" width="48" height="72" rx="8" fill="#fafaf5"/>
<rect x="30" y="18" width="40" height="64" rx="5" fill="#c62828"/>
<ellipse cx="50" cy="50" rx="15" ry="25" transform="rotate(28 50 50)" fill="#fafaf5"/>
<rect x="46" y="38" width="8" height="24" fill="#c62828"/>
<rect x="38" y="46" width="24" height="8" fill="#c62828"/>
</g>
</svg>
"""


def _rounded(x: float, y: float, cx: float, cy: float, hw: float, hh: float, r: float) -> bool:
    """Is (x, y) inside the rectangle of centre (cx, cy), half sizes hw, hh, corner r?"""
    dx = max(abs(x - cx) - (hw - r), 0.0)
    dy = max(abs(y - cy) - (hh - r), 0.0)
    return dx * dx + dy * dy <= r * r


def _pixel(u: float, v: float) -> tuple[int, int, int, int]:
    """The colour at (u, v) in the SVG's 0..100 coordinates."""
    if not _rounded(u, v, 50, 50, 50, 50, 22):
        return (0, 0, 0, 0)
    # Into the card's frame (rotate back by the tilt).
    c, s = math.cos(-TILT), math.sin(-TILT)
    x = 50 + (u - 50) * c - (v - 50) * s
    y = 50 + (u - 50) * s + (v - 50) * c
    if not _rounded(x, y, 50, 50, 24, 36, 8):
        return (*FELT, 255)
    if not _rounded(x, y, 50, 50, 20, 32, 5):
        return (*WHITE, 255)
    if (abs(x - 50) <= 4 and abs(y - 50) <= 12) or (abs(x - 50) <= 12 and abs(y - 50) <= 4):
        return (*RED, 255)
    e = math.radians(28)
    ex = (x - 50) * math.cos(-e) - (y - 50) * math.sin(-e)
    ey = (x - 50) * math.sin(-e) + (y - 50) * math.cos(-e)
    if (ex / 15) ** 2 + (ey / 25) ** 2 <= 1:
        return (*WHITE, 255)
    return (*RED, 255)


@lru_cache(maxsize=4)
def png(size: int) -> bytes:
    """The icon as an RGBA PNG of ``size`` x ``size`` pixels (2x2 supersampled)."""
    rows = bytearray()
    scale = 100 / size
    for j in range(size):
        rows.append(0)  # filter: none
        for i in range(size):
            acc = [0, 0, 0, 0]
            for du, dv in ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)):
                p = _pixel((i + du) * scale, (j + dv) * scale)
                for k in range(4):
                    acc[k] += p[k]
            rows.extend(a // 4 for a in acc)

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(bytes(rows), 9))
        + chunk(b"IEND", b"")
    )


def manifest() -> dict[str, object]:
    """The web app manifest: installable, opens on the home screen in its own window."""
    return {
        "name": "nomercy: card game rooms",
        "short_name": "nomercy",
        "description": "Play the no-mercy card game with friends and bots in the browser.",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "background_color": "#0f3d2e",
        "theme_color": "#0f3d2e",
        "icons": [
            {"src": "/icon-192.png", "sizes": "192x192", "type": "image/png"},
            {"src": "/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
            {"src": "/favicon.svg", "sizes": "any", "type": "image/svg+xml"},
        ],
    }
