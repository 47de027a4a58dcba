"""Write golden fixtures of the domain's events: tests/fixtures/events/<type>@<schema_version>.json.

    python bench/make_event_fixtures.py            # add fixtures for types that have none
    python bench/make_event_fixtures.py --refresh  # rewrite the current versions' fixtures
    python bench/make_event_fixtures.py --smoke    # every current fixture, into a scratch folder

It plays random pulkas with the pure domain (every preset, three and four players) until each
event type has occurred, and stores the first occurrence as the stored JSON. A fixture is history:
once an event type is released, its fixture is never rewritten; reshaping the event means a new
schema version, an upcaster in service/eventlog/codec.py and a new fixture beside the old one. Use
``--refresh`` only for event types that have never been released.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

import msgspec

from domain import fairness
from domain import game as g
from domain.deal.messages import Claim
from domain.rules import rules_for
from domain.simulation import play_random_pulka
from domain.table import played_for
from service.eventlog.codec import domain_codec

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "events"


# The classic options make the rarer events (dark games, concession, totus, games without the
# talon) possible.
CLASSIC = {
    "play": {"concede": "down2"},
    "classic": {"dark_games": True, "totus": True},
    "bidding": {"talonless_games": True, "miser_without_talon": True},
}


def play(seed: int, preset: str, players: int, classic: bool) -> list[g.Event]:
    """Every event of one random pulka; the classic ones are timed, with a control time and a
    clock of 20 s a command, so that their last round comes."""
    rng = random.Random(seed)
    pool = {"target": 4, **({"time_limit_minutes": 10} if classic else {})}
    options = {"players": players, "pool": pool, **(CLASSIC if classic else {})}
    rules = rules_for(preset, options)
    _, appends = play_random_pulka(rules, rng, ms_per_command=20_000 if classic else None)
    return [event for batch in appends for event in batch]


def play_table(seed: int) -> list[g.Event]:
    """A pulka at a clocked table where everything a table records happens: a seat left and
    taken again, claims, timeouts until a seat is absent, moves made for it, its player back, an
    abandoned seat played for to the end."""
    rng = random.Random(seed)
    rules = rules_for("sochi", {"pool": {"target": 2}, "table": {
        "move_seconds": 10, "bank_seconds": 20, "increment_seconds": 2, "timeouts_to_absent": 2,
    }})  # fmt: skip
    events: list[g.Event] = []
    state: g.GameState = g.INITIAL_STATE
    now = 0

    def do(command: g.Command, seconds: int = 1) -> None:
        nonlocal state, now
        now += seconds * 1000
        new = g.decide(msgspec.structs.replace(command, at=now), state)
        state = g.fold(new, state)
        events.extend(new)

    secret = bytes(range(32))  # a committed game, dealt as the service deals (docs/fairness.md)
    do(g.CreateGame(rules=rules, dealing="random", commitment=fairness.commitment(secret)))
    do(g.TakeSeat(seat=0, player="p0", client_seed="p0's seed"))
    do(g.LeaveSeat(seat=0))
    for seat in range(3):
        do(g.TakeSeat(seat=seat, player=f"p{seat}", client_seed=f"seed {seat}"))
    while not g.is_terminal(state):
        assert isinstance(state, g.Pulka)
        if g.needs_cards(state):
            deck = fairness.deck_for(secret, g.deal_seeds(state), state.deal_no + 1)
            hands, talon = fairness.deal_hands(deck, 3, state.next_dealer)
            do(g.DealCards(hands=hands, talon=talon))
            continue
        seat = g.to_act(state)[0]
        actions = g.legal_actions(state, seat)
        moves = [a for a in actions if not isinstance(a, Claim)]
        table = state.table
        reason = played_for(table, seat)
        if seat == 1 and reason == "absent" and state.deal_no >= 3:
            do(g.ReturnToSeat(seat=seat))
        elif reason is not None:
            do(g.PlayFor(seat=seat, move=moves[0]))
        elif seat == 1 and state.deal_no < 3:
            do(g.TimeOut(seat=seat, move=moves[0]), seconds=31)
        elif seat == 2 and state.deal_no >= 4 and not table.abandoned:
            do(g.AbandonSeat(seat=seat))
        elif len(moves) < len(actions) and rng.random() < 0.3:
            do(rng.choice(actions[len(moves) :]))
        else:
            do(rng.choice(moves))
    do(g.RevealSecret(secret=secret.hex()))
    return events


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--refresh", action="store_true", help="rewrite current fixtures")
    parser.add_argument("--games", type=int, default=400, help="pulkas to play at most")
    parser.add_argument("--out", type=Path, default=FIXTURES, help="where to write them")
    parser.add_argument(
        "--smoke", action="store_true", help="--refresh into a temporary folder: it still runs"
    )
    args = parser.parse_args()
    if args.smoke:
        args.refresh, args.out = True, Path(tempfile.mkdtemp(prefix="event-fixtures-"))
    try:
        return write(args.out, args.refresh, args.games)
    finally:
        if args.smoke:
            shutil.rmtree(args.out)


def write(out: Path, refresh: bool, games: int) -> int:
    """The fixtures missing from ``out`` (every current one with ``refresh``); 1 if some event
    type never occurred."""
    codec = domain_codec()
    wanted = {
        name: version
        for name, version in codec.current_versions.items()
        if refresh or not (out / f"{name}@{version}.json").exists()
    }
    out.mkdir(parents=True, exist_ok=True)
    written = 0
    presets = [
        (p, n, classic)
        for p in ("sochi", "leningrad", "rostov")
        for n in (3, 4)
        for classic in (False, True)
    ]
    for seed in range(games):
        if not wanted:
            break
        table = play_table(seed) if seed % 2 == 0 else []
        for event in table + play(seed, *presets[seed % len(presets)]):
            name, version, data = codec.encode(event)
            if wanted.get(name) == version:
                text = json.dumps(json.loads(data), indent=2, ensure_ascii=False) + "\n"
                (out / f"{name}@{version}.json").write_text(text, encoding="utf-8")
                print(f"wrote {name}@{version}.json")
                del wanted[name]
                written += 1
    for name, version in sorted(wanted.items()):
        print(f"never occurred: {name}@{version}; write its fixture by hand", file=sys.stderr)
    print(f"{written} fixtures written, {len(wanted)} event types never occurred")
    return 1 if wanted else 0


if __name__ == "__main__":
    sys.exit(main())
