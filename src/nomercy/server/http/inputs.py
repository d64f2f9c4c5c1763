"""What comes in is bounded before it is parsed: body bytes as they arrive, JSON nesting.

``Content-Length`` is only a claim (a chunked body has none), so :class:`BodyLimit`
counts the bytes it actually receives and answers ``413`` as soon as they pass the limit,
without reading the rest. Python's JSON parser recurses once per nesting level, so a
deeply nested message would end in ``RecursionError``: :func:`json_depth_ok` refuses it
first, in one pass over the text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nomercy.server.base.addresses import refuse
from nomercy.server.base.protocol import ErrorCode


def json_depth_ok(raw: str | bytes, limit: int) -> bool:
    """Do arrays and objects nest at most ``limit`` deep (brackets inside strings aside)?"""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    if text.count("[") + text.count("{") <= limit:
        return True  # the common case, counted in C
    depth = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > limit:
                return False
        elif ch in "]}":
            depth -= 1
    return True


class BodyLimit:
    """ASGI middleware: an HTTP body over ``max_bytes`` (counted) or nested deeper than
    ``max_depth`` is refused before the application sees it.

    The body is read here (it is small by construction) and handed on in one piece.
    """

    def __init__(
        self, app: Any, max_bytes: int, max_depth: int, files: Mapping[str, int] | None = None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.max_depth = max_depth
        #: Paths that take a file (a game record) instead of a small message: their own
        #: size limit; the route itself reads the file and names the step that fails.
        self.files = dict(files or {})

    async def __call__(self, scope: Mapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        file_limit = self.files.get(scope["path"])
        limit = file_limit if file_limit is not None else self.max_bytes
        for key, value in scope["headers"]:
            if key.lower() == b"content-length" and value.isdigit() and int(value) > limit:
                await self._too_large(scope, receive, send, limit, file_limit is not None)
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away before its body ended
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._too_large(scope, receive, send, limit, file_limit is not None)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if body and file_limit is None and not json_depth_ok(body, self.max_depth):
            await refuse(
                scope,
                receive,
                send,
                400,
                ErrorCode.BAD_JSON,
                f"JSON nested deeper than {self.max_depth} levels",
            )
            return
        replayed = False

        async def replay() -> Mapping[str, Any]:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()  # type: ignore[no-any-return]

        await self.app(scope, replay, send)

    async def _too_large(
        self, scope: Mapping[str, Any], receive: Any, send: Any, limit: int, file: bool
    ) -> None:
        what = "a record file" if file else "request bodies"
        extra = {"step": "read", "detail": f"the file is over {limit} bytes"} if file else None
        await refuse(
            scope, receive, send, 413, ErrorCode.TOO_LARGE, f"{what} may be {limit} bytes at most", extra
        )
