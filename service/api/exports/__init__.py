"""Open data over HTTP: a player's finished games in bulk, and the dumps of every rated game."""
