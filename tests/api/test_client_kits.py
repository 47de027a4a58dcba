"""The TypeScript client kit compiles clean and plays: openapi-typescript (default options) makes
the types of the committed spec, tsc 5 type-checks a README-style client against them with 0
errors and 0 warnings, and the compiled client plays a deal against a live server, reading the
game's stream across a reconnect (tests/clients/typescript/), and reads the notifications, each
narrowed by its ``kind``. The Python kit is test_generated_client.py.

npm installs the pinned tools from the lock file (the npm registry). Without npm the test skips,
unless PREFERANS_REQUIRE_BROWSER=1 (set by .ci/run), which makes that a failure."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from service.app import OPENAPI_PATH

pytestmark = pytest.mark.integration

KIT = Path(__file__).resolve().parents[1] / "clients" / "typescript"


def _run(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          check=False)  # fmt: skip


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("npm") is None or shutil.which("node") is None:
        if os.environ.get("PREFERANS_REQUIRE_BROWSER") == "1":
            pytest.fail("npm and node are needed for the TypeScript kit", pytrace=False)
        pytest.skip("no npm and node: the TypeScript kit is not checked")
    out = tmp_path_factory.mktemp("ts-kit")
    for name in ("package.json", "package-lock.json", "tsconfig.json", "client.ts"):
        shutil.copy(KIT / name, out / name)
    installed = _run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], out)
    assert installed.returncode == 0, installed.stderr
    return out


def test_the_typescript_kit_compiles_with_no_error_or_warning(kit: Path) -> None:
    generated = _run(["npx", "openapi-typescript", str(OPENAPI_PATH), "-o", "api.d.ts"], kit)
    assert generated.returncode == 0, generated.stderr
    assert "warn" not in (generated.stdout + generated.stderr).lower(), generated.stderr
    compiled = _run(["npx", "tsc", "-p", "."], kit)
    assert compiled.returncode == 0 and compiled.stdout == compiled.stderr == "", compiled.stdout
    assert (kit / "out" / "client.js").exists()


async def test_the_typescript_client_plays_a_deal_and_follows_the_stream_across_a_reconnect(
    kit: Path, server: str
) -> None:
    if not (kit / "out" / "client.js").exists():
        test_the_typescript_kit_compiles_with_no_error_or_warning(kit)
    # The server runs on this test's event loop: the client must not block it.
    node = await asyncio.create_subprocess_exec(
        "node", "out/client.js", server, cwd=kit,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(node.communicate(), 180)
    played = out.decode()
    assert node.returncode == 0, played + err.decode()
    assert "deal 1 scored" in played
    assert "frames in order across a reconnect" in played
    assert "turns notified, the first due" in played  # a notification narrowed by its kind
