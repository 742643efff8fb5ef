// The outcome of a question: an answer as a sortable table with its
// provenance and downloads, a refusal as its code and sentence, or a
// failure, each shown as what it is.

import { h, clear, append, download } from "./dom.js";
import { renderChart } from "./chart.js";
import { explanation } from "./explain.js";

// compare orders two cells of a column: metrics as numbers, the rest by
// code points (the server's binary collation); nulls last either way.
function comparator(role, dir) {
  return (a, b) => {
    if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
    let c;
    if (role === "metric") c = Number(a) - Number(b);
    else c = a < b ? -1 : a > b ? 1 : 0;
    return dir === "asc" ? c : -c;
  };
}

const grouped = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });

// readable is a metric's value as a person reads it: digits grouped in
// thousands, at most two decimals ("15,813.75"); a value that is not a
// finite number stays as it is.
export function readable(exact) {
  const n = Number(exact);
  return exact.trim() !== "" && Number.isFinite(n) ? grouped.format(n) : exact;
}

// numberCell shows a metric's value in its readable form; the exact value
// the server sent is one click (or key press) away, on the cell's button,
// and always in data-exact.
function numberCell(exact) {
  const shown = readable(exact);
  const td = h("td", { class: "metric", "data-exact": exact });
  if (shown === exact) {
    td.textContent = exact;
    return td;
  }
  const button = h("button", { type: "button", class: "num", "aria-pressed": "false", title: "Select to show the exact value", text: shown });
  button.addEventListener("click", () => {
    const exactShown = button.getAttribute("aria-pressed") !== "true";
    button.setAttribute("aria-pressed", String(exactShown));
    button.textContent = exactShown ? exact : shown;
    button.title = exactShown ? "Select to show the rounded value" : "Select to show the exact value";
  });
  td.append(button);
  return td;
}

// table renders the rows; a column header sorts by it (ascending, then
// descending, then back to the answer's own order).
function table(answer) {
  const cols = answer.columns;
  const order = answer.rows.map((_, i) => i);
  let sort = { col: -1, dir: "" };
  const tbody = h("tbody");
  const fill = () => {
    const idx = [...order];
    if (sort.col >= 0) {
      const cmp = comparator(cols[sort.col].role, sort.dir);
      idx.sort((i, j) => cmp(answer.rows[i][sort.col], answer.rows[j][sort.col]) || i - j);
    }
    tbody.replaceChildren(...idx.map((i) => h("tr", null, answer.rows[i].map((c, k) =>
      c === null ? h("td", { class: "null " + cols[k].role, text: "null" }) :
        cols[k].role === "metric" ? numberCell(c) : h("td", { class: cols[k].role, text: c })))));
  };
  const heads = cols.map((c, k) => {
    const th = h("th", { scope: "col", class: c.role, "aria-sort": "none" });
    const button = h("button", { type: "button", class: "sort", title: "Sort by " + c.name }, h("span", { text: c.name }), h("span", { class: "arrow", "aria-hidden": "true" }));
    button.addEventListener("click", () => {
      if (sort.col !== k) sort = { col: k, dir: "asc" };
      else if (sort.dir === "asc") sort.dir = "desc";
      else sort = { col: -1, dir: "" };
      heads.forEach((t, i) => {
        const state = i === sort.col ? (sort.dir === "asc" ? "ascending" : "descending") : "none";
        t.setAttribute("aria-sort", state);
        t.querySelector(".arrow").textContent = state === "ascending" ? " ▲" : state === "descending" ? " ▼" : "";
      });
      fill();
    });
    th.append(button);
    return th;
  });
  fill();
  const hint = h("p", { class: "scroll-hint hint muted", id: "scroll-hint", hidden: true, text: "The table is wider than the screen: scroll it sideways for the other columns →" });
  const wrap = h("div", { class: "table-wrap", role: "region", "aria-label": "Answer table", tabindex: "0" },
    h("table", { class: "answer", id: "answer-table" },
      h("caption", { text: `${answer.rows.length} row${answer.rows.length === 1 ? "" : "s"} · select a column heading to sort; select a number for its exact value` }),
      h("thead", null, h("tr", null, heads)),
      tbody));
  scrollCue(wrap, hint);
  return h("div", { class: "table-box" }, hint, wrap);
}

// scrollCue marks a table wider than its box: a sentence above it and a
// shadow on the side that has more columns, updated as it scrolls and as
// the page is resized.
function scrollCue(wrap, hint) {
  const update = () => {
    const more = wrap.scrollWidth - wrap.clientWidth > 1;
    hint.hidden = !more;
    wrap.classList.toggle("scrollable", more);
    wrap.classList.toggle("more-right", more && wrap.scrollLeft + wrap.clientWidth < wrap.scrollWidth - 1);
    wrap.classList.toggle("more-left", more && wrap.scrollLeft > 1);
  };
  wrap.addEventListener("scroll", update, { passive: true });
  new ResizeObserver(update).observe(wrap);
}

// csv renders the answer as RFC 4180 CSV: a header row, null as an empty
// field, and a dimension value that a spreadsheet would run as a formula
// (= + - @ tab or return first) prefixed with a single quote.
export function csv(answer) {
  const field = (v, role) => {
    if (v === null) return "";
    let s = String(v);
    if (role === "dimension" && /^[=+\-@\t\r]/.test(s)) s = "'" + s;
    return /[",\r\n]|^\s|\s$/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
  };
  const lines = [answer.columns.map((c) => field(c.name)).join(",")];
  for (const row of answer.rows) lines.push(row.map((v, k) => field(v, answer.columns[k].role)).join(","));
  return lines.join("\r\n") + "\r\n";
}

function provenance(p, catalog) {
  const changed = catalog && p.definition_digest !== catalog.definition_digest;
  return h("section", { class: "provenance", "aria-labelledby": "prov-h" },
    h("h3", { id: "prov-h", text: "Provenance" }),
    h("dl", { class: "facts-list" },
      h("dt", { text: "Definition version" }), h("dd", null, h("code", { id: "prov-version", text: p.definition_version })),
      h("dt", { text: "Definition digest" }), h("dd", null, h("code", { class: "digest", id: "prov-digest", text: p.definition_digest })),
      h("dt", { text: "Metric digests" }), h("dd", null, h("ul", { class: "bare" }, (p.metric_digests || []).map((d) =>
        h("li", null, h("code", { text: d.metric }), " ", h("code", { class: "digest", text: d.digest }))))),
      h("dt", { text: "Executed as" }), h("dd", null, h("ul", { class: "bare" }, (p.executed_as || []).map((e) =>
        h("li", null, h("code", { text: e.source }), ` (${e.posture})`))))),
    changed ? h("p", { class: "notice", role: "note", text: "The catalogue changed since this page loaded it: reload the page to see the definitions this answer used." }) : null);
}

// renderOutcome fills out with the outcome of one call to /v1/query for
// a question at grain. res is api.call's result; name is the base of
// download file names.
export function renderOutcome(out, res, catalog, grain, name) {
  clear(out);
  if (res.kind === "answer") {
    const a = res.json;
    const rows = a.rows.length;
    const chartBox = h("div", { class: "chart-box" });
    append(out, 
      h("h2", { id: "outcome-h", tabindex: "-1", text: "Answer" }),
      h("p", { class: "summary", role: "status", text: rows === 0 ? "The answer has no rows: no data matched this question in this range." : `${rows} row${rows === 1 ? "" : "s"}.` }),
      rows > 0 ? chartBox : null,
      table(a),
      h("p", { class: "downloads" },
        h("button", { type: "button", id: "download-csv", onclick: () => download(name + ".csv", "text/csv", csv(a)) }, "Download CSV"),
        h("button", { type: "button", id: "download-json", onclick: () => download(name + ".json", "application/json", res.text) }, "Download JSON")),
      provenance(a.provenance, catalog),
      a.explanation ? explanation(a.explanation) : null);
    if (rows > 0) renderChart(chartBox, a, grain);
    return;
  }
  if (res.kind === "refusal") {
    out.append(h("section", { class: "refusal", id: "refusal", "aria-labelledby": "outcome-h" },
      h("h2", { id: "outcome-h", tabindex: "-1" }, "Refused: ", h("code", { text: res.reason.code })),
      h("p", { class: "detail", text: res.reason.detail }),
      h("p", { class: "muted", text: `HTTP ${res.status}. A refusal is an answer: the catalogue does not allow this question. Change the question; asking it again unchanged gives the same refusal.` }),
      h("p", { class: "downloads" },
        h("button", { type: "button", id: "download-json", onclick: () => download(name + ".json", "application/json", res.text) }, "Download JSON"))));
    return;
  }
  failure(out, res);
}

// failure shows a failure (not a refusal): the request could not be
// answered, for a reason of the service, the gates or the network.
export function failure(out, res) {
  clear(out);
  if (res.kind === "network") {
    out.append(h("section", { class: "failure", id: "failure", role: "alert" },
      h("h2", { id: "outcome-h", tabindex: "-1", text: res.cancelled ? "Cancelled" : "Failed: the server could not be reached" }),
      h("p", { text: res.cancelled ? "You cancelled the question; the server stops its work." : "Check that sutura is still running, then try again." })));
    return;
  }
  const f = res.failure;
  out.append(h("section", { class: "failure", id: "failure", role: "alert" },
    h("h2", { id: "outcome-h", tabindex: "-1" }, "Failed: ", h("code", { text: f.code })),
    h("p", { class: "detail", text: f.detail }),
    h("p", { class: "muted", text: `HTTP ${res.status}. This is a failure, not a refusal: the question was not judged.` +
      (res.correlation ? ` Correlation id ${res.correlation} (for the operator's logs).` : "") })));
}
