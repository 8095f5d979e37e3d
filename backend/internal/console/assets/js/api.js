// The admin API client. Every call carries a fresh session token (Clerk's are short-lived and refreshed by
// clerk-js; a dev token is read from sessionStorage). Errors keep the API's stable code.

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code;
  }
}

export function client(getToken) {
  return async function api(path, { method = "GET", body, headers: extra } = {}) {
    const token = await getToken();
    const headers = { ...extra, Accept: "application/json" };
    if (token) headers.Authorization = "Bearer " + token;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let res;
    try {
      res = await fetch("/api/v1" + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body),
        credentials: "omit", cache: "no-store" });
    } catch (e) {
      throw new ApiError(0, "network", "The server did not answer (" + e.message + ").");
    }
    const data = await res.json().catch(() => ({}));
    if (!res.ok) throw new ApiError(res.status, data.error?.code, data.error?.message);
    return data;
  };
}
