"""The games resource: the lobby, a new game, its table (seats, bots, invites, leaving), what a
seat sees of it, and its event pages and live stream; `schemas` holds their bodies."""
