"""The analysis in words: a deal analysis' sentences in the viewer's language (English or
Russian), made from its figures when the replay is read.

The stored analysis keeps figures (par, costs, values, intervals); `worded` writes its summary,
each mistake's explanation and each decision's sentence in ``lang``, naming the players when
the caller knows their names (else ``seat 0`` / ``место 0``). The API words a replay's analysis
as its ``lang`` or ``Accept-Language`` asks, as it does the drawn sheet
(`projections.sheet_svg`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from domain.cards import MISER, level_of
from domain.outcome import DealKind
from projections.sheet_svg import Lang

if TYPE_CHECKING:
    from projections.analysis import CardAnalysis, DealAnalysis
    from projections.decisions import DecisionAnalysis

Names = Sequence[str | None]

_SUIT = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}
_KIND = {
    "en": {"bid": "Auction", "discard": "Discard", "contract": "Contract", "whist": "Whisting",
           "play_choice": "Open or closed play", "claim": "Claim"},
    "ru": {"bid": "Торговля", "discard": "Снос", "contract": "Заказ", "whist": "Вист",
           "play_choice": "Игра в светлую или втёмную", "claim": "Заявка"},
}  # fmt: skip
_WORD = {
    "en": {"PASS": "pass", "TAKE_TALON": "take the talon", "CONCEDE": "concede",
           "MISER": "misère", "NT": "NT", "WT": " without the talon", "DARK": " in the dark",
           "whist": "whist", "pass": "pass", "half_whist": "half-whist", "open": "open play",
           "closed": "closed play", "accept": "accept the claim", "reject": "play on"},
    "ru": {"PASS": "пас", "TAKE_TALON": "взять прикуп", "CONCEDE": "сдаться",
           "MISER": "мизер", "NT": "БК", "WT": " без прикупа", "DARK": " втёмную",
           "whist": "вист", "pass": "пас", "half_whist": "полвиста", "open": "в светлую",
           "closed": "втёмную", "accept": "принять заявку", "reject": "играть дальше"},
}  # fmt: skip


def worded(analysis: DealAnalysis, lang: Lang, names: Names = ()) -> DealAnalysis:
    """``analysis`` with its summary, its mistakes' explanations and its decisions' sentences
    written in ``lang``, players named by ``names`` (by seat) where given."""
    mistakes = tuple(
        msgspec.structs.replace(
            m,
            explanation=mistake_sentence(
                analysis.cards[m.step], m.decisive, analysis.kind, analysis.contract, lang, names
            ),
        )
        for m in analysis.mistakes
        if m.step < len(analysis.cards)
    )
    decisions = tuple(
        msgspec.structs.replace(d, summary=decision_sentence(d, lang, names))
        for d in analysis.decisions
    )
    out = msgspec.structs.replace(analysis, mistakes=mistakes, decisions=decisions)
    return msgspec.structs.replace(out, summary=summary_sentences(out, lang, names))


# ---- pieces ----------------------------------------------------------------------------------


def seat_name(seat: int, lang: Lang, names: Names = ()) -> str:
    name = names[seat] if 0 <= seat < len(names) else None
    if name:
        return name
    return f"seat {seat}" if lang == "en" else f"место {seat}"


def card_text(card: str) -> str:
    """``TS`` → ``10♠``."""
    rank = "10" if card[0] == "T" else card[0]
    return f"{rank}{_SUIT.get(card[1], card[1])}"


def bid_text(bid: str, lang: Lang) -> str:
    """``7S`` → ``7♠``, ``8NT`` → ``8NT`` / ``8БК``, ``MISERWT`` → misère without the talon."""
    words = _WORD[lang]
    wt = bid.endswith("WT")
    core = bid[:-2] if wt else bid
    if core == MISER:
        text = words["MISER"]
    elif core.endswith("NT"):
        text = core[:-2] + words["NT"]
    else:
        text = core[:-1] + _SUIT.get(core[-1], core[-1])
    return text + (words["WT"] if wt else "")


def action_text(action: str, kind: str, lang: Lang) -> str:
    """A decision's alternative (`projections.decisions.DecisionAnalysis.action`) in words."""
    words = _WORD[lang]
    dark = action.endswith(" DARK")
    core = action.removesuffix(" DARK")
    if kind == "discard":
        text = " ".join(card_text(c) for c in core.split())
    elif core in words and (kind != "bid" or core.isupper()):
        text = words[core]
    else:
        text = bid_text(core, lang)
    return text + (words["DARK"] if dark else "")


def _number(x: float, lang: Lang) -> str:
    text = f"{x:.1f}".replace("-", "−")
    return text.replace(".", ",") if lang == "ru" else text


def _plural_ru(n: int, one: str, few: str, many: str) -> str:
    if n % 10 == 1 and n % 100 != 11:
        return one
    if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
        return few
    return many


def _tricks(n: int, lang: Lang) -> str:
    if lang == "en":
        return f"{n} trick" if n == 1 else f"{n} tricks"
    return f"{n} {_plural_ru(n, 'взятка', 'взятки', 'взяток')}"


def _layouts(n: int, exhaustive: bool, lang: Lang) -> str:
    if lang == "en":
        word = "layout" if n == 1 else "layouts"
        return f"every one of the {n} {word}" if exhaustive else f"{n} {word}"
    word = _plural_ru(n, "расклад", "расклада", "раскладов")
    return f"все {n} {word}" if exhaustive else f"{n} {word}"


def _whists(x: float, lang: Lang) -> str:
    return f"{_number(x, lang)} " + ("whists" if lang == "en" else "виста")


# ---- cards -------------------------------------------------------------------------------------


def mistake_sentence(
    c: CardAnalysis,
    decisive: bool,
    kind: DealKind | None,
    contract: str | None,
    lang: Lang,
    names: Names = (),
) -> str:
    """What a costly card did, and (``decisive``) the verdict it changed."""
    p, judged = seat_name(c.seat, lang, names), seat_name(c.judged, lang, names)
    best = ", ".join(card_text(b) for b in c.best)
    if lang == "en":
        text = (
            f"trick {c.trick}: {p} played {card_text(c.card)}, costing {_tricks(c.cost, lang)} "
            f"(par {c.par} → {c.after} for {judged}; best: {best})"
        )
    else:
        text = (
            f"взятка {c.trick}: {p}, {card_text(c.card)} — потеря: {_tricks(c.cost, lang)} "
            f"(при лучшей игре {c.par} → {c.after} у игрока {judged}; лучше: {best})"
        )
    return text + (_verdict(c, kind, contract, lang) if decisive else "")


def _verdict(c: CardAnalysis, kind: DealKind | None, contract: str | None, lang: Lang) -> str:
    en = lang == "en"
    if kind == "raspasy":
        if c.par != 0:
            return ""
        return ": the zero-trick bonus is lost" if en else ": премия за ни одной взятки потеряна"
    if kind == "miser" or contract == MISER:
        if c.after > 0:
            return ": the misère is now caught" if en else ": мизер теперь ловится"
        return ": the misère now escapes" if en else ": мизер теперь уходит"
    level = level_of(contract) if contract else 0
    name = bid_text(contract or "", lang)
    if c.after < level:
        return f": {name} now fails" if en else f": {name} теперь без взяток"
    return f": {name} now makes" if en else f": {name} теперь выполняется"


def summary_sentences(analysis: DealAnalysis, lang: Lang, names: Names = ()) -> tuple[str, ...]:
    """The deal's summary: par and the result, the decisive mistakes (or that none was made),
    then the decisions' count by verdict and every decision that was a mistake."""
    en = lang == "en"
    lines: list[str] = []
    if analysis.cards:
        lines += _card_lines(analysis, lang, names)
    else:
        lines.append("The deal ended without play." if en else "Сдача кончилась без розыгрыша.")
    decisions = analysis.decisions
    if decisions:
        count = {v: sum(d.verdict == v for d in decisions) for v in ("best", "close", "mistake")}
        n = len(decisions)
        if en:
            lines.append(
                f"{n} decision{'s' if n != 1 else ''} judged over the layouts each player could "
                f"not tell apart: {count['best']} best, {count['close']} close, "
                f"{count['mistake']} mistake{'s' if count['mistake'] != 1 else ''}."
            )
        else:
            lines.append(
                f"Оценено решений: {n} (по раскладам, неотличимым для игрока): лучших "
                f"{count['best']}, близких {count['close']}, ошибок {count['mistake']}."
            )
        lines += [decision_sentence(d, lang, names) for d in decisions if d.verdict == "mistake"]
    return tuple(line[:1].upper() + line[1:] for line in lines)


def _card_lines(analysis: DealAnalysis, lang: Lang, names: Names) -> list[str]:
    en = lang == "en"
    lines: list[str] = []
    seats = range(len(analysis.result))
    if analysis.kind == "raspasy":
        worst = ", ".join(
            f"{seat_name(s, lang, names)} {analysis.opening_par[s]}"
            for s in seats
            if s < len(analysis.opening_par) and analysis.opening_par[s] is not None
        )
        took = ", ".join(
            f"{seat_name(s, lang, names)} {analysis.result[s]}"
            for s in seats
            if analysis.result[s] is not None
        )
        lines.append(
            f"All-pass: worst cases at the opening lead {worst}; taken {took}."
            if en
            else f"Распасы: худшее к первому ходу — {worst}; взято: {took}."
        )
    elif analysis.declarer is not None:
        d = analysis.declarer
        par = analysis.opening_par[d] if d < len(analysis.opening_par) else None
        taken = analysis.result[d] if d < len(analysis.result) else None
        name, contract = seat_name(d, lang, names), bid_text(analysis.contract or "", lang)
        lines.append(
            f"{contract} by {name}: par {par} tricks at the opening lead, taken {taken}."
            if en
            else f"{contract}, играет {name}: при лучшей игре {par} к первому ходу, взято {taken}."
        )
    decisive = [m for m in analysis.mistakes if m.decisive]
    if decisive:
        head = "Decisive: " if en else "Решающая ошибка: "
        lines += [f"{head}{m.explanation}." for m in decisive]
    elif analysis.mistakes:
        n = len(analysis.mistakes)
        lines.append(
            f"No decisive mistake; {n} card{'s' if n != 1 else ''} gave tricks away."
            if en
            else f"Решающих ошибок нет; карт, отдавших взятки: {n}."
        )
    else:
        lines.append("Every card kept par." if en else "Все карты сыграны без потерь.")
    return lines


# ---- decisions ---------------------------------------------------------------------------------


def decision_sentence(d: DecisionAnalysis, lang: Lang, names: Names = ()) -> str:
    """One decision's verdict: the choice, what it was worth against the best alternative, its
    interval and the layouts it was judged over."""
    en = lang == "en"
    head = f"{_KIND[lang][d.kind]}, {seat_name(d.seat, lang, names)}: "
    head += action_text(d.action, d.kind, lang)
    layouts = _layouts(d.samples, d.exhaustive, lang)
    interval = (
        ""
        if d.exhaustive
        else ("no interval from one layout; " if en else "без интервала по одной раскладке; ")
        if d.low is None or d.high is None
        else (
            f"95% interval {_number(d.low, lang)} … {_number(d.high, lang)}; "
            if en
            else f"95% интервал {_number(d.low, lang)} … {_number(d.high, lang)}; "
        )
    )
    best = action_text(d.best, d.kind, lang)
    if d.verdict == "best":
        others = [o for o in d.options if o.action != d.action]
        chosen = next((o.value for o in d.options if o.action == d.action), 0.0)
        if others:
            gap = chosen - others[0].value
            nxt = action_text(others[0].action, d.kind, lang)
            if gap < 0.005:
                tail = (
                    f"as good as {nxt} ({layouts})" if en else f"не хуже, чем «{nxt}» ({layouts})"
                )
            else:
                tail = (
                    f"next best {nxt}, {_whists(gap, lang)} less ({layouts})"
                    if en
                    else f"следующий: «{nxt}», на {_whists(gap, lang)} меньше ({layouts})"
                )
        else:
            tail = f"({layouts})"
        return f"{head} — " + ("the best choice; " if en else "лучший выбор; ") + tail + "."
    if d.verdict == "mistake":
        return (
            f"{head} — a mistake: {_whists(d.loss, lang)} lost against {best} "
            f"({interval}{layouts})."
            if en
            else f"{head} — ошибка: потеряно {_whists(d.loss, lang)} против «{best}» "
            f"({interval}{layouts})."
        )
    if (d.low is not None and d.low > 0) or (d.exhaustive and d.loss > 0):
        how = "a small loss" if en else "небольшая потеря"
    elif d.low is None:  # one layout cannot say whether the loss is noise
        how = "too few layouts to tell" if en else "по одной раскладке не судить"
    else:
        how = "within the noise" if en else "в пределах разброса"
    return (
        f"{head} — {_whists(d.loss, lang)} below {best}, {how} ({interval}{layouts})."
        if en
        else f"{head} — на {_whists(d.loss, lang)} меньше, чем «{best}», {how} "
        f"({interval}{layouts})."
    )
