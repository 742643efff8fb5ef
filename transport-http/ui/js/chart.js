// The answer as a chart, drawn by uPlot: a line chart over the periods
// (one series per metric and dimension value), or a bar chart when the
// answer has one period; each metric on its own axis; uPlot's legend.

import { h, clear } from "./dom.js";

// Colours with at least 3:1 contrast on white, told apart by people with
// the common colour-vision deficiencies; past them, dashes.
const PALETTE = ["#0b5cad", "#c2410c", "#047857", "#7e22ce", "#a16207", "#be185d", "#0e7490", "#4d5562"];
const DASHES = [[], [8, 4], [2, 3], [10, 3, 2, 3]];
const MAX_SERIES = 40;

const compact = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 2 });

// AXIS_FONT is the font the x axis labels are drawn in; labelWidth
// measures a label in it (CSS pixels).
const AXIS_FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif';
const LABEL_GAP = 8;
let measure = null;
function labelWidth(text) {
  measure ??= document.createElement("canvas").getContext("2d");
  measure.font = AXIS_FONT;
  return measure.measureText(text).width;
}

// spaced keeps the x labels that fit: going left to right, a label is
// drawn only when it starts at least LABEL_GAP pixels after the last one
// drawn ends, so no two overlap however many periods or bars there are;
// the others are drawn empty (the legend and the table name every one).
// The labels drawn and their centres are kept on the plot's element
// (data-x-labels), with the font (data-x-font), for whoever checks them.
function spaced(u, splits, labels) {
  let end = -Infinity;
  const drawn = [];
  const out = labels.map((text, i) => {
    if (!text) return "";
    const x = u.valToPos(splits[i], "x");
    const w = labelWidth(text);
    if (x - w / 2 < end + LABEL_GAP) return "";
    end = x + w / 2;
    drawn.push({ text, x: Math.round(x * 10) / 10 });
    return text;
  });
  u.root.dataset.xLabels = JSON.stringify(drawn);
  u.root.dataset.xFont = AXIS_FONT;
  return out;
}

// periodLabel formats a bucket start (seconds, UTC) for the grain.
function periodLabel(ts, grain) {
  const d = new Date(ts * 1000);
  const iso = d.toISOString().slice(0, 10);
  if (grain === "year") return iso.slice(0, 4);
  if (grain === "quarter") return `${iso.slice(0, 4)} Q${Math.floor(d.getUTCMonth() / 3) + 1}`;
  if (grain === "month") return iso.slice(0, 7);
  return iso;
}

let live = null; // the chart on the page and its resize observer

function destroy() {
  if (live) {
    live.observer.disconnect();
    live.plot.destroy();
    live = null;
  }
}

// groups returns the answer's dimension groups in first-seen order: a
// key, a label ("East · online"; "null" for a null value) and each row.
function grouping(answer) {
  const dims = [];
  answer.columns.forEach((c, i) => { if (c.role === "dimension") dims.push(i); });
  const groups = new Map();
  for (const row of answer.rows) {
    const key = JSON.stringify(dims.map((i) => row[i]));
    if (!groups.has(key)) groups.set(key, { label: dims.map((i) => row[i] === null ? "null" : row[i]).join(" · "), rows: [] });
    groups.get(key).rows.push(row);
  }
  return [...groups.values()];
}

function num(v) {
  if (v === null || v === undefined) return null;
  const n = Number(v);
  return Number.isFinite(n) ? n : null;
}

// yAxis is metric k's axis: left for even k, right for odd.
function yAxis(name, k) {
  return {
    scale: "m" + k, side: k % 2 === 0 ? 3 : 1, label: name, labelSize: 20, size: 64,
    stroke: "#1b1f24", grid: { show: k === 0, stroke: "#e5e7eb" }, ticks: { stroke: "#9ca3af" },
    values: (u, splits) => splits.map((v) => (v == null ? "" : compact.format(v))),
  };
}

// renderChart draws answer (of a question at grain) into box, sized to
// it, redrawn on resize.
export function renderChart(box, answer, grain) {
  destroy();
  clear(box);
  if (typeof window.uPlot !== "function") {
    box.append(h("p", { class: "muted", text: "The chart library did not load; the table below has the answer." }));
    return;
  }
  const periodCol = answer.columns.findIndex((c) => c.role === "period");
  const metrics = [];
  answer.columns.forEach((c, i) => { if (c.role === "metric") metrics.push({ name: c.name, col: i }); });
  const groups = grouping(answer);
  const periods = [...new Set(answer.rows.map((r) => r[periodCol]))].sort();
  const bar = periods.length === 1;
  const plotBox = h("div", { class: "plot" });
  const note = h("p", { class: "muted chart-note" });
  box.append(plotBox, note);

  const { data, ...opts } = bar ? barOptions(metrics, groups, periods[0]) : lineOptions(metrics, groups, periods, periodCol, grain);
  const shown = opts.series.length - 1;
  const total = bar ? metrics.length : metrics.length * groups.length;
  note.textContent = (bar ? `Bar chart: one period (${periods[0]}). ` : `Line chart over ${periods.length} periods. `) +
    (metrics.length > 1 ? "Each metric has its own axis. " : "") +
    (shown < total ? `It shows the first ${shown} of ${total} series; the table has them all.` : "The table below has the same numbers.");

  const width = () => Math.max(280, plotBox.clientWidth || box.clientWidth || 600);
  const height = () => (window.matchMedia("(max-width: 600px)").matches ? 260 : 340);
  const plot = new window.uPlot({ ...opts, width: width(), height: height() }, data, plotBox);
  const wrap = plot.root.querySelector(".u-wrap");
  if (wrap) {
    wrap.setAttribute("role", "img");
    wrap.setAttribute("aria-label", (bar ? "Bar chart of " : "Line chart of ") + metrics.map((m) => m.name).join(" and ") +
      (groups.length > 1 || groups[0].label ? ` by ${answer.columns.filter((c) => c.role === "dimension").map((c) => c.name).join(" and ")}` : "") +
      "; the table below has the numbers.");
  }
  const observer = new ResizeObserver(() => {
    const w = width();
    if (Math.abs(w - plot.width) > 2) plot.setSize({ width: w, height: height() });
  });
  observer.observe(plotBox);
  live = { plot, observer };
}

function lineOptions(metrics, groups, periods, periodCol, grain) {
  const xs = periods.map((p) => Date.parse(p + "T00:00:00Z") / 1000);
  const at = new Map(periods.map((p, i) => [p, i]));
  const series = [{ label: "period", value: (u, v) => (v == null ? "—" : periodLabel(v, grain)) }];
  const data = [xs];
  const scales = { x: { time: true } };
  const widest = Math.max(...periods.map((p) => labelWidth(periodLabel(Date.parse(p + "T00:00:00Z") / 1000, grain))));
  const axes = [{
    stroke: "#1b1f24", grid: { stroke: "#e5e7eb" }, ticks: { stroke: "#9ca3af" }, font: AXIS_FONT,
    space: Math.ceil(widest) + 2 * LABEL_GAP, // uPlot's own splits leave room for the widest label
    values: (u, splits) => spaced(u, splits, splits.map((v) => (v == null ? "" : periodLabel(v, grain)))),
    ...(xs.length <= 12 ? { splits: () => xs } : {}),
  }];
  let n = 0;
  metrics.forEach((m, k) => {
    scales["m" + k] = { auto: true };
    axes.push(yAxis(m.name, k));
    groups.forEach((g, gi) => {
      if (n >= MAX_SERIES) return;
      const ys = new Array(xs.length).fill(null);
      for (const row of g.rows) ys[at.get(row[periodCol])] = num(row[m.col]);
      const colour = PALETTE[gi % PALETTE.length];
      const dash = DASHES[(k + Math.floor(gi / PALETTE.length)) % DASHES.length];
      series.push({
        label: g.label ? `${m.name} · ${g.label}` : m.name, scale: "m" + k, stroke: colour, width: 2, dash,
        spanGaps: false, points: { show: xs.length <= 24, size: 6, fill: colour },
        value: (u, v) => (v == null ? "—" : String(v)),
      });
      data.push(ys);
      n++;
    });
  });
  return { series, data, scales, axes, tzDate: (ts) => window.uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"), legend: { live: true }, cursor: { points: { size: 7 } } };
}

function barOptions(metrics, groups, period) {
  const labels = groups.length === 1 && !groups[0].label ? [period] : groups.map((g) => g.label);
  const xs = labels.map((_, i) => i);
  const n = xs.length;
  const width = 0.8 / metrics.length;
  const series = [{ label: groups[0].label ? "group" : "period", value: (u, v) => (v == null ? "—" : labels[Math.round(v)] ?? "") }];
  const data = [xs];
  const pad = Math.max(0.5, (4 - n) / 2); // a lone bar is not the chart's whole width
  const scales = { x: { time: false, range: () => [-pad, n - 1 + pad] } };
  const axes = [{
    stroke: "#1b1f24", grid: { show: false }, ticks: { stroke: "#9ca3af" }, splits: () => xs, size: 48, font: AXIS_FONT,
    values: (u, splits) => spaced(u, splits, splits.map((v) => labels[v] ?? "")),
  }];
  metrics.slice(0, MAX_SERIES).forEach((m, k) => {
    const colour = PALETTE[k % PALETTE.length];
    scales["m" + k] = { range: (u, lo, hi) => window.uPlot.rangeNum(Math.min(0, lo ?? 0), Math.max(0, hi ?? 0), 0.1, true) };
    axes.push(yAxis(m.name, k));
    series.push({
      label: m.name, scale: "m" + k, stroke: colour, fill: colour + "cc", width: 1, points: { show: false },
      value: (u, v) => (v == null ? "—" : String(v)),
      paths: window.uPlot.paths.bars({
        size: [1, Infinity],
        disp: {
          x0: { unit: 1, values: () => xs.map((x) => x - 0.4 + k * width) },
          size: { unit: 1, values: () => [width * 0.92] },
        },
      }),
    });
    data.push(groups.map((g) => num(g.rows[0][m.col])));
  });
  return { series, data, scales, axes, legend: { live: true }, cursor: { points: { show: false } } };
}
