"""The HTTP API, mounted under /v1 by `service.app`: a package per resource, its controllers
beside its wire types, and at the top what every resource shares.

    games/, actions/, players/, accounts/, chat/, read_models/
                 each a resource: ``controllers`` (games has a few) and ``schemas``, the
                 msgspec Structs of its request and response bodies
    text         the field types the schemas share: a card, a bid, a name, a seat
    errors, problems, auth, rate_limits, edge, common, observability, health, docs, openapi, web
                 the cross-cutting parts: problem+json, tokens, limits, the middleware, the
                 helpers controllers share, /metrics, /health, Swagger UI, the spec, the client

Controllers stay thin: decode the request (the resource's `schemas`), call the application
service (`service.games.service`), encode the response. Errors are raised, never rendered here:
`service.api.errors` maps every one of them to problem+json.

Request bodies forbid unknown fields, so a typo (or a ``seat``, which always comes from the
token) fails loudly with 400. Responses may gain fields within /v1; clients ignore the ones they
do not know. JSON names are snake_case throughout, like the domain's. Shared modules reach into
a resource for its wire types only (``schemas``), never its controllers: only the app assembly
mounts those.
"""
