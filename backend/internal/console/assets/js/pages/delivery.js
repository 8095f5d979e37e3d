// One delivery: what came in, what happened, every attempt of the same event, and the replay.
import { ApiError } from "../api.js";
import { facts, h, put, table } from "../dom.js";
import { badge, pretty, when } from "../format.js";

export async function render(ctx) {
  const d = await ctx.api("/admin/webhook-events/" + ctx.params[0]);
  const node = h("div", {});
  draw(ctx, node, d, ctx.flash);
  return { title: "Delivery " + d.event_id, node };
}

function draw(ctx, node, d, flash) {
  const result = h("div", { id: "replay-result" }, flash || null);
  put(node,
    h("p", {}, h("a", { href: "#/deliveries" }, "« Deliveries")),
    h("h1", {}, d.event_type, " ", badge(d.processing_status)),
    d.error_message ? h("div", { class: "alert", role: "alert" }, h("strong", {}, "Error: "), h("span", { id: "error-message" }, d.error_message)) : null,
    facts([
      ["Provider", d.provider],
      ["Event id", h("span", { class: "mono" }, d.event_id)],
      ["Received", when(d.created_at)],
      ["Came by", d.source + (d.source === "replay" ? " (an operator's replay)" : d.source === "sync" ? " (pulled from the provider's API)" : "")],
      d.replay_of ? ["Replay of", h("a", { href: "#/deliveries/" + d.replay_of, class: "mono" }, d.replay_of)] : null,
      ["Headers kept", d.has_signature ? "The signature header, stored for replay (its value is never shown)." : "None: no signature was stored (a pulled event)."],
      ["Claim", d.claim
        ? h("span", { id: "claim" }, "The event was processed at ", when(d.claim.processed_at), ` as ${d.claim.event_type}: any further delivery of it is skipped.`)
        : h("span", { id: "claim" }, "None: the event has not taken effect. A replay runs its handler.")],
      ["Archive id", h("span", { class: "mono" }, d.id)],
    ]),
    h("div", { class: "actions" }, replayButton(ctx, node, d), result),
    h("h2", {}, "Every attempt of this event"),
    table(null, ["Received", "Status", "Came by", "Error", ""], d.attempts.map((a) => [
      when(a.created_at), badge(a.processing_status), a.source,
      h("span", { class: "clip", title: a.error_message || "" }, a.error_message || ""),
      a.id === d.id ? h("span", { class: "muted" }, "this one") : h("a", { href: "#/deliveries/" + a.id }, "open"),
    ]), { rowClass: (i) => (d.attempts[i].id === d.id ? "current" : null) }),
    h("h2", {}, "Payload"),
    h("pre", { class: "payload", tabindex: "0", "aria-label": "Payload" }, pretty(d.payload, d.body_text)),
  );
}

// The replay asks first (a <dialog>: keyboard and screen-reader friendly, no browser confirm()), then shows
// what the pipeline did, and redraws the page so the new attempt is listed.
function replayButton(ctx, node, d) {
  const dialog = h("dialog", { id: "replay-dialog", "aria-labelledby": "replay-title" },
    h("h2", { id: "replay-title" }, "Replay this delivery?"),
    h("p", {}, "The stored payload runs through the pipeline again, as a new delivery. The event's claim keeps it to one " +
      "effect: if it was processed meanwhile, the replay is skipped."),
    h("form", { method: "dialog", class: "actions" },
      h("button", { value: "cancel", type: "submit" }, "Cancel"),
      h("button", { value: "replay", type: "submit", class: "primary", id: "replay-confirm" }, "Replay")));
  dialog.addEventListener("close", async () => {
    if (dialog.returnValue !== "replay") return;
    const flash = await replay(ctx, d);
    const fresh = await ctx.api("/admin/webhook-events/" + d.id);
    draw(ctx, node, fresh, flash);
    ctx.announce(flash.textContent);
    document.querySelector("#replay-result p")?.focus();
  });
  const button = h("button", { type: "button", class: "danger", id: "replay", onclick: () => dialog.showModal() }, "Replay…");
  return [button, dialog];
}

async function replay(ctx, d) {
  try {
    const r = await ctx.api(`/admin/webhook-events/${d.id}/replay`, { method: "POST" });
    const said = {
      processed: ["notice", "Replayed: processed. The event has taken effect."],
      skipped: ["notice", "Replayed: skipped. The event had already been processed by another delivery; nothing ran twice."],
      ignored: ["notice", "Replayed: ignored. No handler takes this event type."],
      failed: ["alert", "Replayed, and it failed again: the newest attempt below says why."],
    }[r.status] || ["notice", "Replayed: " + r.status + "."];
    return h("p", { class: said[0], tabindex: "-1" }, said[1]);
  } catch (e) {
    if (e instanceof ApiError && e.status === 409) {
      return h("p", { class: "alert", tabindex: "-1" }, "Not replayed: this delivery was processed, so replaying it would do nothing (409 " + (e.code || "conflict") + ").");
    }
    return h("p", { class: "alert", tabindex: "-1" }, "Replay failed: " + e.message + (e.code ? ` (${e.code})` : ""));
  }
}
