// Sign-in: where the session token comes from, as settings.json offers it.
//  - Clerk (CLERK_PUBLISHABLE_KEY): clerk-js from the instance's own Frontend API (the one outside origin
//    the CSP allows). Sign-in happens on Clerk's hosted page (redirectToSignIn), so the console mounts no
//    Clerk UI; session.getToken() hands out a fresh short-lived session token for every call.
//  - development only: the token of `bin/fabrica dev token --admin`, pasted once and kept in
//    sessionStorage (this tab, until it closes), never localStorage. Only a development server accepts it.

const DEV_KEY = "fabrica.console.dev_token";

/** The claims of a JWT, for display only: the server verifies the token, the page never trusts it. */
export function claims(token) {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(part));
  } catch {
    return {};
  }
}

export function storeDevToken(token) { sessionStorage.setItem(DEV_KEY, token.trim()); }
export function clearDevToken() { sessionStorage.removeItem(DEV_KEY); }

function loadScript(src, publishableKey) {
  return new Promise((resolve, reject) => {
    const el = document.createElement("script");
    el.src = src;
    el.async = true;
    el.crossOrigin = "anonymous";
    el.dataset.clerkPublishableKey = publishableKey;
    el.addEventListener("load", resolve);
    el.addEventListener("error", () => reject(new Error("clerk-js did not load from " + new URL(src).origin)));
    document.head.append(el);
  });
}

/**
 * session(settings) resolves to the signed-in session, or to null with what the sign-in page offers:
 * {getToken, label, signOut} | {signedIn: false, clerk: {signIn()}|null, dev: bool, error}
 */
export async function session(settings) {
  let clerk = null;
  let error = "";
  if (settings.clerk) {
    try {
      await loadScript(settings.clerk.script, settings.clerk.publishable_key);
      await window.Clerk.load();
      const c = window.Clerk;
      if (c.session) {
        return {
          getToken: () => c.session.getToken(),
          label: c.user?.primaryEmailAddress?.emailAddress || c.user?.id || "",
          signOut: () => c.signOut({ redirectUrl: location.pathname }),
        };
      }
      clerk = { signIn: () => c.redirectToSignIn({ signInForceRedirectUrl: location.href, redirectUrl: location.href }) };
    } catch (e) {
      error = e.message;
    }
  }
  const dev = settings.dev_sign_in ? sessionStorage.getItem(DEV_KEY) : null;
  if (dev) {
    return { getToken: async () => dev, label: claims(dev).email || claims(dev).sub || "", signOut: async () => clearDevToken(), dev: true };
  }
  return { signedIn: false, clerk, dev: !!settings.dev_sign_in, error };
}
