// Users: exact lookups by email or Clerk id (each an index lookup), or the newest sign-ups page by page.
import { h, qs, table } from "../dom.js";
import { badge, when } from "../format.js";
import { lookup, pager, userLink } from "./common.js";

export async function render({ api, query }) {
  const term = (query.q || "").trim();
  const by = term ? lookup(term) : {};
  if (by.id) {
    location.replace("#/users/" + by.id);
    return { title: "Users", node: h("p", {}, "Opening the user…") };
  }
  const list = await api("/admin/users" + qs({ ...by, limit: 50, cursor: query.cursor }));
  const input = h("input", { id: "user-q", name: "q", value: term, type: "search", size: 34, spellcheck: "false",
    "aria-describedby": "user-q-hint", placeholder: "ann@example.com or user_2ab…" });
  const form = h("form", { class: "filters", role: "search", onsubmit: (ev) => {
    ev.preventDefault();
    location.hash = "#/users" + qs({ q: input.value.trim() });
  } },
  h("div", {}, h("label", { for: "user-q" }, "Email, Clerk user id or user id"), input),
  h("div", {}, h("button", { class: "primary", type: "submit" }, "Search"), " ", h("a", { class: "button", href: "#/users" }, "Newest")));
  const rows = list.items.map((u) => [
    userLink(u.id, u.email || "(no verified email)"), h("span", { class: "mono" }, u.clerk_user_id), u.current_tier,
    when(u.created_at), u.deleted_at ? badge("deleted") : "",
  ]);
  const node = h("div", {},
    h("h1", {}, "Users"), form,
    h("p", { class: "hint", id: "user-q-hint" }, "Whole values only: an email address (any case) or a Clerk user id. " +
      "With no search, the newest sign-ups."),
    table(null, ["Email", "Clerk user id", "Tier", "Signed up", ""], rows,
      { empty: term ? "No user has exactly this email or Clerk user id." : "No users yet." }),
    pager("#/users", query, list.next_cursor));
  return { title: "Users", node, announce: `Users: ${rows.length} shown.` };
}
