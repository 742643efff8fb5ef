// DOM building for the catalogue browser. Every string becomes a text
// node or an attribute value, never markup: the page has no HTML sink at
// all, and its Content-Security-Policy (Trusted Types with no policy)
// makes any attempt to use one throw.

// h builds an element. props: class, text, on<event> handlers, value,
// checked, disabled, selected (properties) and any other attribute;
// children: nodes, strings (text) or arrays of them; null and false are
// skipped.
export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (v == null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "value" || k === "checked" || k === "disabled" || k === "selected" || k === "hidden") el[k] = v;
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, ...children);
  return el;
}

// append adds children (nodes, strings, arrays of them; null and false
// skipped) to el. Use it, not Element.append, which writes null as text.
export function append(el, ...children) {
  for (const c of [children].flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// clear removes every child of el.
export function clear(el) {
  el.replaceChildren();
  return el;
}

let uid = 0;

// id returns an id unique in the page, for label/control pairs.
export function id(prefix) {
  uid += 1;
  return `${prefix}-${uid}`;
}

// paragraphs renders catalogue prose: paragraphs split on blank lines,
// lines joined, `code` spans as code, and a code span that names a
// metric in names as a link to it.
export function paragraphs(text, names) {
  return String(text || "")
    .split(/\n\s*\n/)
    .map((p) => p.replace(/\s*\n\s*/g, " ").trim())
    .filter((p) => p !== "")
    .map((p) => h("p", null, inline(p, names)));
}

// inline renders one line of prose with its `code` spans.
export function inline(text, names) {
  const out = [];
  String(text).split("`").forEach((part, i) => {
    if (i % 2 === 0) {
      if (part) out.push(part);
    } else if (names && names.has(part)) {
      out.push(h("a", { href: metricHref(part) }, h("code", { text: part })));
    } else {
      out.push(h("code", { text: part }));
    }
  });
  return out;
}

// metricHref is the page's link to one metric.
export function metricHref(name) {
  return "#/metric/" + encodeURIComponent(name);
}

// download offers text as a file.
export function download(filename, type, text) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
