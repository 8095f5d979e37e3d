// Formatting: times in the operator's locale and zone (with the exact UTC instant in datetime=), money
// from minor units, status badges.
import { h } from "./dom.js";

export function when(iso) {
  if (!iso) return h("span", { class: "muted" }, "—");
  const d = new Date(iso);
  const sameYear = d.getFullYear() === new Date().getFullYear();
  return h("time", { datetime: d.toISOString(), title: d.toISOString() }, d.toLocaleString(undefined, {
    year: sameYear ? undefined : "numeric", month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit" }));
}

export function badge(status, extra = "") {
  return h("span", { class: "badge " + String(status).replace(/[^a-z_]/g, "") + (extra ? " " + extra : "") }, status);
}

/** money(1500, "USD") → "$15.00": Intl knows each currency's minor-unit digits (JPY has none). */
export function money(minor, currency) {
  const f = new Intl.NumberFormat(undefined, { style: "currency", currency });
  const digits = f.resolvedOptions().maximumFractionDigits;
  return f.format(minor / 10 ** digits);
}

export function num(n) { return new Intl.NumberFormat().format(n ?? 0); }

/** A signed ledger delta: +1,000 / −3. */
export function delta(n) { return (n > 0 ? "+" : n < 0 ? "−" : "") + num(Math.abs(n)); }

/** The JSON payload of a delivery, indented; a body that is not JSON comes as text. */
export function pretty(payload, text) {
  return payload === null || payload === undefined ? text ?? "" : JSON.stringify(payload, null, 2);
}

/** A datetime-local input's value (the operator's zone) as RFC 3339, or "". */
export function localToISO(v) { return v ? new Date(v).toISOString() : ""; }

/** RFC 3339 as a datetime-local value in the operator's zone. */
export function isoToLocal(iso) {
  if (!iso) return "";
  const d = new Date(iso);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
