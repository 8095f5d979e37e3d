// Deliveries: the webhook archive, newest first, with filters, and the last day's counts per status on top.
import { h, qs, table } from "../dom.js";
import { badge, isoToLocal, localToISO, num, when } from "../format.js";
import { pager } from "./common.js";

// The time ranges offered, in hours. 2160 h is the default archive retention (WEBHOOK_ARCHIVE_RETENTION).
const RANGES = [["1h", 1, "Last hour"], ["24h", 24, "Last 24 hours"], ["7d", 168, "Last 7 days"],
  ["30d", 720, "Last 30 days"], ["90d", 2160, "Last 90 days"], ["custom", 0, "Custom…"]];

export async function render({ api, settings, query }) {
  const q = { range: "24h", ...query };
  const [counts, list] = await Promise.all([statusCounts(api, q.provider), deliveries(api, settings, q)]);
  const rows = list.items.map((d) => [
    when(d.created_at), d.provider, d.event_type,
    h("a", { href: "#/deliveries/" + d.id, class: "mono" }, d.event_id),
    badge(d.processing_status), d.source,
    h("span", { class: "clip", title: d.error_message || "" }, d.error_message || ""),
  ]);
  const node = h("div", {},
    h("h1", {}, "Deliveries"),
    countsList(counts, q),
    filters(settings, q),
    q.event_id ? h("p", { class: "hint" }, "Every attempt of this event id, whatever the time range.") : null,
    table(null, ["Received", "Provider", "Event type", "Event id", "Status", "Source", "Error"], rows,
      { empty: "No delivery matches these filters." }),
    q.event_id ? null : pager("#/deliveries", query, list.next_cursor));
  return { title: "Deliveries", node, announce: `Deliveries: ${rows.length} shown.` };
}

async function statusCounts(api, provider) {
  const r = await api("/admin/stats/deliveries" + qs({ hours: 24, provider }));
  const out = {};
  for (const hour of r.hours) for (const [st, n] of Object.entries(hour.counts)) out[st] = (out[st] || 0) + n;
  return out;
}

// An event id is indexed with its provider, so a search by id asks each provider (or the chosen one)
// for every attempt; other filters page through the range newest first.
async function deliveries(api, settings, q) {
  const filter = { status: q.status, type: q.type };
  if (q.event_id) {
    const providers = q.provider ? [q.provider] : settings.providers;
    const pages = await Promise.all(providers.map((p) =>
      api("/admin/webhook-events" + qs({ ...filter, provider: p, event_id: q.event_id, limit: 100 }))));
    const items = pages.flatMap((p) => p.items).sort((a, b) => b.created_at.localeCompare(a.created_at));
    return { items };
  }
  const range = RANGES.find(([k]) => k === q.range) || RANGES[1];
  let since = q.since;
  let until = q.until;
  if (range[1]) {
    since = new Date(Date.now() - range[1] * 3600e3).toISOString();
    until = "";
  }
  return api("/admin/webhook-events" + qs({ ...filter, provider: q.provider, since, until, limit: 50, cursor: q.cursor }));
}

function countsList(counts, q) {
  const statuses = Object.keys(counts).sort();
  return h("section", { "aria-labelledby": "counts-h" },
    h("h2", { id: "counts-h", class: "muted" }, "Last 24 hours" + (q.provider ? ` (${q.provider})` : "")),
    statuses.length
      ? h("ul", { class: "counts" }, statuses.map((st) => h("li", {},
        h("a", { href: "#/deliveries" + qs({ provider: q.provider, status: st, range: "24h" }), "aria-current": q.status === st ? "true" : null },
          h("strong", {}, num(counts[st])), badge(st)))))
      : h("p", { class: "muted" }, "No delivery in the last 24 hours."));
}

function filters(settings, q) {
  const select = (name, label, options, value) => h("div", {},
    h("label", { for: "f-" + name }, label),
    h("select", { id: "f-" + name, name }, options.map(([v, text]) => h("option", { value: v, selected: v === (value || "") }, text))));
  const input = (name, label, value, attrs = {}) => h("div", {},
    h("label", { for: "f-" + name }, label), h("input", { id: "f-" + name, name, value: value || "", ...attrs }));
  const custom = q.range === "custom";
  const form = h("form", { class: "filters", "aria-label": "Filter deliveries", onsubmit: (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    const v = (k) => String(f.get(k) || "").trim();
    const next = { provider: v("provider"), status: v("status"), type: v("type"), event_id: v("event_id"), range: v("range") };
    if (v("since") || v("until")) next.range = "custom";
    if (next.range === "custom") Object.assign(next, { since: localToISO(v("since")), until: localToISO(v("until")) });
    location.hash = "#/deliveries" + qs(next);
  } },
  select("provider", "Provider", [["", "Any"], ...settings.providers.map((p) => [p, p])], q.provider),
  select("status", "Status", [["", "Any"], ...settings.statuses.map((st) => [st, st])], q.status),
  input("type", "Event type", q.type, { placeholder: "subscription.created", size: 18 }),
  select("range", "Received", RANGES.map(([k, , text]) => [k, text]), q.range),
  input("since", "From", custom ? isoToLocal(q.since) : "", { type: "datetime-local" }),
  input("until", "Before", custom ? isoToLocal(q.until) : "", { type: "datetime-local" }),
  input("event_id", "Event id", q.event_id, { size: 22, class: "mono", spellcheck: "false" }),
  h("div", {}, h("button", { class: "primary", type: "submit" }, "Apply"), " ", h("a", { href: "#/deliveries", class: "button" }, "Reset")));
  return form;
}
