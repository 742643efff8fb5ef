// The page's only way to the server: GET /v1/catalog and POST /v1/query,
// as any client calls them. Tokens live in this tab's session storage and
// go nowhere but the Authorization (and, with inbound identity,
// X-Sutura-Access-Token) header of these calls.

const TOKEN = "sutura.token";
const ACCESS = "sutura.access_token";

// session holds the caller's tokens for this tab only.
export const session = {
  token: () => sessionStorage.getItem(TOKEN) || "",
  access: () => sessionStorage.getItem(ACCESS) || "",
  has: () => Boolean(sessionStorage.getItem(TOKEN) || sessionStorage.getItem(ACCESS)),
  set(token, access) {
    this.clear();
    if (token) sessionStorage.setItem(TOKEN, token);
    if (access) sessionStorage.setItem(ACCESS, access);
  },
  clear() {
    sessionStorage.removeItem(TOKEN);
    sessionStorage.removeItem(ACCESS);
  },
};

// tokenProblem says what is wrong with a token typed by a person, or ""
// when it can be sent in a header. It never repeats the token.
export function tokenProblem(token) {
  if (token.length > 8192) return "is longer than 8192 characters";
  if (!/^[\x21-\x7e]+$/.test(token)) return "may hold only printable ASCII characters, without spaces";
  return "";
}

// call sends one request and classifies the response:
//   ok          2xx with a JSON body (json)
//   answer      2xx with an answer body (json)
//   refusal     a refusal body {outcome: "refusal", reason: {code, status, detail}}
//   unauthorized 401 (direct: the server identifies callers by JWT)
//   failure     any other error body {code, status, detail}
//   network     no response (cancelled: the caller aborted)
// text is the body exactly as received.
export async function call(method, path, body, signal) {
  const headers = { Accept: "application/json" };
  if (session.token()) headers.Authorization = "Bearer " + session.token();
  if (session.access()) headers["X-Sutura-Access-Token"] = session.access();
  const init = { method, headers, signal, credentials: "omit", cache: "no-store", redirect: "error", referrerPolicy: "no-referrer" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = body;
  }
  let resp;
  let text;
  try {
    resp = await fetch(new URL(path, document.baseURI), init);
    text = await resp.text();
  } catch (e) {
    return { kind: "network", cancelled: e && e.name === "AbortError" };
  }
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  const out = { status: resp.status, text, json, correlation: resp.headers.get("X-Correlation-Id") || "" };
  if (resp.ok && json && typeof json === "object") {
    return { ...out, kind: json.outcome === "answer" ? "answer" : "ok" };
  }
  if (json && json.outcome === "refusal" && json.reason && typeof json.reason.code === "string") {
    return { ...out, kind: "refusal", reason: json.reason };
  }
  const failure = json && typeof json.code === "string" ? json
    : { code: "unexpected_response", status: resp.status, detail: "the server answered with a body that is not a sutura failure" };
  if (resp.status === 401) {
    const direct = /resource_metadata=/.test(resp.headers.get("WWW-Authenticate") || "");
    return { ...out, kind: "unauthorized", direct, failure };
  }
  return { ...out, kind: "failure", failure };
}

// catalogue fetches describe_catalog; params (each optional) are its
// query parameters: search, metrics (names joined by commas), cursor.
export function catalogue(params, signal) {
  const query = Object.entries(params || {})
    .map(([k, v]) => k + "=" + String(v).split(",").map(encodeURIComponent).join(","))
    .join("&");
  return call("GET", "../v1/catalog" + (query ? "?" + query : ""), undefined, signal);
}

// ask posts a question (its JSON text).
export function ask(questionJSON, signal) {
  return call("POST", "../v1/query", questionJSON, signal);
}
