// The pool sheet (пулька): the service's own drawing of it, and the same numbers as a table.
import { h } from "../dom.js";
import { lang, t } from "../i18n.js";
import { bidText } from "../cards.js";

const ZOOMS = [1, 1.5, 2, 3];
// The drawings fetched (with the reader's token) as object URLs, by game, version, language
// and token; the last few kept, older ones released.
const drawings = new Map();

function drawingUrl(api, gameId, version, lng) {
  const key = [gameId, version, lng, api.token ?? ""].join("|");
  let made = drawings.get(key);
  if (!made) {
    made = api.sheetSvg(gameId, version, lng).then((blob) => URL.createObjectURL(blob));
    made.catch(() => drawings.delete(key));
    drawings.set(key, made);
    while (drawings.size > 8) {
      const [oldest, url] = drawings.entries().next().value;
      drawings.delete(oldest);
      url.then((gone) => URL.revokeObjectURL(gone), () => {});
    }
  }
  return made;
}
// The sheet is redrawn on every event: a part the reader opened stays open.
const opened = new Set();
const keptOpen = (key, props, ...children) => h("details", {
  ...props, open: opened.has(key),
  ontoggle: (event) => { if (event.target.open) opened.add(key); else opened.delete(key); },
}, ...children);

/**
 * The numbers come from the game view's own sheet (always current); the drawing, the running
 * sums and the deal-by-deal entries from the sheet projection, which may trail it a moment.
 */
export function sheetPanel({ api, gameId, view, sheet, version, names, compact = false }) {
  const totals = view.sheet;
  const seats = totals.pool.map((_, seat) => seat);
  const written = new Map((sheet?.seats ?? []).map((s) => [s.seat, s]));
  const name = (seat) => names[seat] ?? t("seat.n", { n: seat + 1 });
  const result = view.settlement?.result;
  const table = h("table", { class: "sheet-table" },
    h("caption", { class: "visually-hidden" }, t("sheet.caption")),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("player")),
      h("th", { scope: "col" }, t("sheet.pool")),
      h("th", { scope: "col" }, t("sheet.mountain")),
      h("th", { scope: "col" }, t("sheet.whists")),
      result ? h("th", { scope: "col" }, t("result")) : null)),
    h("tbody", {}, seats.map((seat) => h("tr", { dataset: { seat: String(seat) } },
      h("th", { scope: "row" }, name(seat)),
      h("td", { title: written.get(seat)?.pool_written ?? "" }, String(totals.pool[seat])),
      h("td", { title: written.get(seat)?.mountain_written ?? "" }, String(totals.mountain[seat])),
      h("td", {}, seats.filter((other) => other !== seat).map((other) => h("span", { class: "whist-on" },
        t("sheet.on", { p: name(other), n: totals.whists[seat][other] })))),
      result ? h("td", { class: "result" }, signed(result[seat])) : null))));
  const src = drawingUrl(api, gameId, Math.max(version, 0), lang());
  const img = h("img", { class: "sheet-svg", alt: t("sheet.alt") });
  const drawing = h("button", {
    type: "button", class: "sheet-open", dataset: { key: "sheet-open" },
    "aria-label": t("sheet.open"), "aria-haspopup": "dialog",
    onclick: async () => openDrawing(await src),
  }, img, h("span", { class: "sheet-open-label" }, t("sheet.open")));
  src.then((url) => { img.src = url; }, () => { drawing.hidden = true; });
  const deals = (sheet?.deals ?? []).slice().reverse();
  return h("section", { class: ["panel", "sheet", compact && "compact"], "aria-labelledby": `sheet-${gameId}`, dataset: { screen: "sheet" } },
    h("h2", { id: `sheet-${gameId}` }, t("sheet.title")),
    h("p", { class: "muted" }, t("sheet.target", { n: view.rules.pool.target }),
      totals.raspasy_streak ? ` · ${t("sheet.streak", { n: totals.raspasy_streak })}` : ""),
    h("div", { class: "sheet-scroll" }, table),
    compact ? keptOpen(`drawing:${gameId}`, {}, h("summary", { dataset: { key: "sheet-drawing" } }, t("sheet.drawing")), drawing) : drawing,
    deals.length ? keptOpen(`deals:${gameId}`, { class: "deals" }, h("summary", { dataset: { key: "sheet-deals" } }, t("sheet.deals", { n: deals.length })),
      h("ol", { class: "deal-lines", reversed: true }, deals.map((deal) => h("li", { value: String(deal.deal_no) },
        h("strong", {}, dealTitle(deal, name)),
        h("ul", {}, deal.entries.map((e) => h("li", { class: "entry", dataset: { rule: e.rule } },
          entryText(e, name), " ", h("span", { class: "muted why" }, entryWhy(e, name))))))))) : null);
}

/**
 * The drawing full screen in a modal dialog: zoomed by buttons (or + and −), scrolled when larger
 * than the screen; Escape or the close button returns focus to what opened it.
 */
export function openDrawing(src) {
  const opener = document.activeElement;
  let zoom = 0;
  const img = h("img", { class: "sheet-svg zoom-0", src, alt: t("sheet.alt") });
  const level = h("span", { class: "zoom-level", "aria-live": "polite" }, "100%");
  const setZoom = (next) => {
    zoom = Math.max(0, Math.min(ZOOMS.length - 1, next));
    img.className = `sheet-svg zoom-${zoom}`;
    level.textContent = `${ZOOMS[zoom] * 100}%`;
  };
  const close = () => dialog.close();
  const dialog = h("dialog", { class: "sheet-dialog", "aria-labelledby": "sheet-dialog-title",
    onkeydown: (event) => {
      if (event.key === "+" || event.key === "=") { setZoom(zoom + 1); event.preventDefault(); }
      if (event.key === "-") { setZoom(zoom - 1); event.preventDefault(); }
    },
    onclose: () => { dialog.remove(); opener?.focus?.(); } },
  h("div", { class: "sheet-dialog-bar" },
    h("h2", { id: "sheet-dialog-title" }, t("sheet.title")),
    h("span", { class: "row", role: "group", "aria-label": t("sheet.zoom") },
      h("button", { type: "button", class: "zoom-out", "aria-label": t("sheet.zoom.out"), onclick: () => setZoom(zoom - 1) }, "−"),
      level,
      h("button", { type: "button", class: "zoom-in", "aria-label": t("sheet.zoom.in"), onclick: () => setZoom(zoom + 1) }, "+"),
      h("a", { class: "sheet-alone", href: src, target: "_blank", rel: "noopener" }, t("sheet.alone"))),
    h("button", { type: "button", class: "close primary", onclick: close }, t("close"))),
  // Focusable, so the arrow keys scroll a zoomed drawing.
  h("div", { class: "sheet-dialog-body", tabindex: "0", role: "region", "aria-label": t("sheet.drawing") }, img));
  document.body.append(dialog);
  dialog.showModal();
  dialog.querySelector(".zoom-in").focus();
  return dialog;
}

export function dealTitle(deal, name) {
  // By seat; null for a seat that did not play the deal (the dealer sitting out at four).
  const tricks = deal.tricks.flatMap((n, seat) => (n == null ? [] : [`${name(seat)} ${n}`])).join(", ");
  if (deal.kind === "raspasy") return `${t("phase.allpass")}: ${tricks}`;
  const who = deal.declarer != null ? name(deal.declarer) : "";
  return `${who} ${deal.contract ? bidText(deal.contract) : ""} · ${tricks}`;
}

export function entryText(entry, name) {
  const on = entry.on != null ? ` → ${name(entry.on)}` : "";
  return `${name(entry.seat)}: ${t(`entry.${entry.kind}`)} ${signed(entry.amount)}${on}`;
}

/** Why an entry was written: the rule in the reader's words; in English the service's own
 * sentence with the numbers, players named (the service writes seats by index). */
export function entryWhy(entry, name) {
  if (lang() === "en" && entry.explanation) return `(${namedSeats(entry.explanation, name)})`;
  return `(${t(`rule.${entry.rule}`)})`;
}

/** "seat 2" → the player's name, in a sentence the service wrote. */
export function namedSeats(text, name) {
  return text.replace(/\bseat (\d+)(?:'s)?/g, (whole, n) => (whole.endsWith("'s") ? `${name(Number(n))}'s` : name(Number(n))));
}

export function signed(n) {
  if (n == null) return "";
  return n > 0 ? `+${n}` : String(n);
}
