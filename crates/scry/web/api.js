// scry web: the page's door to the HTTP API (the `/v1` routes `scry serve` also answers).
// Every request is a GET of a JSON route; errors carry the API's closed error code.

export const API = {
  sessions: '/v1/sessions',
  session: (id) => `/v1/sessions/${encodeURIComponent(id)}`,
  turns: (id) => `/v1/sessions/${encodeURIComponent(id)}/turns`,
  content: (id) => `/v1/sessions/${encodeURIComponent(id)}/content`,
  ledger: (id, name) => `/v1/sessions/${encodeURIComponent(id)}/${name}`,
  search: '/v1/search',
  stream: (id) => `/v1/sessions/${encodeURIComponent(id)}/stream`,
  listStream: '/v1/stream',
};

/** An answer of the API that is not 2xx (or no answer at all: status 0, code NETWORK). */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** GET a JSON route; empty / false parameters are left out, `true` is sent as `true`. */
export async function get(path, params) {
  const qs = new URLSearchParams();
  if (params) {
    for (const [k, v] of Object.entries(params)) {
      if (v !== undefined && v !== null && v !== '' && v !== false) qs.set(k, v === true ? 'true' : String(v));
    }
  }
  const url = qs.toString() ? `${path}?${qs}` : path;
  let res;
  try {
    res = await fetch(url, { headers: { Accept: 'application/json' } });
  } catch (e) {
    throw new ApiError(0, 'NETWORK', `cannot reach the scry server (${e.message})`);
  }
  let data = null;
  try { data = await res.json(); } catch (_) { data = null; }
  if (!res.ok) {
    const err = data && data.error ? data.error : {};
    throw new ApiError(res.status, err.code || `HTTP_${res.status}`, err.message || res.statusText);
  }
  return data;
}
