// The page: the top bar, the router (#/, #/account, #/oauth/authorize?…, #/invite/{code}, #/me, #/player/{id}, #/game/{id},
// #/game/{id}/replay/{n}/{step}, #/puzzles[/{id}], #/moderation, #/study/{id}[/{step}],
// #/tournaments[/{id}]), error toasts and the
// screen-reader announcer. Each screen is a
// module of views/; the signed-in player's notifications are notifications.js's.
import { Api, ApiError, NetworkError } from "./api.js";
import { focusFirst, h, installRovingKeys, mount } from "./dom.js";
import { lang, onLangChange, setLang, t } from "./i18n.js";
import { Notifier } from "./notifications.js";
import { accountScreen } from "./views/account.js";
import { AFTER_SIGN_IN, consentScreen } from "./views/consent.js";
import { inviteScreen } from "./views/invite.js";
import { lobbyScreen } from "./views/lobby.js";
import { mineScreen } from "./views/mine.js";
import { moderationScreen } from "./views/moderation.js";
import { profileScreen } from "./views/profile.js";
import { puzzlesScreen } from "./views/puzzles.js";
import { replayScreen } from "./views/replay.js";
import { studyScreen } from "./views/study.js";
import { tableScreen } from "./views/table.js";
import { tournamentScreen } from "./views/tournament.js";
import { tournamentsScreen } from "./views/tournaments.js";

const api = new Api();
const app = document.getElementById("app");
const toasts = document.getElementById("toasts");
const announcer = document.getElementById("announce");
let me = null;
let screen = null;
let notifier = null;

const ctx = {
  api,
  me: () => me,
  notifier: () => notifier,
  navigate: (hash) => { location.hash = hash; },
  toast,
  announce,
  signUp: async (name) => {
    const player = await api.register(name);
    me = { id: player.id, name: player.name, token: { id: player.token_id } };
    follow();
    topbar();
    const after = sessionStorage.getItem(AFTER_SIGN_IN); // an app's consent page sent him here
    sessionStorage.removeItem(AFTER_SIGN_IN);
    if (after) { ctx.navigate(after); return; }
    route();
    focusFirst(app); // the lobby's first control, not the body the sign-up form left behind
  },
  /** A sign-in (password, passkey, recovery code) gave this device a token: who it is. */
  /** A sign-in (password, passkey, recovery code) or an inline sign-up gave this device a
   * token: who it is; to the lobby unless ``stay``. */
  signedIn: async (_session, { stay = false } = {}) => {
    me = await whoAmI();
    follow();
    topbar();
    announce(t("signin.welcome", { name: me.name }));
    const after = sessionStorage.getItem(AFTER_SIGN_IN); // an app's consent page sent him here
    sessionStorage.removeItem(AFTER_SIGN_IN);
    if (!stay) ctx.navigate(after || "#/");
  },
};

function toast(error) {
  let text = String(error?.message ?? error);
  if (error instanceof ApiError) {
    const { title, detail, type } = error.problem;
    const own = `problem.${String(type ?? "").split("/").pop()}`;
    text = t(own) !== own ? t(own) // a refusal the page words itself, in the page's language
      : [title, detail && detail.toLowerCase() !== title.toLowerCase() ? detail : null].filter(Boolean).join(": ");
  } else if (error instanceof NetworkError) {
    text = t("error.network");
  }
  const item = h("div", { class: "toast", dataset: { code: error?.code ?? "" } },
    h("span", {}, text),
    h("button", { type: "button", class: "close", "aria-label": t("close"), onclick: () => item.remove() }, "×"));
  toasts.append(item);
  setTimeout(() => item.remove(), 8000);
}

function announce(text) {
  announcer.textContent = "";
  setTimeout(() => { announcer.textContent = text; }, 50);
}

/** The signed-in player's notifications, followed until he signs out. */
function follow() {
  notifier?.stop();
  notifier = me ? new Notifier(api, me, { toasts, currentGame: () => /^#\/game\/([^/]+)/.exec(location.hash)?.[1] })
    : null;
  notifier?.addEventListener("change", () => topbar());
  notifier?.start();
}

function bell() {
  const unread = notifier?.unread ?? 0;
  // The name is the visible text and, for a screen reader, the count in words (axe:
  // label-content-name-mismatch if an aria-label replaced the text).
  return h("a", { class: "bell", href: "#/me", dataset: { key: "bell", unread: String(unread) } },
    t("mine.title"),
    unread ? h("span", { class: "visually-hidden" }, ` (${t("notes.badge", { n: unread })})`) : null,
    unread ? h("span", { class: "badge", "aria-hidden": "true" }, String(unread)) : null);
}

/** The signed-in player, and whether he is a moderator (then the top bar links the report). */
async function whoAmI() {
  const player = await api.me();
  const moderator = await api.isModerator().catch(() => false);
  return { ...player, moderator };
}

function topbar() {
  const languages = ["ru", "en"].map((code) => h("button", {
    type: "button", class: "lang", "aria-pressed": String(lang() === code), lang: code,
    dataset: { lang: code }, onclick: () => setLang(code),
  }, code.toUpperCase()));
  const tournaments = h("a", { class: "link", href: "#/tournaments", dataset: { nav: "tournaments" } }, t("tournaments.nav"));
  mount(document.getElementById("topbar"),
    h("a", { class: "brand", href: "#/" }, h("span", { "aria-hidden": "true" }, "♠♥ "), t("app.title")),
    h("div", { class: "who" },
      me ? [bell(), h("a", { class: "link", href: "#/puzzles", dataset: { nav: "puzzles" } }, t("puzzles.nav")), tournaments,
        me.moderator ? h("a", { class: "link", href: "#/moderation", dataset: { nav: "moderation" } }, t("moderation.nav")) : null,
        h("a", { class: "me", href: `#/player/${me.id}`, dataset: { player: me.id } }, me.name),
        h("a", { class: "link", href: "#/account", dataset: { nav: "account" } }, t("account")),
        h("button", { type: "button", class: "link", onclick: signOut }, t("signout"))]
        : [tournaments, h("a", { class: "link", href: "#/account", dataset: { nav: "signin" } }, t("signin"))],
      h("span", { class: "langs", role: "group", "aria-label": t("language") }, languages)));
}

function signOut() {
  if (!confirm(t("signout.confirm"))) return;
  api.signOut();
}

function route() {
  screen?.destroy();
  const parts = location.hash.replace(/^#\/?/, "").split("/").filter(Boolean);
  if (parts[0] === "oauth" && parts[1]?.startsWith("authorize")) {
    // The authorization request's query as the app sent it (slashes and all), untouched.
    screen = consentScreen(app, ctx, location.hash.slice(location.hash.indexOf("?") + 1));
  } else if (parts[0] === "me") {
    screen = mineScreen(app, ctx);
  } else if (parts[0] === "player" && parts[1]) {
    screen = profileScreen(app, ctx, parts[1]);
  } else if (parts[0] === "game" && parts[1] && parts[2] === "replay") {
    screen = replayScreen(app, ctx, parts[1], Number(parts[3] || 1), Number(parts[4] || 1));
  } else if (parts[0] === "moderation") {
    screen = moderationScreen(app, ctx);
  } else if (parts[0] === "puzzles") {
    screen = puzzlesScreen(app, ctx, parts[1]);
  } else if (parts[0] === "tournaments") {
    screen = parts[1] ? tournamentScreen(app, ctx, parts[1]) : tournamentsScreen(app, ctx);
  } else if (parts[0] === "study" && parts[1]) {
    screen = studyScreen(app, ctx, parts[1], Number(parts[2] || 0));
  } else if (parts[0] === "invite" && parts[1]) {
    screen = inviteScreen(app, ctx, decodeURIComponent(parts[1]));
  } else if (parts[0] === "account") {
    screen = accountScreen(app, ctx);
  } else if (parts[0] === "game" && parts[1]) {
    screen = tableScreen(app, ctx, parts[1]);
  } else {
    screen = lobbyScreen(app, ctx);
  }
}

async function start() {
  document.documentElement.lang = lang();
  installRovingKeys(app);
  api.addEventListener("signedout", () => { me = null; follow(); topbar(); route(); });
  onLangChange(() => { topbar(); screen?.rerender(); });
  if (api.signedIn) {
    try {
      me = await whoAmI();
    } catch (error) {
      if (!(error instanceof ApiError)) toast(error);
    }
  }
  follow();
  topbar();
  window.addEventListener("hashchange", () => { route(); app.focus({ preventScroll: true }); });
  route();
}

start();
