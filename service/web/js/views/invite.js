// An invite link (#/invite/{code}): what table it opens, and one step to sit there — signing up
// inline when the visitor has no player on this device yet.
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";

export function inviteScreen(root, ctx, code) {
  const state = { invite: null, names: [], error: null };
  let alive = true;

  async function load() {
    try {
      state.invite = await ctx.api.readInvite(code);
      state.names = await ctx.api.namesOf(state.invite.game.players);
    } catch (error) {
      state.error = error;
    }
    if (alive) render();
  }

  async function sit(event) {
    event.preventDefault();
    try {
      if (!ctx.me()) {
        const name = event.target.elements["invite-name"].value.trim();
        if (!name) return;
        await ctx.api.register(name);
        await ctx.signedIn(null, { stay: true });
      }
      const joined = await ctx.api.joinByInvite(code);
      ctx.navigate(`#/game/${joined.id ?? state.invite.game.id}`);
    } catch (error) {
      ctx.toast(error);
    }
  }

  function screen() {
    const invite = state.invite;
    const body = state.error ? h("p", {}, t("invite.unknown"))
      : !invite ? h("p", { class: "muted" }, t("loading"))
      : invite.expired ? h("p", {}, t("invite.expired"))
      : h("form", { class: "panel invite", "aria-labelledby": "invite-title", onsubmit: sit },
        h("h2", { id: "invite-title" }, t("invite.title")),
        h("p", {}, t("invite.table", {
          rules: t(`preset.${invite.game.preset ?? "sochi"}`),
          seats: invite.game.players.length,
          free: invite.game.players.filter((p) => !p).length,
        })),
        h("ul", { class: "plain" }, state.names.map((name, seat) =>
          h("li", {}, t("seat.n", { n: seat + 1 }), ": ", name ?? h("span", { class: "muted" }, t("seat.free"))))),
        ctx.me() ? null : [
          h("p", { class: "muted" }, t("invite.signup")),
          h("label", { for: "invite-name" }, t("register.name")),
          h("input", { id: "invite-name", name: "invite-name", required: true, maxlength: "64", autocomplete: "nickname" }),
        ],
        h("div", { class: "row" }, h("button", { type: "submit", class: "primary", dataset: { key: "invite-sit" } },
          ctx.me() ? t("invite.sit") : t("invite.signup.sit"))));
    return h("section", { class: "screen invite", "aria-labelledby": "invite-h1", dataset: { screen: "invite" } },
      h("h1", { id: "invite-h1" }, t("invite.h1")), body);
  }

  const render = () => mount(root, screen());
  render();
  load();
  return { destroy() { alive = false; }, rerender: render };
}
