// The question builder: it offers only what the catalogue allows for the
// metrics chosen (their shared grains, dimensions and allowlisted filter
// values), shows the JSON it sends with the same question as a command
// line, and shows the outcome under it. On a large catalogue (summaries,
// cat.scale) the metrics are listed by their summaries and a metric's full
// entry is fetched when it is chosen (app.describe).

import { h, clear, append, id } from "./dom.js";
import * as Q from "./question.js";
import { renderOutcome, failure } from "./answer.js";
import { session } from "./api.js";

function firstSentence(text) {
  const p = String(text || "").split(/\n\s*\n/)[0].replace(/\s*\n\s*/g, " ").trim();
  const m = p.match(/^.*?[.!?](\s|$)/);
  return (m ? m[0] : p).trim();
}

function defaultRange(st) {
  if (st.start || st.end) return;
  const y = new Date().getUTCFullYear();
  st.start = `${y - 1}-01-01`;
  st.end = `${y}-01-01`;
}

function checkbox(label, props, describedBy) {
  const cid = id("c");
  return h("div", { class: "check" },
    h("input", { type: "checkbox", id: cid, ...props, "aria-describedby": describedBy }),
    h("label", { for: cid }, label));
}

function field(label, control, hint) {
  const cid = control.id || id("f");
  control.id = cid;
  let note = null;
  if (hint) {
    note = h("p", { class: "hint muted", id: cid + "-hint", text: hint });
    control.setAttribute("aria-describedby", note.id);
  }
  return h("div", { class: "field" }, h("label", { for: cid, text: label }), control, note);
}

// renderBuilder fills view with the builder for init.state; app gives the
// catalogue, ask(questionJSON, signal), describe(names, signal),
// startAgain() and the unauthorized handler. The full entries of the
// metrics of init.state are held already.
export function renderBuilder(view, app, init) {
  const cat = app.catalog;
  const st = init.state;
  let off = Q.offer(cat, st.metrics);
  if (st.metrics.length > 0 && !off.grains.includes(st.grain)) st.grain = off.grains.includes("month") ? "month" : off.grains[0];
  defaultRange(st);
  clear(view);

  const metricBoxes = new Map();
  const metricBox = (m) => {
    const box = checkbox([h("code", { text: m.name }), h("span", { class: "muted", text: " " + firstSentence(m.description) })],
      { name: "metric", value: m.name, checked: st.metrics.includes(m.name), onchange: (e) => chooseMetric(m.name, e.target.checked) }, "metrics-hint");
    metricBoxes.set(m.name, box.querySelector("input"));
    return box;
  };
  const metricsHint = h("p", { id: "metrics-hint", class: "hint muted", role: cat.scale ? "status" : null });
  const metricsSet = h("fieldset", { class: "metrics" },
    h("legend", { text: "Metrics" }),
    h("p", { class: "hint muted", text: `Several metrics can be asked together when they share a model and time column (at most ${Q.MAX_METRICS}).` }),
    cat.scale ? scaleList() : familyLists(),
    metricsHint);

  // familyLists groups a catalogue held in full by model and time column.
  function familyLists() {
    const families = new Map();
    for (const m of cat.metrics) {
      const f = Q.family(m);
      if (!families.has(f)) families.set(f, { model: m.model, time: m.time_column, metrics: [] });
      families.get(f).metrics.push(m);
    }
    return [...families.values()].map((fam) => h("fieldset", { class: "family" },
      h("legend", null, fam.model ? ["model ", h("code", { text: fam.model }), fam.time ? [" by ", h("code", { text: fam.time })] : null] : "metrics"),
      fam.metrics.map(metricBox)));
  }

  // scaleList lists a large catalogue's metrics by their summaries (which
  // name no model: a metric on another one is refused when chosen), with
  // a box that narrows the list by name and description. A builder opened
  // with metrics chosen lists only them until "Show all" (a keyboard
  // reaches the rest of the form without crossing every metric).
  function scaleList() {
    const items = cat.list.map((m) => ({ m, box: metricBox(m) }));
    let all = st.metrics.length === 0;
    const list = h("div", { class: "metric-list" }, items.map((x) => x.box));
    const find = h("input", { id: "metric-find", type: "search", autocomplete: "off", spellcheck: "false", oninput: () => narrow() });
    const showAll = h("button", {
      type: "button", id: "metric-all", class: "small", text: `Show all ${cat.list.length} metrics`,
      onclick: () => {
        all = true;
        narrow();
        // The first chosen metric is scrolled into the list's view (the
        // list only: the page stays where it is).
        const chosen = items.find((x) => metricBoxes.get(x.m.name).checked);
        if (chosen) list.scrollTop = chosen.box.offsetTop - list.clientHeight / 3;
      },
    });
    function narrow() {
      const words = find.value.toLowerCase().split(/\s+/).filter(Boolean);
      for (const { m, box } of items) {
        const text = (m.name + "\n" + m.description).toLowerCase();
        box.hidden = !metricBoxes.get(m.name).checked && (words.length ? !words.every((w) => text.includes(w)) : !all);
      }
      showAll.hidden = all || words.length > 0;
    }
    narrow();
    return [field("Find a metric in this list", find, `${cat.list.length} metrics; the chosen ones stay listed.`), list, showAll];
  }

  const grainSlot = h("div");
  const rangeSlot = h("div");
  const dimSlot = h("div");
  const filterSlot = h("div");
  const topSlot = h("div");
  const problemList = h("div", { id: "problems", role: "status" });
  const askButton = h("button", { type: "submit", id: "ask", class: "primary", text: "Ask" });
  const cancelButton = h("button", { type: "button", id: "cancel", hidden: true, text: "Cancel" });
  const clearButton = h("button", { type: "button", id: "clear", text: "Start again", onclick: () => app.startAgain() });
  const jsonPre = h("pre", { id: "question-json", class: "code", tabindex: "0", "aria-label": "The question as JSON" });
  const cliPre = h("pre", { id: "question-cli", class: "code", tabindex: "0", "aria-label": "The same question as a sutura ask command line" });
  const curlPre = h("pre", { id: "question-curl", class: "code", tabindex: "0", "aria-label": "The same question as a curl command" });
  const out = h("div", { id: "outcome" });
  let inflight = null;

  const copy = (pre) => h("button", {
    type: "button", class: "small", text: "Copy",
    onclick: async (e) => {
      try {
        await navigator.clipboard.writeText(pre.textContent);
        e.target.textContent = "Copied";
      } catch {
        e.target.textContent = "Select and copy";
      }
      setTimeout(() => { e.target.textContent = "Copy"; }, 2000);
    },
  });

  const form = h("form", { id: "builder", novalidate: true, "aria-labelledby": "builder-h" },
    metricsSet,
    h("div", { class: "row" }, grainSlot, rangeSlot),
    dimSlot, filterSlot, topSlot,
    h("div", { class: "actions" }, askButton, cancelButton, clearButton),
    problemList);

  append(view, 
    h("h1", { id: "builder-h", tabindex: "-1", text: "Ask a question" }),
    h("p", { class: "muted", text: "Only what the catalogue allows can be chosen: the grains, dimensions and filter values the metrics declare." }),
    init.dropped > 0 ? h("p", { class: "notice", id: "link-notice", role: "note", text: "Part of the question in this link is not in the catalogue visible to you and was left out." }) : null,
    form,
    out,
    h("section", { class: "preview", "aria-labelledby": "preview-h" },
      h("h2", { id: "preview-h", text: "What is sent" }),
      h("div", { class: "code-head" }, h("h3", { text: "JSON (POST /v1/query)" }), copy(jsonPre)), jsonPre,
      h("div", { class: "code-head" }, h("h3", { text: "Command line" }), copy(cliPre)), cliPre,
      h("p", { class: "hint muted", text: "Runs where sutura's configuration is, as its operator; --json prints exactly the body this page receives." }),
      h("div", { class: "code-head" }, h("h3", { text: "HTTP" }), copy(curlPre)), curlPre));

  async function chooseMetric(name, on) {
    const box = metricBoxes.get(name);
    if (on && !cat.metrics.some((m) => m.name === name)) {
      box.disabled = true;
      metricsHint.textContent = `Reading ${name}…`;
      const res = await app.describe([name]);
      box.disabled = false;
      if (res.kind === "unauthorized") {
        app.unauthorized(res);
        return;
      }
      const m = cat.metrics.find((x) => x.name === name);
      if (!m || !box.checked) {
        box.checked = false;
        markMetrics();
        if (!m) metricsHint.textContent = `${name} could not be read: reload the page.`;
        return;
      }
    }
    if (on) {
      const first = st.metrics.length ? cat.metrics.find((m) => m.name === st.metrics[0]) : null;
      const m = cat.metrics.find((x) => x.name === name);
      if (first && Q.family(m) !== Q.family(first)) {
        box.checked = false;
        markMetrics();
        metricsHint.textContent = `${name} is on another model or time column than ${first.name}: it cannot be asked with it.`;
        return;
      }
    }
    if (on && !st.metrics.includes(name)) st.metrics.push(name);
    if (!on) st.metrics = st.metrics.filter((n) => n !== name);
    off = Q.offer(cat, st.metrics);
    if (!off.grains.includes(st.grain)) st.grain = off.grains.includes("month") ? "month" : off.grains[0] || "";
    st.dimensions = st.dimensions.filter((d) => off.dimensions.some((x) => x.name === d));
    for (const k of Object.keys(st.filters)) {
      const d = off.filterable.find((x) => x.name === k);
      if (!d) delete st.filters[k];
      else st.filters[k].values = st.filters[k].values.filter((v) => d.values.includes(v));
    }
    dependents();
  }

  function markMetrics() {
    const first = st.metrics.length ? cat.metrics.find((m) => m.name === st.metrics[0]) : null;
    for (const [name, box] of metricBoxes) {
      const m = cat.metrics.find((x) => x.name === name);
      const other = first && m && Q.family(m) !== Q.family(first);
      box.disabled = !box.checked && (other || st.metrics.length >= Q.MAX_METRICS);
    }
    metricsHint.textContent = st.metrics.length === 0 ? "Choose one or more metrics."
      : `Chosen: ${st.metrics.join(", ")}. Metrics on another model or time column cannot be added.`;
  }

  function grainField() {
    const sel = h("select", { id: "grain", onchange: (e) => { st.grain = e.target.value; rangeField(); update(); } },
      off.grains.map((g) => h("option", { value: g, selected: g === st.grain, text: g })));
    sel.disabled = off.grains.length === 0;
    clear(grainSlot).append(field("Grain", sel, "The length of one period."));
  }

  function rangeField() {
    const name = id("range");
    const radio = (mode, label, rid) => h("div", { class: "check" },
      h("input", { type: "radio", name, id: rid, value: mode, checked: st.rangeMode === mode, onchange: () => { st.rangeMode = mode; rangeField(); update(); } }),
      h("label", { for: rid, text: label }));
    const start = h("input", { type: "date", id: "range-start", value: st.start, oninput: (e) => { st.start = e.target.value; update(); } });
    const end = h("input", { type: "date", id: "range-end", value: st.end, oninput: (e) => { st.end = e.target.value; update(); } });
    const last = h("input", { type: "number", id: "range-last", min: "1", step: "1", inputmode: "numeric", value: String(st.last), oninput: (e) => { st.last = e.target.value; update(); } });
    const between = st.rangeMode === "between";
    start.disabled = end.disabled = !between;
    last.disabled = between;
    clear(rangeSlot).append(h("fieldset", { class: "range" },
      h("legend", { text: "Range" }),
      radio("between", "Between two dates", "range-between"),
      h("div", { class: "indent row" }, field("From", start), field("To (not included)", end)),
      radio("last", `The last whole ${st.grain || "period"}s`, "range-last-mode"),
      h("div", { class: "indent" }, field(`How many ${st.grain || "period"}s`, last, "Counted back from the server's today; the current period is not included."))));
  }

  function dimensionsField() {
    if (off.dimensions.length === 0) {
      clear(dimSlot).append(h("fieldset", null, h("legend", { text: "Dimensions" }),
        h("p", { class: "muted", text: st.metrics.length ? "The chosen metrics share no dimension." : "Choose a metric first." })));
      return;
    }
    const boxes = [];
    const full = () => st.dimensions.length >= Q.MAX_DIMENSIONS;
    const mark = () => boxes.forEach((b) => { b.disabled = !b.checked && full(); });
    clear(dimSlot).append(h("fieldset", { class: "dimensions" },
      h("legend", { text: "Group by" }),
      h("p", { id: "dims-hint", class: "hint muted", text: `Up to ${Q.MAX_DIMENSIONS} dimensions, in the order chosen.` }),
      h("div", { class: "checks" }, off.dimensions.map((d) => {
        const box = checkbox(h("code", { text: d.name }), {
          name: "dimension", value: d.name, checked: st.dimensions.includes(d.name), title: d.description,
          onchange: (e) => {
            if (e.target.checked) st.dimensions.push(d.name);
            else st.dimensions = st.dimensions.filter((x) => x !== d.name);
            mark();
            update();
          },
        }, "dims-hint");
        boxes.push(box.querySelector("input"));
        return box;
      }))));
    mark();
  }

  function filtersField() {
    if (off.filterable.length === 0) {
      clear(filterSlot);
      return;
    }
    clear(filterSlot).append(h("fieldset", { class: "filters" },
      h("legend", { text: "Filters" }),
      h("p", { class: "hint muted", text: "Only the values the catalogue allows for every chosen metric. No value checked: no filter on that dimension." }),
      off.filterable.map((d) => {
        const f = st.filters[d.name] || { mode: "in", values: [] };
        const mode = h("select", {
          id: "filter-mode-" + d.name,
          onchange: (e) => { f.mode = e.target.value; st.filters[d.name] = f; update(); },
        }, h("option", { value: "in", selected: f.mode === "in", text: "only the checked values" }),
        h("option", { value: "not_in", selected: f.mode === "not_in", text: "all but the checked values" }));
        return h("fieldset", { class: "filter" },
          h("legend", null, h("code", { text: d.name })),
          field(`Which ${d.name} values to keep`, mode),
          h("div", { class: "checks" }, d.values.map((v) => checkbox(h("span", { text: v }), {
            name: "filter-" + d.name, value: v, checked: f.values.includes(v),
            onchange: (e) => {
              f.values = d.values.filter((x) => (x === v ? e.target.checked : f.values.includes(x)));
              st.filters[d.name] = f;
              update();
            },
          }))));
      })));
  }

  function topField() {
    const single = st.metrics.length === 1;
    const on = h("input", { type: "checkbox", id: "top-on", checked: st.top.on && single, onchange: (e) => { st.top.on = e.target.checked; topField(); update(); } });
    on.disabled = !single;
    const n = h("input", { type: "number", id: "top-n", min: "1", max: String(Q.MAX_ROWS), step: "1", inputmode: "numeric", value: String(st.top.n), oninput: (e) => { st.top.n = e.target.value; update(); } });
    const by = h("select", { id: "top-by", onchange: (e) => { st.top.by = e.target.value; update(); } },
      h("option", { value: "metric", selected: st.top.by === "metric", text: "the metric's value" }),
      h("option", { value: "period", selected: st.top.by === "period", text: "the period" }));
    const dir = h("select", { id: "top-direction", onchange: (e) => { st.top.direction = e.target.value; update(); } },
      h("option", { value: "desc", selected: st.top.direction === "desc", text: "highest first" }),
      h("option", { value: "asc", selected: st.top.direction === "asc", text: "lowest first" }));
    n.disabled = by.disabled = dir.disabled = !(single && st.top.on);
    clear(topSlot).append(h("fieldset", { class: "top" },
      h("legend", { text: "Top" }),
      h("div", { class: "check" }, on, h("label", { for: "top-on", text: "Keep only the first groups" })),
      single ? null : h("p", { class: "hint muted", text: "Top applies to a question with one metric." }),
      h("div", { class: "indent row" }, field("How many", n), field("Ranked by", by), field("Order", dir))));
  }

  function dependents() {
    markMetrics();
    grainField();
    rangeField();
    dimensionsField();
    filtersField();
    topField();
    update();
  }

  function current() {
    return Q.question(st, off);
  }

  function update() {
    const probs = Q.problems(st, off);
    clear(problemList);
    if (probs.length > 0) {
      problemList.append(h("ul", { class: "problems" }, probs.map((p) => h("li", { text: p }))));
      jsonPre.textContent = cliPre.textContent = curlPre.textContent = "(the question is not complete)";
      return;
    }
    if (st.rangeMode === "between" && Q.spanDays(st.start, st.end) > Q.MAX_SPAN_DAYS) {
      problemList.append(h("p", { class: "hint muted", text: `The range is longer than ${Q.MAX_SPAN_DAYS} days: sutura will refuse it.` }));
    }
    const q = current();
    jsonPre.textContent = JSON.stringify(q, null, 2);
    cliPre.textContent = Q.askCommand(q);
    curlPre.textContent = Q.curlCommand(q, new URL("../v1/query", document.baseURI).href, session.token(), session.access());
  }

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (inflight) return;
    const probs = Q.problems(st, off);
    if (probs.length > 0) {
      clear(problemList).append(h("ul", { class: "problems", role: "alert" }, probs.map((p) => h("li", { text: p }))));
      return;
    }
    const q = current();
    const text = JSON.stringify(q);
    history.replaceState(null, "", "#/ask?q=" + encodeURIComponent(text));
    inflight = new AbortController();
    askButton.disabled = true;
    askButton.textContent = "Asking…";
    cancelButton.hidden = false;
    const cancel = () => inflight && inflight.abort();
    cancelButton.addEventListener("click", cancel, { once: true });
    const res = await app.ask(text, inflight.signal);
    inflight = null;
    askButton.disabled = false;
    askButton.textContent = "Ask";
    cancelButton.hidden = true;
    cancelButton.removeEventListener("click", cancel);
    if (res.kind === "unauthorized") {
      app.unauthorized(res);
      return;
    }
    if (res.kind === "network" || res.kind === "failure") failure(out, res);
    else renderOutcome(out, res, cat, q.grain, `sutura-${q.metrics.join("-")}-${q.grain}`);
    const heading = out.querySelector("#outcome-h");
    if (heading) heading.focus();
  });

  dependents();
  return { ask: () => form.requestSubmit() };
}
