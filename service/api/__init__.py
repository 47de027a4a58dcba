"""The HTTP API's controllers, one module per resource; mounted under /v1 by `service.app`.

Controllers stay thin: decode the request (msgspec Structs in `schemas`), call the application
service (`service.games.service`), encode the response. Errors are raised, never rendered here:
`service.api.errors` maps every one of them to problem+json.
"""
