"""Tournaments over HTTP: events, registration, rounds, the arbiter, standings live."""
