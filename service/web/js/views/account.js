// The account screen (#/account): signed out, sign in with a login and password, a passkey or
// a recovery code; signed in, set up the login and password, see the recovery codes once, add
// and remove passkeys, list and sign out devices, revoke the apps he authorised (OAuth) and
// register apps of his own.
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";

const DEVICE = () => `${navigator.userAgentData?.platform || navigator.platform || "browser"} · ${new Date().toLocaleDateString()}`;
const passkeysWork = () => typeof window.PublicKeyCredential?.parseCreationOptionsFromJSON === "function";

export function accountScreen(root, ctx) {
  const state = {
    account: null, tokens: [], passkeys: [], authorised: [], apps: [], codes: null, secret: null,
    loaded: false,
  };
  let alive = true;

  async function load() {
    if (!ctx.me()) { state.loaded = true; render(); return; }
    try {
      const [account, tokens, passkeys, authorised, apps] = await Promise.all([
        ctx.api.account(), ctx.api.tokens(), ctx.api.passkeys(), ctx.api.authorisedApps(),
        ctx.api.apps(),
      ]);
      Object.assign(state, {
        account: account.login ? account : null, tokens, passkeys, authorised, apps, loaded: true,
      });
    } catch (error) {
      ctx.toast(error);
    }
    if (alive) render();
  }

  const render = () => mount(root, screen());
  load();
  render();

  function screen() {
    const signedIn = Boolean(ctx.me());
    return h("section", { class: "screen account", "aria-labelledby": "account-title", dataset: { screen: "account" } },
      h("h1", { id: "account-title" }, signedIn ? t("account.title") : t("signin.title")),
      signedIn ? signedInParts() : signedOutParts());
  }

  // --- signed out ------------------------------------------------------------------------

  function signedOutParts() {
    return h("div", { class: "lobby-grid" }, signInForm(), passkeyPanel(), recoveryForm());
  }

  function field(id, label, props) {
    return [h("label", { for: id }, label), h("input", { id, name: id, ...props })];
  }

  function signInForm() {
    return h("form", {
      class: "panel signin", "aria-labelledby": "signin-title",
      onsubmit: async (event) => {
        event.preventDefault();
        const form = event.target.elements;
        try {
          await ctx.signedIn(await ctx.api.signIn(form["signin-login"].value, form["signin-password"].value, DEVICE()));
        } catch (error) {
          ctx.toast(error);
          form["signin-password"].select();
        }
      },
    },
    h("h2", { id: "signin-title" }, t("signin.password")),
    field("signin-login", t("account.login"), { required: true, autocomplete: "username", maxlength: "64" }),
    field("signin-password", t("account.password"), { type: "password", required: true, autocomplete: "current-password", maxlength: "256" }),
    h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, t("signin.go"))));
  }

  function passkeyPanel() {
    return h("div", { class: "panel", "aria-labelledby": "signin-passkey-title" },
      h("h2", { id: "signin-passkey-title" }, t("signin.passkey")),
      h("p", { class: "muted" }, passkeysWork() ? t("signin.passkey.note") : t("passkey.unsupported")),
      h("button", {
        type: "button", class: "primary", disabled: !passkeysWork(), dataset: { key: "passkey-signin" },
        onclick: async () => {
          try {
            await ctx.signedIn(await ctx.api.signInWithPasskey(DEVICE()));
          } catch (error) {
            ctx.toast(error.name === "NotAllowedError" ? t("passkey.cancelled") : error);
          }
        },
      }, t("signin.passkey.go")));
  }

  function recoveryForm() {
    return h("form", {
      class: "panel recovery", "aria-labelledby": "recovery-title",
      onsubmit: async (event) => {
        event.preventDefault();
        const form = event.target.elements;
        try {
          await ctx.signedIn(await ctx.api.recover(form["rec-login"].value, form["rec-code"].value,
            form["rec-password"].value, DEVICE()));
        } catch (error) {
          ctx.toast(error);
        }
      },
    },
    h("h2", { id: "recovery-title" }, t("recovery.title")),
    field("rec-login", t("account.login"), { required: true, autocomplete: "username", maxlength: "64" }),
    field("rec-code", t("recovery.code"), { required: true, autocomplete: "one-time-code", maxlength: "64", spellcheck: "false" }),
    field("rec-password", t("account.newPassword"), { type: "password", required: true, minlength: "10", maxlength: "256", autocomplete: "new-password" }),
    h("div", { class: "row" }, h("button", { type: "submit" }, t("recovery.go"))));
  }

  // --- signed in -------------------------------------------------------------------------

  function signedInParts() {
    if (!state.loaded) return h("p", { class: "muted" }, t("loading"));
    return h("div", { class: "lobby-grid" }, setUpForm(), state.codes ? codesPanel() : null,
      passkeysPanel(), devicesPanel(), authorisedPanel(), appsPanel());
  }

  function setUpForm() {
    const account = state.account;
    return h("form", {
      class: "panel setup", "aria-labelledby": "setup-title",
      onsubmit: async (event) => {
        event.preventDefault();
        const form = event.target.elements;
        const body = {};
        const login = form["acc-login"].value.trim();
        if (login && login !== account?.login) body.login = login;
        if (form["acc-password"].value) body.password = form["acc-password"].value;
        if (form["acc-current"]?.value) body.current_password = form["acc-current"].value;
        if (!body.login && !body.password) return;
        try {
          const saved = await ctx.api.setUpAccount(body);
          state.account = saved.account;
          state.codes = saved.recovery_codes;
          ctx.announce(t("account.saved"));
          render();
          root.querySelector(state.codes ? "#codes-title" : "#setup-title")?.focus();
        } catch (error) {
          ctx.toast(error);
        }
      },
    },
    h("h2", { id: "setup-title", tabindex: "-1" }, account ? t("account.change") : t("account.setup")),
    h("p", { class: "muted" }, account ? t("account.has", { login: account.login }) : t("account.why")),
    field("acc-login", t("account.login"), { value: account?.login ?? "", autocomplete: "username", maxlength: "32", required: !account }),
    field("acc-password", account?.has_password ? t("account.newPassword") : t("account.password"),
      { type: "password", minlength: "10", maxlength: "256", autocomplete: "new-password", required: !account }),
    account?.has_password ? field("acc-current", t("account.current"), { type: "password", autocomplete: "current-password", maxlength: "256" }) : null,
    h("div", { class: "row" }, h("button", { type: "submit", class: "primary" }, t("account.save"))));
  }

  function codesPanel() {
    return h("div", { class: "panel codes", "aria-labelledby": "codes-title" },
      h("h2", { id: "codes-title", tabindex: "-1" }, t("recovery.codes")),
      h("p", {}, t("recovery.codes.note")),
      h("ol", { class: "codes-list" }, state.codes.map((code) => h("li", {}, h("code", {}, code)))),
      h("button", { type: "button", onclick: () => { state.codes = null; render(); } }, t("recovery.codes.kept")));
  }

  function passkeysPanel() {
    return h("div", { class: "panel passkeys", "aria-labelledby": "passkeys-title" },
      h("h2", { id: "passkeys-title" }, t("passkeys.title")),
      state.passkeys.length
        ? h("ul", { class: "plain" }, state.passkeys.map((key) => h("li", { dataset: { passkey: key.id } },
          h("span", {}, key.name), " ",
          h("button", {
            type: "button", class: "link", "aria-label": t("passkeys.remove.named", { name: key.name }),
            onclick: async () => {
              try { await ctx.api.removePasskey(key.id); await load(); } catch (error) { ctx.toast(error); }
            },
          }, t("passkeys.remove")))))
        : h("p", { class: "muted" }, t("passkeys.none")),
      h("button", {
        type: "button", class: "primary", disabled: !passkeysWork(), dataset: { key: "passkey-add" },
        onclick: async () => {
          try {
            await ctx.api.addPasskey(t("passkeys.defaultName"));
            ctx.announce(t("passkeys.added"));
            await load();
          } catch (error) {
            ctx.toast(error.name === "NotAllowedError" ? t("passkey.cancelled") : error);
          }
        },
      }, t("passkeys.add")));
  }

  function devicesPanel() {
    const current = ctx.me()?.token?.id;
    const live = state.tokens.filter((token) => !token.revoked_at);
    return h("div", { class: "panel devices", "aria-labelledby": "devices-title" },
      h("h2", { id: "devices-title" }, t("devices.title")),
      h("ul", { class: "plain" }, live.map((token) => h("li", { dataset: { token: token.id } },
        h("span", {}, token.name), token.id === current ? h("span", { class: "muted" }, ` (${t("devices.this")})`) : null, " ",
        token.id === current ? null : h("button", {
          type: "button", class: "link", "aria-label": t("devices.signout.named", { name: token.name }),
          onclick: async () => {
            try { await ctx.api.revokeToken(token.id); await load(); } catch (error) { ctx.toast(error); }
          },
        }, t("devices.signout"))))));
  }

  function authorisedPanel() {
    return h("div", { class: "panel authorised", "aria-labelledby": "authorised-title" },
      h("h2", { id: "authorised-title" }, t("apps.authorised")),
      state.authorised.length
        ? h("ul", { class: "plain" }, state.authorised.map((app) => h("li", { dataset: { app: app.client_id } },
          h("span", {}, app.name), h("span", { class: "muted" }, ` (${app.scope})`), " ",
          h("button", {
            type: "button", class: "link", "aria-label": t("apps.revoke.named", { name: app.name }),
            onclick: async () => {
              try { await ctx.api.revokeApp(app.client_id); await load(); } catch (error) { ctx.toast(error); }
            },
          }, t("apps.revoke")))))
        : h("p", { class: "muted" }, t("apps.authorised.none")));
  }

  function appsPanel() {
    return h("form", {
      class: "panel apps", "aria-labelledby": "apps-title",
      onsubmit: async (event) => {
        event.preventDefault();
        const form = event.target.elements;
        try {
          const made = await ctx.api.registerApp({
            name: form["app-name"].value.trim(), redirect_uris: [form["app-redirect"].value.trim()],
            confidential: form["app-confidential"].checked,
          });
          state.secret = made.client_secret ? { id: made.app.client_id, secret: made.client_secret } : null;
          ctx.announce(t("apps.registered"));
          await load();
        } catch (error) {
          ctx.toast(error);
        }
      },
    },
    h("h2", { id: "apps-title" }, t("apps.mine")),
    state.apps.length
      ? h("ul", { class: "plain" }, state.apps.map((app) => h("li", { dataset: { ownApp: app.client_id } },
        h("span", {}, app.name), " — ", t("apps.clientId"), " ", h("code", { dataset: { clientId: app.client_id } }, app.client_id),
        state.secret?.id === app.client_id
          ? h("p", {}, t("apps.secret"), " ", h("code", { dataset: { secret: app.client_id } }, state.secret.secret)) : null,
        " ",
        h("button", {
          type: "button", class: "link", "aria-label": t("apps.remove.named", { name: app.name }),
          onclick: async () => {
            try { await ctx.api.removeApp(app.client_id); await load(); } catch (error) { ctx.toast(error); }
          },
        }, t("apps.remove")))))
      : h("p", { class: "muted" }, t("apps.mine.none")),
    field("app-name", t("apps.name"), { required: true, maxlength: "64" }),
    field("app-redirect", t("apps.redirect"), { required: true, maxlength: "512", type: "text", spellcheck: "false", inputmode: "url" }),
    h("label", { for: "app-confidential", class: "check" },
      h("input", { id: "app-confidential", name: "app-confidential", type: "checkbox" }), " ", t("apps.confidential")),
    h("div", { class: "row" }, h("button", { type: "submit" }, t("apps.register"))));
  }

  return {
    destroy() { alive = false; },
    rerender: render,
  };
}
