// The lobby's HTTP API (docs/protocol.md). A 503 room_moving is retried: another server
// process is taking the room over, which takes a moment.
export class ApiError extends Error {
  constructor(code, message, status) { super(message); this.code = code; this.status = status; }
}

export async function api(path, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  let res;
  for (let attempt = 0; ; attempt++) {
    res = await fetch(path, { method: body === undefined ? "GET" : "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) });
    if (res.status !== 503 || attempt >= 8) break;
    await new Promise((ok) => setTimeout(ok, 500 * Math.min(4, attempt + 1)));
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const detail = data.detail || {};
    throw new ApiError(detail.code || "server_error", detail.message || `request failed (${res.status})`, res.status);
  }
  return data;
}
