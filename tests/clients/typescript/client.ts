// A README-style client of the service in TypeScript: the types are openapi-typescript's from
// openapi/openapi.json (default options), the calls openapi-fetch's. Three players register,
// one opens a table, all sit down, and they play first legal moves until the first deal is
// scored, while the game's stream is read with a small Server-Sent Events reader that drops
// the connection once and resumes from Last-Event-ID without losing or repeating a frame;
// then the first player reads his notifications, each typed by its kind.
// Run: node out/client.js <base URL>  (tests/api/test_client_kits.py compiles and runs it)
import createClient from "openapi-fetch";
import type { components, paths } from "./api";

type Frame = components["schemas"]["GameStreamFrame"];
type EventFrame = components["schemas"]["GameEventFrame"];
type Action = components["schemas"]["GameSnapshot"]["legal_actions"][number];
type Note = components["schemas"]["Notification"];

const base = process.argv[2] ?? "http://127.0.0.1:8000";
const api = createClient<paths>({ baseUrl: base });

/** What a frame says, by its kind: `event` narrows `data` to that event's shape. */
export function describe(frame: EventFrame): string {
  switch (frame.event) {
    case "card_played":
      return `seat ${frame.data.seat} played ${frame.data.card}`;
    case "deal_scored":
      return `deal ${frame.data.deal_no} scored`;
    default:
      return frame.event;
  }
}

/** When a notification's turn times out: `kind` narrows `data` (a turn or a claim has one). */
export function deadline(note: Note): number | null | undefined {
  switch (note.kind) {
    case "your_turn":
    case "claim":
      return note.data.deadline;
    default:
      return undefined;
  }
}

/** The frames of one `text/event-stream` response, until `stop` says enough. */
async function* frames(response: Response): AsyncGenerator<Frame> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields: Record<string, string> = {};
      for (const line of block.split("\n")) {
        if (line.startsWith(":")) continue; // a keep-alive comment
        const at = line.indexOf(": ");
        if (at > 0) fields[line.slice(0, at)] = line.slice(at + 2);
      }
      if (fields.retry !== undefined && fields.data === undefined) {
        yield { retry: Number(fields.retry) };
      } else if (fields.data !== undefined && fields.id === undefined) {
        yield { event: fields.event, data: JSON.parse(fields.data) } as Frame; // the table's talk
      } else if (fields.data !== undefined) {
        yield { id: Number(fields.id), event: fields.event, data: JSON.parse(fields.data) } as Frame;
      }
    }
  }
}

async function register(name: string): Promise<Record<string, string>> {
  const { data, error } = await api.POST("/v1/players", { body: { name } });
  if (!data?.token) throw new Error(`registration refused: ${JSON.stringify(error)}`);
  return { Authorization: `Bearer ${data.token}` };
}

async function main(): Promise<void> {
  const suffix = Math.random().toString(36).slice(2, 8);
  const seats = await Promise.all(["Anna", "Vera", "Kolya"].map((n) => register(`${n} ${suffix}`)));
  const { data: game, error } = await api.POST("/v1/games", {
    body: { overrides: { pool: { target: 10 } } },
    headers: seats[0],
  });
  if (!game) throw new Error(`no game: ${JSON.stringify(error)}`);
  const path = { params: { path: { game_id: game.id } } };
  for (const auth of seats) await api.POST("/v1/games/{game_id}/seats", { ...path, body: {}, headers: auth });

  // Follow the stream in the background: drop it after five frames, resume from the last id.
  const seen: number[] = [];
  let scored = false;
  const follow = async (): Promise<void> => {
    let last = 0;
    for (let connection = 0; !scored; connection++) {
      const controller = new AbortController();
      const headers: Record<string, string> = { Accept: "text/event-stream" };
      if (last) headers["Last-Event-ID"] = String(last);
      const response = await fetch(`${base}/v1/games/${game.id}/stream`, { headers, signal: controller.signal });
      try {
        for await (const frame of frames(response)) {
          if ("retry" in frame || !("id" in frame)) continue; // the opening retry, the table's talk
          seen.push(frame.id);
          last = frame.id;
          if (frame.event === "deal_scored") { scored = true; console.log(describe(frame)); }
          if (scored || (connection === 0 && seen.length === 5)) break;
        }
      } finally {
        controller.abort();
      }
    }
  };
  const following = follow();

  // Whoever is to act makes his first legal move, until the first deal is scored.
  for (let moves = 0; !scored && moves < 200; moves++) {
    let acted = false;
    for (const auth of seats) {
      const { data: view } = await api.GET("/v1/games/{game_id}", { ...path, headers: auth });
      const first: Action | undefined = view?.legal_actions[0];
      if (view && first) {
        const done = await api.POST("/v1/games/{game_id}/actions", { ...path, body: first, headers: auth });
        if (done.error) throw new Error(`action refused: ${JSON.stringify(done.error)}`);
        acted = true;
        break;
      }
    }
    if (!acted) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await Promise.race([following, new Promise((_, reject) => setTimeout(() => reject(new Error("no deal_scored frame")), 20000))]);
  const gaps = seen.some((id, i) => i > 0 && id !== seen[i - 1] + 1);
  if (gaps || seen[0] !== 1) throw new Error(`frames lost or repeated across the reconnect: ${seen.join(",")}`);
  console.log(`${seen.length} frames in order across a reconnect`);

  const { data: notes } = await api.GET("/v1/players/me/notifications", { headers: seats[0] });
  const turns = (notes?.items ?? []).filter((note) => note.kind === "your_turn");
  if (!turns.length) throw new Error(`no your_turn notification: ${JSON.stringify(notes)}`);
  console.log(`${turns.length} turns notified, the first due ${deadline(turns[0])}`);
}

main().catch((error) => { console.error(error); process.exit(1); });
