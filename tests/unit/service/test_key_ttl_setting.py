"""An Idempotency-Key is kept at most 7 days (migration 0016 refuses a longer one): the setting
says so at start, naming the variable, instead of every keyed command failing later."""

from __future__ import annotations

import pytest

from service.platform.settings import KEY_TTL_LIMIT, Settings, SettingsError


def test_the_default_and_any_ttl_up_to_seven_days_are_kept() -> None:
    assert Settings().idempotency_ttl == 86_400.0
    env = {"PREFERANS_IDEMPOTENCY_TTL": str(KEY_TTL_LIMIT)}
    assert Settings.from_env(env).idempotency_ttl == 604_800.0


@pytest.mark.parametrize("value", ["3153600000", "604801", "0", "-5"])
def test_a_ttl_beyond_seven_days_or_none_at_all_is_refused_at_start(value: str) -> None:
    with pytest.raises(SettingsError, match="PREFERANS_IDEMPOTENCY_TTL"):
        Settings.from_env({"PREFERANS_IDEMPOTENCY_TTL": value})
