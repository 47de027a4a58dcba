// The signed-in player's notifications: the recent ones read once, then the player's own
// stream (one connection for all his games), resumed after the last seq seen. The badge counts
// those after the seq the player last looked at (kept per player on this device); a turn in a
// game other than the one on screen pops a toast with a link to it.
import { h } from "./dom.js";
import { lang, t } from "./i18n.js";
import { LiveStream } from "./sse.js";

const KEEP = 50; // notifications kept in the list
const PAGES = 20; // at most this many pages read at the start (the service keeps 14 days)
const TOAST_MS = 12000;
const TURNS = new Set(["your_turn", "claim"]);

export class Notifier extends EventTarget {
  constructor(api, player, { toasts, currentGame }) {
    super();
    Object.assign(this, { api, player, toasts, currentGame });
    this.items = []; // newest last
    this.seenKey = `preferans.notes.seen.${player.id}`;
    this.seen = Number(localStorage.getItem(this.seenKey) ?? 0);
    this.stream = new LiveStream({
      open: (lastEventId, signal) => api.myStream(lastEventId, signal),
      onEvent: (message) => this.received(JSON.parse(message.data)),
      onFatal: (response) => { if (response.status === 401) api.signOut(); },
    });
  }

  get unread() { return this.items.filter((note) => note.seq > this.seen).length; }
  get last() { return this.items.at(-1)?.seq ?? this.seen; }

  async start() {
    let cursor = 0;
    try {
      for (let page = 0; page < PAGES; page++) {
        const { items, last_seq: last } = await this.api.notifications(cursor);
        this.keep(items);
        if (items.length < 100) break;
        cursor = last;
      }
    } catch {
      // the stream below resumes from what was read, and retries by itself
    }
    if (this.stopped) return;
    this.changed();
    this.stream.start(this.last);
  }

  stop() { this.stopped = true; this.stream.stop(); }

  keep(notes) {
    this.items.push(...notes);
    this.items = this.items.slice(-KEEP);
  }

  received(note) {
    if (this.items.some((n) => n.seq === note.seq)) return;
    this.keep([note]);
    this.changed();
    this.dispatchEvent(new CustomEvent("note", { detail: note }));
    if (TURNS.has(note.kind) && note.game_id && note.game_id !== this.currentGame()) this.toast(note);
  }

  /** The player has looked at the list: the badge clears. */
  markSeen() {
    if (this.last <= this.seen) return;
    this.seen = this.last;
    localStorage.setItem(this.seenKey, String(this.seen));
    this.changed();
  }

  changed() { this.dispatchEvent(new Event("change")); }

  toast(note) {
    const item = h("div", { class: "toast note", dataset: { note: note.kind, game: note.game_id } },
      h("span", {}, t(`note.toast.${note.kind}`)),
      h("a", { href: `#/game/${note.game_id}`, class: "toast-link", onclick: () => item.remove() },
        t("note.open")),
      h("button", { type: "button", class: "close", "aria-label": t("close"), onclick: () => item.remove() }, "×"));
    this.toasts.append(item);
    setTimeout(() => item.remove(), TOAST_MS);
  }
}

/** One notification as a sentence, with the names it mentions. */
export function noteText(note, names) {
  const who = names.get(note.data?.player) ?? t("note.someone");
  const vars = { who, tricks: note.data?.tricks ?? "", result: note.data?.result ?? "" };
  return t(`note.${note.kind}`, vars);
}

/** "in 5 min" / "12:30" for a deadline (ms since the epoch, or an ISO string). */
export function deadlineText(deadline) {
  if (deadline == null) return null;
  const at = typeof deadline === "number" ? deadline : Date.parse(deadline);
  const minutes = Math.round((at - Date.now()) / 60000);
  if (minutes <= 0) return t("deadline.now");
  if (minutes < 60) return t("deadline.minutes", { n: minutes });
  return t("deadline.at", { time: new Date(at).toLocaleTimeString(lang(), { hour: "2-digit", minute: "2-digit" }) });
}
