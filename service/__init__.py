"""The Preferans service: event store, command handling, HTTP API and CLI.

The only package that touches the world (database, network, clock, randomness); it depends on
``domain`` and ``projections``, never the other way round. One module per concern::

    app              the composition root: builds every collaborator once, mounts /v1
    cli              the ``preferans`` command (serve, db, openapi, projections, games)
    settings         every knob, read once from the environment
    preflight        the checks before a start: one line and an exit code per bad setup
    database         where the database is, migrations, the asyncpg pool
    metrics          the service's Prometheus metrics, multiprocess across serve's processes
    telemetry        the request id, the log format, OpenTelemetry traces

    event_store      the SQL of the log: append, read, the xid8 feed, keys, NOTIFY hints
    event_log        the store paired with the codec: the one object that reads and writes
    ├── codec        domain events <-> stored JSON, upcasters of every old shape
    └── chain        the hash chain es.append computes, recomputed (a command's new head)
    commands         the command handler over a decider: load, decide, append, retry, keys

    game_commands    what a player asks of a game, and the pure decider that answers it
    └── dealing      where the cards come from: fixed layouts, decks from the committed secret
    games            the games' application service: create, join, act, read as one viewer
    lobby            every game's summary, written with the events it summarises
    players          players, their kinds and hashed bearer tokens
    live             the SSE fan-out: one poller per process for every follower
    game_export      a finished game as NDJSON, and imported back as the same game
    └── proof        a game's chain, commitment and decks checked (verify, /proof)

    projection_runner  read models following the feed, checkpointed, rebuilt blue/green
    ├── read_models    each projection's SQL, and how the API reads it
    └── analyst        the double-dummy analysis of finished games, in a worker process

    exceptions       the service's refusals, free of HTTP
    errors           the one place that maps every error to problem+json
    streams, cursors, lru   stream ids, opaque page cursors, the one LRU

    api/             the HTTP layer: one controller module per resource, schemas, auth;
                     observability (request ids, /metrics), docs (Swagger UI at /schema)
"""
