// Building the page. Every piece of data becomes a text node or an attribute value set through
// the DOM: nothing the API returns is ever parsed as markup.

export function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "class") el.className = value;
    else if (name === "text") el.textContent = value;
    else if (name.startsWith("on")) el.addEventListener(name.slice(2), value);
    else if (name === "dataset") Object.assign(el.dataset, value);
    else if (name === "checked" || name === "value" || name === "selected") el[name] = value;
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  append(el, children);
  return el;
}

export function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

// A link inside the console: the id is encoded, so it can only ever be one path segment.
export function route(...parts) {
  return "#/" + parts.map((p) => encodeURIComponent(p)).join("/");
}

export function link(href, text, props) {
  return h("a", { href, ...(props || {}) }, text);
}

// A link to an outside page (an item's own URL): http and https only, opened without access
// to this tab.
export function outsideLink(url, text) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return null;
  return h("a", { href: parsed.href, rel: "noopener noreferrer", target: "_blank" }, text);
}

export function dateTime(iso) {
  if (!iso) return "";
  return String(iso).replace("T", " ").replace(/(\.\d+)?(Z|\+00:00)$/, " UTC");
}

export function day(iso) {
  return iso ? String(iso).slice(0, 10) : "";
}

export function clock(seconds) {
  const s = Math.max(0, Math.round(seconds));
  const parts = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const text = parts.map((n) => String(n).padStart(2, "0"));
  return parts[0] ? text.join(":") : text.slice(1).join(":");
}

export function badge(text, kind) {
  return h("span", { class: "badge" + (kind ? " badge-" + kind : "") }, text);
}

export function heading(text) {
  return h("h1", { tabindex: "-1" }, text);
}

export function message(text, kind) {
  return h("p", { class: "message " + (kind || "info"), role: kind === "error" ? "alert" : "status" }, text);
}

export function loading() {
  return h("p", { class: "loading", role: "status" }, "Loading…");
}

export function isoToday() {
  return new Date().toISOString().slice(0, 10);
}

export function addDays(isoDate, days) {
  const d = new Date(isoDate + "T00:00:00Z");
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

// A bar chart of counts: `bars` are {label, value, title}. Heights are set through the style
// object (allowed by the page's policy), and the numbers are in each bar's label for readers.
export function barChart(bars, caption) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const total = bars.reduce((sum, b) => sum + b.value, 0);
  const chart = h("figure", { class: "chart" });
  const plot = h("div", { class: "plot", role: "img", "aria-label": `${caption}: ${total} in all` });
  for (const bar of bars) {
    const column = h("div", { class: "col", title: bar.title || `${bar.label}: ${bar.value}` });
    const fill = h("div", { class: "bar" + (bar.value ? "" : " empty") });
    fill.style.height = `${(bar.value / max) * 100}%`;
    column.append(fill);
    plot.append(column);
  }
  const first = bars.length ? bars[0].label : "";
  const last = bars.length ? bars[bars.length - 1].label : "";
  chart.append(plot, h("div", { class: "axis" }, h("span", null, first), h("span", null, last)));
  chart.append(h("figcaption", null, `${caption}; the tallest bar is ${max}.`));
  return chart;
}

// A stacked bar chart: `columns` are {label, parts: {status: count}}; `kinds` orders the parts.
export function stackedChart(columns, kinds, caption) {
  const totals = columns.map((c) => kinds.reduce((s, k) => s + (c.parts[k] || 0), 0));
  const max = Math.max(1, ...totals);
  const chart = h("figure", { class: "chart" });
  const plot = h("div", { class: "plot", role: "img", "aria-label": caption });
  columns.forEach((column, index) => {
    const title = `${column.label}: ` + kinds.map((k) => `${column.parts[k] || 0} ${k}`).join(", ");
    const col = h("div", { class: "col stack", title });
    for (const kind of kinds) {
      const count = column.parts[kind] || 0;
      if (!count) continue;
      const part = h("div", { class: "bar status-" + kind });
      part.style.height = `${(count / max) * 100}%`;
      col.append(part);
    }
    col.dataset.total = String(totals[index]);
    plot.append(col);
  });
  const legend = h("ul", { class: "legend" }, kinds.map((k) => h("li", null, h("span", { class: "swatch status-" + k }), k)));
  const first = columns.length ? columns[0].label : "";
  const last = columns.length ? columns[columns.length - 1].label : "";
  chart.append(plot, h("div", { class: "axis" }, h("span", null, first), h("span", null, last)), legend);
  chart.append(h("figcaption", null, caption));
  return chart;
}

// Replaces an element's children; arrays of children are flattened.
export function fill(el, ...children) {
  el.replaceChildren();
  return append(el, children);
}
