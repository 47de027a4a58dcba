// The one module that knows the API: URLs, the bearer token, ETags, Idempotency-Key on every
// POST, and problem+json errors. Everything else calls these functions and gets data or a
// thrown ApiError / NetworkError.

const TOKEN_KEY = "preferans.token";

/** A refusal from the service, as its problem+json said it (RFC 9457). */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.code = problem.code ?? problem.type;
  }
}

/** The service could not be reached (down, restarting, offline). */
export class NetworkError extends Error {}

/** A fresh Idempotency-Key: random, so a retry of the same intent is safe and a new one is new. */
export function idempotencyKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export class Api extends EventTarget {
  constructor(base = "") {
    super();
    this.base = base;
    this.token = localStorage.getItem(TOKEN_KEY);
    this.names = new Map(); // player id -> Promise of a name
  }

  get signedIn() { return Boolean(this.token); }

  signOut() {
    this.token = null;
    localStorage.removeItem(TOKEN_KEY);
    this.dispatchEvent(new Event("signedout"));
  }

  headers(extra = {}) {
    const headers = { Accept: "application/json", ...extra };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    return headers;
  }

  /**
   * One request. A POST carries an Idempotency-Key and, when the network fails before an
   * answer, is sent again with the same key (the service then applies it at most once).
   */
  async request(method, path, { body, headers = {}, retries = method === "POST" ? 2 : 0 } = {}) {
    const init = { method, headers: this.headers(headers) };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers["Content-Type"] = "application/json";
    }
    if (method === "POST") init.headers["Idempotency-Key"] = idempotencyKey();
    for (let attempt = 0; ; attempt++) {
      let response;
      try {
        response = await fetch(this.base + path, init);
      } catch (error) {
        if (attempt < retries) { await sleep(400 * 2 ** attempt); continue; }
        throw new NetworkError(error.message);
      }
      if (response.status === 304) return { status: 304, etag: response.headers.get("ETag") };
      const type = response.headers.get("Content-Type") ?? "";
      const data = type.includes("json") ? await response.json() : await response.text();
      if (!response.ok) {
        const problem = typeof data === "object" ? data : { title: response.statusText, detail: data };
        if (response.status === 401 && this.token) this.signOut(); // a token this server never issued
        throw new ApiError(response.status, problem);
      }
      return { status: response.status, data, etag: response.headers.get("ETag") };
    }
  }

  // --- players ---
  async register(name) {
    const { data } = await this.request("POST", "/v1/players", { body: { name } });
    this.token = data.token;
    localStorage.setItem(TOKEN_KEY, data.token);
    this.names.set(data.id, Promise.resolve(data.name));
    return data;
  }
  async me() { return (await this.request("GET", "/v1/players/me")).data; }
  useToken(token) {
    this.token = token;
    localStorage.setItem(TOKEN_KEY, token);
  }

  // --- accounts: login and password, passkeys, devices ---
  /** The caller's account (``login`` null before he sets one up). */
  async account() { return (await this.request("GET", "/v1/players/me/account")).data; }
  async setUpAccount(body) { return (await this.request("PUT", "/v1/players/me/account", { body })).data; }
  async signIn(login, password, device) {
    const { data } = await this.request("POST", "/v1/sessions", { body: { login, password, device } });
    this.useToken(data.token);
    return data;
  }
  async recover(login, code, newPassword, device) {
    const body = { login, recovery_code: code, new_password: newPassword, device };
    const { data } = await this.request("POST", "/v1/sessions/recovery", { body });
    this.useToken(data.token);
    return data;
  }
  async tokens() { return (await this.request("GET", "/v1/players/me/tokens")).data.items; }
  async revokeToken(id) { await this.request("DELETE", `/v1/players/me/tokens/${id}`); }
  // --- apps (OAuth): the ones you registered, the ones you authorised, the consent page ---
  async apps() { return (await this.request("GET", "/v1/apps")).data.items; }
  async registerApp(body) { return (await this.request("POST", "/v1/apps", { body })).data; }
  async removeApp(clientId) { await this.request("DELETE", `/v1/apps/${encodeURIComponent(clientId)}`); }
  async authorisedApps() { return (await this.request("GET", "/v1/players/me/apps")).data.items; }
  async revokeApp(clientId) { await this.request("DELETE", `/v1/players/me/apps/${encodeURIComponent(clientId)}`); }
  /** What the authorization request ``query`` (as the app sent it) asks of the player. */
  async consent(query) { return (await this.request("GET", `/v1/oauth/consent?${query}`)).data; }
  /** The player's answer: where the browser goes next (the app, with a code or an error). */
  async answerConsent(query, approve) {
    return (await this.request("POST", "/v1/oauth/consent", { body: { request: query, approve } })).data.redirect_to;
  }
  async passkeys() { return (await this.request("GET", "/v1/players/me/passkeys")).data.items; }
  async removePasskey(id) { await this.request("DELETE", `/v1/players/me/passkeys/${encodeURIComponent(id)}`); }
  /** Register a passkey on this device: the service's options, the browser's ceremony, its answer. */
  async addPasskey(name) {
    const { data: ceremony } = await this.request("POST", "/v1/players/me/passkeys/options");
    const options = PublicKeyCredential.parseCreationOptionsFromJSON(ceremony.options);
    const credential = await navigator.credentials.create({ publicKey: options });
    const body = { challenge_id: ceremony.challenge_id, credential: credential.toJSON(), name };
    return (await this.request("POST", "/v1/players/me/passkeys", { body })).data;
  }
  async signInWithPasskey(device) {
    const { data: ceremony } = await this.request("POST", "/v1/sessions/passkey/options");
    const options = PublicKeyCredential.parseRequestOptionsFromJSON(ceremony.options);
    const credential = await navigator.credentials.get({ publicKey: options });
    const body = { challenge_id: ceremony.challenge_id, credential: credential.toJSON(), device };
    const { data } = await this.request("POST", "/v1/sessions/passkey", { body });
    this.useToken(data.token);
    return data;
  }
  /** A player's public name (cached; each id is looked up once). */
  name(id) {
    if (!id) return Promise.resolve(null);
    if (!this.names.has(id)) {
      const lookup = this.request("GET", `/v1/players/${id}`).then(({ data }) => data.name,
        () => { this.names.delete(id); return "…"; });
      this.names.set(id, lookup);
    }
    return this.names.get(id);
  }
  async namesOf(ids) { return Promise.all(ids.map((id) => this.name(id))); }
  async rating(id) { return (await this.request("GET", `/v1/players/${id}/rating`)).data; }
  /** The leaderboard; ``players`` "humans" or "computers" ranks that side alone. */
  async leaderboard(limit = 10, players) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (players) query.set("players", players);
    return (await this.request("GET", `/v1/ratings?${query}`)).data;
  }
  async player(id) { return (await this.request("GET", `/v1/players/${id}`)).data; }
  async stats(id) { return (await this.request("GET", `/v1/players/${id}/stats`)).data; }
  /** The caller's games: every active one (his turn first), and a page of finished ones. */
  async myGames(cursor) {
    const query = new URLSearchParams(cursor ? { cursor } : {});
    return (await this.request("GET", `/v1/players/me/games?${query}`)).data;
  }
  async notifications(cursor = 0, limit = 100) {
    return (await this.request("GET", `/v1/players/me/notifications?cursor=${cursor}&limit=${limit}`)).data;
  }
  /** The caller's notifications live (SSE), resumed after the seq ``lastEventId``. */
  myStream(lastEventId, signal) {
    const headers = this.headers({ Accept: "text/event-stream" });
    if (lastEventId) headers["Last-Event-ID"] = String(lastEventId);
    return fetch(`${this.base}/v1/players/me/stream`, { headers, signal, cache: "no-store" });
  }

  // --- games ---
  async listGames(status, { cursor, limit = 20 } = {}) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (status) query.set("status", status);
    if (cursor) query.set("cursor", cursor);
    return (await this.request("GET", `/v1/games?${query}`)).data;
  }
  async createGame(body) { return (await this.request("POST", "/v1/games", { body })).data; }
  async join(gameId, seat) {
    return (await this.request("POST", `/v1/games/${gameId}/seats`, { body: seat == null ? {} : { seat } })).data;
  }
  // --- private tables: invites ---
  /** A code that seats its holder at ``gameId`` (shown this once): ``{code, expires_at}``. */
  async createInvite(gameId) { return (await this.request("POST", `/v1/games/${gameId}/invites`, { body: {} })).data; }
  /** What an invite code opens: the game's summary, and whether it has expired. */
  async readInvite(code) { return (await this.request("GET", `/v1/invites/${encodeURIComponent(code)}`)).data; }
  async joinByInvite(code) {
    return (await this.request("POST", `/v1/invites/${encodeURIComponent(code)}/seats`, { body: {} })).data;
  }
  /** Give a free seat (the first, or ``seat``) to one of the service's bots of ``level``. */
  async seatBot(gameId, level, seat) {
    const body = seat == null ? { level } : { level, seat };
    return (await this.request("POST", `/v1/games/${gameId}/bots`, { body })).data;
  }
  /** The caller's view; null when ``etag`` is still current (304). */
  async game(gameId, etag) {
    const answer = await this.request("GET", `/v1/games/${gameId}`,
      { headers: etag ? { "If-None-Match": etag } : {} });
    return answer.status === 304 ? null : answer.data;
  }
  /** Send one of ``legal_actions``; pinned to ``version`` (If-Match) when given. */
  async act(gameId, action, version) {
    const headers = version == null ? {} : { "If-Match": `"${version}"` };
    return (await this.request("POST", `/v1/games/${gameId}/actions`, { body: action, headers })).data;
  }
  async events(gameId, cursor = 0, limit = 100) {
    return (await this.request("GET", `/v1/games/${gameId}/events?cursor=${cursor}&limit=${limit}`)).data;
  }
  /** The game's Server-Sent Events, resumed after ``lastEventId`` (a fetch: it sends the token). */
  stream(gameId, lastEventId, signal) {
    const headers = this.headers({ Accept: "text/event-stream" });
    if (lastEventId) headers["Last-Event-ID"] = String(lastEventId);
    return fetch(`${this.base}/v1/games/${gameId}/stream`, { headers, signal, cache: "no-store" });
  }

  /** The public lobby's changes live (SSE): a reset, then each changed game's summary. */
  lobbyStream(_lastEventId, signal) {
    const headers = this.headers({ Accept: "text/event-stream" });
    return fetch(`${this.base}/v1/lobby/stream`, { headers, signal, cache: "no-store" });
  }
  // --- chat at the table, rematch ---
  /** The table's recent messages the caller reads, newest first (``before``: an older page). */
  async chat(gameId, before) {
    const path = before ? `/v1/games/${gameId}/chat?before=${before}` : `/v1/games/${gameId}/chat`;
    return (await this.request("GET", path)).data;
  }
  /** Say ``{text}`` or ``{phrase}``; not resent on a network failure (a message is no command). */
  async say(gameId, body) {
    return (await this.request("POST", `/v1/games/${gameId}/chat`, { body, retries: 0 })).data;
  }
  async setChatRules(gameId, phrasesOnly) {
    return (await this.request("PUT", `/v1/games/${gameId}/chat/rules`, { body: { phrases_only: phrasesOnly } })).data;
  }
  async mutes() { return (await this.request("GET", "/v1/players/me/mutes")).data.muted; }
  async mute(playerId, on) {
    return (await this.request(on ? "PUT" : "DELETE", `/v1/players/me/mutes/${playerId}`)).data.muted;
  }
  async report(gameId, seq, reason = "") {
    return (await this.request("POST", `/v1/games/${gameId}/chat/${seq}/reports`, { body: { reason } })).data;
  }
  /** The finished game's rematch offer; null if nobody offered one. */
  async rematch(gameId) { return (await this.request("GET", `/v1/games/${gameId}/rematch`)).data; }
  async offerRematch(gameId) { return (await this.request("POST", `/v1/games/${gameId}/rematch`)).data; }
  async answerRematch(gameId, accept) {
    return (await this.request("POST", `/v1/games/${gameId}/rematch/answer`, { body: { accept } })).data;
  }

  // --- read models ---
  async sheet(gameId) {
    const answer = await this.request("GET", `/v1/games/${gameId}/sheet`);
    return { sheet: answer.data, version: Number(/\d+/.exec(answer.etag ?? "")?.[0] ?? 0) };
  }
  /**
   * The drawn sheet, worded in ``lang`` (the service draws English and Russian), as a Blob.
   * Fetched with the token as every other read, not by an <img>'s URL: a duplicate table's
   * sheet is shown to its own players only until the event ends (docs/tournaments.md).
   */
  async sheetSvg(gameId, version, lang = "en") {
    const path = `/v1/games/${gameId}/sheet.svg?min_version=${version}&lang=${lang}`;
    const response = await fetch(this.base + path, { headers: this.headers({ Accept: "image/svg+xml" }) });
    if (!response.ok) {
      const type = response.headers.get("Content-Type") ?? "";
      const problem = type.includes("json") ? await response.json() : { title: response.statusText };
      throw new ApiError(response.status, problem);
    }
    return response.blob();
  }
  /** A finished deal at step ``at``; its analysis' sentences worded in ``lang``. */
  async replay(gameId, dealNo, at, lang = "en") {
    const path = `/v1/games/${gameId}/deals/${dealNo}/replay?lang=${lang}`;
    return (await this.request("GET", at ? `${path}&at=${at}` : path)).data;
  }

  /** Where a player's finished games download in bulk (``ppn`` or ``ndjson``, docs/ppn.md). */
  gamesExportUrl(playerId, format) {
    return `${this.base}/v1/players/${playerId}/games/export?format=${format}`;
  }

  // --- moderation ---
  /** Whether the signed-in player holds the moderator role (the top bar links the report). */
  async isModerator() { return (await this.request("GET", "/v1/moderation/me")).data.moderator; }
  async collusionReport(limit = 50) {
    return (await this.request("GET", `/v1/moderation/pairs?limit=${limit}`)).data;
  }

  // --- puzzles ---
  /** The untried puzzle nearest the caller's puzzle rating. */
  async nextPuzzle() { return (await this.request("GET", "/v1/puzzles/next")).data; }
  async puzzle(id) { return (await this.request("GET", `/v1/puzzles/${id}`)).data; }
  /** The caller's one rated attempt: what it revealed, and the ratings moved. */
  async attemptPuzzle(id, card) {
    return (await this.request("POST", `/v1/puzzles/${id}/attempts`, { body: { card } })).data;
  }
  async myPuzzles(cursor) {
    const query = new URLSearchParams(cursor ? { cursor } : {});
    return (await this.request("GET", `/v1/players/me/puzzles?${query}`)).data;
  }

  // --- studies ---
  /** A new study of deal ``deal_no`` of a finished game, forked after its step ``step``. */
  async forkStudy(body) { return (await this.request("POST", "/v1/studies", { body })).data; }
  async study(id, at) {
    return (await this.request("GET", at ? `/v1/studies/${id}?at=${at}` : `/v1/studies/${id}`)).data;
  }
  /** The owner's move for ``seat`` (one of its legal actions), pinned to ``version``. */
  async moveInStudy(id, seat, action, version) {
    const headers = version == null ? {} : { "If-Match": `"${version}"` };
    return (await this.request("POST", `/v1/studies/${id}/moves`, { body: { seat, action }, headers })).data;
  }
  async annotateStudy(id, step, text) {
    return (await this.request("POST", `/v1/studies/${id}/notes`, { body: { step, text } })).data;
  }
  async shareStudy(id, shared) {
    return (await this.request("PUT", `/v1/studies/${id}/sharing`, { body: { shared } })).data;
  }
  /** ``bot``: a level to give the seat to a bot, null to take it back into the owner's hand. */
  async setStudySeat(id, seat, bot) {
    return (await this.request("PUT", `/v1/studies/${id}/seats/${seat}`, { body: { bot } })).data;
  }
  async compareStudy(id) { return (await this.request("GET", `/v1/studies/${id}/comparison`)).data; }
  async myStudies(cursor) {
    const query = new URLSearchParams(cursor ? { cursor } : {});
    return (await this.request("GET", `/v1/players/me/studies?${query}`)).data;
  }

  // --- tournaments ---
  /** A page of the list, newest first; ``status`` "registering" | "running" | "finished". */
  async tournaments({ status, cursor, limit = 50 } = {}) {
    const query = new URLSearchParams({ limit: String(limit) });
    if (status) query.set("status", status);
    if (cursor) query.set("cursor", cursor);
    return (await this.request("GET", `/v1/tournaments?${query}`)).data;
  }
  async createTournament(body) { return (await this.request("POST", "/v1/tournaments", { body })).data; }
  async tournament(id) { return (await this.request("GET", `/v1/tournaments/${id}`)).data; }
  /** Register the caller; in a team event with ``team`` (a team's name). */
  async registerFor(id, team = null) {
    return (await this.request("POST", `/v1/tournaments/${id}/registrations`, { body: team ? { team } : {} })).data;
  }
  /** A team's lineup from the next round on (its captain, or the arbiter). */
  async nameLineup(id, team, players) {
    return (await this.request("POST", `/v1/tournaments/${id}/lineups`, { body: { team, players } })).data;
  }
  async withdrawFrom(id, reason = "") {
    const query = new URLSearchParams({ reason });
    return (await this.request("DELETE", `/v1/tournaments/${id}/registrations?${query}`)).data;
  }
  async checkIn(id, clientSeed = "") {
    return (await this.request("POST", `/v1/tournaments/${id}/check-ins`, { body: { client_seed: clientSeed } })).data;
  }
  /** The organiser starts the next round (round 1, or one an arbiter's hold kept waiting). */
  /** Start the next round; ``pairing`` (``{tables, byes}``) is the arbiter's own. */
  async startRound(id, pairing = null) {
    return (await this.request("POST", `/v1/tournaments/${id}/rounds`, { body: pairing ? { pairing } : {} })).data;
  }
  /** An arbiter's decision ``{type, reason, …}``: the tournament's view after it. */
  async decide(id, body) { return (await this.request("POST", `/v1/tournaments/${id}/decisions`, { body })).data; }
  /** Robot duplicate: the caller's run (``{run, game_id, game}``). */
  async startRun(id) { return (await this.request("POST", `/v1/tournaments/${id}/runs`, { body: {} })).data; }
  async tournamentLog(id, cursor = 0, limit = 500) {
    return (await this.request("GET", `/v1/tournaments/${id}/log?cursor=${cursor}&limit=${limit}`)).data;
  }
  /** The pairings and results to download: ``format`` "json" or "text". */
  exportUrl(id, format) { return `${this.base}/v1/tournaments/${id}/export?format=${format}`; }
  /** The standings live (SSE): ``event: standings`` at once, ``standings-changes`` after each change. */
  tournamentStream(id, _lastEventId, signal) {
    const headers = this.headers({ Accept: "text/event-stream" });
    return fetch(`${this.base}/v1/tournaments/${id}/stream`, { headers, signal, cache: "no-store" });
  }
  /** The tournaments a player played a table of, newest first. */
  async playerTournaments(id) { return (await this.request("GET", `/v1/players/${id}/tournaments`)).data.items; }
}
