// Building DOM. Everything from the API goes in as text nodes or attribute values, never as HTML, so no
// payload, email or error message can inject markup into the console.

/** h("a", {href: "#/x", class: "c"}, "text", node, [more]) builds an element. */
export function h(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

const SVG = "http://www.w3.org/2000/svg";

/** put(el, ...children) replaces el's children (null and false are left out, as in h). */
export function put(el, ...children) {
  el.replaceChildren();
  return fill(el, {}, children);
}

/** s(...) is h(...) for SVG elements. */
export function s(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG, tag), attrs, children);
}

function fill(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "style") throw new Error("the console's CSP refuses style attributes: use a class of console.css");
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/**
 * table(caption, headers, rows) builds a scrollable table; rows are arrays of cells (text, nodes, or
 * {num} for a right-aligned number); a header written with a trailing space heads a numeric column.
 */
export function table(caption, headers, rows, { empty = "Nothing here.", rowClass } = {}) {
  const body = rows.length
    ? rows.map((r, i) => h("tr", { class: rowClass ? rowClass(i) : null }, r.map((c) => h("td", cellAttrs(c), cellBody(c)))))
    : [h("tr", {}, h("td", { colspan: headers.length, class: "muted" }, empty))];
  return h("div", { class: "table-wrap" },
    h("table", {},
      caption ? h("caption", {}, caption) : null,
      h("thead", {}, h("tr", {}, headers.map((t) => h("th", { scope: "col", class: t.endsWith(" ") ? "num" : null }, t.trim())))),
      h("tbody", {}, body)));
}

// A cell is text, a node, or {num: value} for a right-aligned number.
function cellAttrs(c) { return c && typeof c === "object" && "num" in c ? { class: "num" } : {}; }
function cellBody(c) { return c && typeof c === "object" && "num" in c ? String(c.num) : c; }

/** facts([[term, value], ...]) builds a definition list. */
export function facts(pairs) {
  return h("dl", { class: "facts" }, pairs.filter(Boolean).map(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]));
}

/** A query string of the non-empty values. */
export function qs(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") u.set(k, v);
  const str = u.toString();
  return str ? "?" + str : "";
}
