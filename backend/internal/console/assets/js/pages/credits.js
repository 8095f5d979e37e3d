// A user's credits on the user page: the buckets the balance sits in (burn order), their history, and the
// operator's form to grant credits or take some back (POST /admin/users/{id}/credits).
import { ApiError } from "../api.js";
import { h, put, table } from "../dom.js";
import { num, when } from "../format.js";
import { more } from "./common.js";

const source = (s) => s || h("span", { class: "muted" }, "—");
const held = (b) => ({ num: `${num(b.remaining)} / ${num(b.amount)}` });

/** The live buckets in burn order: the first row is what the next spend takes first. */
export function bucketsSection(buckets) {
  return h("section", { id: "buckets", "aria-labelledby": "buckets-h" },
    h("h2", { id: "buckets-h" }, "Credit buckets"),
    h("p", { class: "hint" }, "In burn order: a spend takes from the first row first (priority, soonest expiry, promotional before allowance before purchased, oldest)."),
    table(null, ["Category", "Priority ", "Remaining / amount ", "Expires", "Source", "Granted"], buckets.map((b) => [
      b.category, { num: b.priority }, held(b), b.expires_at ? when(b.expires_at) : "never", source(b.source), when(b.created_at),
    ]), { empty: "No credits." }));
}

/** Every bucket the user ever had, newest first, 20 a click. */
export function bucketHistory(fetch) {
  return more({ id: "bucket-history", title: "Bucket history", fetch, empty: "No bucket.",
    headers: ["Granted", "Category", "Priority ", "Remaining / amount ", "Expires", "Ended", "Source"],
    row: (b) => [when(b.created_at), b.category, { num: b.priority }, held(b), b.expires_at ? when(b.expires_at) : "never",
      b.expired_at ? ["written off ", when(b.expired_at)] : b.remaining === 0 ? "spent" : h("span", { class: "muted" }, "live"),
      source(b.source)] });
}

/** 32 random hex digits (crypto.getRandomValues works outside secure contexts too, unlike randomUUID). */
function newKey() {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The grant/correction form. Each submission carries an Idempotency-Key: the same one until the form's
 * values change or the server has answered, so a double click or a retry of one submission applies once.
 */
export function adjustForm({ api, id, onDone }) {
  const out = h("div", { id: "adjust-result", "aria-live": "polite" });
  const field = (fid, label, control, hint) => h("div", { class: "field" }, h("label", { for: fid }, label), control,
    hint ? h("p", { class: "hint", id: fid + "-hint" }, hint) : null);
  const submit = h("button", { type: "submit", class: "primary", id: "a-submit" }, "Apply");
  const form = h("form", { id: "adjust", class: "card", "aria-labelledby": "adjust-h" },
    h("h2", { id: "adjust-h" }, "Grant or take back credits"),
    field("a-amount", "Amount", h("input", { id: "a-amount", name: "amount", type: "number", step: 1, required: true,
      "aria-describedby": "a-amount-hint" }), "Positive grants; negative takes back, never below zero."),
    field("a-reason", "Reason", h("input", { id: "a-reason", name: "reason", required: true, maxlength: 255, autocomplete: "off" })),
    field("a-category", "Category (grants)", h("select", { id: "a-category", name: "category" },
      h("option", { value: "promotional" }, "promotional"), h("option", { value: "purchased" }, "purchased (paid outside Paddle)"))),
    field("a-days", "Expires after, days (grants)", h("input", { id: "a-days", name: "days", type: "number", min: 1, max: 3650, step: 1,
      "aria-describedby": "a-days-hint" }), "Empty: never."),
    h("div", { class: "actions" }, submit), out);
  let key = newKey();
  let busy = false;
  form.addEventListener("input", () => { key = newKey(); }); // other values: another adjustment
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    if (busy) return;
    busy = true;
    submit.disabled = true;
    const f = new FormData(form);
    const amount = Number(f.get("amount"));
    const body = { amount, reason: String(f.get("reason") || "") };
    if (amount > 0) {
      body.category = f.get("category");
      if (f.get("days")) body.expires_in = Number(f.get("days")) * 86400;
    }
    put(out);
    let r;
    try {
      r = await api(`/admin/users/${id}/credits`, { method: "POST", body, headers: { "Idempotency-Key": key } });
    } catch (e) {
      if (e instanceof ApiError && (e.status === 401 || e.status === 403)) {
        location.reload(); // the session ended or lost its rights: back through the gate
        return;
      }
      // No answer, or the server failed: the adjustment may have been applied, so a retry keeps the key.
      // A refusal wrote nothing: the next submission is a new adjustment.
      const unknown = !(e instanceof ApiError) || e.status === 0 || e.status >= 500;
      if (!unknown) key = newKey();
      put(out, h("p", { class: "alert", role: "alert" }, e.message, e.code ? ` (${e.code})` : "",
        unknown ? " Submitting again retries the same adjustment." : ""));
      return;
    } finally {
      busy = false;
      submit.disabled = false;
    }
    key = newKey();
    form.reset();
    const what = r.movement.delta > 0 ? "Granted" : "Took back";
    const notice = h("p", { class: "notice", role: "status" }, r.idempotent ? "Already applied: " : "",
      `${what} ${num(Math.abs(r.movement.delta))} credits (`, h("span", { class: "mono" }, r.movement.job_id),
      `). Balance now ${num(r.balance)}.`);
    put(out, notice);
    onDone(r).catch((e) => put(out, notice, h("p", { class: "alert", role: "alert" }, "The page could not refresh: " + e.message)));
  });
  return form;
}
