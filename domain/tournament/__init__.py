"""Tournaments (турниры) as a pure decider with its own event stream, docs/tournaments.md.

The map::

    format      the frozen format: game preset + overrides, table size, round length,
                registration, pairing, points, discipline, cuts, teams, duplicate
    messages    commands (imperative) and events (past tense)
    decider     the Tournament state, decide, evolve, fold, and views for the service
    pairing     engines: a no-repeat schedule, Swiss, cuts, uneven fields, uploaded pairings
    draw        verifiable draws (SHA-256 commit-reveal): seats, first dealers, schedules, decks
    points      tournament points: places, damping, cut-offs and caps, tie-breaks, teams
    duplicate   the same deals everywhere: each deal alone, matchpoints and an IMP-like scale

Pure like the rest of the domain: times and secrets come in with the commands.
"""
