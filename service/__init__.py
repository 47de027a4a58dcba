"""The Preferans service: event store, command handling, HTTP API and CLI.

The only package that touches the world (database, network, clock, randomness); it depends on
``domain``, ``projections`` and ``bots``, never the other way round. Its modules live in rooms,
one per feature; a room imports only the rooms listed before it (a test checks, and that every
module is named here). docs/architecture.md draws it::

    exceptions          the service's refusals, free of HTTP: the vocabulary every room shares

    platform/           what every process needs, whatever it serves
        settings        every knob, read once from the environment
        clock           the one clock of stamps and deadlines, injected (a manual one in tests)
        entropy         the one source of a game's random draws, injected (a seeded one in tests)
        worker_kit      the one background loop: a worker's step, wake-ups, errors, metrics, lag
        leadership      one process leads a job: advisory locks held on a connection of its own
        leases          due rows of a table of jobs, claimed with a moving timestamp, SKIP LOCKED
        preflight       the checks before a start: one line and an exit code per bad setup
        database        where the database is, migrations, the asyncpg pool
        embedded        the embedded PostgreSQL: started, shared, stopped by its last user
        metrics         the service's Prometheus metrics, multiprocess across serve's processes
        telemetry       the request id, the log format, OpenTelemetry traces
        orphans         processes the service starts die with the one that started them
        cursors         opaque page cursors, one codec for every list
        lru             the one least-recently-used map of the in-memory caches

    eventlog/           the log, knowing no game
        store           the SQL of the log: append, read, the xid8 feed, keys, NOTIFY hints
        log             the store paired with the codec: the one object that reads and writes
        codec           domain events <-> stored JSON, upcasters of every old shape
        chain           the hash chain es.append computes, recomputed (a command's new head)
        snapshots       folded states cached in the database, so a cold process folds a tail
        handler         the command handler over a decider: load, decide, append, retry, keys
        hints           the process's one LISTEN connection: every append hint, to every worker
        group_commit    the commands that arrive together, sent in one round trip and commit

    players/            who plays
        names           what a name may hold, and its TR39 skeleton: names that look alike
        accounts        players, their kinds and hashed bearer tokens
        passwords       logins, passwords and recovery codes: their checks and argon2id proofs
        signin          accounts on players: a login and password, signing in, recovery
        passkeys        WebAuthn passkeys: registered, listed, removed, signing in
        oauth           OAuth 2.1 for apps (authlib): apps, consent, PKCE codes, rotating tokens
        invites         invite codes to private tables
        notifications   each player's notifications, paged or followed live
        bots            the service's own bots as players, a fixed identity per level and seat

    games/              the game as an application
        commands        what a player asks of a game, and the pure decider that answers it
        dealing         where the cards come from: fixed layouts, decks from the committed secret
        streams         a game's stream id: nothing else knows the prefix
        lobby           every game's summary, written with the events it summarises
        lobby_live      the public lobby's changed summaries, pushed to its followers
        service         the games' application service: create, join, act, read as one viewer
        live            the SSE fan-out: one poller per process for every follower
        chat            the table's chat beside the log: rooms, limits, mutes, reports, live
        rematch         "play again": the offer, the answers, the new game with the same rules
        export          a finished game as NDJSON or PPN, and imported back as the same game
        bulk            many finished games read in pages: a player's streamed, a dump's
        proof           a game's chain, commitment and decks checked (verify, /proof)
        tournaments     tournaments: their own streams, their tables' games, their secrets,
                        the duplicate tables' embargo
        studies         what-if studies: a finished deal forked into a stream of its own,
                        played on by hand or by bots, compared, annotated, shared

    read_models/        what is folded from the log for reading
        storage         each projection's SQL, and how the API reads it
        runner          read models following the feed, checkpointed, rebuilt blue/green
        analyst         the double-dummy analysis of finished games, in a worker process
        miner           puzzles mined from finished games, in a worker process
        puzzles         the puzzles as players meet them: the next one, attempts, ratings
        moderation      the moderator role, and the collusion report it may read

    workers/            the service acting by itself
        steward         timeouts and moves for absent seats; the bots' duty in the bot worker
        key_purger      expired idempotency keys, old notifications and invites, purged
        clerk           the tournaments' results recorded, rounds closed and started, the
                        daily robot duplicate
        dumps           every finished rated game in a gzip file now and then, its checksum
                        and heads; the dumps listed and served

    api/                all of HTTP: a package per resource, its controllers beside its wire
                        schemas (msgspec Structs); what every resource shares at the top
        errors          the one place that maps every error to problem+json
        rate_limits     limits per token and address, counted in PostgreSQL
        edge            what every request meets first (the one ASGI middleware): its id and
                        metrics, limits, strict input, a game's 304 from memory
        auth            bearer tokens: who is calling
        text            the wire's shared field types: a card, a bid, a name, a seat
        common          what the controllers share: headers, rendering a command's outcome
        oauth           OAuth 2.1 over HTTP: metadata, authorize, token, revoke, introspect;
                        apps and consent
        health, problems, observability, docs, openapi, web
                        /health, the problem pages, request ids and /metrics, Swagger UI,
                        the spec's finishing pass, the web client's files
        games/          the games: the lobby, a new game, its table, its views, its events
            controllers, table, views, events
                        the lobby and a new game; seats, bots, invites and leaving; what a
                        seat sees; the event pages and the live stream
            schemas     a new game and its rules overrides, a game's outcome, snapshot and
                        event pages
        actions/        a seat's actions
            controllers, schemas
                        one action posted to a game; its bodies, one to one with the
                        domain's seat commands
        players/        who plays
            controllers, schemas
                        registering; the caller's tokens, games and notifications (paged or
                        followed live); invites' bodies
        tournaments/    tournaments: events, registration, rounds, the arbiter, standings live
            controllers, schemas
                        the routes; their bodies
        puzzles/        puzzles: the next one, one by id, an attempt, the caller's history
            controllers, schemas
                        the routes; the attempt's body
        studies/        what-if studies: fork, read, move, annotate, share, compare
            controllers, schemas
                        the routes; their bodies
        moderation/     fair play: the collusion report, for moderators only
            controllers, schemas
                        the routes; the caller's role
        accounts/       signing in
            controllers, schemas
                        a login, a password and passkeys on the caller's player; sessions
        chat/           the table's talk
            controllers, schemas
                        the chat (post, page, mute, report, phrases only) and "play again"
        exports/        open data: a player's games in bulk, the dumps (with HTTP ranges)
            controllers, schemas
                        the routes; the dumps' list
        read_models/    what is read from the projections and the log
            controllers, schemas
                        sheets, statistics, ratings, replays, export, the projections' status

    bootstrap           the composition root: every process's collaborators, built once by role
    app                 the app assembly: the collaborators from bootstrap, mounted under /v1
    server              ``preferans serve`` as processes: granian and its app workers, the bot
                        and background workers beside them
    cli                 the ``preferans`` command (serve, bots, db, openapi, projections, games)
"""
