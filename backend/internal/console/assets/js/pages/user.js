// One user: who they are, their plan, credits (balance, buckets, the operator's grant form, the whole ledger
// and the bucket history), usage (each feature this month and the months before), audit trail, and the
// webhook deliveries that changed them.
import { facts, h, qs, table } from "../dom.js";
import { badge, delta, money, num, when } from "../format.js";
import { more } from "./common.js";
import { adjustForm, bucketHistory, bucketsSection } from "./credits.js";

export async function render({ api, params }) {
  const id = params[0];
  const d = await api("/admin/users/" + id);
  const u = d.user;
  const page = (path) => (cursor) => api(`/admin/users/${id}/${path}` + qs({ limit: 20, cursor }));
  const ledgerSection = () => more({ id: "ledger", title: "Credit ledger", headers: ["When", "Change ", "Kind", "Job", "Reason"],
    fetch: page("credits"), empty: "No credit movement.",
    row: (m) => [when(m.created_at), { num: delta(m.delta) }, m.kind, h("span", { class: "mono" }, m.job_id), m.reason] });
  const auditSection = () => more({ id: "audit", title: "Audit trail", headers: ["When", "Actor", "Action", "Resource", "Details"],
    fetch: (cursor) => api("/admin/audit" + qs({ user_id: id, limit: 20, cursor })),
    row: (a) => [when(a.created_at), a.actor, a.action, [a.resource_type, " ", h("span", { class: "mono" }, a.resource_id)],
      h("span", { class: "mono clip", title: JSON.stringify(a.details) }, JSON.stringify(a.details))],
    empty: "No audit row." });
  const usage = await api(`/admin/users/${id}/usage` + qs({ limit: 20 }));
  const [firstLedger, months, deliveries, trail, firstHistory] = await Promise.all([
    ledgerSection(),
    more({ id: "usage-history", title: "Usage by month", headers: ["Month from", "Feature", "Used ", "Limit "],
      fetch: (cursor) => cursor ? page("usage")(cursor) : Promise.resolve(usage),
      row: (m) => [when(m.period_start), m.feature, { num: num(m.used) }, { num: m.limit == null ? "—" : num(m.limit) }],
      empty: "No usage recorded." }),
    more({ id: "deliveries", title: "Deliveries that changed this user", headers: ["When", "Provider", "Event", "Event id", "Newest delivery"],
      fetch: page("deliveries"),
      row: (x) => [when(x.at), x.provider, x.action, h("span", { class: "mono" }, x.event_id),
        x.delivery ? h("a", { href: "#/deliveries/" + x.delivery.id }, badge(x.delivery.processing_status)) : h("span", { class: "muted" }, "purged")],
      empty: "No webhook event has changed this user." }),
    auditSection(),
    bucketHistory(page("credit-buckets")),
  ]);
  let [buckets, ledger, history, audit] = [bucketsSection(d.ledger.buckets), firstLedger, firstHistory, trail];
  // After an adjustment: the balance, the buckets, the ledger, the history and the audit trail again.
  const refresh = async () => {
    const [fresh, l, hi, au] = await Promise.all([api("/admin/users/" + id), ledgerSection(), bucketHistory(page("credit-buckets")),
      auditSection()]);
    document.getElementById("balance").textContent = num(fresh.ledger.balance);
    const b = bucketsSection(fresh.ledger.buckets);
    buckets.replaceWith(b);
    ledger.replaceWith(l);
    history.replaceWith(hi);
    audit.replaceWith(au);
    [buckets, ledger, history, audit] = [b, l, hi, au];
  };
  const node = h("div", {},
    h("p", {}, h("a", { href: "#/users" }, "« Users")),
    h("h1", {}, u.email || u.clerk_user_id, " ", u.deleted_at ? badge("deleted") : null),
    h("div", { class: "grid" },
      h("section", { class: "card", "aria-labelledby": "who-h" }, h("h2", { id: "who-h" }, "Account"), facts([
        ["Clerk user id", h("span", { class: "mono" }, u.clerk_user_id)],
        ["User id", h("span", { class: "mono" }, u.id)],
        ["Email", u.email ? [u.email, u.email_verified ? " (verified)" : " (unverified)"] : h("span", { class: "muted" }, "none verified")],
        ["Tier", h("strong", { id: "tier" }, u.current_tier)],
        ["Paddle customer", u.paddle_customer_id ? h("span", { class: "mono" }, u.paddle_customer_id) : "—"],
        ["Signed up", when(u.created_at)],
        u.deleted_at ? ["Deleted", when(u.deleted_at)] : null,
        ["Marketing email", u.marketing_consent_given ? "consented" : "no consent"],
        u.disposable_email ? ["Flags", badge("disposable email", "flag")] : null,
      ])),
      h("section", { class: "card", "aria-labelledby": "balance-h" }, h("h2", { id: "balance-h" }, "Credit balance"),
        h("p", {}, h("strong", { id: "balance", class: "big" }, num(d.ledger.balance)), " credits")),
      adjustForm({ api, id, onDone: refresh })),
    buckets,
    h("h2", {}, "Subscriptions"),
    table(null, ["Paddle subscription", "Tier", "Status", "Period ends", "Items", "Flags"], d.subscriptions.map((s) => [
      h("span", { class: "mono" }, s.id), s.tier, badge(s.status), when(s.current_period_end),
      s.items.map((i) => h("div", {}, `${i.quantity} × ${i.price_id}`, i.unit_amount != null && i.currency ? ` (${money(i.unit_amount, i.currency)})` : "")),
      s.flags.map((f) => badge(f, "flag")),
    ]), { empty: "No subscription." }),
    h("section", { "aria-labelledby": "usage-h", id: "usage" }, h("h2", { id: "usage-h" }, "Usage this month"),
      table(null, ["Feature", "Kind", "Used ", "Limit ", "Remaining ", "Resets"], usage.features.filter((f) => f.enabled).map((f) => [
        f.feature, f.kind, { num: num(f.used) }, { num: f.limit == null ? "—" : num(f.limit) },
        { num: f.remaining == null ? "—" : num(f.remaining) }, f.resets_at ? when(f.resets_at) : "—",
      ]), { empty: "The tier has no features." })),
    ledger, history, months, deliveries, audit);
  return { title: u.email || u.clerk_user_id, node };
}
