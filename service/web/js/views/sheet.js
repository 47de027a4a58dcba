// The pool sheet (пулька): the service's own drawing of it, and the same numbers as a table.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { bidText } from "../cards.js";

export function sheetPanel({ api, gameId, sheet, version, names, compact = false }) {
  const title = h("h2", { id: `sheet-${gameId}` }, t("sheet.title"));
  if (!sheet) return h("section", { class: "panel sheet" }, title, h("p", { class: "muted" }, t("loading")));
  const name = (seat) => names[seat] ?? t("seat.n", { n: seat + 1 });
  const others = (seat) => sheet.seats.filter((s) => s.seat !== seat);
  const table = h("table", { class: "sheet-table" },
    h("caption", { class: "visually-hidden" }, t("sheet.caption")),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, t("player")),
      h("th", { scope: "col" }, t("sheet.pool")),
      h("th", { scope: "col" }, t("sheet.mountain")),
      h("th", { scope: "col" }, t("sheet.whists")),
      sheet.status === "finished" ? h("th", { scope: "col" }, t("result")) : null)),
    h("tbody", {}, sheet.seats.map((s) => h("tr", { dataset: { seat: String(s.seat) } },
      h("th", { scope: "row" }, name(s.seat)),
      h("td", { title: s.pool_written }, String(s.pool)),
      h("td", { title: s.mountain_written }, String(s.mountain)),
      h("td", {}, others(s.seat).map((o) => h("span", { class: "whist-on" },
        t("sheet.on", { p: name(o.seat), n: s.whists[o.seat] ?? 0 })))),
      sheet.status === "finished" ? h("td", { class: "result" }, signed(s.result)) : null))));
  const drawing = h("img", {
    class: "sheet-svg",
    src: api.sheetSvgUrl(gameId, version),
    alt: t("sheet.alt"),
    loading: "lazy",
  });
  const deals = sheet.deals.slice().reverse();
  return h("section", { class: ["panel", "sheet", compact && "compact"], "aria-labelledby": `sheet-${gameId}` },
    title,
    h("p", { class: "muted" }, t("sheet.target", { n: sheet.target ?? "?" }),
      sheet.raspasy_streak ? ` · ${t("sheet.streak", { n: sheet.raspasy_streak })}` : ""),
    table,
    compact ? h("details", {}, h("summary", {}, t("sheet.drawing")), drawing) : drawing,
    deals.length ? h("details", {}, h("summary", {}, t("sheet.deals", { n: deals.length })),
      h("ol", { class: "deal-lines", reversed: true }, deals.map((deal) => h("li", { value: String(deal.deal_no) },
        h("strong", {}, dealTitle(deal, name)),
        h("ul", {}, deal.entries.map((e) => h("li", { title: e.explanation },
          entryText(e, name)))))))) : null);
}

function dealTitle(deal, name) {
  const tricks = Object.entries(deal.tricks).map(([seat, n]) => `${name(Number(seat))} ${n}`).join(", ");
  if (deal.kind === "raspasy") return `${t("phase.allpass")}: ${tricks}`;
  const who = deal.declarer != null ? name(deal.declarer) : "";
  return `${who} ${deal.contract ? bidText(deal.contract) : ""} · ${tricks}`;
}

function entryText(entry, name) {
  const on = entry.on != null ? ` → ${name(entry.on)}` : "";
  return `${name(entry.seat)}: ${t(`entry.${entry.kind}`)} ${entry.amount}${on}`;
}

export function signed(n) {
  if (n == null) return "";
  return n > 0 ? `+${n}` : String(n);
}
