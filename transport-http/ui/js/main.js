// The catalogue browser: loads the catalogue as the caller may see it
// (asking for a token when the server wants one), then routes:
//   #/                 the catalogue
//   #/metric/<name>    one metric
//   #/ask[?q=<json>]   the question builder (a shared question pre-filled)
// Nothing from the address is ever shown unless the catalogue holds it.
// A large catalogue is listed as summaries; the full entries a view needs
// are fetched by name before it is shown (store.js).

import { h, clear } from "./dom.js";
import * as api from "./api.js";
import * as store from "./store.js";
import { renderCatalogue, renderMetric } from "./catalog.js";
import { renderBuilder } from "./builder.js";
import { fromQuestion, emptyState } from "./question.js";

const view = document.getElementById("view");
const pin = document.getElementById("pin");
const signOut = document.getElementById("signout");
const MAX_LINK = 16384;

const app = {
  catalog: null,
  names: new Set(),
  ask: (text, signal) => api.ask(text, signal),
  // describe fetches the full entries of the named metrics the page does
  // not hold yet; {kind: "ok"} or the response that was not.
  describe: (names, signal) => store.ensure(app.catalog, names, signal),
  unauthorized: (res) => signIn(res, true),
  startAgain: () => {
    if (location.hash === "#/ask") route();
    else location.hash = "#/ask";
  },
};

function focusHeading() {
  const heading = view.querySelector("h1");
  if (heading) heading.focus({ preventScroll: false });
}

function setNav(route) {
  for (const a of document.querySelectorAll("nav a")) {
    if (a.dataset.route === route) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

// routed counts the routes taken, so a view whose entries arrive after
// the address changed again is not shown.
let routed = 0;

// needs fetches the full entries a view needs before it is shown (none
// for a small catalogue: it holds them all). It returns true when the
// view may be shown; otherwise it has shown why not.
async function needs(names) {
  const turn = routed;
  const wanted = names.filter((n) => app.names.has(n) && !store.full(app.catalog, n));
  if (wanted.length === 0) return true;
  clear(view).append(h("p", { class: "muted", role: "status", text: "Loading the metric…" }));
  const res = await store.ensure(app.catalog, wanted);
  if (turn !== routed) return false;
  if (res.kind === "ok" || res.kind === "refusal") return true;
  if (res.kind === "unauthorized") {
    signIn(res, api.session.has());
    return false;
  }
  showFailure(res, route);
  return false;
}

// searchCatalogue asks the server to rank a large catalogue's metrics; a
// refused token asks for another, as every other call does.
async function searchCatalogue(words, signal) {
  const res = await store.search(words, signal);
  if (res.kind !== "unauthorized") return res;
  signIn(res, api.session.has());
  return { kind: "network", cancelled: true };
}

// route renders the view the address names.
async function route() {
  const hash = location.hash || "#/";
  if (!hash.startsWith("#/")) return;
  if (!app.catalog) return;
  routed += 1;
  const [path, query] = hash.slice(1).split("?", 2);
  if (path.startsWith("/metric/")) {
    let name = "";
    try {
      name = decodeURIComponent(path.slice("/metric/".length));
    } catch {
      name = "";
    }
    setNav("catalog");
    if (!(await needs([name]))) return;
    renderMetric(view, app.catalog, app.names, name);
    document.title = app.names.has(name) ? `${name} — sutura` : "No such metric — sutura";
  } else if (path === "/ask") {
    setNav("ask");
    let init = { state: emptyState(), dropped: 0 };
    const raw = new URLSearchParams(query || "").get("q");
    if (raw !== null) {
      let parsed = null;
      try {
        parsed = raw.length <= MAX_LINK ? JSON.parse(raw) : null;
      } catch {
        parsed = null;
      }
      const asked = parsed && Array.isArray(parsed.metrics) ? parsed.metrics.filter((n) => typeof n === "string") : [];
      if (!(await needs(asked.slice(0, store.MAX_NAMES)))) return;
      init = fromQuestion(app.catalog, parsed);
    }
    renderBuilder(view, app, init);
    document.title = "Ask a question — sutura";
  } else {
    setNav("catalog");
    renderCatalogue(view, app.catalog, app.names, searchCatalogue);
    document.title = "Catalogue — sutura";
  }
  focusHeading();
}

// signIn asks for the token(s) the server wants. direct: the server
// identifies callers by a JWT (and may also want the deployment token).
function signIn(res, refused) {
  const direct = Boolean(res.direct);
  const tokenInput = h("input", { id: "token", type: "password", autocomplete: "off", spellcheck: "false", required: true, "aria-describedby": "token-help" });
  const accessInput = direct ? h("input", { id: "access-token", type: "password", autocomplete: "off", spellcheck: "false", "aria-describedby": "token-help" }) : null;
  const error = h("p", { id: "token-error", class: "error", role: "alert" });
  if (refused) {
    error.textContent = `The server did not accept ${api.session.has() ? "the token" : "the request without a token"} (HTTP 401 ${res.failure.code}): ${res.failure.detail}`;
  }
  api.session.clear();
  showSession();
  const form = h("form", { id: "signin", novalidate: true },
    h("h1", { tabindex: "-1", text: "Sign in to this sutura" }),
    h("p", { text: direct
      ? "This server identifies its callers: paste a bearer token (a JWT) from your identity provider. You will see the metrics it lets you see."
      : "This server needs its access token: paste it below." }),
    h("div", { class: "field" }, h("label", { for: "token", text: direct ? "Bearer token (JWT)" : "Access token" }), tokenInput),
    direct ? h("div", { class: "field" }, h("label", { for: "access-token", text: "Deployment access token (only if your operator gave you one)" }), accessInput) : null,
    h("p", { id: "token-help", class: "hint muted", text: "Kept in this browser tab only (session storage) and sent only to this server, in request headers. Closing the tab forgets it." }),
    h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", id: "signin-submit", text: "Continue" })),
    error);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const token = tokenInput.value.trim();
    const access = accessInput ? accessInput.value.trim() : "";
    const problem = !token ? "Paste the token first." : api.tokenProblem(token) ? "The token " + api.tokenProblem(token) + "."
      : access && api.tokenProblem(access) ? "The deployment access token " + api.tokenProblem(access) + "." : "";
    if (problem) {
      error.textContent = problem;
      tokenInput.focus();
      return;
    }
    api.session.set(token, access);
    load();
  });
  app.catalog = null;
  clear(view).append(form);
  tokenInput.focus();
}

// catalogueName is the catalogue's name the server puts in the page (its
// configured name, or "demo"); "" when it gave none.
const catalogueName = (document.querySelector('meta[name="sutura-catalogue"]') || { content: "" }).content;

// showSession names the catalogue in the header (its version and digest
// are on the catalogue page and under every answer).
function showSession() {
  signOut.hidden = !api.session.has();
  pin.textContent = app.catalog && catalogueName ? `catalogue ${catalogueName}` : "";
}

// showFailure says the catalogue could not be read, with a way to try
// again.
function showFailure(res, again) {
  const f = res.kind === "network" ? { code: "unreachable", detail: "the server could not be reached" }
    : res.kind === "refusal" ? res.reason : res.failure;
  clear(view).append(h("section", { class: "failure", role: "alert" },
    h("h1", { tabindex: "-1" }, "The catalogue could not be read: ", h("code", { text: f.code })),
    h("p", { text: f.detail }),
    h("p", null, h("button", { type: "button", onclick: again, text: "Try again" }),
      api.session.has() ? h("button", { type: "button", onclick: () => { api.session.clear(); load(); }, text: "Use another token" }) : null)));
  focusHeading();
}

// load fetches the catalogue (every page of its listing), then shows the
// route.
async function load() {
  clear(view).append(h("p", { class: "muted", role: "status", text: "Loading the catalogue…" }));
  const res = await store.load();
  if (res.kind === "unauthorized") {
    signIn(res, api.session.has());
    return;
  }
  if (res.kind !== "ok") {
    showFailure(res, load);
    return;
  }
  const cat = res.cat;
  app.catalog = cat;
  app.names = new Set(cat.list.map((m) => m.name));
  showSession();
  route();
}

signOut.addEventListener("click", () => {
  api.session.clear();
  app.catalog = null;
  showSession();
  load();
});

document.getElementById("skip").addEventListener("click", (e) => {
  e.preventDefault();
  document.getElementById("main").focus();
});

window.addEventListener("hashchange", route);
load();
