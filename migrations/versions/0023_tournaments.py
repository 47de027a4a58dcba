"""Tournaments in the service (issue 24): their streams, their secrets, their tables.

- ``es.stream_kinds`` gets the ``tournament`` kind (``tournament-<uuid>``), filled from
  ``domain.tournament.messages.TournamentEvent`` (tests/integration/test_tournament_log.py keeps
  the two equal): ``tournament_created`` first, every other event anywhere (appeals, adjustments
  and the deals' reveal come after ``tournament_ended``).
- ``api.tournament_secrets``: the secrets a tournament's draws come from, one per slot
  (``round-<n>`` for each round's seats and schedule, ``deals`` for a duplicate's decks), drawn
  here by ``api.draw_tournament_secret`` (three ``gen_random_uuid`` hashed, as
  ``api.draw_secret`` draws a game's); the caller gets the SHA-256 commitment. No service role
  reads the table: ``api.tournament_secret`` gives a round's secret to the service that starts
  the round (its draws need it; only its commitment is in the log until ``round_ended``), and the
  deals' secret to the service that creates a round's duplicate tables or, once the stream holds
  ``tournament_ended``, reveals it.
- ``api.tournaments``: each tournament's summary for the list (name, kind, status, organiser).
- ``api.tournament_tables``: each table's game, with its round, table, players and whether its
  result is recorded yet; ``embargoed`` marks a duplicate table whose cards stay hidden from
  everyone but its seats until its event ends (``api.tournament_ended`` clears it).
- ``api.notify_tournament_table``: the seated players of a table told where to play
  (``tournament_table``).

Revision ID: 0023_tournaments
Revises: 0020_accounts
Create Date: 2026-12-02
"""

from alembic import op

from migrations import APP_ROLE, BOTS_ROLE, TAKE_OWNERSHIP

revision = "0023_tournaments"
down_revision = "0022_oauth"
branch_labels = None
depends_on = None

EVENTS = (
    "player_registered", "player_checked_in", "player_withdrew", "check_in_closed", "field_cut",
    "schedule_drawn", "round_started", "table_result_recorded", "player_removed", "yellow_card",
    "disqualified", "round_ended", "tournament_ended", "deals_revealed", "lineup_named",
    "robot_run_started", "table_paused", "table_resumed", "player_replaced", "result_adjusted",
    "result_annulled", "appeal_recorded",
)  # fmt: skip
"""Every tournament event after the first (``tournament_created``), each at schema 1."""

_CATALOG = ", ".join(
    ['"tournament_created": {"v": 1, "place": "first"}']
    + [f'"{name}": {{"v": 1, "place": "any"}}' for name in EVENTS]
)

TABLES = f"""
INSERT INTO es.stream_kinds (stream_type, events) VALUES ('tournament', '{{{_CATALOG}}}');

CREATE TABLE api.tournament_secrets (
  tournament_id  uuid NOT NULL,
  slot           text NOT NULL CHECK (slot ~ '^(round-[0-9]+|deals)$'),
  secret         bytea NOT NULL CHECK (length(secret) = 32),
  drawn_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tournament_id, slot)
);
REVOKE ALL ON api.tournament_secrets FROM PUBLIC;

CREATE TABLE api.tournaments (
  tournament_id  uuid PRIMARY KEY,
  name           text NOT NULL CHECK (length(name) BETWEEN 1 AND 120),
  kind           text NOT NULL CHECK (kind IN ('swiss', 'schedule', 'duplicate', 'robot')),
  status         text NOT NULL CHECK (status IN ('registering', 'running', 'finished')),
  organiser      uuid,
  daily          date UNIQUE,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tournaments_newest ON api.tournaments (created_at DESC, tournament_id DESC);

CREATE TABLE api.tournament_tables (
  game_id        uuid PRIMARY KEY,
  tournament_id  uuid NOT NULL REFERENCES api.tournaments,
  round_no       integer NOT NULL CHECK (round_no >= 0),
  table_no       integer NOT NULL CHECK (table_no >= 1),
  players        uuid[] NOT NULL,
  embargoed      boolean NOT NULL DEFAULT false,
  recorded       boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tournament_id, round_no, table_no)
);
CREATE INDEX tournament_tables_to_record ON api.tournament_tables (tournament_id)
  WHERE NOT recorded;
"""

FUNCTIONS = """
-- A new secret for slot p_slot of tournament p_tournament (once: asked again, the same), and
-- its commitment (hex).
CREATE FUNCTION api.draw_tournament_secret(p_tournament uuid, p_slot text)
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  drawn bytea;
BEGIN
  INSERT INTO api.tournament_secrets (tournament_id, slot, secret)
  VALUES (p_tournament, p_slot,
          sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())
                 || uuid_send(gen_random_uuid())))
  ON CONFLICT (tournament_id, slot) DO NOTHING;
  SELECT s.secret INTO drawn FROM api.tournament_secrets s
   WHERE s.tournament_id = p_tournament AND s.slot = p_slot;
  RETURN encode(sha256(drawn), 'hex');
END $$;

-- A slot's secret, for the service's command that consumes it: a round's when it starts (its
-- draws) and ends (its reveal), the deals' for the tables of a duplicate round and, once the
-- tournament's stream holds tournament_ended, for their reveal. Refused (P0409) for a slot
-- never drawn.
CREATE FUNCTION api.tournament_secret(p_tournament uuid, p_slot text)
RETURNS bytea
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  drawn bytea;
BEGIN
  SELECT s.secret INTO drawn FROM api.tournament_secrets s
   WHERE s.tournament_id = p_tournament AND s.slot = p_slot;
  IF drawn IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = 'P0409', MESSAGE = 'no_secret',
      DETAIL = format('tournament %s has no secret %s', p_tournament, p_slot);
  END IF;
  RETURN drawn;
END $$;

-- The players of a table told where they play.
CREATE FUNCTION api.notify_tournament_table(p_game uuid)
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  PERFORM api.notify(coalesce((SELECT jsonb_agg(jsonb_build_object(
      'player', p, 'kind', 'tournament_table', 'game_id', t.game_id,
      'data', jsonb_build_object('tournament_id', t.tournament_id, 'round', t.round_no,
                                 'table', t.table_no)))
    FROM api.tournament_tables t, unnest(t.players) AS p
   WHERE t.game_id = p_game
     AND EXISTS (SELECT 1 FROM api.players x WHERE x.player_id = p AND x.kind <> 'bot')),
    '[]'::jsonb));
END $$;
"""

FUNCTION_LIST = (
    "api.draw_tournament_secret(uuid, text), api.tournament_secret(uuid, text), "
    "api.notify_tournament_table(uuid)"
)

GRANTS = f"""
REVOKE ALL ON api.tournaments, api.tournament_tables FROM PUBLIC;
REVOKE ALL ON FUNCTION {FUNCTION_LIST} FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE ON api.tournaments, api.tournament_tables TO {APP_ROLE};
GRANT SELECT ON api.tournaments, api.tournament_tables TO {BOTS_ROLE};
GRANT EXECUTE ON FUNCTION {FUNCTION_LIST} TO {APP_ROLE};
"""

DOWN = """
DROP FUNCTION api.notify_tournament_table(uuid);
DROP FUNCTION api.tournament_secret(uuid, text);
DROP FUNCTION api.draw_tournament_secret(uuid, text);
DROP TABLE api.tournament_tables;
DROP TABLE api.tournaments;
DROP TABLE api.tournament_secrets;
DELETE FROM es.stream_kinds WHERE stream_type = 'tournament';
"""


def upgrade() -> None:
    op.execute(TABLES)
    op.execute(FUNCTIONS)
    op.execute(TAKE_OWNERSHIP)
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(DOWN)
