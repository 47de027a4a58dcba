"""A game created with the service's bots at its seats: its lobby row says at once that a bot
is to act (and when a clock runs out), as every later command's row does.

``api.command_effects`` now writes ``deadline``, ``due_at`` and ``bot_due_at`` for a new game
too (they were left empty until the game's second command, which never comes when the first
to act is a bot seated at the creation); ``api.bot_to_act`` is the test both paths share.

Revision ID: 0010_bots_at_creation
Revises: 0009_analysis
Create Date: 2026-12-01
"""

import importlib

from alembic import op

from migrations import TAKE_OWNERSHIP

revision = "0010_bots_at_creation"
down_revision = "0009_analysis"
branch_labels = None
depends_on = None

BOT_TO_ACT = """
-- A bot of the service is among the seats to act in a lobby row's effects.
CREATE FUNCTION api.bot_to_act(p_effects jsonb) RETURNS boolean
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  SELECT EXISTS (SELECT 1 FROM api.players p
                  WHERE p.kind = 'bot' AND p.player_id = ANY (ARRAY(
                    SELECT (p_effects->'players'->>(s::int))::uuid
                      FROM jsonb_array_elements_text(coalesce(p_effects->'to_act', '[]')) AS t(s)
                     WHERE p_effects->'players'->>(s::int) IS NOT NULL)))
$$;
REVOKE ALL ON FUNCTION api.bot_to_act(jsonb) FROM PUBLIC;
"""

_PREVIOUS = importlib.import_module("migrations.versions.0007_fair_deals").EFFECTS
EFFECTS = (
    _PREVIOUS.replace(
        "version, imported, private, to_act, dealing)",
        "version, imported, private, to_act, dealing, deadline, due_at, bot_due_at)",
    )
    .replace(
        """            coalesce(p_effects->>'dealing', 'legacy'));""",
        """            coalesce(p_effects->>'dealing', 'legacy'),
            to_timestamp((p_effects->>'deadline_ms')::double precision / 1000),
            to_timestamp((p_effects->>'due_ms')::double precision / 1000),
            CASE WHEN api.bot_to_act(p_effects) THEN now() END);""",
    )
    .replace(
        """           bot_due_at = CASE
             WHEN EXISTS (SELECT 1 FROM api.players p
                           WHERE p.kind = 'bot' AND p.player_id = ANY (ARRAY(
                             SELECT (p_effects->'players'->>(s::int))::uuid
                               FROM jsonb_array_elements_text(p_effects->'to_act') AS t(s))))
               THEN now() END,""",
        """           bot_due_at = CASE WHEN api.bot_to_act(p_effects) THEN now() END,""",
    )
)
assert EFFECTS.count("api.bot_to_act") == 2 and "bot_due_at)" in EFFECTS, "command_effects moved"


def upgrade() -> None:
    op.execute(BOT_TO_ACT)
    op.execute(EFFECTS)
    op.execute(TAKE_OWNERSHIP)


def downgrade() -> None:
    op.execute(_PREVIOUS)
    op.execute("DROP FUNCTION api.bot_to_act(jsonb)")
