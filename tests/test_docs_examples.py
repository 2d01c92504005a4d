"""Every ``python`` block in the README and in the documentation pages (docs/**/*.md) runs, each
in a fresh interpreter from the repository root as a reader would paste it, and prints what the
page shows it printing.

A block shows its output in comments: the trailing ``  # text`` of a ``print(...)`` line is that
print's line, and the comment lines at the start of a line (``# text``) after the block's first
print are the lines printed so far. A block that prints shows all it prints, in order. A shown
line ending in ``...`` stands for any line that begins with what precedes the dots, and a long
line may be shown wrapped over several comment lines. (``py`` blocks are the agent-framework
examples, which need the frameworks: tests/test_docs_integrations.py runs them.)
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def blocks() -> list[tuple[str, int, str]]:
    found = []
    for page in PAGES:
        text = page.read_text("utf-8")
        for m in re.finditer(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
            found.append((str(page.relative_to(ROOT)), text.count("\n", 0, m.start()) + 1,
                          m.group(1)))
    return found


BLOCKS = blocks()


def shown_output(code: str) -> list[str]:
    """The output a block shows, in the order it shows it."""
    shown: list[str] = []
    printed = False
    for line in code.splitlines():
        stripped = line.strip()
        if stripped.startswith("print(") and "  # " in line:
            shown.append(line.split("  # ", 1)[1])
        if "print(" in line:
            printed = True
        elif printed and (line.startswith("# ") or line == "#"):
            shown.append(line[2:])
    return shown


def matches(actual: list[str], shown: list[str]) -> str | None:
    """None if ``actual`` is what ``shown`` shows, else what differs."""
    i = 0
    for n, line in enumerate(actual):
        if i >= len(shown):
            return f"printed line {n + 1} is not shown: {line!r}"
        expect = shown[i]
        i += 1
        while True:
            if expect == line:
                break
            if expect.endswith("...") and line.startswith(expect[:-3]):
                break
            if i < len(shown) and line.startswith(expect + " "):  # shown wrapped
                expect = expect + " " + shown[i]
                i += 1
                continue
            return f"printed line {n + 1}: {line!r}\n  shown: {expect!r}"
    if i < len(shown):
        return f"shown but not printed: {shown[i:]!r}"
    return None


def test_the_pages_have_examples_and_each_printing_one_shows_its_output():
    assert len(BLOCKS) >= 10
    pages = {page for page, _, _ in BLOCKS}
    assert "README.md" in pages and any(p.startswith("docs/") for p in pages)
    silent = [f"{page}:{line}" for page, line, code in BLOCKS
              if "print(" in code and not shown_output(code)]
    assert not silent, f"blocks that print without showing what: {silent}"


@pytest.mark.parametrize("page,line,code", BLOCKS, ids=[f"{p}:{n}" for p, n, _ in BLOCKS])
def test_python_block_runs_and_prints_what_it_shows(page, line, code):
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    problem = matches(out.stdout.splitlines(), shown_output(code))
    assert problem is None, f"{page}:{line}: {problem}"


@pytest.mark.parametrize("actual,shown,ok", [
    (["a b c"], ["a b c"], True),
    (["a b c"], ["a b", "c"], True),           # wrapped
    (["a b c"], ["a ..."], True),              # elided
    (["a b c"], ["a b d"], False),
    (["a", "b"], ["a"], False),                # printed, not shown
    (["a"], ["a", "b"], False),                # shown, not printed
    (["ab c"], ["a", "b c"], False),           # a wrap is at a space
])
def test_the_output_comparison(actual, shown, ok):
    assert (matches(actual, shown) is None) is ok


PAGE_WIDTH = 88  # the columns a code block shows on the docs site without a scrollbar


def code_lines(text: str) -> list[tuple[int, str]]:
    """Each line inside a fenced code block of a page (any language), with its line number."""
    found, fence = [], None
    for number, line in enumerate(text.splitlines(), 1):
        mark = re.match(r"\s*(`{3,}|~{3,})", line)
        if fence is None:
            if mark:
                fence = mark.group(1)
        elif mark and line.strip() == mark.group(1) and mark.group(1).startswith(fence):
            fence = None
        else:
            found.append((number, line))
    return found


def test_the_code_lines_are_read_from_every_kind_of_fence():
    text = "a\n```bash\nls\n```\nb\n~~~~\nx\n```\ny\n~~~~\n  ```py\nz\n  ```\nc\n"
    assert code_lines(text) == [(3, "ls"), (7, "x"), (8, "```"), (9, "y"), (12, "z")]


def test_no_code_line_is_wider_than_the_page():
    wide = [f"{page.relative_to(ROOT)}:{number}: {len(line)} columns"
            for page in PAGES for number, line in code_lines(page.read_text("utf-8"))
            if len(line) > PAGE_WIDTH]
    assert sum(len(code_lines(page.read_text("utf-8"))) for page in PAGES) > 500
    assert not wide, f"code lines over {PAGE_WIDTH} columns:\n" + "\n".join(wide)


def test_no_page_installs_another_project_by_name():
    """The index's ``quantity-guard`` is another project: every install line installs this
    checkout, or a wheel built from it. A paragraph may name ``pip install quantity-guard`` only
    to say that it installs another project."""
    found = []
    for page in PAGES:
        text = page.read_text("utf-8")
        for paragraph in re.split(r"\n\s*\n", text):
            for m in re.finditer(r"pip install ([^`\n]*)", paragraph):
                command = m.group(1).split(" #", 1)[0]  # (a shell comment follows)
                targets = [a.strip("\"'") for a in command.split() if not a.startswith("-")]
                found.append(m.group(0))
                named = [t for t in targets if re.match(r"quantity[-_]guard", t, flags=re.I)]
                if named and "another project" not in paragraph:
                    line = text.count("\n", 0, text.index(m.group(0))) + 1
                    pytest.fail(f"{page.relative_to(ROOT)}:{line}: {m.group(0)} installs the "
                                f"index's quantity-guard")
    assert len(found) >= 5
