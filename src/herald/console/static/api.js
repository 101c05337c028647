// The public /v1 API with the signed-in key. The key lives in this tab's sessionStorage only:
// it is sent as the x-api-key header, never in a URL, and signing out removes it.
const KEY_NAME = "herald.apiKey";

export const auth = {
  get key() {
    return sessionStorage.getItem(KEY_NAME);
  },
  signIn(key) {
    sessionStorage.setItem(KEY_NAME, key);
  },
  signOut() {
    sessionStorage.removeItem(KEY_NAME);
  },
};

export class ApiError extends Error {
  constructor(status, body) {
    super(body && body.message ? body.message : `request failed with status ${status}`);
    this.status = status;
    this.code = body && body.error ? body.error : "http_" + status;
    this.details = body && Array.isArray(body.details) ? body.details : [];
    this.requestId = body && body.meta ? body.meta.request_id : null;
  }
}

function buildUrl(path, query) {
  const url = new URL(path, window.location.origin);
  for (const [name, value] of Object.entries(query || {})) {
    if (value === null || value === undefined || value === "") continue;
    if (Array.isArray(value)) {
      if (value.length) url.searchParams.set(name, value.join(","));
    } else {
      url.searchParams.set(name, String(value));
    }
  }
  return url;
}

// One request. `key` overrides the stored key (used to check a key before keeping it).
export async function api(method, path, { body, query, key, signal } = {}) {
  const sent = key || auth.key || "";
  const headers = { accept: "application/json", "x-api-key": sent };
  const init = { method, headers, signal, cache: "no-store", credentials: "omit" };
  if (body !== undefined) {
    headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(buildUrl(path, query), init);
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = new ApiError(response.status, data);
    // Only a refusal of the key still signed in signs out: a late answer to a request made
    // with an earlier key (revoked, then replaced on this page) must not sign out its successor.
    if (response.status === 401 && !key && sent === auth.key) {
      window.dispatchEvent(new CustomEvent("herald:unauthorized"));
    }
    throw error;
  }
  return data;
}
