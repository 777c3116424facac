"""The performance page's plots (issue 19): drawn from the recorded benchmark results by a
documented command, each on the page with alt text that says what it shows, and each showing the
numbers the page's tables give."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from ioverify.errors import InvalidArgument
from ioverify.report import performance

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGE = (DOCS / "performance.md").read_text()


def _number(text: str) -> int:
    return int(text.replace(",", ""))


def _section(title: str) -> str:
    start = PAGE.index(title)
    end = PAGE.find("\n## ", start + 1)
    return PAGE[start:end if end > 0 else len(PAGE)]


def test_every_plot_is_on_the_page_with_the_alt_text_that_says_what_it_shows():
    images = dict((name, alt) for alt, name in re.findall(r"!\[([^\]]*)\]\(img/([^)]+)\)", PAGE))
    for name in performance.PLOTS:
        assert images.get(name) == performance.alt_text(name), name
        assert len(images[name].split()) >= 30 and name not in images[name]
        assert (DOCS / "img" / name).is_file(), f"docs/img/{name} is not drawn"
    assert "ioverify docs --performance-plots" in PAGE  # how to draw them again


def test_the_exhaustive_plot_shows_the_states_of_the_table():
    table = {}
    for m, rec, one in re.findall(r"^\| attention_forward\(2,1\) \| (\d) \| \d+ \| ([\d,]+) "
                                  r"states, [\d.]+ s \| ([\d,]+) states, [\d.]+ s \|$",
                                  _section("## Exhaustive configuration search"), flags=re.M):
        table[int(m)] = {"recompute": _number(rec), "one-shot": _number(one)}
    assert sorted(table) == [3, 4, 5, 6, 7, 8]
    shown = performance.series("performance-exhaustive-states.png",
                               performance.load_results(DOCS, "exhaustive"))
    for variant, points in shown.items():
        assert dict(points) == {m: row[variant] for m, row in table.items()}, variant


def test_the_backward_plot_shows_the_io_of_the_table():
    section = _section("## Backward, block-sparse and approximate kernels")
    rows = re.findall(r"^  \| (\d+) \| ([\d,]+) \(.*?\) \| ([\d,]+) \(.*?\) \| ([\d,]+) \(.*?\) \|$",
                      section, flags=re.M)
    assert len(rows) >= 5
    doc = performance.load_results(DOCS, "kernels-extra")
    shown = {k: dict(v) for k, v in
             performance.series("performance-backward-io.png", doc).items()}
    for m, *ios in rows:
        for kernel, io in zip(performance.BACKWARD, ios):
            assert shown[kernel][int(m)] == _number(io), (kernel, m)
    n, d = performance.sizes(doc)["n"], performance.sizes(doc)["d"]
    assert f"n = {n}, d = {d}" in section


def test_the_documented_command_draws_every_plot_from_the_recorded_results(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from ioverify.cli import main

    shutil.copytree(DOCS / "performance", tmp_path / "performance")
    assert main(["docs", "--docs", str(tmp_path), "--performance-plots"]) == 0
    for name in performance.PLOTS:
        assert (tmp_path / "img" / name).read_bytes()[:4] == b"\x89PNG"
        assert name in capsys.readouterr().out or (tmp_path / "img" / name).is_file()


def test_results_of_another_suite_are_refused(tmp_path):
    (tmp_path / "performance").mkdir()
    (tmp_path / "performance" / "exhaustive.json").write_text(json.dumps(
        {"suite": "pebble", "rows": []}))
    with pytest.raises(InvalidArgument, match="not the --json output"):
        performance.load_results(tmp_path, "exhaustive")
    with pytest.raises(InvalidArgument, match="cannot be read"):
        performance.load_results(tmp_path, "kernels-extra")


@pytest.mark.parametrize("recorded", [(), ("exhaustive",)])
def test_a_failed_drawing_leaves_nothing_behind(tmp_path, capsys, recorded):
    """Regression (found by trying): without recorded results, ``docs --performance-plots``
    failed after making img/ (and the docs folder), leaving them empty; with one suite's
    results of two, it left that suite's plot.  Now every plot is drawn before anything is
    written: one line, exit 2, no folder or file made."""
    pytest.importorskip("matplotlib")
    from ioverify.cli import main

    docs = tmp_path / "docs"
    for suite in recorded:
        (docs / "performance").mkdir(parents=True, exist_ok=True)
        shutil.copy(DOCS / "performance" / f"{suite}.json", docs / "performance")
    before = sorted(tmp_path.rglob("*"))
    assert main(["docs", "--docs", str(docs), "--performance-plots"]) == 2
    err = capsys.readouterr().err
    assert "cannot be read" in err and len(err.strip().splitlines()) == 1
    assert sorted(tmp_path.rglob("*")) == before
