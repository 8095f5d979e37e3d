// Pieces the pages share: the pager of a keyset list, a "load more" section, user lookups.
import { h, put, qs, table } from "../dom.js";

/** pager(base, query, next): "Older" follows next_cursor; "Newest" drops the cursor. Back goes back. */
export function pager(base, query, next) {
  const { cursor, ...rest } = query;
  return h("nav", { class: "pager", "aria-label": "Pages" },
    cursor ? h("a", { class: "button", href: base + qs(rest) }, "« Newest") : null,
    next ? h("a", { class: "button", href: base + qs({ ...rest, cursor: next }), rel: "next", id: "older" }, "Older »") : null,
    !cursor && !next ? null : h("span", { class: "hint" }, "Keyset pages: rows written meanwhile never shift a page."));
}

/**
 * more({title, headers, fetch, row, empty}) is a table section that loads its first page, then one page
 * more per click: fetch(cursor) resolves to {items, next_cursor}.
 */
export async function more({ title, headers, fetch, row, empty, id }) {
  const first = await fetch("");
  const section = h("section", { "aria-labelledby": id + "-h", id });
  const render = (items, next) => {
    const button = next ? h("button", { type: "button", class: "load-more", onclick: async () => {
      button.disabled = true;
      const page = await fetch(next);
      render(items.concat(page.items), page.next_cursor);
      section.querySelector(".load-more")?.focus();
    } }, "Load more") : null;
    put(section, h("h2", { id: id + "-h" }, title), table(null, headers, items.map(row), { empty }), button);
  };
  render(first.items, first.next_cursor);
  return section;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * lookup(term) says which exact lookup a search term is: our user id, an email, or a Clerk user id. The
 * admin API matches these through an index (a substring search would walk the whole users table).
 */
export function lookup(term) {
  const t = term.trim();
  if (UUID.test(t)) return { id: t.toLowerCase() };
  if (t.includes("@")) return { email: t };
  return { clerk_user_id: t };
}

/** A link to a user's page, by id, labelled with what we know. */
export function userLink(id, label) {
  return id ? h("a", { href: "#/users/" + id }, label || id) : h("span", { class: "muted" }, "—");
}
