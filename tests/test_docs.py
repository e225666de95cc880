"""The examples in docs/environments.md and in the env cards run, the ansi drawing shown in the
docs is what the code it quotes prints, and the docs' links and named paths lead somewhere."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

from kc_env import gym_env, kings_corner_v0

DOC = Path(__file__).resolve().parent.parent / "docs" / "environments.md"
README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"(<!-- no-test -->\n)?```(python|text)\n(.*?)```", re.S)


def blocks(text: str) -> list[tuple[bool, str, str]]:
    return [(bool(skip), kind, body) for skip, kind, body in BLOCK.findall(text)]


def run(code: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<doc>", "exec"), {})
    return out.getvalue()


DOC_BLOCKS = [body for skip, kind, body in blocks(DOC.read_text()) if kind == "python" and not skip]


@pytest.mark.parametrize("code", DOC_BLOCKS, ids=[f"block{i}" for i in range(len(DOC_BLOCKS))])
def test_doc_examples_run(code):
    run(code)


def test_doc_examples_stay_short():
    assert all(len(code.strip().splitlines()) <= 12 for code in DOC_BLOCKS)


def test_the_ansi_drawing_in_the_docs_is_real():
    found = blocks(DOC.read_text())
    drawing = next(body for _, kind, body in found if kind == "text")
    assert run(DOC_BLOCKS[-1]) == drawing + "\n"


README_BLOCKS = [body for skip, kind, body in blocks(README.read_text()) if kind == "python" and not skip]


@pytest.mark.parametrize("code", README_BLOCKS, ids=[f"block{i}" for i in range(len(README_BLOCKS))])
def test_readme_examples_run(code):
    run(code)


def test_the_ansi_drawing_in_the_readme_is_real():
    """The README shows no drawing of its own now (it links docs/environments.md, tested above);
    one it shows again must be what its code prints."""
    drawings = [body for _, kind, body in blocks(README.read_text()) if kind == "text"]
    made_by = [code for code in README_BLOCKS if "render()" in code]
    if drawings:
        assert run(made_by[0]) == drawings[0] + "\n"


@pytest.mark.parametrize("module", [kings_corner_v0, gym_env])
def test_env_card_examples_run(module):
    for code in re.findall(r"```python\n(.*?)```", module.__doc__, re.S):
        run(code)


ROOT = Path(__file__).resolve().parent.parent
LINK = re.compile(r"\]\(([^)\s]+)\)")
PATH = re.compile(r"(?<![\w/.-])((?:benchmarks|research|configs|docs)/[\w./-]*\w\.(?:py|yaml|md))")
"""A repository path as the docs name one: ``research/weight_scan.py``, ``configs/default.yaml``."""
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "research").glob("*.md"))]
NAMING = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "research" / "README.md",
          *sorted((ROOT / "configs").glob("*.yaml")), *sorted((ROOT / "research").rglob("*.yaml")),
          *sorted((ROOT / "research").glob("*.py")), *sorted((ROOT / "benchmarks").glob("*.py"))]
"""Where a named path must exist; research/experiments.md is a dated log and may name what has gone."""


def anchors(page: Path) -> set[str]:
    """The ``#anchors`` of a page's headings, as GitHub makes them (a repeated one gets ``-1``...)."""
    text, found, seen = re.sub(r"```.*?```", "", page.read_text(), flags=re.S), set(), {}
    for heading in re.findall(r"^#{1,6} +(.*?) *#*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(f"{slug}-{seen[slug]}" if slug in seen else slug)
        seen[slug] = seen.get(slug, 0) + 1
    return found


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_leads_to_a_file_and_heading(page):
    links = [t for t in LINK.findall(page.read_text()) if not re.match(r"[a-z]+:", t)]
    missing = [t for t in links if t.split("#")[0] and not (page.parent / t.split("#")[0]).exists()]
    assert not missing, f"{page.name}: links to nothing: {missing}"
    to_headings = [(page.parent / t.split("#")[0] if t.split("#")[0] else page, t) for t in links if "#" in t]
    lost = [t for target, t in to_headings if target.suffix == ".md" and t.split("#", 1)[1] not in anchors(target)]
    assert not lost, f"{page.name}: links to no heading: {lost}"


@pytest.mark.parametrize("path", NAMING, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_path_named_exists(path):
    """Moved files (issue 32: research/, docs/media/record_video.py) leave no stale names behind."""
    named = [t for t in PATH.findall(path.read_text()) if "NAME" not in t]
    missing = [t for t in named if not (ROOT / t).exists() and not (path.parent / t).exists()]
    assert not missing, f"{path.relative_to(ROOT)} names what is not there: {missing}"
