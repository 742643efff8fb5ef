// The catalogue view and one metric's page: exactly what describe_catalog
// (GET /v1/catalog) shows this caller, searchable. A small catalogue is
// held in full and searched on the page; a large one (summaries, cat.scale)
// is searched by the server, which ranks the matches (docs/ui.md).

import { h, clear, append, paragraphs, inline, metricHref } from "./dom.js";

const GRAIN_PERIOD = { day: "one day", week: "one week", month: "one month", quarter: "one quarter", year: "one year" };

// glossaryFor lists the glossary entries that mean metric name.
function glossaryFor(cat, name) {
  return cat.glossary.filter((g) => g.means && g.means.metric === name);
}

// caveatsFor lists the caveats about metric m, one of its dimensions, or
// its model.
function caveatsFor(cat, m) {
  return cat.caveats.filter((c) => (c.about || []).some((a) => a === m.name || a.startsWith(m.name + ".") || (m.model && a === m.model)));
}

function examplesFor(cat, name) {
  return cat.examples.filter((e) => e.question && (e.question.metrics || []).includes(name));
}

// haystack is the lower-case text a metric is found by: its name,
// description, model, dimensions, and the glossary terms and synonyms
// that mean it.
function haystack(cat, m) {
  const words = [m.name, m.description, m.model, m.measure, ...m.dimensions.map((d) => d.name)];
  for (const g of glossaryFor(cat, m.name)) words.push(g.term, ...(g.synonyms || []));
  return words.filter(Boolean).join("\n").toLowerCase();
}

function matches(text, query) {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return words.every((w) => text.includes(w));
}

function firstParagraph(text) {
  return String(text || "").split(/\n\s*\n/)[0].replace(/\s*\n\s*/g, " ").trim();
}

function shortDigest(d) {
  return d ? d.slice(0, 12) : "";
}

// header shows the catalogue's version and digest.
function pinLine(cat) {
  return h("p", { class: "pin" },
    "Version ", h("strong", { text: cat.definition_version }), " · digest ",
    h("code", { class: "digest", title: cat.definition_digest, text: cat.definition_digest }));
}

// SEARCH_DELAY is how long the page waits after a key before it asks the
// server to search a large catalogue (ms).
const SEARCH_DELAY = 250;

// renderCatalogue fills view with the catalogue: a search box, the
// metrics (their list entries), and the glossary, caveats, examples and
// not-defined phrases. serverSearch(words, signal) ranks a large
// catalogue's metrics (cat.scale); a small one is searched here.
export function renderCatalogue(view, cat, names, serverSearch) {
  clear(view);
  const results = h("div", { id: "results" });
  const status = h("p", { id: "search-status", class: "muted", role: "status", "aria-live": "polite" });
  const search = h("input", {
    id: "search", type: "search", autocomplete: "off", spellcheck: "false",
    "aria-describedby": "search-help search-status",
  });
  if (cat.scale) search.maxLength = 200;
  const byName = new Map(cat.list.map((m) => [m.name, m]));
  const render = (q, hits, count) => {
    clear(results);
    const notDefined = q === "" ? [] : cat.not_defined.filter((n) => matches([n.phrase, ...(n.synonyms || []), n.note || ""].join("\n").toLowerCase(), q));
    status.textContent = q === ""
      ? `${cat.list.length} metric${cat.list.length === 1 ? "" : "s"} visible to you.`
      : count === 0 && notDefined.length === 0 ? "No metric matches this search."
        : `${count} metric${count === 1 ? "" : "s"} match${count === 1 ? "es" : ""}${cat.scale && count > 0 ? ", best first" : ""}.`;
    if (notDefined.length > 0) {
      results.append(h("section", { class: "notice", "aria-label": "Not defined" },
        h("h3", { text: "Not defined in this catalogue" }),
        notDefined.map((n) => notDefinedItem(n))));
    }
    results.append(h("ul", { class: "cards" }, hits.map((m) => metricCard(m))));
  };
  let pending = null;
  let timer = 0;
  const show = () => {
    const q = search.value.trim();
    if (!cat.scale) {
      const hits = cat.list.filter((m) => q === "" || matches(haystack(cat, cat.metrics.find((x) => x.name === m.name)), q));
      render(q, hits, hits.length);
      return;
    }
    clearTimeout(timer);
    if (pending) pending.abort();
    pending = null;
    if (q === "") {
      render(q, cat.list, cat.list.length);
      return;
    }
    status.textContent = "Searching…";
    timer = setTimeout(async () => {
      const ctl = new AbortController();
      pending = ctl;
      const res = await serverSearch(q, ctl.signal);
      if (pending !== ctl) return;
      pending = null;
      if (res.kind === "ok") {
        render(q, res.names.map((n) => byName.get(n)).filter(Boolean), res.total);
      } else if (res.kind !== "network" || !res.cancelled) {
        clear(results);
        const f = res.kind === "network" ? { code: "unreachable", detail: "the server could not be reached" } : res.kind === "refusal" ? res.reason : res.failure;
        status.textContent = `The search could not be made (${f.code}): ${f.detail}`;
      }
    }, SEARCH_DELAY);
  };
  search.addEventListener("input", show);
  append(view, 
    h("h1", { tabindex: "-1", text: "Catalogue" }),
    pinLine(cat),
    h("div", { class: "search" },
      h("label", { for: "search", text: "Search metrics" }),
      search,
      h("p", { id: "search-help", class: "muted", text: cat.scale
        ? "Searches names, descriptions, dimensions, glossary terms and their synonyms; the server ranks the matches, best first."
        : "Searches names, descriptions, glossary terms and their synonyms." })),
    status,
    results,
    knowledge(cat, names));
  show();
}

// metricCard shows a metric's list entry (its summary).
function metricCard(m) {
  return h("li", { class: "card" },
    h("h2", null, h("a", { href: metricHref(m.name) }, h("code", { text: m.name }))),
    h("p", { class: "lead", text: firstParagraph(m.description) }),
    h("p", { class: "facts" },
      m.model ? h("span", null, "model ", h("code", { text: m.model })) : null,
      h("span", { text: "grains " + m.grains.join(", ") }),
      h("span", { text: m.dimensions.length ? "by " + m.dimensions.join(", ") : "no dimensions" })));
}

function notDefinedItem(n) {
  return h("div", { class: "not-defined" },
    h("p", null, h("strong", { text: n.phrase }),
      n.synonyms && n.synonyms.length ? h("span", { class: "muted", text: " (also " + n.synonyms.join(", ") + ")" }) : null),
    n.note ? paragraphs(n.note) : null);
}

function meaning(g) {
  const parts = [h("a", { href: metricHref(g.means.metric) }, h("code", { text: g.means.metric }))];
  if (g.means.dimension) parts.push(" by ", h("code", { text: g.means.dimension }));
  if (g.means.value) parts.push(" = ", h("code", { text: g.means.value }));
  return parts;
}

function glossaryTable(entries, names) {
  return h("div", { class: "table-wrap" }, h("table", { class: "plain" },
    h("thead", null, h("tr", null, h("th", { scope: "col", text: "Term" }), h("th", { scope: "col", text: "Means" }), h("th", { scope: "col", text: "Note" }))),
    h("tbody", null, entries.map((g) => h("tr", null,
      h("td", null, h("strong", { text: g.term }), g.synonyms && g.synonyms.length ? h("div", { class: "muted", text: "also " + g.synonyms.join(", ") }) : null),
      h("td", null, meaning(g)),
      h("td", null, g.note ? paragraphs(g.note, names) : ""))))));
}

function caveatList(entries, names) {
  return h("ul", { class: "caveats" }, entries.map((c) => h("li", null,
    h("strong", { text: c.name.replace(/_/g, " ") }),
    h("span", { class: "muted" }, " — about ", c.about.map((a, i) => [i ? ", " : "", h("code", { text: a })])),
    paragraphs(c.note, names))));
}

function exampleList(entries) {
  return h("ul", { class: "examples" }, entries.map((e) => h("li", null,
    h("p", null, h("strong", { text: e.name.replace(/_/g, " ") })),
    h("ul", null, (e.asked || []).map((a) => h("li", null, h("q", { text: a })))),
    h("p", null, h("a", { class: "button-link", href: "#/ask?q=" + encodeURIComponent(JSON.stringify(e.question)) }, "Open in the question builder")))));
}

function knowledge(cat, names) {
  return h("div", { class: "knowledge" },
    cat.glossary.length ? h("section", null, h("h2", { text: "Glossary" }), glossaryTable(cat.glossary, names)) : null,
    cat.caveats.length ? h("section", null, h("h2", { text: "Caveats" }), caveatList(cat.caveats, names)) : null,
    cat.examples.length ? h("section", null, h("h2", { text: "Example questions" }), exampleList(cat.examples)) : null,
    h("section", null, h("h2", { text: "Not defined" }),
      h("p", { class: "muted", text: "Phrases this catalogue deliberately does not define: no number is certified for them." }),
      cat.not_defined.length ? cat.not_defined.map(notDefinedItem) : h("p", { text: "None." })));
}

// renderMetric fills view with one metric, or says there is none of that
// name visible to the caller — without repeating the name asked for.
export function renderMetric(view, cat, names, name) {
  clear(view);
  const m = cat.metrics.find((x) => x.name === name);
  if (!m) {
    append(view, 
      h("h1", { tabindex: "-1", text: "No such metric" }),
      h("p", { text: "There is no metric of that name in the catalogue visible to you." }),
      h("p", null, h("a", { href: "#/" }, "Back to the catalogue")));
    return;
  }
  const row = (label, ...value) => [h("dt", { text: label }), h("dd", null, value)];
  const anchor = m.anchor
    ? [h("code", { text: m.anchor.value }), ` over ${m.anchor.start} to ${m.anchor.end} (exclusive)`,
      m.grains.length ? `, ${GRAIN_PERIOD[m.grains[m.grains.length - 1]]}; re-checked at every start` : ""]
    : "none";
  const gl = glossaryFor(cat, m.name);
  const cv = caveatsFor(cat, m);
  const ex = examplesFor(cat, m.name);
  append(view, 
    h("p", { class: "crumbs" }, h("a", { href: "#/" }, "Catalogue"), " / ", h("code", { text: m.name })),
    h("h1", { tabindex: "-1" }, h("code", { text: m.name })),
    h("p", null, h("a", { class: "button-link", href: "#/ask?q=" + encodeURIComponent(JSON.stringify({ metrics: [m.name] })) }, "Ask a question with this metric")),
    h("div", { class: "prose" }, paragraphs(m.description, names)),
    h("dl", { class: "facts-list" },
      m.measure ? row("Measure", h("code", { text: m.measure })) : null,
      m.model ? row("Model", h("code", { text: m.model }), m.time_column ? [" by ", h("code", { text: m.time_column })] : null) : null,
      row("Grains", m.grains.join(", ")),
      row("Required filters", m.required_filters && m.required_filters.length
        ? h("ul", null, m.required_filters.map((f) => h("li", { text: f })))
        : "none"),
      row("Anchor", anchor),
      row("Digest", h("code", { class: "digest", text: m.digest }))),
    m.required_filters && m.required_filters.length
      ? h("p", { class: "muted", text: "Required filters are part of the metric's meaning and apply to every question; their values are not shown." })
      : null,
    h("h2", { text: "Dimensions" }),
    m.dimensions.length === 0 ? h("p", { text: "None: this metric is asked over time only." }) :
      h("div", { class: "table-wrap" }, h("table", { class: "plain" },
        h("thead", null, h("tr", null, h("th", { scope: "col", text: "Dimension" }), h("th", { scope: "col", text: "Filter values" }), h("th", { scope: "col", text: "Description" }))),
        h("tbody", null, m.dimensions.map((d) => h("tr", null,
          h("td", null, h("code", { text: d.name })),
          h("td", null, d.filterable ? h("ul", { class: "chips" }, (d.values || []).map((v) => h("li", null, h("code", { text: v })))) : h("span", { class: "muted", text: "group by only" })),
          h("td", null, d.description ? inline(d.description, names) : "")))))),
    gl.length ? [h("h2", { text: "Glossary" }), glossaryTable(gl, names)] : null,
    cv.length ? [h("h2", { text: "Caveats" }), caveatList(cv, names)] : null,
    ex.length ? [h("h2", { text: "Example questions" }), exampleList(ex)] : null);
}

export { pinLine, shortDigest };
