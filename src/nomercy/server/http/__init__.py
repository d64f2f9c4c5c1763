"""The edge: the application factory (:mod:`.app`), the WebSocket endpoint, request bounds,
security headers, health, icons, start-up and the process. May import every other package."""
