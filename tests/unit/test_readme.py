"""The README's Python example runs as written and shows what it says it shows."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_example_drives_a_deal_to_a_made_six_spades():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Driving a deal from Python", 1)[1]
    block = re.search(r"```python\n(.*?)```", section, re.S)
    assert block is not None
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block.group(1), str(README), "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[1] == "(2, 0, 0)"
    assert "AS" not in lines[2] and len(eval(lines[2])) == 10
