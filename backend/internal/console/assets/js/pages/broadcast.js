// One broadcast run: what it says and to whom, the send (confirmed first), and its progress, refreshed
// every two seconds while it sends.
import { facts, h, put } from "../dom.js";
import { badge, num, when } from "../format.js";

const REFRESH_MS = 2000;

export async function render(ctx) {
  const id = ctx.params[0];
  const node = h("div", {});
  const here = location.hash;
  const draw = (r) => {
    put(node,
      h("p", {}, h("a", { href: "#/broadcasts" }, "« Broadcasts")),
      h("h1", {}, r.subject, " ", h("span", { id: "run-status" }, badge(r.status))),
      facts([
        ["Template", r.template], ["Kind", r.kind + (r.bypass_consent ? " (bypasses consent)" : "")],
        ["Audience", r.audience.tier ? "users on " + r.audience.tier : "every live user with a verified address"],
        ["Composed", [when(r.created_at), " by ", r.created_by]],
        ["Started", when(r.started_at)], ["Dispatched", when(r.dispatched_at)], ["Finished", when(r.finished_at)],
      ]),
      progress(r), sendButton(ctx, r, draw),
      h("h2", {}, "Body (Markdown)"), h("pre", { class: "payload", tabindex: "0" }, r.body_markdown || "(empty)"));
  };
  const r = await ctx.api("/admin/broadcasts/" + id);
  draw(r);
  poll(ctx, id, here, draw, r);
  return { title: "Broadcast " + r.subject, node };
}

function progress(r) {
  const c = r.counts || { pending: 0, sent: 0, skipped: 0, failed: 0 };
  const done = c.sent + c.skipped + c.failed;
  const total = done + c.pending;
  return h("section", { class: "card", "aria-labelledby": "progress-h" },
    h("h2", { id: "progress-h" }, "Progress"),
    h("progress", { id: "run-progress", max: Math.max(total, 1), value: done, "aria-label": "Recipients settled" }),
    h("p", { id: "run-counts" }, `${num(done)} of ${num(total)} recipients settled: ${num(c.sent)} sent, ${num(c.skipped)} skipped, ` +
      `${num(c.failed)} failed, ${num(c.pending)} pending.`),
    r.status === "queued" && !r.started_at ? h("p", { class: "hint" }, "Recipients are chosen when it is sent.") : null);
}

function sendButton(ctx, r, draw) {
  if (r.status !== "queued" && r.status !== "failed") return null;
  const dialog = h("dialog", { id: "send-dialog", "aria-labelledby": "send-title" },
    h("h2", { id: "send-title" }, "Send this broadcast?"),
    h("p", {}, "Each user of the audience gets it at most once" + (r.kind === "marketing" || !r.bypass_consent
      ? ", and only with their marketing consent, checked again right before each mail." : ", consent or not.")),
    h("form", { method: "dialog", class: "actions" },
      h("button", { value: "cancel", type: "submit" }, "Cancel"),
      h("button", { value: "send", type: "submit", class: "primary", id: "send-confirm" }, "Send")));
  dialog.addEventListener("close", async () => {
    if (dialog.returnValue !== "send") return;
    const sent = await ctx.api(`/admin/broadcasts/${r.id}/send`, { method: "POST" });
    draw(sent);
    ctx.announce("Sending started.");
  });
  return h("div", { class: "actions" },
    h("button", { type: "button", class: "danger", id: "send", onclick: () => dialog.showModal() }, r.status === "failed" ? "Resume sending…" : "Send…"),
    dialog);
}

// poll refreshes the run while it is not finished, and stops when the operator leaves the page.
function poll(ctx, id, here, draw, last) {
  setTimeout(async () => {
    if (location.hash !== here) return;
    if (document.getElementById("send-dialog")?.open) return poll(ctx, id, here, draw, last);
    try {
      const r = await ctx.api("/admin/broadcasts/" + id);
      if (location.hash !== here) return;
      if (r.status !== last.status || JSON.stringify(r.counts) !== JSON.stringify(last.counts)) {
        draw(r);
        if (r.status === "finished") ctx.announce("The broadcast has finished.");
      }
      if (r.status !== "finished") poll(ctx, id, here, draw, r);
    } catch {
      poll(ctx, id, here, draw, last); // a blip: try again at the next tick
    }
  }, REFRESH_MS);
}
