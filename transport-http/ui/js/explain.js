// The explanation every answer carries (docs/contract.md §16): each
// metric's definition in words, the filters applied, what each leg read
// where and as whom, how far the data reaches, notes when the range asked
// ends after it, and, for a caller allowed to read them, the statements.

import { h } from "./dom.js";

const list = (items, item) => h("ul", { class: "bare" }, (items || []).map(item));

function leg(l) {
  const parts = [`${l.posture} as `];
  const figures = l.measured ? `${l.rows_scanned} rows, ${l.bytes_scanned} bytes scanned, ` : "";
  return h("li", null, h("code", { text: l.source }), " ", parts, h("code", { text: l.identity }),
    `: ${figures}${l.elapsed_ms} ms` + (l.cache ? `, cache ${l.cache}` : ""));
}

// explanation renders e under the answer; every value is a text node.
export function explanation(e) {
  const rows = [
    h("dt", { text: "Definitions" }), h("dd", null, list(e.definitions, (d) =>
      h("li", null, h("code", { text: d.metric }), `: ${d.measure}; time column `, h("code", { text: d.time_column }),
        (d.required_filters || []).map((f) => "; " + f)))),
    h("dt", { text: "Filters applied" }), h("dd", null, (e.filters || []).length === 0 ? "none" : list(e.filters, (f) =>
      h("li", null, h("code", { text: f.dimension }), ` ${f.op} ${f.values.join(", ")}`))),
    h("dt", { text: "Ran on" }), h("dd", null, list(e.legs, leg)),
    h("dt", { text: "Data through" }), h("dd", null, (e.data_through || []).length === 0 ? "not known" : list(e.data_through, (d) =>
      h("li", null, h("code", { text: d.model }), ` (${d.source}): `, h("time", { text: d.through, datetime: d.through })))),
  ];
  if (e.statements) {
    rows.push(h("dt", { text: "Statements" }), h("dd", null, e.statements.length === 0 ? "none (the embedded engine runs no SQL)" :
      list(e.statements, (s) => h("li", null, h("code", { text: s.source }), ` (${s.dialect})`,
        h("pre", { class: "statement" }, h("code", { text: s.text })),
        s.params.length ? h("p", { class: "muted", text: "Parameters: " + s.params.join(", ") }) : null))));
  }
  if (e.trace_id) rows.push(h("dt", { text: "Trace id" }), h("dd", null, h("code", { id: "explain-trace", text: e.trace_id })));
  return h("section", { class: "explanation", id: "explanation", "aria-labelledby": "explain-h" },
    h("h3", { id: "explain-h", text: "How this answer was computed" }),
    (e.notes || []).map((n) => h("p", { class: "notice", role: "note", text: n })),
    h("dl", { class: "facts-list" }, rows));
}
