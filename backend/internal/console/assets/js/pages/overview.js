// Overview: charts of what the admin API counts. Each endpoint's answer is adapted here into the charts'
// neutral {labels, series} (charts.js knows no endpoint), so a change of shape touches one adapter.
import { barChart } from "../charts.js";
import { h, qs, table } from "../dom.js";
import { money, num } from "../format.js";
import { userLink } from "./common.js";

// One colour per outcome, the same in every chart (classes of console.css).
const OUTCOME = { processed: "s0", failed: "s1", skipped: "s2", ignored: "s4", pending: "s3" };

export async function render({ api, settings }) {
  const [hourly, o, near] = await Promise.all([api("/admin/stats/deliveries" + qs({ hours: 48 })), api("/admin/metrics/overview"),
    api("/admin/usage/nearest-limits" + qs({ limit: 10 }))]);
  const mrr = Object.entries(o.revenue.mrr).map(([cur, v]) => money(v, cur)).join(" + ") || money(0, "USD");
  const node = h("div", {},
    h("h1", {}, "Overview"),
    h("p", { class: "hint" }, `Counted by the database at ${new Date(o.generated_at).toLocaleString()}; days and hours are UTC.`),
    h("ul", { class: "counts", "aria-label": "Key figures" },
      figure("MRR", mrr), figure("Live subscriptions", num(o.revenue.subscriptions)),
      figure("Active users (day / week / month)", `${num(o.activity.dau)} / ${num(o.activity.wau)} / ${num(o.activity.mau)}`),
      figure(`Signups (${o.days} days)`, num(o.acquisition.signups)), figure(`Canceled (${o.days} days)`, num(o.churn.canceled))),
    o.revenue.unpriced ? h("p", { class: "hint" }, `${num(o.revenue.unpriced)} subscriptions have no known amount and are left out of MRR.`) : null,
    h("div", { class: "grid" },
      barChart({ title: "Deliveries per hour, last 48 hours, by outcome", ...deliveriesPerHour(hourly, settings.statuses), every: 6 }),
      barChart({ title: `Signups per day, last ${o.days} days`, ...signupsPerDay(o), every: 5 }),
      barChart({ title: "MRR by tier", ...mrrByTier(o), stacked: false, note: "Major units of each currency." }),
      barChart({ title: "Live subscriptions by tier", ...subscriptionsByTier(o) }),
      barChart({ title: `Credits granted and spent per day, last ${o.days} days`, ...creditsPerDay(o), stacked: false, every: 5 }),
      barChart({ title: `Credits expired and rolled over per day, last ${o.days} days`, ...breakagePerDay(o), stacked: false, every: 5,
        note: "A rollover writes the month's credits off and carries some on: the breakage, credits gone for good, is expired − rolled over." })),
    h("section", { "aria-labelledby": "near-h", id: "nearest-limits" }, h("h2", { id: "near-h" }, "Nearest their limits this month"),
      table(null, ["User", "Feature", "Used ", "Limit ", "Share "], near.items.map((m) => [
        userLink(m.user_id, m.user_id.slice(0, 8)), m.feature, { num: num(m.used) }, { num: num(m.limit) },
        { num: Math.round((100 * m.used) / m.limit) + " %" }]), { empty: "No feature with a limit has been used this month." })));
  return { title: "Overview", node };
}

function figure(label, value) {
  return h("li", {}, h("div", { class: "figure" }, h("strong", {}, value), h("span", { class: "hint" }, label)));
}

const day = (d) => d.slice(5); // "2026-03-31" → "03-31"

/** /admin/stats/deliveries → one stacked bar per hour, one series per outcome. */
export function deliveriesPerHour(r, statuses) {
  const labels = r.hours.map((x) => new Date(x.hour).toISOString().slice(11, 16));
  const seen = statuses.filter((st) => r.hours.some((x) => x.counts[st]));
  return { labels, series: seen.map((st) => ({ name: st, cls: OUTCOME[st], values: r.hours.map((x) => x.counts[st] || 0) })) };
}

/** The overview's acquisition days → one bar per day. */
export function signupsPerDay(o) {
  return { labels: o.acquisition.days.map((d) => day(d.day)), series: [{ name: "signups", cls: "s3", values: o.acquisition.days.map((d) => d.signups) }] };
}

/** The overview's revenue by tier → one bar per tier and currency, in major units. */
export function mrrByTier(o) {
  const tiers = o.revenue.by_tier.map((t) => t.tier);
  const currencies = [...new Set(o.revenue.by_tier.flatMap((t) => Object.keys(t.mrr || {})))].sort();
  const major = (v, cur) => v / 10 ** new Intl.NumberFormat(undefined, { style: "currency", currency: cur }).resolvedOptions().maximumFractionDigits;
  return { labels: tiers, series: currencies.map((cur, k) => ({ name: cur, cls: "s" + ((k + 3) % 6),
    values: o.revenue.by_tier.map((t) => major(t.mrr?.[cur] || 0, cur)) })) };
}

/** The overview's revenue by tier → live subscriptions per tier. */
export function subscriptionsByTier(o) {
  return { labels: o.revenue.by_tier.map((t) => t.tier), series: [{ name: "live subscriptions", cls: "s0", values: o.revenue.by_tier.map((t) => t.subscriptions) }] };
}

/** The overview's ledger days → granted and spent side by side. */
export function creditsPerDay(o) {
  return { labels: o.credits.map((d) => day(d.day)), series: [
    { name: "granted", cls: "s0", values: o.credits.map((d) => d.granted) },
    { name: "spent", cls: "s4", values: o.credits.map((d) => d.spent) }] };
}

/** The overview's ledger days → expired and rolled over side by side. */
export function breakagePerDay(o) {
  return { labels: o.credits.map((d) => day(d.day)), series: [
    { name: "expired", cls: "s1", values: o.credits.map((d) => d.expired) },
    { name: "rolled over", cls: "s3", values: o.credits.map((d) => d.rolled_over) }] };
}
