// One game as the page knows it: the caller's snapshot (view + legal_actions), kept current by
// the game's event stream. The stream says *that* something happened (and what, for the log);
// the snapshot is always refetched from the game view (api.game), the one source of what the caller
// may see and do. After a break the stream resumes after the last event seen and the snapshot
// is refetched, so nothing is lost.
import { ApiError } from "./api.js";
import { LiveStream } from "./sse.js";

export class GameSession extends EventTarget {
  constructor(api, gameId) {
    super();
    this.api = api;
    this.gameId = gameId;
    this.snapshot = null;
    this.etag = null;
    this.names = [];
    this.sheet = null;
    this.sheetVersion = -1;
    this.connection = "connecting";
    this.pending = false;
    this.refreshing = null;
    this.again = false;
    this.clockOffset = 0; // the server's clock minus this browser's, from server_time
    this.stream = new LiveStream({
      open: (lastEventId, signal) => api.stream(gameId, lastEventId, signal),
      onState: (state) => { this.connection = state; this.emit("connection"); },
      onConnect: () => { this.emit("connected"); return this.refresh(); },
      onEvent: (message) => this.onEvent(message),
      onFatal: (response) => (response.status === 401 ? api.signOut() : this.emit("gone")),
    });
  }

  emit(type, detail) { this.dispatchEvent(new CustomEvent(type, { detail })); }

  get version() { return this.snapshot?.version ?? 0; }
  get finished() { return this.snapshot?.view.status === "finished"; }

  async start() {
    await this.refresh();
    const view = this.snapshot.view;
    const scored = this.finished ? view.deal_no : Math.max(0, view.deal_no - 1);
    this.loadSheet((sheet) => sheet.deals_scored >= scored);
    // Followed after the end too: the table's talk and a rematch offer come on the stream.
    this.stream.start(this.version);
  }

  stop() { this.stream.stop(); }

  /** Refetch the snapshot (If-None-Match: nothing is sent back while it is current). */
  refresh() {
    if (this.refreshing) { this.again = true; return this.refreshing; }
    this.refreshing = (async () => {
      try {
        do {
          this.again = false;
          const snapshot = await this.api.game(this.gameId, this.etag);
          if (snapshot) this.apply(snapshot);
        } while (this.again);
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  apply(snapshot) {
    if (this.snapshot && snapshot.version < this.snapshot.version) return; // an older answer
    const turn = this.myTurn;
    const wasOver = this.finished;
    this.snapshot = snapshot;
    // Deadlines are on the server's clock; the countdown reads this browser's, corrected.
    if (snapshot.server_time) this.clockOffset = snapshot.server_time - Date.now();
    this.etag = `"${snapshot.version}"`;
    const ids = snapshot.view.players;
    this.api.namesOf(ids).then((names) => {
      if (names.join("\n") !== this.names.join("\n")) { this.names = names; this.emit("change"); }
    });
    this.emit("change");
    if (!turn && this.myTurn) this.emit("turn");
    if (this.finished && !wasOver) this.loadSheet((sheet) => sheet.status === "finished");
  }

  /** Now on the server's clock (ms since the epoch), as far as this browser can tell. */
  serverNow() { return Date.now() + this.clockOffset; }

  get myTurn() {
    const snap = this.snapshot;
    return Boolean(snap && snap.seat != null && snap.legal_actions.length);
  }

  onEvent(message) {
    let event;
    try { event = JSON.parse(message.data); } catch { return; }
    if (message.event === "chat" || message.event === "rematch") {
      this.emit("talk", { kind: message.event, data: event }); // views/chat.js, views/rematch.js
      return;
    }
    this.emit("event", { version: Number(message.id), event });
    if (Number(message.id) > this.version) this.refresh().catch(() => {});
    if (event.type === "deal_scored") this.loadSheet((sheet) => sheet.deals_scored >= event.deal_no);
    if (event.type === "game_ended") this.loadSheet((sheet) => sheet.status === "finished");
  }

  /** The sheet is a projection: it may trail the game a moment, so ask again until ``caughtUp``. */
  async loadSheet(caughtUp = () => true) {
    for (let tries = 0; tries < 10; tries++) {
      try {
        const { sheet, version } = await this.api.sheet(this.gameId);
        if (version > this.sheetVersion) {
          this.sheet = sheet;
          this.sheetVersion = version;
          this.emit("sheet");
        }
        if (caughtUp(sheet)) return;
      } catch (error) {
        if (error instanceof ApiError) return;
      }
      await new Promise((resolve) => setTimeout(resolve, 250 * (tries + 1)));
    }
  }

  /** Send one of ``legal_actions``, pinned to the version it was chosen from. */
  async act(action) {
    if (this.pending) return;
    this.pending = true;
    this.emit("change");
    try {
      const outcome = await this.api.act(this.gameId, action, this.version);
      this.apply(outcome);
    } catch (error) {
      this.refresh().catch(() => {});
      throw error;
    } finally {
      this.pending = false;
      this.emit("change");
    }
  }

  async join(seat) {
    this.apply(await this.api.join(this.gameId, seat));
  }
}
