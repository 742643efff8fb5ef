// The question: what the builder may offer for a choice of metrics (only
// what the catalogue allows), the wire JSON of a builder state, the same
// question as a `sutura ask` command line and a curl call, and a
// question read back from a link — keeping only what the catalogue
// visible to this caller holds, never showing what it dropped.

// Bounds of a question (the contract's): at most 8 metrics, 4
// dimensions, 16 filters, 64 values per filter, 10 000 rows.
export const MAX_METRICS = 8;
export const MAX_DIMENSIONS = 4;
export const MAX_FILTERS = 16;
export const MAX_ROWS = 10000;
export const MAX_SPAN_DAYS = 3653;

export const GRAINS = ["day", "week", "month", "quarter", "year"];

// family is what metrics asked together must share: one model and one
// time column.
export function family(m) {
  return `${m.model || ""}\u0000${m.time_column || ""}`;
}

// offer returns what the builder may offer for the chosen metrics (names,
// in the catalogue's order): the grains every one declares, the
// dimensions every one declares (in the first metric's order), and for
// each dimension filterable on every one, the values allowed by every one.
export function offer(catalog, chosen) {
  const metrics = chosen.map((n) => catalog.metrics.find((m) => m.name === n)).filter(Boolean);
  if (metrics.length === 0) return { metrics, grains: [], dimensions: [], filterable: [] };
  const grains = GRAINS.filter((g) => metrics.every((m) => m.grains.includes(g)));
  const dimensions = [];
  const filterable = [];
  for (const d of metrics[0].dimensions) {
    const all = metrics.map((m) => m.dimensions.find((x) => x.name === d.name));
    if (all.some((x) => !x)) continue;
    dimensions.push({ name: d.name, description: d.description || "" });
    if (all.every((x) => x.filterable)) {
      const values = (d.values || []).filter((v) => all.every((x) => (x.values || []).includes(v)));
      if (values.length > 0) filterable.push({ name: d.name, values });
    }
  }
  return { metrics, grains, dimensions, filterable };
}

// emptyState is a builder with nothing chosen.
export function emptyState() {
  return {
    metrics: [],
    grain: "",
    rangeMode: "between",
    start: "",
    end: "",
    last: 3,
    dimensions: [],
    filters: {}, // dimension → {mode: "in" | "not_in", values: [...]}
    top: { on: false, n: 10, by: "metric", direction: "desc" },
  };
}

// question returns the wire question of a builder state, its members in
// the contract's order. Included values come before excluded ones, in the
// order of the offered dimensions, as `sutura ask` builds them.
export function question(st, off) {
  const q = { metrics: [...st.metrics], grain: st.grain };
  q.range = st.rangeMode === "last"
    ? { last: { count: Number(st.last), unit: st.grain } }
    : { start: st.start, end: st.end };
  if (st.dimensions.length > 0) q.dimensions = [...st.dimensions];
  const filters = [];
  for (const op of ["in", "not_in"]) {
    for (const d of off.filterable) {
      const f = st.filters[d.name];
      if (!f || f.mode !== op || f.values.length === 0) continue;
      const values = d.values.filter((v) => f.values.includes(v));
      if (op === "in" && values.length === 1) filters.push({ op: "eq", dimension: d.name, value: values[0] });
      else filters.push({ op, dimension: d.name, values });
    }
  }
  if (filters.length > 0) q.filters = filters;
  if (st.top.on && st.metrics.length === 1) q.top = { n: Number(st.top.n), by: st.top.by, direction: st.top.direction };
  return q;
}

// problems lists what keeps a state from being a question the builder may
// send (incomplete choices); the server decides the rest.
export function problems(st, off) {
  const out = [];
  if (st.metrics.length === 0) out.push("Choose at least one metric.");
  if (st.metrics.length > 0 && !off.grains.includes(st.grain)) out.push("Choose a grain.");
  if (st.rangeMode === "between") {
    if (!isDate(st.start) || !isDate(st.end)) out.push("Give both dates of the range.");
    else if (st.end <= st.start) out.push("The end of the range must come after its start.");
  } else if (!isCount(st.last, 1, 100000)) {
    out.push("Give the number of periods (a whole number, at least 1).");
  }
  if (st.top.on && st.metrics.length === 1 && !isCount(st.top.n, 1, MAX_ROWS)) {
    out.push(`Top keeps between 1 and ${MAX_ROWS} groups.`);
  }
  const filters = Object.values(st.filters).filter((f) => f.values.length > 0).length;
  if (filters > MAX_FILTERS) out.push(`At most ${MAX_FILTERS} dimensions can be filtered.`);
  return out;
}

export function isDate(s) {
  if (typeof s !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(s + "T00:00:00Z");
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s && s >= "0001-01-01";
}

function isCount(v, lo, hi) {
  const n = Number(v);
  return Number.isInteger(n) && n >= lo && n <= hi;
}

// spanDays is the number of days in [start, end).
export function spanDays(start, end) {
  return Math.round((Date.parse(end + "T00:00:00Z") - Date.parse(start + "T00:00:00Z")) / 86400000);
}

// shellQuote quotes one word for a POSIX shell: a plain word as it is,
// anything else in single quotes (a single quote as '\'').
export function shellQuote(s) {
  s = String(s);
  if (/^[A-Za-z0-9_@%+:,./-][A-Za-z0-9_@%+=:,./-]*$/.test(s)) return s;
  return "'" + s.replace(/'/g, "'\\''") + "'";
}

// askCommand is the `sutura ask` command line that sends q (with --json,
// it prints exactly the body POST /v1/query answers).
export function askCommand(q) {
  const w = ["sutura", "ask", q.metrics.join(","), "--grain", q.grain];
  if (q.range.last) w.push("--last", String(q.range.last.count));
  else w.push("--from", q.range.start, "--to", q.range.end);
  if (q.dimensions) w.push("--by", q.dimensions.join(","));
  for (const f of q.filters || []) {
    if (f.op === "eq") w.push("--where", `${f.dimension}=${f.value}`);
    else for (const v of f.values) w.push(f.op === "in" ? "--where" : "--where-not", `${f.dimension}=${v}`);
  }
  if (q.top) w.push("--top", String(q.top.n), "--top-by", q.top.by, "--direction", q.top.direction);
  w.push("--json");
  return w.map(shellQuote).join(" ");
}

// curlCommand is the same question over HTTP; tokens are left as
// environment variables, never written out.
export function curlCommand(q, queryURL, token, access) {
  const w = ["curl", "-sS", "-H", "Content-Type: application/json"];
  const parts = w.map(shellQuote);
  if (token) parts.push("-H", '"Authorization: Bearer $SUTURA_TOKEN"');
  if (access) parts.push("-H", '"X-Sutura-Access-Token: $SUTURA_ACCESS_TOKEN"');
  parts.push("--data-binary", shellQuote(JSON.stringify(q)), shellQuote(queryURL));
  return parts.join(" ");
}

// fromQuestion reads a question (a link's, or a catalogue example's) into
// a builder state, keeping only what the catalogue visible to this caller
// allows: unknown or hidden metrics, other grains, dimensions and values
// are dropped and counted, never shown. It returns {state, dropped}.
export function fromQuestion(catalog, raw) {
  const st = emptyState();
  let dropped = 0;
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return { state: st, dropped: 1 };
  const known = new Set(["metrics", "grain", "range", "dimensions", "filters", "top"]);
  dropped += Object.keys(raw).filter((k) => !known.has(k)).length;

  for (const n of Array.isArray(raw.metrics) ? raw.metrics : []) {
    const m = catalog.metrics.find((x) => x.name === n);
    const first = st.metrics.length > 0 ? catalog.metrics.find((x) => x.name === st.metrics[0]) : m;
    if (!m || st.metrics.includes(n) || st.metrics.length >= MAX_METRICS || family(m) !== family(first)) dropped++;
    else st.metrics.push(n);
  }
  const off = offer(catalog, st.metrics);
  if (off.grains.includes(raw.grain)) st.grain = raw.grain;
  else {
    if (raw.grain !== undefined) dropped++;
    st.grain = off.grains.includes("month") ? "month" : off.grains[0] || "";
  }

  const r = raw.range;
  if (r && typeof r === "object" && r.last && typeof r.last === "object") {
    if (isCount(r.last.count, 1, 100000) && (r.last.unit === undefined || r.last.unit === st.grain)) {
      st.rangeMode = "last";
      st.last = Number(r.last.count);
    } else dropped++;
  } else if (r && typeof r === "object" && isDate(r.start) && isDate(r.end)) {
    st.start = r.start;
    st.end = r.end;
  } else if (r !== undefined) dropped++;

  for (const d of Array.isArray(raw.dimensions) ? raw.dimensions : []) {
    if (off.dimensions.some((x) => x.name === d) && !st.dimensions.includes(d) && st.dimensions.length < MAX_DIMENSIONS) st.dimensions.push(d);
    else dropped++;
  }

  for (const f of Array.isArray(raw.filters) ? raw.filters : []) {
    const d = f && off.filterable.find((x) => x.name === f.dimension);
    const values = !f ? null : f.op === "eq" ? [f.value] : Array.isArray(f.values) ? f.values : null;
    const mode = f && (f.op === "eq" || f.op === "in") ? "in" : f && f.op === "not_in" ? "not_in" : "";
    if (!d || !values || !mode || st.filters[d.name]) {
      dropped++;
      continue;
    }
    const kept = values.filter((v) => d.values.includes(v));
    dropped += values.length - kept.length;
    if (kept.length > 0) st.filters[d.name] = { mode, values: [...new Set(kept)] };
  }

  const t = raw.top;
  if (t !== undefined) {
    if (t && st.metrics.length === 1 && isCount(t.n, 1, MAX_ROWS) && ["metric", "period"].includes(t.by ?? "metric") &&
      ["desc", "asc"].includes(t.direction ?? "desc")) {
      st.top = { on: true, n: Number(t.n), by: t.by ?? "metric", direction: t.direction ?? "desc" };
    } else dropped++;
  }
  return { state: st, dropped };
}
