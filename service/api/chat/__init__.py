"""The chat resource: the table's chat (post, page, mute, report, "phrases only") and the
rematch offer; `schemas` holds their bodies."""
