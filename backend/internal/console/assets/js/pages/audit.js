// Audit: the audit trail newest first, filtered by user, action and time.
import { ApiError } from "../api.js";
import { h, qs, table } from "../dom.js";
import { isoToLocal, localToISO, when } from "../format.js";
import { lookup, pager, userLink } from "./common.js";

export async function render({ api, query }) {
  let userID = "";
  let problem = "";
  if (query.user) {
    try {
      userID = await resolveUser(api, query.user);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status >= 500) throw e;
      problem = e.message;
    }
    if (!userID && !problem) problem = "No user has exactly this email, Clerk user id or id.";
  }
  const list = problem ? { items: [] } : await api("/admin/audit" + qs({ user_id: userID, action: query.action, since: query.since,
    until: query.until, limit: 50, cursor: query.cursor }));
  const rows = list.items.map((a) => [
    when(a.created_at), a.actor, a.action, userLink(a.user_id, a.user_id ? a.user_id.slice(0, 8) + "…" : ""),
    [a.resource_type, " ", a.resource_type === "webhook_event" && /^[0-9a-f-]{36}$/.test(a.resource_id)
      ? h("a", { class: "mono", href: "#/deliveries/" + a.resource_id }, a.resource_id) : h("span", { class: "mono" }, a.resource_id)],
    h("span", { class: "mono clip", title: JSON.stringify(a.details) }, JSON.stringify(a.details)), a.ip || "",
  ]);
  const node = h("div", {},
    h("h1", {}, "Audit"), filters(query),
    problem ? h("p", { class: "alert", role: "alert" }, problem) : null,
    table(null, ["When", "Actor", "Action", "User", "Resource", "Details", "IP"], rows, { empty: "No audit row matches." }),
    pager("#/audit", query, list.next_cursor));
  return { title: "Audit", node, announce: `Audit: ${rows.length} rows shown.` };
}

async function resolveUser(api, term) {
  const by = lookup(term);
  if (by.id) return by.id;
  const found = await api("/admin/users" + qs({ ...by, limit: 1 }));
  return found.items[0]?.id || "";
}

function filters(q) {
  const field = (name, label, attrs) => h("div", {}, h("label", { for: "a-" + name }, label), h("input", { id: "a-" + name, name, ...attrs }));
  const form = h("form", { class: "filters", "aria-label": "Filter the audit trail", onsubmit: (ev) => {
    ev.preventDefault();
    const f = new FormData(form);
    const v = (k) => String(f.get(k) || "").trim();
    location.hash = "#/audit" + qs({ user: v("user"), action: v("action"), since: localToISO(v("since")), until: localToISO(v("until")) });
  } },
  field("user", "User (email, Clerk id or id)", { value: q.user || "", size: 28, spellcheck: "false" }),
  field("action", "Action (exact)", { value: q.action || "", size: 22, placeholder: "admin.webhook_replayed" }),
  field("since", "From", { type: "datetime-local", value: isoToLocal(q.since) }),
  field("until", "Before", { type: "datetime-local", value: isoToLocal(q.until) }),
  h("div", {}, h("button", { class: "primary", type: "submit" }, "Apply"), " ", h("a", { class: "button", href: "#/audit" }, "Reset")));
  return form;
}
