"""The interactive API docs at ``/schema`` come from this server alone: the page and every
file it loads are served here, nothing points at another host, and the page runs under a
Content-Security-Policy that allows no other origin."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

pytestmark = pytest.mark.integration


class _References(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.inline_scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name in ("src", "href", "data-spec"):
            if found.get(name):
                self.urls.append(str(found[name]))
        if tag == "script" and not found.get("src"):
            self.inline_scripts += 1


@pytest.mark.parametrize("path", ["/schema", "/schema/swagger"])
async def test_the_docs_page_and_everything_it_loads_are_served_here(client, path):
    page = await client.get(path)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    refs = _References()
    refs.feed(page.text)
    assert refs.inline_scripts == 0  # the CSP allows none
    assert not re.search(r"https?://", page.text)
    assert len(refs.urls) >= 5
    for url in refs.urls:
        assert url.startswith("/") and not url.startswith("//"), url
        asset = await client.get(url)
        assert asset.status_code == 200, url
        assert asset.content, url
        if url.endswith(".js"):
            assert "javascript" in asset.headers["content-type"]
            # The files loaded fetch nothing from elsewhere themselves: no CDN, no imports.
            assert "cdn.jsdelivr" not in asset.text and "unpkg.com" not in asset.text
    spec = await client.get("/schema/openapi.json")
    assert spec.json()["openapi"].startswith("3.1")


async def test_only_the_pages_files_are_served_from_the_bundle(client):
    assert (await client.get("/schema/assets/swagger-ui-bundle.js.map")).status_code == 404
    assert (await client.get("/schema/assets/../../../etc/passwd")).status_code == 404
