"""README.md and docs/: links resolve, the results table is what reports/ give, the README stays
short and starts with its two commands, and the commands it shows exist."""

from __future__ import annotations

import importlib.util
import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+\1", re.S)


def _load_renderer():
    spec = importlib.util.spec_from_file_location("readme_table",
                                                  ROOT / "benchmarks" / "readme_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _prose(text: str) -> str:
    """``text`` without fenced code blocks and inline code, where brackets are not links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: inline markup dropped, lower case, punctuation removed
    (letters, digits, ``_`` and ``-`` kept), each space a hyphen."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading's anchor in a markdown file, duplicates numbered as GitHub does."""
    seen: dict[str, int] = {}
    out = set()
    for line in FENCE.sub("", path.read_text()).splitlines():
        m = re.match(r"^#{1,6}\s+(.+?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def test_slug_is_githubs():
    assert slug("Generation, HyDE and Multi-HyDE") == "generation-hyde-and-multi-hyde"
    assert slug("A parameter sweep: `page_scorer.P`") == "a-parameter-sweep-page_scorerp"
    assert slug("Closing the gap: against fingap best at 06b07eb") == \
        "closing-the-gap-against-fingap-best-at-06b07eb"


@pytest.mark.parametrize("doc", [README, *DOCS], ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(doc: Path):
    broken = []
    for target in LINK.findall(_prose(doc.read_text())):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:, ...
            continue
        file_part, _, anchor = target.partition("#")
        dest = (doc.parent / file_part).resolve() if file_part else doc
        if not dest.exists():
            broken.append(f"{target}: no {dest.relative_to(ROOT)}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading #{anchor} in {dest.relative_to(ROOT)}")
    assert not broken, f"{doc.name}: " + "; ".join(broken)


def test_readme_results_table_is_what_reports_give():
    renderer = _load_renderer()
    text = README.read_text()
    start, end = text.find(renderer.START), text.find(renderer.END)
    assert 0 <= start < end, "README.md has no results-table block"
    block = text[start:end + len(renderer.END)]
    assert block == renderer.render_table(ROOT), \
        "README's results table is stale: run `python benchmarks/readme_table.py --write`"


def test_readme_is_short_and_starts_with_the_two_commands():
    lines = README.read_text().splitlines()
    assert len(lines) < 250
    head = [line.split("#")[0].strip() for line in lines[:15]]
    assert "make repro" in head and "make test" in head
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))
    assert {"repro", "test"} <= targets


def _shell_commands(text: str) -> list[list[str]]:
    """Each command line of the bash blocks, continuation lines joined, comments dropped."""
    commands = []
    for block in re.findall(r"^```bash\n(.*?)^```", text, re.M | re.S):
        for line in block.replace("\\\n", " ").splitlines():
            words = shlex.split(line, comments=True)
            if words:
                commands.append(words)
    return commands


def test_readme_commands_exist():
    import typer

    from fingap.cli import app

    group = typer.main.get_command(app)
    targets = set(re.findall(r"^([\w-]+):", (ROOT / "Makefile").read_text(), re.M))
    # the inline commands too: `make ...`, `fingap ...`, `python benchmarks/...`
    inline = [shlex.split(c) for c in re.findall(r"`((?:make|fingap|python) [^`]+)`",
                                                 README.read_text())]
    problems = []
    for words in _shell_commands(README.read_text()) + inline:
        if words[0] == "make":
            problems += [f"make {t}" for t in words[1:] if t not in targets]
        elif words[0] == "fingap" and words[1:] and words[1] != "--help":
            cmd = group.commands.get(words[1])
            if cmd is None:
                problems.append(f"fingap {words[1]}")
                continue
            options = {o for p in cmd.params for o in p.opts + p.secondary_opts} | {"--help"}
            problems += [f"fingap {words[1]} {w}" for w in words[2:]
                         if w.startswith("-") and w.split("=")[0] not in options]
        elif words[0] == "python" and words[1:] and words[1].endswith(".py"):
            if not (ROOT / words[1]).exists():
                problems.append(words[1])
    assert not problems, problems
