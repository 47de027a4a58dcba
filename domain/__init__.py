"""The rules of Preferans (преферанс) and its scoring: pure functions over frozen data."""
