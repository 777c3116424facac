"""The documentation: examples run, generated pages are current, every claim has a page, and the
site builds strictly."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


# The examples of every hand-written page run in tests/test_doc_examples.py.


def test_every_public_strategy_is_documented():
    import ioverify.strategies as strategies

    page = (DOCS / "howto" / "strategies.md").read_text()
    for name in strategies.__all__:
        assert f"`{name}(" in page, f"strategy {name} is not documented in howto/strategies.md"
        assert getattr(strategies, name).__doc__, f"strategy {name} has no docstring"


@pytest.mark.parametrize("page", ["reference/cli.md", "reference/api.md"])
def test_generated_reference_is_current(page):
    from ioverify.cli.reference import PAGES

    assert (DOCS / page).read_text() == PAGES[page](), \
        f"docs/{page} is stale: run `ioverify docs`"


def theory_sections() -> dict[str, str]:
    """The numbered sections of the theory page, by number."""
    text = (DOCS / "theory.md").read_text()
    heads = list(re.finditer(r"^## (\d+)\. .* \{#section-(\d+)\}$", text, flags=re.M))
    assert all(h.group(1) == h.group(2) for h in heads)
    ends = [h.start() for h in heads[1:]] + [len(text)]
    return {h.group(1): text[h.start():end] for h, end in zip(heads, ends)}


def test_the_theory_page_states_every_bound_in_its_section():
    """Each bound record is on the theory page, in the section the record names."""
    from ioverify.bounds import REGISTRY

    sections = theory_sections()
    misplaced = [b.id for b in REGISTRY.values()
                 if f"(bounds.md#{b.id.replace('.', '')})" not in sections.get(b.section[1:], "")]
    assert not misplaced, f"bounds missing from their section of docs/theory.md: {misplaced}"


def test_every_citation_of_the_theory_page_names_a_section_it_has():
    cited = set()
    for folder in ("ioverify", "kernels", "proofs", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            cited |= set(re.findall(r"docs/theory\.md §(\d+)", path.read_text()))
    assert cited and cited <= set(theory_sections()), cited - set(theory_sections())


def test_every_shipped_claim_has_a_page():
    from ioverify.claims.claim import load
    from ioverify.report.claims import page_name

    claims = load([ROOT / "proofs"])
    assert claims
    missing = [c.id for c in claims if not (DOCS / "claims" / page_name(c)).exists()]
    assert not missing, f"claims without a page (run `ioverify check`): {missing}"
    index = (DOCS / "claims" / "index.md").read_text()
    assert all(page_name(c) in index for c in claims)


KATEX = ("javascripts/katex/katex.min.js", "javascripts/katex/contrib/auto-render.min.js",
         "javascripts/katex/katex.min.css", "javascripts/katex-init.js")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site built once, strictly (a warning fails the build)."""
    for module in ("mkdocs", "mkdocstrings", "pymdownx"):  # the docs extra
        pytest.importorskip(module)
    site = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                           str(site), "--config-file", str(ROOT / "mkdocs.yml")],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    yield site
    shutil.rmtree(site)


def test_site_builds_strictly(site):
    assert (site / "index.html").exists() and (site / "claims" / "index.html").exists()
    assert (site / "theory" / "index.html").exists()


def test_math_is_rendered_offline_by_the_vendored_katex(site):
    """The formulas of the bound library reach the page as arithmatex spans, and the page
    loads KaTeX from the site itself: every file it needs, fonts included, is vendored."""
    from ioverify.bounds import REGISTRY

    page = (site / "bounds" / "index.html").read_text()
    assert page.count('class="arithmatex"') >= 2 * len(REGISTRY)  # table row + record section
    for rel in KATEX:
        assert (DOCS / rel).is_file() and (site / rel).is_file(), rel
        assert f'"../{rel}"' in page, f"bounds page does not load {rel}"
    css = (DOCS / "javascripts" / "katex" / "katex.min.css").read_text()
    fonts = set(re.findall(r"url\((fonts/[^)]+)\)", css))
    assert fonts and all((DOCS / "javascripts" / "katex" / f).is_file() for f in fonts)
    assert "http" not in css  # nothing fetched from elsewhere


def test_ioverify_docs_check_finds_the_generated_pages_current(capsys):
    from ioverify.cli import main

    quick = ["bounds.md", "reference/cli.md", "reference/api.md"]
    assert main(["docs", "--check", "--docs", str(DOCS), "--only", *quick]) == 0


def test_ioverify_docs_writes_and_then_finds_nothing_stale(tmp_path, capsys):
    from ioverify.cli import main

    (tmp_path / "bounds.md").write_text("edited by hand\n")
    assert main(["docs", "--check", "--docs", str(tmp_path), "--only", "bounds.md"]) == 1
    assert "stale" in capsys.readouterr().out
    assert (tmp_path / "bounds.md").read_text() == "edited by hand\n"  # --check writes nothing
    assert main(["docs", "--docs", str(tmp_path), "--only", "bounds.md"]) == 0
    assert main(["docs", "--check", "--docs", str(tmp_path), "--only", "bounds.md"]) == 0


def test_claim_pages_are_rendered_from_the_committed_certificates(capsys):
    """Issue 13: the shipped claim pages are what the committed certificates say; a page
    edited by hand, or a claim changed without re-recording, makes this fail."""
    from ioverify.cli import main

    code = main(["docs", "--check", "--docs", str(DOCS), "--only", "claims"])
    assert code == 0, capsys.readouterr().out


def test_claim_pages_refuse_a_missing_or_edited_certificate(tmp_path, capsys):
    from ioverify.cli import main

    shutil.copytree(DOCS / "claims", tmp_path / "claims")
    folder = tmp_path / "claims" / "certificates"
    first = sorted(folder.glob("*.json"))[0]
    first.write_text(first.read_text().replace('"seconds": ', '"seconds": 1', 1))
    assert main(["docs", "--check", "--docs", str(tmp_path), "--only", "claims"]) == 2
    assert "edited after it was sealed" in capsys.readouterr().err
    first.unlink()
    assert main(["docs", "--check", "--docs", str(tmp_path), "--only", "claims"]) == 2
    err = capsys.readouterr().err
    assert "no certificate" in err and len(err.strip().splitlines()) == 1


def test_claim_pages_refuse_a_missing_or_swapped_cell_certificate_of_a_curve(tmp_path, capsys):
    """A curve's page shows its cells as the curve's certificate summarises them: each cell's
    own certificate must be there, sealed, and the one named by digest."""
    from ioverify.cli import main

    shutil.copytree(DOCS / "claims", tmp_path / "claims")
    folder = tmp_path / "claims" / "certificates"
    cell = folder / "attention-forward-tiny-optima--000--M4-one-shot.json"
    other = folder / "attention-forward-tiny-optima--000--M5-one-shot.json"
    cell.write_text(other.read_text())  # sealed, but another cell's
    assert main(["docs", "--check", "--docs", str(tmp_path), "--only", "claims"]) == 2
    assert "names by digest" in capsys.readouterr().err
    cell.unlink()
    assert main(["docs", "--check", "--docs", str(tmp_path), "--only", "claims"]) == 2
    err = capsys.readouterr().err
    assert "no certificate" in err and "M = 4, one-shot" in err and err.count("\n") == 1


@pytest.mark.slow
def test_every_committed_certificate_is_accepted_by_the_recheck(capsys):
    """The certificates behind the shipped pages re-check: the pages rest on accepted
    certificates only."""
    from ioverify.cli import main

    files = sorted(str(p) for p in (DOCS / "claims" / "certificates").glob("*.json"))
    assert files
    code = main(["certificate", "check", *files])
    out = capsys.readouterr().out
    assert out.count(": accepted (") == len(files), out
    assert code == 0


def test_citations_of_the_theory_page_become_links_on_generated_pages():
    from ioverify.report.links import theory_links

    assert theory_links("derived (docs/theory.md §6)", base="../") == \
        "derived ([theory §6](../theory.md#section-6))"
    assert theory_links("see docs/theory.md") == "see [the theory page](theory.md)"


def test_plots_have_alt_text_that_says_what_they_show():
    """Issue 19: a reader who cannot see a plot reads what it shows, not its file name."""
    from ioverify.report.claims import IMAGE_CAPTIONS, index_page
    from ioverify.report.plots import KERNEL_PLOTS

    page = index_page([], sorted(IMAGE_CAPTIONS))
    alts = re.findall(r"!\[([^\]]*)\]\(img/([^)]+)\)", page)
    assert sorted(name for _, name in alts) == sorted(IMAGE_CAPTIONS)
    for alt, name in alts:
        assert name not in alt and len(alt.split()) >= 15, (name, alt)
    for name, (_, kernels, bounds, theta) in KERNEL_PLOTS.items():
        alt = dict((n, a) for a, n in alts)[name]
        assert all(k in alt for k in (*kernels, *bounds, theta)), alt


def test_the_api_page_has_every_public_module():
    """A module added anywhere in the package gets its directive: found here by its file."""
    from ioverify.cli.reference import COMMAND_LINE, public_modules

    expected = set()
    for folder, package in (("ioverify", "ioverify"), ("kernels", "ioverify.kernels"),
                            ("proofs", "ioverify.proofs")):
        for path in (ROOT / folder).rglob("*.py"):
            parts = [package, *path.relative_to(ROOT / folder).with_suffix("").parts]
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            private = any(part.startswith("_") for part in name.split("."))
            command = any(name == c or name.startswith(c + ".") for c in COMMAND_LINE)
            if not (private or command):
                expected.add(name)
    assert set(public_modules()) == expected
    page = (DOCS / "reference" / "api.md").read_text()
    for name in expected:
        assert f"::: {name}\n" in page or f'heading: "{name}"' in page, name


def test_the_api_page_renders_members_and_signatures(site):
    page = (site / "reference" / "api" / "index.html").read_text()
    for anchor in ("ioverify.game.rules.Schedule.from_moves", "ioverify.game.replay.replay",
                   "ioverify.bounds.model.Bound.evaluate", "kernels.flash_forward_v1.run"):
        assert f'id="{anchor}"' in page, anchor
    assert page.count('class="doc-signature') > 100
    assert "ioverify.kernels.flash_forward_v1" in page


def test_a_page_that_cannot_be_written_is_refused_before_any_is_written(tmp_path, capsys):
    """Regression (found by trying): the pages were written one by one, each making its folder,
    so one that could not be written (here a folder in its place) failed after the others and
    their folders were written.  Every page is checked before any is written."""
    from ioverify.cli import main

    (tmp_path / "bounds.md").mkdir()
    code = main(["docs", "--docs", str(tmp_path), "--only", "reference/cli.md", "bounds.md"])
    err = capsys.readouterr().err
    assert code == 2 and "bounds.md': it is a folder" in err
    assert len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bounds.md"]
