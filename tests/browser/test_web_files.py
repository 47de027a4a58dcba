"""The client as files: served at / under a strict CSP, nothing inline, nothing from elsewhere,
and only the public API (every path it calls is in the committed OpenAPI document).

These need no browser; they run wherever the API tests run.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from service.api.web import WEB_DIR, WEB_HEADERS
from service.app import OPENAPI_PATH

pytestmark = pytest.mark.integration

SCRIPTS = sorted(WEB_DIR.rglob("*.js"))


def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


async def test_the_client_is_served_at_the_root_under_a_strict_content_security_policy(
    http: httpx.AsyncClient,
) -> None:
    page = await http.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert policy == WEB_HEADERS["Content-Security-Policy"]
    assert "script-src 'self';" in policy and "'unsafe-inline'" not in policy
    assert page.headers["x-content-type-options"] == "nosniff"
    script = await http.get("/web/js/main.js")
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert script.headers["content-security-policy"] == policy


async def test_the_api_and_its_errors_are_untouched_by_the_client_at_the_root(
    http: httpx.AsyncClient,
) -> None:
    for path in (
        "/v1/nothing-here",
        "/no-such-file.js",
        "/web/nothing.js",
        "/web/js/",
        "/web/%2e%2e/app.py",
    ):
        missing = await http.get(path)
        assert missing.status_code == 404
        assert missing.headers["content-type"] == "application/problem+json"
    refused = await http.post("/v1/nothing-here", json={})
    assert refused.status_code == 404
    assert refused.headers["content-type"] == "application/problem+json"
    health = await http.get("/health")
    assert health.status_code == 200
    assert "content-security-policy" not in health.headers


def test_the_page_has_no_inline_script_style_or_handler() -> None:
    html = _source(WEB_DIR / "index.html")
    for tag in re.findall(r"<script\b[^>]*>(.*?)</script>", html, flags=re.S):
        assert tag.strip() == "", "an inline script"
    assert all("src=" in tag for tag in re.findall(r"<script\b[^>]*>", html))
    assert "<style" not in html and " style=" not in html
    assert not re.search(r"\son[a-z]+=", html), "an inline event handler"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(WEB_DIR)))
def test_the_scripts_build_no_markup_from_strings_and_load_nothing_from_elsewhere(
    script: Path,
) -> None:
    # The SVG namespace is a name, not an address: nothing is loaded from it.
    source = _source(script).replace('"http://www.w3.org/2000/svg"', "SVG_NAMESPACE")
    for risky in (
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "eval(",
        "new Function",
        ".style.",
        'setAttribute("style"',
        "http://",
        "https://",
    ):
        assert risky not in source, f"{script.name} uses {risky}"
    for module in re.findall(r"""^import .* from "([^"]+)";$""", source, flags=re.M):
        assert module.startswith("./") or module.startswith("../"), module


def test_the_client_calls_only_paths_of_the_public_api() -> None:
    spec = json.loads(OPENAPI_PATH.read_text())
    known = {re.sub(r"\{[^}]+\}", "{}", path) for path in spec["paths"]}
    api = _source(WEB_DIR / "js" / "api.js")
    used = {re.sub(r"\$\{[^}]+\}", "{}", path) for path in re.findall(r"[`\"](/v1/[^`\"?]*)", api)}
    assert used, "api.js names no /v1 path"
    assert used <= known, f"not in the OpenAPI document: {sorted(used - known)}"
    others = [p for p in SCRIPTS if p.name != "api.js" and "/v1/" in _source(p)]
    assert not others, f"only api.js knows the API's paths: {others}"


def test_every_file_of_the_client_is_package_data() -> None:
    import tomllib

    root = WEB_DIR.parent
    config = tomllib.loads((root.parent / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"]["service"]
    packaged = {path for pattern in patterns for path in root.glob(pattern)}
    for folder in (WEB_DIR, root / "docs"):  # the client's files, the API docs page's own
        files = {path for path in folder.rglob("*") if path.is_file()}
        missing = files - packaged
        assert not missing, f"not installed by a wheel: {sorted(map(str, missing))}"
