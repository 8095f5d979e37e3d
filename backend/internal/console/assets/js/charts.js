// Bar charts drawn as SVG in the page (no library, no canvas, nothing inline the CSP would refuse). The
// charts know nothing of the API: a page adapts whatever endpoint it reads into {labels, series}, so an
// endpoint's shape can change without touching this file. Each chart carries its numbers as a table too
// (in a <details>), for screen readers and for reading exact values.
import { h, s, table } from "./dom.js";
import { num } from "./format.js";

const W = 640;
const PAD = { left: 44, right: 8, top: 10, bottom: 30 };

/** A round axis maximum at or above v: 1, 2, 5 × 10^n. */
function niceMax(v) {
  const p = 10 ** Math.floor(Math.log10(v));
  return [1, 2, 5, 10].map((m) => m * p).find((m) => m >= v);
}

/**
 * barChart({title, labels, series: [{name, values, cls}], stacked, format, every, height})
 * draws one bar (stacked) or one group of bars per label; every = show one x label in so many.
 */
export function barChart({ title, labels, series, stacked = true, format = num, every = 1, height = 190, note }) {
  const n = Math.max(labels.length, 1);
  const top = labels.map((_, i) => stacked
    ? series.reduce((a, x) => a + (x.values[i] || 0), 0)
    : Math.max(0, ...series.map((x) => x.values[i] || 0)));
  const max = niceMax(Math.max(1, ...top));
  const plotW = W - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const slot = plotW / n;
  const y = (v) => PAD.top + plotH - (v / max) * plotH;
  const parts = [];
  for (const f of [0, 0.5, 1]) {
    const v = max * f;
    parts.push(s("line", { class: "axis", x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }),
      s("text", { x: PAD.left - 4, y: y(v) + 3, "text-anchor": "end" }, format(v)));
  }
  labels.forEach((label, i) => {
    const x0 = PAD.left + i * slot;
    let base = 0;
    series.forEach((x, k) => {
      const v = x.values[i] || 0;
      if (!v) return;
      // Bars keep a readable width however few labels there are (one tier should not fill the chart).
      const bw = Math.min(stacked ? slot * 0.8 : (slot * 0.8) / series.length, stacked ? 56 : 28);
      const group = stacked ? bw : bw * series.length;
      const bx = x0 + (slot - group) / 2 + (stacked ? 0 : k * bw);
      const from = stacked ? base : 0;
      parts.push(s("rect", { class: x.cls || "s" + k, x: bx, width: Math.max(bw, 1), y: y(from + v), height: Math.max(y(from) - y(from + v), 1) },
        s("title", {}, `${label}: ${x.name} ${format(v)}`)));
      base += v;
    });
    if (i % every === 0) {
      parts.push(s("text", { x: x0 + slot / 2, y: height - PAD.bottom + 14, "text-anchor": "middle" }, label));
    }
  });
  const id = "chart-" + Math.random().toString(36).slice(2);
  return h("figure", { class: "chart card" },
    h("figcaption", { id }, title),
    h("ul", { class: "legend" }, series.map((x, k) => h("li", {}, h("span", { class: x.cls || "s" + k }), x.name))),
    s("svg", { viewBox: `0 0 ${W} ${height}`, role: "img", "aria-labelledby": id }, parts),
    note ? h("p", { class: "hint" }, note) : null,
    h("details", { class: "data" }, h("summary", {}, "Data"),
      table(null, ["", ...series.map((x) => x.name + " ")], labels.map((l, i) => [l, ...series.map((x) => ({ num: format(x.values[i] || 0) }))]))));
}
