"""Chat at the table and rematches (issue 22, items 9 and 10), kept beside the log, never in it.

- ``api.chat_messages``: what was said at a table, in one of two rooms: ``players`` (said by a
  seated player) and ``spectators`` (said by anyone else). Plain text of at most 300 characters,
  or one of the fixed phrases (``phrase``: its key, the page translates it). Numbered from
  ``api.table_talk_seq``, which the rematches share, so that one poll per process follows both.
- ``api.chat_rules``: a table's chat rule (``phrases_only``: during a deal, only the phrases).
- ``api.chat_mutes``: a player hides another's messages for himself (everywhere).
- ``api.chat_reports``: a message reported to the moderators. The API only adds them, through
  ``api.report_chat``; it never reads them back (moderators read as the owner).
- ``api.rematches``, ``api.rematch_answers``: a finished game's offer to play again, each seated
  human's answer, and the new game once all accepted. Written only through the functions below
  (SECURITY DEFINER), which notify the players as they go.

Revision ID: 0019_table_chat
Revises: 0018_deals_dealt_in_db
Create Date: 2026-12-02
"""

from alembic import op

from migrations import APP_ROLE, OWNER_ROLE, TAKE_OWNERSHIP

revision = "0019_table_chat"
down_revision = "0018_deals_dealt_in_db"
branch_labels = None
depends_on = None

TABLES = """
CREATE SEQUENCE api.table_talk_seq;

CREATE TABLE api.chat_rules (
  game_id       uuid PRIMARY KEY,
  phrases_only  boolean NOT NULL DEFAULT false,
  set_by        uuid NOT NULL,
  set_at        timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api.chat_messages (
  seq         bigint PRIMARY KEY DEFAULT nextval('api.table_talk_seq'),
  game_id     uuid NOT NULL,
  author      uuid NOT NULL REFERENCES api.players (player_id),
  room        text NOT NULL CHECK (room IN ('players', 'spectators')),
  body        text NOT NULL CHECK (length(body) BETWEEN 1 AND 300),
  phrase      text CHECK (phrase ~ '^[a-z_]{1,32}$'),
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_messages_by_game ON api.chat_messages (game_id, seq);

CREATE TABLE api.chat_mutes (
  player_id   uuid NOT NULL,
  muted       uuid NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (player_id, muted),
  CHECK (player_id <> muted)
);

CREATE TABLE api.chat_reports (
  report_id    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_seq  bigint NOT NULL REFERENCES api.chat_messages (seq),
  reporter     uuid NOT NULL,
  reason       text NOT NULL CHECK (length(reason) <= 300),
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (message_seq, reporter)
);

CREATE TABLE api.rematches (
  game_id     uuid PRIMARY KEY,
  offered_by  uuid NOT NULL,
  status      text NOT NULL CHECK (status IN ('open', 'declined', 'accepted')),
  next_game   uuid,
  seq         bigint NOT NULL DEFAULT nextval('api.table_talk_seq'),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX rematches_by_seq ON api.rematches (game_id, seq);

CREATE TABLE api.rematch_answers (
  game_id      uuid NOT NULL REFERENCES api.rematches (game_id),
  player_id    uuid NOT NULL,
  accept       boolean NOT NULL,
  answered_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (game_id, player_id)
);
"""

FUNCTIONS = """
-- A message of p_game reported by p_reporter, once: true if this report is new, false if he had
-- reported it, null if p_game has no such message. A function, so that the API writes reports
-- and never reads one.
CREATE FUNCTION api.report_chat(p_seq bigint, p_game uuid, p_reporter uuid, p_reason text)
RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM api.chat_messages WHERE seq = p_seq AND game_id = p_game) THEN
    RETURN NULL;
  END IF;
  INSERT INTO api.chat_reports (message_seq, reporter, reason)
  VALUES (p_seq, p_reporter, p_reason)
  ON CONFLICT (message_seq, reporter) DO NOTHING;
  RETURN FOUND;
END $$;

-- A rematch offered on a finished game by p_by (who accepts by offering), the others notified
-- (p_notify). Null if the game has an offer already (open, declined or accepted).
CREATE FUNCTION api.offer_rematch(p_game uuid, p_by uuid, p_notify uuid[])
RETURNS bigint
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  n bigint;
BEGIN
  INSERT INTO api.rematches (game_id, offered_by, status) VALUES (p_game, p_by, 'open')
  ON CONFLICT (game_id) DO NOTHING
  RETURNING seq INTO n;
  IF n IS NULL THEN
    RETURN NULL;
  END IF;
  INSERT INTO api.rematch_answers (game_id, player_id, accept) VALUES (p_game, p_by, true);
  PERFORM api.notify(coalesce((SELECT jsonb_agg(jsonb_build_object(
      'player', p, 'kind', 'rematch_offered', 'game_id', p_game,
      'data', jsonb_build_object('by', p_by)))
    FROM unnest(p_notify) AS p WHERE p <> p_by), '[]'::jsonb));
  RETURN n;
END $$;

-- p_player's answer to the open offer on p_game. The offer's row is locked to the commit, so
-- of two last answers one sees the other. It turns 'declined' at the first refusal (the others
-- told), 'accepted' once every one of p_humans accepted. Returns the offer's status after the
-- answer; null when there is no offer, or it is no longer open (then nothing changes).
CREATE FUNCTION api.answer_rematch(p_game uuid, p_player uuid, p_accept boolean,
                                   p_humans uuid[])
RETURNS text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
DECLARE
  current text;
  after text;
BEGIN
  SELECT status INTO current FROM api.rematches WHERE game_id = p_game FOR UPDATE;
  IF current IS DISTINCT FROM 'open' THEN
    RETURN NULL;
  END IF;
  INSERT INTO api.rematch_answers AS a (game_id, player_id, accept)
  VALUES (p_game, p_player, p_accept)
  ON CONFLICT (game_id, player_id) DO UPDATE SET accept = EXCLUDED.accept, answered_at = now();
  IF NOT p_accept THEN
    after := 'declined';
  ELSIF NOT EXISTS (SELECT 1 FROM unnest(p_humans) AS h
                     WHERE NOT EXISTS (SELECT 1 FROM api.rematch_answers a
                                        WHERE a.game_id = p_game AND a.player_id = h
                                          AND a.accept)) THEN
    after := 'accepted';
  ELSE
    after := 'open';
  END IF;
  UPDATE api.rematches SET status = after, seq = nextval('api.table_talk_seq'),
                           updated_at = now()
   WHERE game_id = p_game;
  IF after = 'declined' THEN
    PERFORM api.notify(coalesce((SELECT jsonb_agg(jsonb_build_object(
        'player', h, 'kind', 'rematch_declined', 'game_id', p_game,
        'data', jsonb_build_object('by', p_player)))
      FROM unnest(p_humans) AS h WHERE h <> p_player), '[]'::jsonb));
  END IF;
  RETURN after;
END $$;

-- The accepted offer's new game (once; a second call with the same game changes nothing), and
-- every human told where to go.
CREATE FUNCTION api.rematch_started(p_game uuid, p_next uuid, p_humans uuid[])
RETURNS void
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
BEGIN
  UPDATE api.rematches SET next_game = p_next, seq = nextval('api.table_talk_seq'),
                           updated_at = now()
   WHERE game_id = p_game AND status = 'accepted' AND next_game IS NULL;
  IF FOUND THEN
    PERFORM api.notify(coalesce((SELECT jsonb_agg(jsonb_build_object(
        'player', h, 'kind', 'rematch_started', 'game_id', p_next,
        'data', jsonb_build_object('from', p_game)))
      FROM unnest(p_humans) AS h), '[]'::jsonb));
  END IF;
END $$;
"""

FUNCTION_LIST = (
    "api.report_chat(bigint, uuid, uuid, text), api.offer_rematch(uuid, uuid, uuid[]), "
    "api.answer_rematch(uuid, uuid, boolean, uuid[]), "
    "api.rematch_started(uuid, uuid, uuid[])"
)

GRANTS = f"""
REVOKE ALL ON api.chat_rules, api.chat_messages, api.chat_mutes, api.chat_reports,
  api.rematches, api.rematch_answers FROM PUBLIC;
REVOKE ALL ON SEQUENCE api.table_talk_seq FROM PUBLIC;
REVOKE ALL ON FUNCTION {FUNCTION_LIST} FROM PUBLIC;
-- The API: chat in and out, its own mutes; reports written and the rematches changed only
-- through the functions (a report is never read back).
GRANT SELECT, INSERT, UPDATE ON api.chat_rules TO {APP_ROLE};
GRANT SELECT, INSERT ON api.chat_messages TO {APP_ROLE};
GRANT USAGE ON SEQUENCE api.table_talk_seq TO {APP_ROLE};
GRANT SELECT, INSERT, DELETE ON api.chat_mutes TO {APP_ROLE};
GRANT SELECT ON api.rematches, api.rematch_answers TO {APP_ROLE};
GRANT EXECUTE ON FUNCTION {FUNCTION_LIST} TO {APP_ROLE};
"""


def upgrade() -> None:
    op.execute(TABLES)
    op.execute(FUNCTIONS)
    op.execute(TAKE_OWNERSHIP)
    op.execute(f"ALTER SEQUENCE api.table_talk_seq OWNER TO {OWNER_ROLE}")  # not in TAKE_OWNERSHIP
    op.execute(GRANTS)


def downgrade() -> None:
    op.execute(f"DROP FUNCTION {FUNCTION_LIST}")
    op.execute(
        "DROP TABLE api.rematch_answers, api.rematches, api.chat_reports, api.chat_mutes, "
        "api.chat_messages, api.chat_rules; DROP SEQUENCE api.table_talk_seq"
    )
