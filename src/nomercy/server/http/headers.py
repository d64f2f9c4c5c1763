"""The security headers on every HTTP answer, the early ones included.

:class:`SecurityHeaders` is the outermost middleware of the app: the answers made before
the routes (``bad_host`` from the front door, ``too_large`` and ``bad_json`` from the body
limit) pass through it too. An unexpected error is answered by Starlette's error handler,
outside every middleware, so that answer takes :data:`SECURITY_HEADERS` itself
(:func:`nomercy.server.http.app.create_app`'s handler of ``Exception``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: connect-src 'self' covers ws:// and wss:// to this very host: the policy never copies
#: the request's Host header (which a client chooses).
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)

SECURITY_HEADERS: dict[str, str] = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
}

_RAW = [(name.lower().encode(), value.encode()) for name, value in SECURITY_HEADERS.items()]
#: The solo game's Web Worker runs Pyodide, which compiles WebAssembly and evaluates the
#: JavaScript its interpreter was linked with: a worker's policy comes with its own
#: script's answer, so this one script (and what it imports) may, and the page may not.
WORKER_SCRIPTS = ("/static/js/solo/worker.js",)
WORKER_CSP = CSP.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval' 'unsafe-eval'")
_WORKER_RAW = [(k, WORKER_CSP.encode() if k == b"content-security-policy" else v) for k, v in _RAW]
#: Files the page loads that change with a release: checked against their ETag on every load.
NO_CACHE_PREFIXES = ("/static/", "/i18n/")


class SecurityHeaders:
    """ASGI middleware: :data:`SECURITY_HEADERS` on every HTTP answer (replacing any the
    answer set), and ``Cache-Control: no-cache`` on the page's files."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Mapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = str(scope.get("path", ""))
        no_cache = path.startswith(NO_CACHE_PREFIXES)
        raw = _WORKER_RAW if path in WORKER_SCRIPTS else _RAW

        async def send_with_headers(message: Mapping[str, Any]) -> None:
            if message["type"] == "http.response.start":
                ours = {name for name, _ in _RAW}
                if no_cache:
                    ours.add(b"cache-control")
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() not in ours]
                headers.extend(raw)
                if no_cache:
                    headers.append((b"cache-control", b"no-cache"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
