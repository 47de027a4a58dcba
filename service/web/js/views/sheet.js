// The pool sheet (пулька): the service's own drawing of it, and the same numbers as a table.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { bidText } from "../cards.js";

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
  const drawing = h("img", {
    class: "sheet-svg",
    src: api.sheetSvgUrl(gameId, Math.max(version, 0)),
    alt: t("sheet.alt"),
  });
  const deals = (sheet?.deals ?? []).slice().reverse();
  return h("section", { class: ["panel", "sheet", compact && "compact"], "aria-labelledby": `sheet-${gameId}` },
    h("h2", { id: `sheet-${gameId}` }, t("sheet.title")),
    h("p", { class: "muted" }, t("sheet.target", { n: view.rules.pool.target }),
      totals.raspasy_streak ? ` · ${t("sheet.streak", { n: totals.raspasy_streak })}` : ""),
    table,
    compact ? h("details", {}, h("summary", {}, t("sheet.drawing")), drawing) : drawing,
    deals.length ? h("details", { class: "deals" }, h("summary", {}, t("sheet.deals", { n: deals.length })),
      h("ol", { class: "deal-lines", reversed: true }, deals.map((deal) => h("li", { value: String(deal.deal_no) },
        h("strong", {}, dealTitle(deal, name)),
        h("ul", {}, deal.entries.map((e) => h("li", { title: e.explanation },
          entryText(e, name)))))))) : null);
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
  return `${name(entry.seat)}: ${t(`entry.${entry.kind}`)} ${entry.amount}${on}`;
}

export function signed(n) {
  if (n == null) return "";
  return n > 0 ? `+${n}` : String(n);
}
