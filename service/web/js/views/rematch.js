// "Play again": on a finished game, one of its players offers a rematch with the same players,
// seats and rules; the others see it on the stream and accept or decline; once everyone has
// accepted, the service creates the new game and every page here follows to it.
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";

export function rematchPanel(ctx, session) {
  const gameId = session.gameId;
  const state = { offer: null, loaded: false, busy: false };
  const el = h("section", { class: "panel rematch", "aria-labelledby": "rematch-title", dataset: { panel: "rematch" } });

  async function load() {
    if (!session.finished) return;
    try {
      state.offer = await ctx.api.rematch(gameId);
      state.loaded = true;
      update();
    } catch {
      // offline: the next connection loads again
    }
  }

  async function run(call) {
    state.busy = true;
    draw();
    try {
      state.offer = await call();
      update();
    } catch (error) {
      ctx.toast(error);
      load();
    } finally {
      state.busy = false;
      draw();
    }
  }

  function update() {
    draw();
    if (state.offer?.next_game) {
      ctx.announce(t("rematch.started"));
      ctx.navigate(`#/game/${state.offer.next_game}`);
    }
  }

  function draw() {
    const snap = session.snapshot;
    el.hidden = !session.finished;
    if (!session.finished) { el.replaceChildren(); return; }
    const me = ctx.me();
    const players = snap.view.players;
    const seated = me && players.includes(me.id);
    const offer = state.offer;
    const answered = new Map((offer?.answers ?? []).map((a) => [a.player, a.accept]));
    const names = players.map((id, seat) => session.names[seat] ?? t("seat.n", { n: seat + 1 }));
    const who = (id) => names[players.indexOf(id)] ?? "…";
    let body;
    if (!offer) {
      body = seated ? h("button", { type: "button", class: "primary", disabled: state.busy, dataset: { key: "rematch-offer", rematch: "offer" },
        onclick: () => run(() => ctx.api.offerRematch(gameId)) }, t("rematch.offer"))
        : h("p", { class: "muted" }, t("rematch.none"));
    } else {
      const status = offer.status === "open" ? t("rematch.open", { name: who(offer.offered_by) })
        : offer.status === "declined" ? t("rematch.declined") : t("rematch.accepted");
      const answers = h("ul", { class: "rematch-answers" }, players.map((id, seat) => h("li", { dataset: { seat: String(seat) } },
        names[seat], ": ", answered.has(id) ? t(answered.get(id) ? "rematch.yes" : "rematch.no")
          : snap.seated?.[seat]?.kind === "bot" ? t("rematch.bot") : t("rematch.waiting"))));
      const mine = me && answered.has(me.id);
      const ask = offer.status === "open" && seated && !mine ? h("div", { class: "row" },
        h("button", { type: "button", class: "primary", disabled: state.busy, dataset: { key: "rematch-accept", rematch: "accept" },
          onclick: () => run(() => ctx.api.answerRematch(gameId, true)) }, t("rematch.accept")),
        h("button", { type: "button", disabled: state.busy, dataset: { key: "rematch-decline", rematch: "decline" },
          onclick: () => run(() => ctx.api.answerRematch(gameId, false)) }, t("rematch.decline"))) : null;
      body = [h("p", { role: "status", dataset: { rematchStatus: offer.status } }, status), answers, ask];
    }
    mount(el, h("h2", { id: "rematch-title" }, t("rematch.title")), body);
  }

  const onTalk = ({ detail }) => {
    if (detail.kind !== "rematch" || detail.data.game_id !== gameId) return;
    state.offer = detail.data;
    update();
  };
  const onChange = () => { if (session.finished && !state.loaded) load(); else draw(); };
  const onConnected = () => load();
  session.addEventListener("talk", onTalk);
  session.addEventListener("change", onChange);
  session.addEventListener("connected", onConnected);
  draw();
  return {
    el,
    rerender: draw,
    destroy() {
      session.removeEventListener("talk", onTalk);
      session.removeEventListener("change", onChange);
      session.removeEventListener("connected", onConnected);
    },
  };
}
