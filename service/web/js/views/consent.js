// The consent page (#/oauth/authorize?…): an app asks to act for the player. The server has
// already found the request good (its app, its redirect URI, PKCE); the page names the app and
// what each scope lets it do, and the player approves or declines. Either way his browser goes
// back to the app's redirect URI, with a code or with error=access_denied. Signed out, the
// player signs in first and comes back here.
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";

export const AFTER_SIGN_IN = "preferans.after-sign-in";

export function consentScreen(root, ctx, query) {
  const state = { consent: null, error: null, busy: false };
  let alive = true;

  async function load() {
    if (!ctx.me()) { render(); return; }
    try {
      state.consent = await ctx.api.consent(query);
    } catch (error) {
      state.error = error;
    }
    if (alive) render();
  }

  async function answer(approve) {
    state.busy = true;
    render();
    try {
      location.assign(await ctx.api.answerConsent(query, approve));
    } catch (error) {
      state.busy = false;
      ctx.toast(error);
      render();
    }
  }

  const render = () => mount(root, screen());
  load();
  render();

  function screen() {
    return h("section", { class: "screen consent", "aria-labelledby": "consent-title", dataset: { screen: "consent" } },
      h("h1", { id: "consent-title" }, t("consent.title")),
      body());
  }

  function body() {
    if (!ctx.me()) {
      const back = () => sessionStorage.setItem(AFTER_SIGN_IN, location.hash);
      return h("div", { class: "panel" },
        h("p", {}, t("consent.signin")),
        h("div", { class: "row" },
          h("a", { class: "button primary", href: "#/account", dataset: { key: "consent-signin" }, onclick: back },
            t("signin")),
          h("a", { class: "button", href: "#/", dataset: { key: "consent-signup" }, onclick: back },
            t("consent.signup"))));
    }
    if (state.error) {
      const back = state.error.problem?.redirect_to;
      return h("div", { class: "panel", role: "alert", dataset: { error: state.error.code ?? "" } },
        h("p", {}, t("consent.refused")),
        h("p", { class: "muted" }, state.error.message),
        back ? h("a", { class: "button", href: back, dataset: { key: "consent-back" } }, t("consent.back")) : null);
    }
    const consent = state.consent;
    if (!consent) return h("p", { class: "muted" }, t("loading"));
    return h("div", { class: "panel", dataset: { client: consent.client_id } },
      h("p", { class: "consent-ask" }, t("consent.asks", { app: consent.app_name, name: ctx.me().name })),
      h("ul", { class: "scopes" }, consent.scopes.map((scope) => h("li", { dataset: { scope } },
        h("strong", {}, scope), " — ", t(`consent.scope.${scope}`)))),
      h("p", { class: "muted" }, t("consent.never")),
      h("p", { class: "muted" }, t("consent.where", { uri: consent.redirect_uri })),
      h("div", { class: "row" },
        h("button", { type: "button", class: "primary", disabled: state.busy, dataset: { key: "consent-approve" },
          onclick: () => answer(true) }, t("consent.approve")),
        h("button", { type: "button", disabled: state.busy, dataset: { key: "consent-deny" },
          onclick: () => answer(false) }, t("consent.deny"))));
  }

  return {
    destroy() { alive = false; },
    rerender: render,
  };
}
