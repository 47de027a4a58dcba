"""The reference web client in a real browser: Playwright driving Debian's Chromium.

Browsers cannot be downloaded here (``playwright install`` fails), so the tests launch the
system's Chromium (``/usr/bin/chromium``, or ``PREFERANS_CHROMIUM``); ``.ci/run`` installs it
with apt. Without Playwright or a Chromium the browser tests skip and say why, unless
``PREFERANS_REQUIRE_BROWSER=1`` (set by ``.ci/run``), which makes that a failure: CI never
passes on skipped browser tests.

Fixtures:
    chromium    session   the launched browser (each context gets a fresh profile)
    web         function  the app on this test's database, served by uvicorn on a free port
                          (short SSE timings): its base URL
    mining_web  function  the same without the analyst (the puzzles' tests wait for the miner)
    live_web    function  the same with the service's bots moving in-process and a manual
                          clock (`LiveWeb`: url, app, clock, ``pass_time(seconds)``)
    http        function  an httpx client on ``web``, for the players the test drives by API
    open_page   function  ``await open_page(viewport=…, token=…)``: a page in a fresh context
                          (its own localStorage); a JavaScript error, or a console error such as a
                          CSP violation, fails the test (but those containing one of
                          ``expected=(…)``)
    shoot       function  ``await shoot(page, "table")`` writes ``artifacts/table.png`` (the
                          whole page, or ``element=`` one part); with
                          ``PREFERANS_UPDATE_SCREENSHOTS=1`` the table's goes to docs/screenshots
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from _apps import kept

from service.api.games.events import SseSettings
from service.app import create_app
from service.platform.clock import SYSTEM_CLOCK, Clock, ManualClock
from service.platform.settings import Settings

pytestmark = pytest.mark.integration

ARTIFACTS = Path(__file__).parent / "artifacts"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
REQUIRE_ENV = "PREFERANS_REQUIRE_BROWSER"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    # Without these Chromium reaches for the network at start, which this machine refuses.
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """Debian's Chromium, or the one ``PREFERANS_CHROMIUM`` names."""
    named = os.environ.get("PREFERANS_CHROMIUM")
    if named:
        return named if Path(named).exists() else None
    for candidate in (
        "/usr/bin/chromium",
        shutil.which("chromium"),
        shutil.which("chromium-browser"),
    ):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def _unavailable(reason: str) -> None:
    if os.environ.get(REQUIRE_ENV) == "1":
        pytest.fail(f"{REQUIRE_ENV}=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
async def chromium() -> AsyncIterator[Any]:
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        _unavailable(
            "no browser tests: the playwright package is not installed (pip install -e '.[test]')"
        )
    path = chromium_path()
    if path is None:
        _unavailable(
            "no browser tests: no Chromium (looked at $PREFERANS_CHROMIUM, /usr/bin/chromium "
            "and chromium on PATH; apt-get install chromium)"
        )
    async with async_playwright() as playwright:
        # Playwright gives every launch a fresh temporary profile (user-data-dir) of its own.
        browser = await playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


def app_on(dsn: str, clock: Clock = SYSTEM_CLOCK, **settings: Any) -> Any:
    """The app on ``dsn``; one built before with the same settings and clock is started again
    instead (`_apps.kept`)."""
    # The analyst over 4 layouts a decision, as in the API tests (apitools.make_app says why).
    settings = {
        "pool_min_size": 1, "pool_max_size": 10, "rate_limits": False,
        "background_worker": "inline", "analysis_layouts": 4, **settings,
    }  # fmt: skip

    def build(named: Callable[[], str]) -> Any:
        return create_app(
            Settings(**settings),
            dsn=named,
            migrate=False,
            sse=SseSettings(ping_interval=1.0, retry_ms=300),
            live_poll_interval=0.5,
            clock=clock,
        )

    return kept(build, ("browser", settings, clock), dsn)


@contextlib.asynccontextmanager
async def serving(app: Any) -> AsyncIterator[str]:
    """``app`` served by uvicorn on a free port while the block runs: its base URL."""
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=0,
        log_level="warning",
        timeout_graceful_shutdown=1,
    )
    server = uvicorn.Server(config)
    # SIGINT and SIGTERM stay the test run's (uvicorn would take them while it serves).
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign]
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, 10)


@pytest.fixture
async def web(database_dsn: str) -> AsyncIterator[str]:
    async with serving(app_on(database_dsn)) as url:
        yield url


@pytest.fixture
async def mining_web(database_dsn: str) -> AsyncIterator[str]:
    """``web`` with the puzzles' miner and no analyst, whose judging of decisions would only
    slow, on a shared machine, the miner the puzzles' tests wait for."""
    async with serving(app_on(database_dsn, analysis=False)) as url:
        yield url


@dataclass
class LiveWeb:
    """The app with the service's bots thinking in its own process and the table's clock a
    `ManualClock`: a deadline passes when the test moves ``clock`` and wakes the ``steward``."""

    url: str
    app: Any
    clock: ManualClock

    def pass_time(self, seconds: float) -> None:
        self.clock.advance(seconds)
        self.app.state.steward.hint()


@pytest.fixture
async def live_web(database_dsn: str) -> AsyncIterator[LiveWeb]:
    clock = ManualClock()
    # The bots move quickly (a short pace and thinking budget) and the finished games are not
    # analysed: the tests play whole pulkas against them on two shared cores.
    app = app_on(
        database_dsn,
        clock,
        bot_worker="inline",
        bot_pace=0.05,
        bot_budget=0.2,
        analysis=False,
    )
    async with serving(app) as url:
        yield LiveWeb(url=url, app=app, clock=clock)


@pytest.fixture
async def http(web: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=web, timeout=30) as client:
        yield client


OpenPage = Callable[..., Awaitable[Any]]


@pytest.fixture
async def open_page(chromium: Any) -> AsyncIterator[OpenPage]:
    contexts: list[Any] = []
    errors: list[str] = []

    async def open_page(
        *,
        viewport: tuple[int, int] = (1280, 900),
        token: str | None = None,
        lang: str = "en",
        mobile: bool = False,
        network_errors: bool = False,
        expected: tuple[str, ...] = (),
    ) -> Any:
        context = await chromium.new_context(
            viewport={"width": viewport[0], "height": viewport[1]},
            locale="ru-RU" if lang == "ru" else "en-US",
            is_mobile=mobile,
            has_touch=mobile,
        )
        contexts.append(context)
        # Runs before the page's own scripts (through the DevTools protocol, not an inline
        # script, so the page's CSP is untouched): a player already signed up on this device.
        setup = f"localStorage.setItem('preferans.lang', {json.dumps(lang)});"
        if token:
            setup += f"localStorage.setItem('preferans.token', {json.dumps(token)});"
        await context.add_init_script(setup)
        page = await context.new_page()
        page.on("pageerror", lambda error: errors.append(f"page error: {error}"))

        def console(message: Any) -> None:
            if message.type != "error":
                return
            if network_errors and "net::ERR_" in message.text:
                return  # the test stops the server on purpose
            if any(text in message.text for text in expected):
                return  # a refusal the test brings about
            errors.append(f"console {message.type}: {message.text}")

        page.on("console", console)
        return page

    yield open_page
    for context in contexts:
        await context.close()
    assert not errors, "the page reported errors:\n" + "\n".join(errors)


@pytest.fixture
def shoot() -> Callable[..., Awaitable[Path]]:
    ARTIFACTS.mkdir(exist_ok=True)

    async def shoot(page: Any, name: str, *, element: str | None = None) -> Path:
        path = ARTIFACTS / f"{name}.png"
        if element:
            await page.locator(element).first.screenshot(path=str(path))
        else:
            await page.screenshot(path=str(path), full_page=True)
        if os.environ.get("PREFERANS_UPDATE_SCREENSHOTS") == "1" and name == "table":
            SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, SCREENSHOTS / "table.png")
        return path

    return shoot
