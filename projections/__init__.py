"""Read models folded from the game's events: pool sheet, statistics, ratings, replays.

Every read model here is pure: ``apply(model, event) -> model`` with no I/O, clock or database,
so it is tested without PostgreSQL and a rebuild is a replay. The service (`service.projections`)
feeds the models from the global log and stores each one with its feed position in one
transaction.

- `projections.sheet`: the live pool sheet (пулька) of one game, its deals explained, the
  settlement (расчёт) once the game is over; `projections.sheet_svg` draws it as the classic
  hand-written sheet.
- `projections.stats`: per game and seat counters (contracts, misère, whists, all-pass tricks),
  combined per player on reading.
- `projections.ratings`: a multiplayer rating (openskill Plackett–Luce) updated by each settlement.
- `projections.replay`: a finished deal step by step, rebuilt by folding its events.
"""
