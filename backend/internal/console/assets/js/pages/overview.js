// Overview: charts of what the admin API counts. Each endpoint is adapted here into the charts' neutral
// {labels, series} shape (charts.js knows no endpoint).
import { barChart } from "../charts.js";
import { h, qs } from "../dom.js";
import { num } from "../format.js";

// One colour per outcome, the same in every chart (classes of console.css).
const OUTCOME = { processed: "s0", failed: "s1", skipped: "s2", ignored: "s4", pending: "s3" };

export async function render({ api, settings }) {
  const [hourly, stats] = await Promise.all([api("/admin/stats/deliveries" + qs({ hours: 48 })), api("/admin/stats")]);
  const node = h("div", {},
    h("h1", {}, "Overview"),
    h("p", { class: "hint" }, `Counted by the database at ${new Date(stats.generated_at).toLocaleString()}; hours and days are UTC.`),
    h("div", { class: "grid" },
      barChart({ title: "Deliveries per hour, last 48 hours, by outcome", ...deliveriesPerHour(hourly, settings.statuses), every: 6 }),
      barChart({ title: "Subscriptions by tier and status", ...subscriptionsByTier(stats) }),
      h("section", { class: "card" }, h("h2", {}, "Users"),
        h("p", {}, h("strong", {}, num(stats.users.total)), " users, of whom ", num(stats.users.deleted), " deleted (awaiting erasure)."))));
  return { title: "Overview", node };
}

/** /admin/stats/deliveries → one stacked bar per hour, one series per outcome. */
export function deliveriesPerHour(r, statuses) {
  const labels = r.hours.map((x) => new Date(x.hour).toISOString().slice(11, 16));
  const seen = statuses.filter((st) => r.hours.some((x) => x.counts[st]));
  return { labels, series: seen.map((st) => ({ name: st, cls: OUTCOME[st], values: r.hours.map((x) => x.counts[st] || 0) })) };
}

/** /admin/stats's subscription counts → one bar per tier, stacked by status. */
export function subscriptionsByTier(stats) {
  const tiers = [...new Set(stats.subscriptions.map((c) => c.tier))].sort();
  const statuses = [...new Set(stats.subscriptions.map((c) => c.status))].sort();
  const value = (t, st) => stats.subscriptions.find((c) => c.tier === t && c.status === st)?.count || 0;
  return { labels: tiers, series: statuses.map((st, k) => ({ name: st, cls: "s" + ((k + 3) % 6), values: tiers.map((t) => value(t, st)) })) };
}
