"""The drawn sheet in the reader's language: ``lang`` first, then Accept-Language, else English."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import httpx
import pytest
from apitools import PROBLEM, seated_game

pytestmark = pytest.mark.integration

SVG = "{http://www.w3.org/2000/svg}"


def words(drawn: httpx.Response) -> dict[str, str]:
    root = ET.fromstring(drawn.content)
    return {t.get("class") or "": "".join(t.itertext()) for t in root.iter(f"{SVG}text")}


async def test_the_sheet_is_drawn_in_the_language_asked_for(client: httpx.AsyncClient) -> None:
    game_id, players = await seated_game(client, seed="sheet in russian")
    url = f"/v1/games/{game_id}/sheet.svg"
    version = (await client.get(f"/v1/games/{game_id}", headers=players[0].auth)).json()["version"]

    # At least the version every seat was taken at (the projection may trail it).
    russian = await client.get(url, params={"lang": "ru", "min_version": version})
    assert russian.status_code == 200, russian.text
    assert russian.headers["content-language"] == "ru"
    assert "accept-language" in russian.headers["vary"].lower()
    said = words(russian)
    assert said["bands-title"] == "От края к центру: висты, пуля, гора"
    assert "пуля до" in said["subtitle"] and "Сочинка" in said["subtitle"]
    assert {said["title"]} == {" · ".join(p.name for p in players)}  # names, never seats

    english = words(await client.get(url, params={"lang": "en"}))
    assert english["bands-title"] == "From the edge in: whists, pool, mountain"
    assert "pool to" in english["subtitle"]

    # No parameter: Accept-Language chooses, by its weights; a language not drawn is skipped.
    asked = await client.get(url, headers={"Accept-Language": "de-DE, ru-RU;q=0.8, en;q=0.5"})
    assert asked.headers["content-language"] == "ru"
    assert words(asked)["bands-title"].startswith("От края")
    weighted = await client.get(url, headers={"Accept-Language": "ru;q=0.3, en-GB;q=0.9"})
    assert weighted.headers["content-language"] == "en"
    plain = await client.get(url)
    assert plain.headers["content-language"] == "en"
    # Not modified only where the URL says the language: the ETag is the version in any.
    tag = {"If-None-Match": russian.headers["etag"]}
    again = await client.get(url, params={"lang": "ru", "min_version": version}, headers=tag)
    assert again.status_code == 304
    switched = await client.get(
        url, params={"min_version": version}, headers={**tag, "Accept-Language": "en"}
    )
    assert switched.status_code == 200 and "From the edge in" in switched.text
    # The parameter wins over the header.
    both = await client.get(url, params={"lang": "en"}, headers={"Accept-Language": "ru"})
    assert both.headers["content-language"] == "en"


async def test_a_language_the_sheet_is_not_drawn_in_is_a_400(client: httpx.AsyncClient) -> None:
    game_id, _ = await seated_game(client, seed="sheet in klingon")
    refused = await client.get(f"/v1/games/{game_id}/sheet.svg", params={"lang": "tlh"})
    assert refused.status_code == 400, refused.text
    assert refused.headers["content-type"] == PROBLEM
