// The lobby's HTTP API (docs/protocol.md). A 503 room_moving is retried: another server
// process is taking the room over, which takes a moment.
export class ApiError extends Error {
  constructor(code, message, status, detail = {}) { super(message); this.code = code; this.status = status; this.detail = detail; }
}

async function request(path, init) {
  let res;
  for (let attempt = 0; ; attempt++) {
    res = await fetch(path, init);
    if (res.status !== 503 || attempt >= 8) break;
    await new Promise((ok) => setTimeout(ok, 500 * Math.min(4, attempt + 1)));
  }
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const detail = data.detail && typeof data.detail === "object" ? data.detail : {};
    throw new ApiError(detail.code || data.error || "server_error", detail.message || `request failed (${res.status})`, res.status, detail);
  }
  return data;
}

export async function api(path, body, token) {
  const headers = { "Content-Type": "application/json" };
  if (token) headers.Authorization = `Bearer ${token}`;
  return request(path, { method: body === undefined ? "GET" : "POST", headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** A file as the body, its bytes unchanged (a game record to replay: the server reads it). */
export async function postFile(path, file) {
  return request(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: file });
}
