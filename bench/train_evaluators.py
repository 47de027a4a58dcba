"""Train the expert level's learned evaluators (docs/bots.md §11): data by self-play, labels by
the double-dummy solver, a small network fitted with numpy, written to bots/models/.

    python bench/train_evaluators.py [--seed 1] [--deals 9000] [--whist-deals 5000]
        [--layouts 3] [--whist-layouts 5] [--epochs 40] [--out bots/models/evaluators.npz]
        [--smoke]

- **Declarer model**: deals shuffled from the seed; the seat whose hand looks best by the rules
  of thumb takes the talon; its candidates are the rule-of-thumb discard for every strain, a
  random discard in a random strain, and the misère discard when the hand is near a misère. Each
  candidate (the ten cards kept, the strain, the declarer's place in the order of play, drawn
  at random) is labelled by the double-dummy tricks of the declarer from the opening lead in
  ``--layouts`` layouts of the other twenty cards (the real one and reshuffles of it).
- **Whist model**: pulkas of Sochi at three seats, every seat the basic bot; at each whist
  decision on a trick contract, the defender's cards, the contract, the places and the
  partner's call so far, labelled by the declarer's double-dummy tricks in the real layout and
  in ``--whist-layouts`` − 1 layouts the defender could not tell apart from it (drawn by the
  strong bot's sampler from his view, weighed by the auction).
- **Fit**: a softmax over the trick counts 0 … 10 against the labels' histograms
  (cross-entropy), one hidden layer of 64 ReLU units, Adam, minibatches of 256, 10% held out.

One process, seeded throughout: the same seed and options write the same file. It prints the
time each step took, the held-out loss and the mean absolute error of the predicted mean
tricks against the labels' mean, beside a baseline that predicts the training mean.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _kit import add_smoke

from bots import basic
from bots.evaluate import best_strain, declarer_tricks, miser_danger, miser_discard, trick_discard
from bots.knowledge import read
from bots.learned import (
    MODEL_PATH,
    PARTNER_CALLS,
    STRAIN_INDEX,
    TRICKS,
    Net,
    declarer_features,
    save,
    whist_features,
)
from bots.strong import Solvers, weighted_worlds
from bots.table import Table
from bots.view import BotView
from domain.cards import DECK, MISER, SUITS, level_of, strain_of
from domain.deal.messages import CallWhist, PlayCard, SeatCommand
from domain.rules import rules_for
from domain.simulation import random_deal
from domain.solver import position, solve
from domain.solver.bits import mask_of

HIDDEN = 64


def _solve(solvers: Solvers, hands: dict[int, tuple[str, ...]], focus: int, strain: str) -> int:
    if strain == MISER:
        pos = position(hands, order=(0, 1, 2), turn=0, focus=focus, mode="misere", seats=3)
        guess = 0
    else:
        trump = None if strain == "NT" else strain
        pos = position(hands, order=(0, 1, 2), turn=0, focus=focus, trump=trump, seats=3)
        guess = min(10, round(declarer_tricks(hands[focus], trump) + 1.5))
    return solve(pos, solver=solvers.for_(pos), values=False, guess=guess).focus_tricks


def declarer_data(rng: random.Random, deals: int, layouts: int) -> tuple[np.ndarray, np.ndarray]:
    masks: list[int] = []
    strains: list[int] = []
    slots: list[int] = []
    labels: list[list[float]] = []
    solvers = Solvers()
    for _ in range(deals):
        deck = list(DECK)
        rng.shuffle(deck)
        hands = [tuple(deck[10 * i : 10 * i + 10]) for i in range(3)]
        talon = (deck[30], deck[31])
        seat = max(range(3), key=lambda s: best_strain(hands[s])[1])
        twelve = (*hands[seat], *talon)
        others = [c for h in (hands[(seat + 1) % 3], hands[(seat + 2) % 3]) for c in h]
        cands: list[tuple[str, tuple[str, ...]]] = []
        for s in (*SUITS, "NT"):
            cands.append((s, trick_discard(twelve, None if s == "NT" else s)))
        cands.append((rng.choice((*SUITS, "NT")), tuple(rng.sample(twelve, 2))))
        if miser_danger(hands[seat]) <= 3.0 or rng.random() < 0.1:
            cands.append((MISER, miser_discard(twelve)))
        slot = rng.randrange(3)
        worlds = [others]
        for _ in range(layouts - 1):
            w = list(others)
            rng.shuffle(w)
            worlds.append(w)
        for strain, pair in cands:
            kept = tuple(c for c in twelve if c not in pair)
            hist = [0.0] * TRICKS
            for w in worlds:
                seats: dict[int, tuple[str, ...]] = {slot: kept}
                rest = [x for x in range(3) if x != slot]
                seats[rest[0]], seats[rest[1]] = tuple(w[:10]), tuple(w[10:])
                t = _solve(solvers, seats, slot, strain)
                hist[t] += 1.0 / len(worlds)
            masks.append(mask_of(kept))
            strains.append(STRAIN_INDEX[strain])
            slots.append(slot)
            labels.append(hist)
    return declarer_features(masks, strains, slots), np.array(labels)


class _Stop(Exception):
    pass


def whist_data(rng: random.Random, deals: int, layouts: int) -> tuple[np.ndarray, np.ndarray, int]:
    rules = rules_for("sochi", {"players": 3})
    rows: list[tuple[int, int, int, int, int, int]] = []
    labels: list[list[float]] = []
    solvers = Solvers()
    played = 0
    for i in range(deals):
        table = Table(rules, first_dealer=i % 3)
        cards = random_deal(rng, 3, i % 3)
        played += 1

        def on(seat: int, view: BotView, action: SeatCommand, table: Table = table) -> None:
            if isinstance(action, PlayCard):
                raise _Stop
            if not isinstance(action, CallWhist) or view.game.deal.phase != "whisting":
                return
            k = read(view)
            contract, declarer = k.deal.contract, k.deal.declarer
            if contract is None or contract == MISER or declarer is None or seat not in k.order:
                return
            if any(c.seat == seat for c in k.deal.whist_calls):
                return  # a second call (open or closed play): not a whist decision
            strain = strain_of(contract) or "NT"
            trump = None if strain == "NT" else strain
            partner = next(s for s in k.order if s not in (seat, declarer))
            spoken = {c.seat: c.call for c in k.deal.whist_calls}
            real = table.state.deal.hands  # type: ignore[attr-defined]
            hands_list = [{s: tuple(real[s]) for s in k.order}]
            _, stream = weighted_worlds(k, rng)
            for world, _w in stream:
                if len(hands_list) >= layouts:
                    break
                hands_list.append({x: k.hands[x] if x in k.hands else world[x] for x in k.order})
            hist = [0.0] * TRICKS
            for hands in hands_list:
                pos = position(hands, order=k.order, turn=k.order[0], focus=declarer,
                               trump=trump, seats=3)  # fmt: skip
                t = solve(pos, solver=solvers.for_(pos), values=False,
                          guess=level_of(contract)).focus_tricks  # fmt: skip
                hist[t] += 1.0 / len(hands_list)
            after = (k.order.index(seat) - k.order.index(declarer)) % 3 - 1
            rows.append((mask_of(k.hands[seat]), STRAIN_INDEX[strain], level_of(contract), after,
                         k.order.index(declarer), PARTNER_CALLS[spoken.get(partner)]))  # fmt: skip
            labels.append(hist)

        strategies = [basic.decide] * 3
        with contextlib.suppress(_Stop):
            table.play_deal(cards, strategies, rng, 0.0, on_decision=on)
    cols = list(zip(*rows, strict=True)) if rows else [()] * 6
    x = whist_features(*[np.array(c, dtype=np.int64) for c in cols])
    return x, np.array(labels).reshape(-1, TRICKS), played


def fit(x: np.ndarray, y: np.ndarray, seed: int, epochs: int) -> tuple[Net, dict[str, float]]:
    """A softmax network fitted to label histograms; held-out figures."""
    gen = np.random.default_rng(seed)
    n = x.shape[0]
    perm = gen.permutation(n)
    cut = max(1, n // 10)
    val, tr = perm[:cut], perm[cut:]
    mu = x[tr].mean(axis=0)
    sd = x[tr].std(axis=0) + 1e-3
    xs = (x - mu) / sd
    d = x.shape[1]
    params = {
        "w1": gen.normal(0, np.sqrt(2.0 / d), (d, HIDDEN)),
        "b1": np.zeros(HIDDEN),
        "w2": gen.normal(0, np.sqrt(1.0 / HIDDEN), (HIDDEN, TRICKS)),
        "b2": np.log(y[tr].mean(axis=0) + 1e-4),
    }
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v2 = {k: np.zeros_like(v) for k, v in params.items()}
    lr, b1, b2, step = 3e-3, 0.9, 0.999, 0
    for epoch in range(epochs):
        order = gen.permutation(tr)
        rate = lr * (0.5 if epoch >= epochs * 2 // 3 else 1.0)
        for i in range(0, len(order), 256):
            idx = order[i : i + 256]
            xb, yb = xs[idx], y[idx]
            h_pre = xb @ params["w1"] + params["b1"]
            h = np.maximum(0.0, h_pre)
            z = h @ params["w2"] + params["b2"]
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            g = (p - yb) / len(idx)
            grads = {"w2": h.T @ g, "b2": g.sum(axis=0)}
            gh = (g @ params["w2"].T) * (h_pre > 0)
            grads["w1"] = xb.T @ gh + 1e-5 * params["w1"]
            grads["b1"] = gh.sum(axis=0)
            step += 1
            for k in params:
                m[k] = b1 * m[k] + (1 - b1) * grads[k]
                v2[k] = b2 * v2[k] + (1 - b2) * grads[k] ** 2
                mh = m[k] / (1 - b1**step)
                vh = v2[k] / (1 - b2**step)
                params[k] -= rate * mh / (np.sqrt(vh) + 1e-8)
    net = Net({"mu": mu, "sd": sd, **params})
    p = net.predict(x[val])
    ts = np.arange(TRICKS)
    loss = float(-(y[val] * np.log(p + 1e-9)).sum(axis=1).mean())
    base_p = y[tr].mean(axis=0)
    base_loss = float(-(y[val] * np.log(base_p + 1e-9)).sum(axis=1).mean())
    mae = float(np.abs(p @ ts - y[val] @ ts).mean())
    base_mae = float(np.abs(base_p @ ts - y[val] @ ts).mean())
    return net, {"loss": loss, "base_loss": base_loss, "mae": mae, "base_mae": base_mae,
                 "train": float(len(tr)), "held_out": float(len(val))}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--deals", type=int, default=9000, help="deals for the declarer model")
    p.add_argument("--whist-deals", type=int, default=5000, help="pulka deals for the whist model")
    p.add_argument("--layouts", type=int, default=3)
    p.add_argument("--whist-layouts", type=int, default=5)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--out", default=str(MODEL_PATH))
    add_smoke(p)
    args = p.parse_args()
    if args.smoke:
        args.deals, args.whist_deals, args.epochs = 30, 30, 2
        if args.out == str(MODEL_PATH):
            args.out = "evaluators-smoke.npz"
    rng = random.Random(args.seed)
    t0 = time.process_time()
    xd, yd = declarer_data(rng, args.deals, args.layouts)
    t1 = time.process_time()
    print(f"declarer data: {len(xd)} candidates from {args.deals} deals, "
          f"{len(xd) * args.layouts} solves, {t1 - t0:.1f} s CPU")  # fmt: skip
    xw, yw, played = whist_data(rng, args.whist_deals, args.whist_layouts)
    t2 = time.process_time()
    print(f"whist data: {len(xw)} whist decisions from {played} deals, "
          f"{len(xw) * args.whist_layouts} solves at most, {t2 - t1:.1f} s CPU")  # fmt: skip
    dnet, dfig = fit(xd, yd, args.seed, args.epochs)
    wnet, wfig = fit(xw, yw, args.seed + 1, args.epochs)
    t3 = time.process_time()
    print(f"fit: {t3 - t2:.1f} s CPU")
    for name, fig, net in (("declarer", dfig, dnet), ("whist", wfig, wnet)):
        print(f"{name} model: {net.size} numbers, held-out loss {fig['loss']:.3f} "
              f"(baseline {fig['base_loss']:.3f}), mean tricks off by {fig['mae']:.2f} "
              f"(baseline {fig['base_mae']:.2f}), {fig['train']:.0f} train / "
              f"{fig['held_out']:.0f} held out")  # fmt: skip
    meta = {
        "seed": str(args.seed), "deals": str(args.deals), "whist_deals": str(args.whist_deals),
        "layouts": str(args.layouts), "whist_layouts": str(args.whist_layouts),
        "epochs": str(args.epochs), "cpu_seconds": f"{t3 - t0:.0f}",
    }  # fmt: skip
    out = Path(args.out)
    save(out, dnet, wnet, meta)
    print(f"total: {t3 - t0:.1f} s CPU; wrote {out} ({out.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
