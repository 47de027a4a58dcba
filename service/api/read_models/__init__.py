"""The read models over HTTP: pool sheets, statistics, ratings, replays, export, the
projections' status; `schemas` holds their bodies."""
