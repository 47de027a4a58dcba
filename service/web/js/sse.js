// Server-Sent Events over fetch (EventSource cannot send the bearer token), resumed where they
// stopped: a LiveStream reconnects with Last-Event-ID after any break, backing off exponentially.

/** Parse a text/event-stream body; ``onMessage({id, event, data})``, ``onRetry(ms)``. */
export async function readEventStream(response, { onMessage, onRetry, onActivity }) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let message = { id: null, event: "message", data: [], own: false };
  const line = (text) => {
    if (text === "") {
      if (message.data.length) onMessage({ ...message, data: message.data.join("\n") });
      message = { id: message.id, event: "message", data: [], own: false };
      return;
    }
    if (text.startsWith(":")) return; // a ping
    const colon = text.indexOf(":");
    const field = colon < 0 ? text : text.slice(0, colon);
    const value = colon < 0 ? "" : text.slice(colon + 1).replace(/^ /, "");
    if (field === "data") message.data.push(value);
    else if (field === "event") message.event = value;
    else if (field === "id") { message.id = value; message.own = true; }
    else if (field === "retry" && /^\d+$/.test(value)) onRetry?.(Number(value));
  };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    onActivity?.();
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n")) >= 0) {
      line(buffer.slice(0, end).replace(/\r$/, ""));
      buffer = buffer.slice(end + 1);
    }
  }
}

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal?.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
});

/**
 * A stream that stays connected. ``open(lastEventId, signal)`` returns the fetch Response;
 * ``onEvent({id, event, data})`` gets each message once (ids only grow); ``onState(state)``
 * hears "connecting" | "live" | "offline" | "closed"; ``onConnect()`` runs after each
 * (re)connection, where a client refetches what it shows. A 4xx answer ends the stream
 * (``onFatal(response)``); anything else is retried after 0.5 s, 1 s, 2 s … up to ``maxDelay``.
 */
export class LiveStream {
  constructor({ open, onEvent, onState, onConnect, onFatal, maxDelay = 10000, stallAfter = 45000 }) {
    Object.assign(this, { open, onEvent, onState, onConnect, onFatal, maxDelay, stallAfter });
    this.lastEventId = 0;
    this.retry = 500;
    this.state = "closed";
    this.wake = null;
  }

  start(lastEventId = 0) {
    this.lastEventId = lastEventId;
    this.stopper = new AbortController();
    this.online = () => this.wake?.abort(); // the browser is back online: retry at once
    window.addEventListener("online", this.online);
    this.loop();
  }

  stop() {
    this.stopper?.abort();
    window.removeEventListener("online", this.online);
    this.setState("closed");
  }

  setState(state) {
    if (state === this.state) return;
    this.state = state;
    this.onState?.(state);
  }

  async loop() {
    const stopped = this.stopper.signal;
    for (let failures = 0; !stopped.aborted;) {
      this.setState(failures ? "offline" : "connecting");
      const attempt = new AbortController();
      const abort = () => attempt.abort();
      stopped.addEventListener("abort", abort, { once: true });
      let watchdog;
      const activity = () => { clearTimeout(watchdog); watchdog = setTimeout(abort, this.stallAfter); };
      try {
        const response = await this.open(this.lastEventId, attempt.signal);
        if (response.status >= 400 && response.status < 500) {
          this.onFatal?.(response);
          this.setState("closed");
          return;
        }
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        activity();
        this.setState("live");
        failures = 0;
        await this.onConnect?.();
        await readEventStream(response, {
          onActivity: activity,
          onRetry: (ms) => { this.retry = Math.max(100, Math.min(ms, this.maxDelay)); },
          onMessage: (message) => {
            // No id of its own (the table's chat, a rematch offer): no event of the stream,
            // passed on and never counted.
            if (!message.own) { this.onEvent?.(message); return; }
            const id = Number(message.id);
            if (Number.isFinite(id) && id <= this.lastEventId) return; // already seen
            if (Number.isFinite(id)) this.lastEventId = id;
            this.onEvent?.(message);
          },
        });
      } catch {
        // a refused connection, a reset, a stall: retried below
      } finally {
        clearTimeout(watchdog);
        stopped.removeEventListener("abort", abort);
      }
      if (stopped.aborted) break;
      failures += 1;
      this.setState("offline");
      const delay = Math.min(this.maxDelay, this.retry * 2 ** (failures - 1));
      this.wake = new AbortController();
      await sleep(delay * (0.75 + Math.random() * 0.25), AbortSignal.any([stopped, this.wake.signal]));
    }
  }
}
