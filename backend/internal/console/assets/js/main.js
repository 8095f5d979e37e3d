// The console's shell: settings, sign-in, the admin gate, then a hash router over the pages. Hash routes
// (#/deliveries?status=failed) keep filters and ids out of the server's request log and need no server
// route per page.
import { ApiError, client } from "./api.js";
import { clearDevToken, session, storeDevToken } from "./auth.js";
import { h, put } from "./dom.js";
import * as audit from "./pages/audit.js";
import * as broadcast from "./pages/broadcast.js";
import * as broadcasts from "./pages/broadcasts.js";
import * as deliveries from "./pages/deliveries.js";
import * as delivery from "./pages/delivery.js";
import * as overview from "./pages/overview.js";
import * as user from "./pages/user.js";
import * as users from "./pages/users.js";

const routes = [
  [/^\/deliveries$/, deliveries, "deliveries"],
  [/^\/deliveries\/([0-9a-f-]{36})$/, delivery, "deliveries"],
  [/^\/users$/, users, "users"],
  [/^\/users\/([0-9a-f-]{36})$/, user, "users"],
  [/^\/overview$/, overview, "overview"],
  [/^\/audit$/, audit, "audit"],
  [/^\/broadcasts$/, broadcasts, "broadcasts"],
  [/^\/broadcasts\/([0-9a-f-]{36})$/, broadcast, "broadcasts"],
];

const main = document.getElementById("main");
const statusRegion = document.getElementById("status");

/** announce tells screen readers (and everyone) what happened, in the status region. */
export function announce(text) { statusRegion.textContent = text; }

function show(title, ...nodes) {
  document.title = title + " · Fabrica console";
  put(main, ...nodes);
}

document.getElementById("skip").addEventListener("click", (ev) => {
  ev.preventDefault(); // the hash is the router's: focus the content instead of jumping to #main
  main.focus();
});

async function boot() {
  const settings = await fetch("settings.json", { cache: "no-store" }).then((r) => r.json());
  const s = await session(settings);
  if (s.signedIn === false) return signInPage(settings, s);
  const api = client(s.getToken);
  let me;
  try {
    me = await api("/admin/me");
  } catch (e) {
    if (e instanceof ApiError && e.status === 403) return refusal(s);
    if (e instanceof ApiError && e.status === 401) {
      if (s.dev) clearDevToken();
      return signInPage(settings, { ...s, signedIn: false, dev: !!settings.dev_sign_in, error: "The server refused the session (" + e.message + "). Sign in again." });
    }
    return show("Error", h("h1", {}, "The console cannot start"), h("p", { class: "alert", role: "alert" }, e.message));
  }
  document.getElementById("who-email").textContent = me.email || me.clerk_user_id;
  document.getElementById("who").hidden = false;
  document.getElementById("nav").hidden = false;
  document.getElementById("sign-out").addEventListener("click", async () => {
    await s.signOut();
    location.hash = "";
    location.reload();
  });
  const ctx = { api, settings, me };
  window.addEventListener("hashchange", () => route(ctx));
  route(ctx);
}

/**
 * showClock puts development's simulated time in the banner while the clock is moved (`fabrica dev clock`),
 * and takes the banner away once it is reset. Only development has the clock route.
 */
async function showClock(ctx) {
  if (!ctx.settings.dev_clock) return;
  const banner = document.getElementById("clock-banner");
  try {
    const c = await ctx.api("/dev/clock");
    banner.textContent = "Simulated time: " + new Date(c.now).toISOString().replace(".000Z", "Z") +
      " (the clock is moved; `fabrica dev clock reset` returns to real time)";
    banner.hidden = !c.moved;
  } catch {
    banner.hidden = true;
  }
}

let seq = 0;

async function route(ctx) {
  const hash = location.hash.slice(1) || "/deliveries";
  const [path, query = ""] = hash.split("?");
  const found = routes.find(([re]) => re.test(path));
  if (!found) {
    location.replace("#/deliveries");
    return;
  }
  const [re, page, nav] = found;
  for (const a of document.querySelectorAll("#nav a")) {
    if (a.dataset.page === nav) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  const mine = ++seq;
  showClock(ctx);
  main.setAttribute("aria-busy", "true");
  announce("Loading…");
  try {
    const params = path.match(re).slice(1).map(decodeURIComponent);
    const view = await page.render({ ...ctx, params, query: Object.fromEntries(new URLSearchParams(query)), announce });
    if (mine !== seq) return; // the operator navigated on meanwhile
    show(view.title, view.node);
    announce(view.announce || view.title + " loaded.");
  } catch (e) {
    if (mine !== seq) return;
    if (e instanceof ApiError && (e.status === 401 || e.status === 403)) {
      location.reload(); // the session ended or lost its rights: back through the gate
      return;
    }
    show("Error", h("h1", {}, "Something went wrong"),
      h("p", { class: "alert", role: "alert" }, e.message + (e.code ? ` (${e.code})` : "")));
    announce("Error: " + e.message);
  } finally {
    if (mine === seq) {
      main.removeAttribute("aria-busy");
      main.focus();
    }
  }
}

function signInPage(settings, s) {
  const parts = [h("h1", {}, "Sign in")];
  if (s.error) parts.push(h("p", { class: "alert", role: "alert" }, s.error));
  if (s.clerk) {
    parts.push(h("p", {}, "Operators sign in with their Clerk account."),
      h("p", {}, h("button", { class: "primary", type: "button", id: "clerk-sign-in", onclick: () => s.clerk.signIn() }, "Sign in with Clerk")));
  }
  if (s.dev) {
    const input = h("textarea", { id: "dev-token", name: "token", required: true, autocomplete: "off", spellcheck: "false",
      "aria-describedby": "dev-token-hint" });
    parts.push(h("form", { id: "dev-sign-in", class: "card", onsubmit: (ev) => {
      ev.preventDefault();
      storeDevToken(input.value);
      location.reload();
    } },
    h("h2", {}, "Development sign-in"),
    h("div", { class: "field" }, h("label", { for: "dev-token" }, "Dev session token"), input,
      h("p", { class: "hint", id: "dev-token-hint" }, "Paste the output of ", h("code", {}, "bin/fabrica dev token --admin"),
        ". It is kept in this tab only (sessionStorage) and only a development server accepts it.")),
    h("button", { class: "primary", type: "submit" }, "Sign in")));
  }
  if (!s.clerk && !s.dev) {
    parts.push(h("p", { class: "note" }, "Sign-in is not configured on this server: set CLERK_PUBLISHABLE_KEY (see docs/console.md)."));
  }
  show("Sign in", h("div", { class: "sign-in" }, parts));
}

function refusal(s) {
  document.getElementById("who-email").textContent = s.label;
  document.getElementById("who").hidden = false;
  document.getElementById("sign-out").addEventListener("click", async () => {
    await s.signOut();
    location.reload();
  });
  show("Not an operator", h("h1", {}, "Not an operator"),
    h("p", { class: "alert", role: "alert", id: "refusal" },
      `You are signed in${s.label ? " as " + s.label : ""}, but this account is not an operator of this service, so the console shows nothing.`),
    h("p", {}, "Operators are the users whose verified email is in ADMIN_EMAILS, or whose Clerk user id is in ADMIN_CLERK_USER_IDS. " +
      "Refused requests are recorded in the audit trail."));
}

boot().catch((e) => show("Error", h("h1", {}, "The console cannot start"), h("p", { class: "alert", role: "alert" }, e.message)));
