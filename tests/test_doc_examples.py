"""Every shell and Python example of the hand-written documentation runs, and where the page
shows its output, the output is compared (issue 19): an example cannot go stale.

The pages are docs/*.md, docs/howto/*.md and docs/explanation/*.md, less the generated ones
(``ioverify docs`` writes them and a test in test_docs.py compares them).  The README's tour is
tests/test_readme.py's.  Each page runs in a fresh folder, its blocks in order, so a block can
use the files an earlier one wrote.  What a fenced block is, by its language:

* ``sh``: each line a command (run by ``bash``), which must exit 0, or N if the line ends with
  the comment ``# exit N``;
* ``console``: ``$ command`` lines, each followed by its expected output (stdout and stderr);
* ``python``: run with the test's interpreter;
* ``text``: the expected stdout of the block just before it;
* ``toml``: parsed.

An HTML comment on the line before a block (invisible on the site) says more about it:
``<!-- example: file NAME -->`` writes a Python block to NAME instead of running it (two such
blocks with one NAME make one file); ``<!-- example: excerpt -->`` on a ``text`` block: its
lines appear, in order and together, in the output; in any output shown, ``...`` in a line
matches anything, and a line that is only ``...`` any number of lines;
``<!-- example: needs PROGRAM ... -->``: a command of one of these programs runs only where it is
installed (an external tool no package of the project's provides);
``<!-- example: install NAME -->`` on a ``toml`` block of ``[project.entry-points.*]`` tables:
the later blocks run as if a package NAME declaring them were installed; ``<!-- example: slow
-->``: the block (and the output shown after it) runs only under ``-m slow``.  Outputs are
compared after ``normalise``: timings in seconds vary, nothing else does.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LANGUAGES = ("sh", "console", "python", "text", "toml")
FENCE = re.compile(r"(?:<!-- example: (?P<note>[^>]*?) -->\n)?"
                   r"^```(?P<lang>[^\n]*)\n(?P<body>.*?)^```$", flags=re.S | re.M)


def generated_pages() -> set[str]:
    from ioverify.cli.docs_cmd import PAGES

    return set(PAGES)


def pages() -> list[str]:
    """The hand-written pages, by path under docs/."""
    found = [*DOCS.glob("*.md"), *(DOCS / "howto").glob("*.md"),
             *(DOCS / "explanation").glob("*.md")]
    names = sorted(str(p.relative_to(DOCS)) for p in found)
    return [n for n in names if n not in generated_pages()]


@dataclass
class Block:
    lang: str
    body: str
    note: str
    line: int


def blocks(page: str) -> list[Block]:
    text = (DOCS / page).read_text()
    return [Block(m["lang"].strip(), m["body"], (m["note"] or "").strip(),
                  text.count("\n", 0, m.start("body"))) for m in FENCE.finditer(text)]


def normalise(text: str) -> str:
    """Timings in seconds are not compared; trailing spaces neither."""
    text = re.sub(r"\b\d+(\.\d+)? ?s\b", "<seconds>", text)
    return "\n".join(line.rstrip() for line in text.strip("\n").splitlines())


def _matches(expected: str, actual: str) -> bool:
    if "..." not in expected:
        return expected == actual
    return re.fullmatch(".*".join(re.escape(part) for part in expected.split("...")),
                        actual) is not None


def _find(segment: list[str], got: list[str], start: int) -> int | None:
    """The first index from ``start`` where the lines ``segment`` match ``got``."""
    for i in range(start, len(got) - len(segment) + 1):
        if all(_matches(w, g) for w, g in zip(segment, got[i:i + len(segment)])):
            return i
    return None


def _lines_match(want: list[str], got: list[str]) -> bool:
    """``want`` matches all of ``got``, a line ``...`` standing for any number of lines."""
    segments, current = [], []
    for line in want:
        if line.strip() == "...":
            segments.append(current)
            current = []
        else:
            current.append(line)
    segments.append(current)
    first, *middle, last = segments if len(segments) > 1 else (segments[0], segments[0])
    if len(segments) == 1:
        return len(want) == len(got) and _find(want, got, 0) == 0
    if _find(first, got, 0) != 0:
        return False
    position = len(first)
    for segment in middle:
        found = _find(segment, got, position)
        if found is None:
            return False
        position = found + len(segment)
    return len(got) - len(last) >= position and _find(last, got, len(got) - len(last)) is not None


def check_output(expected: str, actual: str, excerpt: bool, where: str) -> None:
    want, got = normalise(expected).splitlines(), normalise(actual).splitlines()
    if excerpt:
        if _find(want, got, 0) is None:
            raise AssertionError(f"{where}: the excerpt shown is not in the output:\n"
                                 + "\n".join(got))
        return
    assert _lines_match(want, got), (
        f"{where}: the output differs from the page.\npage:\n" + "\n".join(want)
        + "\nactual:\n" + "\n".join(got))


class Runner:
    """Runs one page's blocks in ``folder``, keeping the last output for a ``text`` block."""

    def __init__(self, page: str, folder: Path):
        self.page, self.folder = page, folder
        self.env = dict(os.environ)
        self.env.pop("PYTHONPATH", None)
        self.env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{self.env['PATH']}"
        self.env["COLUMNS"] = "100"
        self.last: str | None = None

    def where(self, block: Block) -> str:
        return f"docs/{self.page}:{block.line}"

    def run(self, block: Block) -> None:
        getattr(self, "run_" + block.lang)(block)

    def absent(self, command: str, block: Block) -> bool:
        """A command of a program the block ``needs`` that is not installed here."""
        needs = block.note.split()[1:] if block.note.startswith("needs ") else []
        program = command.split()[0] if command.split() else ""
        return program in needs and shutil.which(program) is None

    def _shell(self, command: str, block: Block, stderr=subprocess.PIPE):
        done = subprocess.run(["bash", "-c", command], cwd=self.folder, env=self.env,
                              stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=900)
        match = re.search(r"#\s*exit (\d+)", command)
        expected = int(match.group(1)) if match else 0
        assert done.returncode == expected, (
            f"{self.where(block)}: `{command}` exited {done.returncode}, the page says "
            f"{expected}:\n{done.stdout}\n{done.stderr}")
        return done

    def run_sh(self, block: Block) -> None:
        out = []
        for line in block.body.splitlines():
            if line.strip() and not line.lstrip().startswith("#") \
                    and not self.absent(line, block):
                out.append(self._shell(line, block).stdout)
        self.last = "".join(out)

    def run_console(self, block: Block) -> None:
        command, expected = None, []
        for line in [*block.body.splitlines(), "$ "]:
            if line.startswith("$ "):
                if command and not self.absent(command, block):
                    done = self._shell(command, block, stderr=subprocess.STDOUT)
                    check_output("\n".join(expected), done.stdout, False, self.where(block))
                command, expected = line[2:], []
            else:
                expected.append(line)
        self.last = None

    def run_python(self, block: Block) -> None:
        if block.note.startswith("file "):
            with open(self.folder / block.note.split()[1], "a") as file:
                file.write(block.body)
            self.last = None
            return
        done = subprocess.run([sys.executable, "-c", block.body], cwd=self.folder, env=self.env,
                              capture_output=True, text=True, timeout=900)
        assert done.returncode == 0, f"{self.where(block)}:\n{done.stderr}"
        self.last = done.stdout

    def run_text(self, block: Block) -> None:
        assert self.last is not None, (f"{self.where(block)}: a text block shows the output of "
                                       f"the sh or python block just before it; there is none")
        check_output(block.body, self.last, block.note == "excerpt", self.where(block))
        self.last = None

    def run_toml(self, block: Block) -> None:
        doc = tomllib.loads(block.body)
        self.last = None
        if block.note.startswith("install "):
            self.install(block.note.split()[1], doc["project"]["entry-points"])

    def install(self, name: str, groups: dict) -> None:
        """What installing a package declaring these entry points does to the metadata: a
        dist-info folder on the path, beside the page's modules."""
        info = self.folder / f"{name}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
        (info / "entry_points.txt").write_text("".join(
            f"[{group}]\n" + "".join(f"{key} = {value}\n" for key, value in points.items())
            for group, points in groups.items()))
        self.env["PYTHONPATH"] = str(self.folder)


def _cases():
    for page in pages():
        found = blocks(page)
        if not found:
            continue
        slow = next((i for i, b in enumerate(found) if b.note == "slow"), None)
        yield pytest.param(page, False, id=page)
        if slow is not None:
            yield pytest.param(page, True, id=page + "-slow", marks=pytest.mark.slow)


@pytest.mark.parametrize("page, with_slow", list(_cases()))
def test_the_examples_of_the_page_run_and_show_their_output(page, with_slow, tmp_path):
    runner, skipped = Runner(page, tmp_path), False
    for block in blocks(page):
        if (block.note == "slow" or skipped and block.lang == "text") and not with_slow:
            skipped = True
            continue
        skipped = False
        runner.run(block)


@pytest.mark.parametrize("page", pages())
def test_every_block_of_the_page_says_what_it_is(page):
    for block in blocks(page):
        assert block.lang in LANGUAGES, (
            f"docs/{page}:{block.line}: a block in {block.lang or 'no language'}: label it one "
            f"of {', '.join(LANGUAGES)} so that the examples test runs it")


def test_the_pages_with_examples_are_the_hand_written_ones():
    assert "tutorial.md" in pages() and "howto/add-kernel.md" in pages()
    assert not generated_pages() & set(pages())


def test_a_stale_output_fails_and_a_timing_does_not():
    check_output("done in 1.5 s\n3 passed", "done in 0.2 s\n3 passed\n", False, "x")
    with pytest.raises(AssertionError, match="differs"):
        check_output("3 passed", "4 passed", False, "x")
    check_output("b ... d", "a\nb c d\ne", True, "x")
    check_output("a\n...\nd", "a\nb\nc\nd", False, "x")
    check_output("a\nb\n...", "a\nb\nc\nd", False, "x")
    with pytest.raises(AssertionError, match="differs"):
        check_output("a\n...\nc", "a\nb\nd", False, "x")
    with pytest.raises(AssertionError, match="excerpt"):
        check_output("b\nd", "b\nc\nd", True, "x")
