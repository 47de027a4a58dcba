"""axe-core in the page under test: the accessibility rules a screen is checked against.

``tests/browser/assets/axe.min.js`` (axe-core 4.14.1, MPL-2.0, see assets/README.md) is evaluated
in the page through the DevTools protocol (the page's CSP forbids inline scripts, and the
service does not serve the file), then ``axe.run`` checks the document as it stands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

AXE = Path(__file__).parent / "assets" / "axe.min.js"
SERIOUS = ("serious", "critical")


async def axe_violations(page: Any) -> list[dict[str, Any]]:
    """The serious and critical violations on the page now: rule, impact, help, the nodes."""
    if not await page.evaluate("typeof window.axe === 'object'"):
        await page.evaluate(AXE.read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = await page.evaluate(
        """async (levels) => {
          const result = await axe.run(document, { resultTypes: ["violations"] });
          return result.violations.filter((v) => levels.includes(v.impact)).map((v) => ({
            id: v.id, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ") + " :: " + n.failureSummary),
          }));
        }""",
        list(SERIOUS),
    )
    return found


async def assert_accessible(page: Any, screen: str) -> None:
    found = await axe_violations(page)
    assert not found, f"{screen}: serious or critical axe violations:\n" + "\n".join(
        f"- {v['impact']} {v['id']}: {v['help']}\n    " + "\n    ".join(v["nodes"]) for v in found
    )
