"""Puzzles over HTTP: the next one near the caller's rating, one by id, an attempt, his history."""
