// Broadcasts: compose from a template, preview exactly what recipients get, save; the runs, newest first.
import { ApiError } from "../api.js";
import { h, put, qs, table } from "../dom.js";
import { badge, when } from "../format.js";
import { pager } from "./common.js";

export async function render({ api, settings, query }) {
  const list = await api("/admin/broadcasts" + qs({ limit: 20, cursor: query.cursor }));
  const rows = list.items.map((r) => [
    when(r.created_at), h("a", { href: "#/broadcasts/" + r.id }, r.subject), r.kind, r.audience.tier || "everyone", badge(r.status), r.created_by,
  ]);
  const node = h("div", {},
    h("h1", {}, "Broadcasts"),
    compose(api, settings),
    h("h2", {}, "Runs"),
    table(null, ["Created", "Subject", "Kind", "Audience", "Status", "By"], rows, { empty: "No broadcast yet." }),
    pager("#/broadcasts", query, list.next_cursor));
  return { title: "Broadcasts", node };
}

function compose(api, settings) {
  const out = h("div", { id: "compose-result" });
  const preview = h("section", { id: "preview", "aria-live": "polite" });
  const field = (id, label, control, hint) => h("div", { class: "field" }, h("label", { for: id }, label), control,
    hint ? h("p", { class: "hint" }, hint) : null);
  // Only transactional mail in a template with fixed wording may bypass consent (the server refuses the rest).
  const fixed = new Set(settings.bypass_templates || []);
  const bypass = h("input", { type: "checkbox", id: "b-bypass", name: "bypass_consent", disabled: true });
  let kind = "marketing";
  const template = h("select", { id: "b-template", name: "template", onchange: () => syncBypass() },
    settings.broadcast_templates.map((t) => h("option", { value: t }, t)));
  const syncBypass = () => {
    bypass.disabled = kind !== "transactional" || !fixed.has(template.value);
    if (bypass.disabled) bypass.checked = false;
  };
  const kinds = h("fieldset", { class: "field" }, h("legend", {}, "Kind"),
    ["marketing", "transactional"].map((k) => h("label", { class: "inline" },
      h("input", { type: "radio", name: "kind", value: k, checked: k === "marketing",
        onchange: () => { kind = k; syncBypass(); } }), " ", k)),
    h("p", { class: "hint" }, "Marketing mail goes only to users who consented, with an unsubscribe link. Transactional mail " +
      "respects consent too, unless its template has fixed wording (terms changed) and it bypasses consent; " +
      "a free-form template never does."),
    h("label", { class: "inline" }, bypass, " Bypass consent (transactional, fixed-wording template only)"));
  const form = h("form", { id: "compose", class: "card", "aria-labelledby": "compose-h" },
    h("h2", { id: "compose-h" }, "Compose"),
    field("b-template", "Template", template),
    field("b-subject", "Subject", h("input", { id: "b-subject", name: "subject", required: true, maxlength: 200, size: 50 })),
    field("b-body", "Body (Markdown)", h("textarea", { id: "b-body", name: "body_markdown", rows: 8 }),
      "Headings, emphasis, lists and links. Raw HTML is dropped."),
    field("b-tier", "Audience", h("select", { id: "b-tier", name: "tier" },
      h("option", { value: "" }, "Every live user with a verified address"),
      settings.tiers.map((t) => h("option", { value: t }, "Users on " + t)))),
    kinds,
    h("div", { class: "actions" },
      h("button", { type: "button", id: "b-preview", onclick: () => run(async (draft) => {
        const p = await api("/admin/broadcasts/preview", { method: "POST", body: draft });
        put(preview, h("h2", { tabindex: "-1" }, "Preview"), h("p", {}, h("strong", {}, "Subject: "), p.subject),
          h("pre", { class: "payload", id: "preview-text", tabindex: "0", "aria-label": "Text version" }, p.text),
          h("details", {}, h("summary", {}, "HTML version (source)"), h("pre", { class: "payload", tabindex: "0" }, p.html)));
        preview.querySelector("h2").focus();
      }) }, "Preview"),
      h("button", { type: "submit", class: "primary", id: "b-save" }, "Save as queued")),
    out);
  const draft = () => {
    const f = new FormData(form);
    return { template: f.get("template"), subject: String(f.get("subject") || ""), body_markdown: String(f.get("body_markdown") || ""),
      audience: { tier: f.get("tier") || undefined }, kind: f.get("kind"), bypass_consent: f.get("bypass_consent") === "on" };
  };
  const run = async (fn) => {
    put(out);
    try {
      await fn(draft());
    } catch (e) {
      if (!(e instanceof ApiError) || e.status >= 500 || e.status === 401 || e.status === 403) throw e;
      put(out, h("p", { class: "alert", role: "alert" }, e.message + (e.code ? ` (${e.code})` : "")));
    }
  };
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    run(async (d) => {
      const r = await api("/admin/broadcasts", { method: "POST", body: d });
      location.hash = "#/broadcasts/" + r.id;
    });
  });
  return h("div", {}, form, preview);
}
