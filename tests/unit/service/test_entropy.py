"""The service's one source of randomness: the system's draws are fresh each time; a seeded
source repeats itself run after run, one sequence per kind of draw; and nothing a player's
security rests on is drawn from it."""

from __future__ import annotations

from domain import fairness
from service.games.dealing import SECRET_BYTES, new_source
from service.games.service import client_seed, game_spec
from service.platform.entropy import SYSTEM_ENTROPY, Entropy, SeededEntropy
from service.platform.settings import Settings


def draws(entropy: Entropy) -> tuple[object, ...]:
    return (
        entropy.secret(SECRET_BYTES),
        entropy.client_seed(),
        entropy.command_bytes(32),
        entropy.generator().random(),
    )


def test_the_system_entropy_draws_afresh_each_time() -> None:
    first, second = draws(SYSTEM_ENTROPY), draws(SYSTEM_ENTROPY)
    assert all(a != b for a, b in zip(first, second, strict=True))
    assert not SYSTEM_ENTROPY.seeded


def test_a_seeded_entropy_draws_the_same_sequence_on_every_run_and_another_seed_another() -> None:
    seeded, again = SeededEntropy("t"), SeededEntropy("t")
    run = [draws(seeded) for _ in range(3)]
    assert run == [draws(again) for _ in range(3)]
    assert len(set(run)) == 3  # each draw is a new one
    assert draws(SeededEntropy("u")) != run[0]
    assert SeededEntropy("t").seeded


def test_a_bots_draws_do_not_move_a_games_secret_or_its_client_seeds() -> None:
    quiet, busy = SeededEntropy("t"), SeededEntropy("t")
    for _ in range(5):
        busy.generator()
        busy.command_bytes(32)
    assert quiet.secret(SECRET_BYTES) == busy.secret(SECRET_BYTES)
    assert quiet.client_seed() == busy.client_seed()


def test_the_same_seeded_entropy_gives_a_new_game_the_same_secret_seeds_and_decks() -> None:
    """For a game of the first derivation (its secret drawn by the service); a new game's
    secret is the database's (migration 0018): its spec holds none."""

    def a_game(entropy: Entropy) -> tuple[bytes | None, tuple[str, ...], tuple[str, ...]]:
        spec = game_spec(
            preset="sochi", overrides=None, seats=3, first_dealer=0, layouts=(), seed=None,
            seat=0, entropy=entropy,
        )  # fmt: skip
        assert spec.client_seed is not None and spec.source.secret is None
        assert spec.source.scheme == 2
        source = new_source(3, entropy=entropy)
        assert source.secret is not None
        seeds = (spec.client_seed, client_seed(None, entropy), client_seed(None, entropy))
        return source.secret, seeds, fairness.deck_for(source.secret, seeds, 1)

    assert a_game(SeededEntropy("t")) == a_game(SeededEntropy("t"))
    assert a_game(SeededEntropy("t"))[2] != a_game(SeededEntropy("u"))[2]
    assert a_game(SYSTEM_ENTROPY)[0] != a_game(SYSTEM_ENTROPY)[0]


def test_a_players_own_client_seed_and_a_seeded_games_seed_are_kept_as_given() -> None:
    entropy = SeededEntropy("t")
    assert client_seed("Anna's own", entropy) == "Anna's own"
    assert new_source(3, seed="tournament-7", entropy=entropy).secret == fairness.seed_secret(
        "tournament-7"
    )
    assert entropy.client_seed() == SeededEntropy("t").client_seed()  # nothing was drawn


def test_no_setting_selects_the_entropy() -> None:
    """A seeded source is passed in code by a test, never chosen by the environment."""
    assert not [f for f in Settings.__struct_fields__ if "entropy" in f or "seed" in f]
