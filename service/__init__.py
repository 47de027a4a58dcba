"""The Preferans service: event store, command handling, HTTP API and CLI.

The only package that touches the world (database, network, clock, randomness); it depends on
``domain`` and ``projections``, never the other way round.
"""
