"""``deploy/nginx/nomercy.conf`` as the tests run it: the very file operators install.

Only ports, upstream servers and the certificate change; each edit must match exactly
once, so an edit of the file that the tests no longer understand fails here instead of
the tests drifting from it. ``tests/server/test_nginx.py`` runs it with TLS in front of one
process, ``tests/server/test_cluster.py`` in plain HTTP in front of several.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SITE = ROOT / "deploy" / "nginx" / "nomercy.conf"

_CERT = r"ssl_certificate +/etc/letsencrypt/live/play\.example\.org/fullchain\.pem;"
_KEY = r"ssl_certificate_key +/etc/letsencrypt/live/play\.example\.org/privkey\.pem;"


def site_config(
    app_ports: list[int],
    main_port: int,
    http_port: int,
    cert: Path | None = None,
    key: Path | None = None,
) -> str:
    """The site with the servers on ``app_ports``, its TLS server on ``main_port`` (plain
    HTTP there when ``cert`` is None) and its redirecting server on ``http_port``."""
    servers = "\n    ".join(
        f"server 127.0.0.1:{p};" if len(app_ports) == 1 else f"server 127.0.0.1:{p} max_fails=0;"
        for p in app_ports
    )
    tls = cert is not None and key is not None
    edits = [
        (r"server 127\.0\.0\.1:8000;", servers),
        (r"listen 80;", f"listen 127.0.0.1:{http_port};"),
        (r"listen \[::\]:80;\n", ""),
        (r"listen 443 ssl;", f"listen 127.0.0.1:{main_port}{' ssl' if tls else ''};"),
        (r"listen \[::\]:443 ssl;\n", ""),
        (_CERT, f"ssl_certificate {cert};" if tls else ""),
        (_KEY, f"ssl_certificate_key {key};" if tls else ""),
    ]
    text = SITE.read_text()
    for pattern, replacement in edits:
        text, count = re.subn(pattern, replacement, text)
        assert count == 1, f"{SITE.name}: {pattern!r} matched {count} times"
    return text
