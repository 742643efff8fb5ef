// The catalogue as the page holds it, at any size (docs/contract.md §14):
// describe_catalog lists a small catalogue in full and a large one (more
// than 25 visible metrics) as summaries, at most 64 KiB a response, with
// next_cursor when there is more. The page walks every page of the
// listing, keeps one list entry per metric (its summary), and asks for
// full entries by name — at most 32 names a request — when a metric is
// opened or the question builder needs its dimensions, values and grains.

import { catalogue } from "./api.js";

// MAX_NAMES is the most names describe_catalog takes in `metrics`.
export const MAX_NAMES = 32;
// MAX_PAGES bounds a walk of next_cursor, so a server that kept issuing
// cursors could not hold the page forever.
const MAX_PAGES = 1000;

const KNOWLEDGE = ["glossary", "caveats", "not_defined", "examples"];

// entry is a metric's list entry: its summary, from a full entry or a
// summary (whose dimensions are names).
function entry(m) {
  return {
    name: m.name,
    description: m.description || "",
    model: m.model || "",
    grains: Array.isArray(m.grains) ? m.grains : [],
    dimensions: (Array.isArray(m.dimensions) ? m.dimensions : []).map((d) => (typeof d === "string" ? d : d.name)),
  };
}

// walk fetches every page of one listing (params: search or metrics),
// calling onPage with each page's JSON. It returns the first response
// that is not ok, or {kind: "ok"}.
async function walk(params, onPage, signal) {
  let cursor = "";
  for (let i = 0; i < MAX_PAGES; i++) {
    const res = await catalogue(cursor ? { ...params, cursor } : params, signal);
    if (res.kind !== "ok") return res;
    onPage(res.json, i);
    cursor = typeof res.json.next_cursor === "string" ? res.json.next_cursor : "";
    if (!cursor) return { kind: "ok" };
  }
  return { kind: "failure", failure: { code: "unexpected_response", detail: "the catalogue listing did not end" } };
}

// load reads the whole listing into a catalogue: the first page's version
// and digest, every metric's list entry (cat.list), the full entries the
// listing holds (cat.metrics; every one for a small catalogue) and the
// knowledge of every page. cat.scale says the listing is summaries. A
// listing re-pinned while it was walked is walked again, once.
export async function load() {
  let res;
  for (let attempt = 0; attempt < 2; attempt++) {
    const cat = { metrics: [], list: [], glossary: [], caveats: [], not_defined: [], examples: [], scale: false };
    res = await walk({}, (page, i) => {
      if (i === 0) {
        cat.definition_version = page.definition_version;
        cat.definition_digest = page.definition_digest;
        cat.total = page.total;
      } else if (page.definition_digest !== cat.definition_digest) {
        return;
      }
      if (Array.isArray(page.summaries)) {
        cat.scale = true;
        cat.list.push(...page.summaries.map(entry));
      }
      if (Array.isArray(page.metrics)) {
        cat.metrics.push(...page.metrics);
        cat.list.push(...page.metrics.map(entry));
      }
      for (const k of KNOWLEDGE) if (Array.isArray(page[k])) cat[k].push(...page[k]);
    });
    if (res.kind === "ok") return { kind: "ok", cat };
    if (!(attempt === 0 && res.kind === "failure" && res.failure.code === "not_a_question")) break;
  }
  return res;
}

// full returns the full entry of a metric the page holds, or undefined.
export function full(cat, name) {
  return cat.metrics.find((m) => m.name === name);
}

// ensure fetches the full entries of the named metrics the page does not
// hold yet (names it lists only), at most MAX_NAMES a request, and adds
// them to cat.metrics. It returns {kind: "ok"} or the first response that
// is not ok (a refusal: a name no longer visible, after a re-pin).
export async function ensure(cat, names, signal) {
  const listed = new Set(cat.list.map((m) => m.name));
  const missing = [...new Set(names)].filter((n) => listed.has(n) && !full(cat, n));
  for (let i = 0; i < missing.length; i += MAX_NAMES) {
    const batch = missing.slice(i, i + MAX_NAMES);
    const got = [];
    const res = await walk({ metrics: batch.join(",") }, (page) => {
      if (Array.isArray(page.metrics)) got.push(...page.metrics);
    }, signal);
    if (res.kind !== "ok") return res;
    for (const m of got) if (!full(cat, m.name)) cat.metrics.push(m);
  }
  return { kind: "ok" };
}

// search asks the server to rank the metrics by words; it returns
// {kind: "ok", names, total} (names best first) or the response that is
// not ok (a refused search: not_a_question, its sentence naming the field).
export async function search(words, signal) {
  const names = [];
  let total = 0;
  const res = await walk({ search: words }, (page, i) => {
    if (i === 0 && typeof page.total === "number") total = page.total;
    for (const m of page.summaries || []) names.push(m.name);
  }, signal);
  if (res.kind !== "ok") return res;
  return { kind: "ok", names, total: total || names.length };
}
