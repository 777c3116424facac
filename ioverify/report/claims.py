"""Documentation generated from the claims: one Markdown page per claim and an index.

Pages say what was claimed, where it comes from, in which game variant, the grid actually checked,
and the verdict per instance with its evidence.  They are rendered from certificates, never from
a run in memory: ``ioverify check`` renders them from the certificates it has just written, and
``ioverify docs`` from the certificates committed beside the shipped pages
(``docs/claims/certificates``), so a test can render them again and find a stale page.  Nothing
that changes from run to run (seconds, tool versions: those are in each certificate) is on a
page, so checking the same claims again rewrites the same pages.
"""

from __future__ import annotations

from pathlib import Path

from ioverify.claims.check import ClaimResult
from ioverify.claims.claim import Claim
from ioverify.claims.run import ObligationResult
from ioverify._io import write_text
from ioverify.certificate.format import digest, read as read_certificate
from ioverify.errors import InvalidFormat
from ioverify.verdict import Attained, describe, from_json, merge
from ioverify.report import plots as plotting
from ioverify.report.curve_plot import curve_alt_text, plot_cells
from ioverify.report.links import theory_links

# Where the certificates behind the shipped pages are committed, relative to the claim pages.
COMMITTED = "certificates"

STATUS_WORDS = {
    "optimal": "optimal (proved)", "verified": "verified", "refuted": "REFUTED",
    "supported": "supported by the sweep (evidence, not a proof)",
    "contradicted": "CONTRADICTED along a sweep",
    "bounded": "bounded horizon only (not a proof)", "unknown": "unknown (not proved)",
    "infeasible": "infeasible instance",
}


def page_name(claim: Claim) -> str:
    return f"{claim.id}.md"


def _evidence(result) -> str:
    v = result.verdict
    evidence = getattr(v, "evidence", None)
    if evidence is None or evidence.kind == "kernel-sweep" or v.status == "refuted":
        return describe(v)
    failed = evidence.detail.get("failed_as_claimed")
    return f"certification failed as claimed: {failed}" if failed else evidence.kind


def vacuous(result) -> str | None:
    """Why a verified lower bound on an instance says nothing, or None: a claimed bound <= 0
    holds for every schedule, and one the trivial bound (every input loaded, every output
    stored) already implies needs no search."""
    v, detail = result.verdict, result.detail
    if result.obligation.kind != "exact-search" or v.status != "verified":
        return None
    exact = detail.get("lower_bound_exact", str(getattr(v, "bound", "")))
    if getattr(v, "bound", 1) <= 0:
        return f"the claimed bound is {exact} <= 0"
    if v.evidence.kind == "trivial-bound":
        return "not above the trivial bound"
    return None


def _value(result) -> str:
    """What was measured or proved on the instance, by kind of obligation."""
    v, kind, detail = result.verdict, result.obligation.kind, result.detail
    if kind == "kernel":
        if "io" not in detail:
            return ""
        error = (f", error vs softmax {detail['error_vs_softmax']:.2g}"
                 if "error_vs_softmax" in detail else "")
        return f"I/O {detail['io']}, peak {detail['peak']}{error}"
    if kind == "symbolic":
        return ""
    if kind == "confront":
        rows = getattr(v, "sweep", None)
        if not rows:
            return ""
        ratios = [r["ratio"] for r in rows]
        return f"{len(rows)} runs, bound / I/O {min(ratios):.3g} to {max(ratios):.3g}"
    if isinstance(v, Attained):
        return f"{v.io} (<= {v.at_most})"
    io = getattr(v, "io", None)
    if io is not None:
        return str(io)
    bound = getattr(v, "bound", None)
    if bound is not None and v.status == "verified":
        why = vacuous(result)
        return f">= {bound}" + (f" (**vacuous**: {why})" if why else "")
    lower, upper = getattr(v, "lower_bound", None), getattr(v, "upper_bound", None)
    return f"[{lower}, {upper}]" if lower is not None or upper is not None else ""


def _vacuous_count(cr: ClaimResult) -> str:
    count = sum(vacuous(r) is not None for r in cr.results)
    return f"; {count} of them vacuous: they test nothing" if count else ""


def part_results(cr: ClaimResult) -> list[tuple]:
    """Each part of the claim's statement with the results of its obligations (in claim
    order) and its status: the worst verdict of those, or None when it is only stated."""
    out, start = [], 0
    for part in cr.claim.statement_parts():  # the claim's obligations are its parts', in order
        results = list(cr.results[start:start + len(part.obligations)])
        start += len(part.obligations)
        status = merge(r.verdict for r in results).status if results else None
        out.append((part, results, status))
    return out


def _part_status(status: str | None) -> str:
    if status is None:
        return "only stated: nothing checks it"
    word = STATUS_WORDS[status]
    return f"checked: {word}" if status in ("optimal", "verified", "supported") else word


def _parts_table(cr: ClaimResult) -> list[str]:
    lines = ["## What is checked", "", "| part | status | obligations |", "|---|---|---|"]
    for part, results, status in part_results(cr):
        reading = f" *Read on ioverify's model as: {part.reading}*" if part.reading else ""
        lines.append(f"| {_linked(part.statement + reading)} | {_part_status(status)} | "
                     f"{len(results) or '-'} |")
    return lines + [""]


def _headline(cr: ClaimResult) -> str:
    parts = part_results(cr)
    stated = sum(status is None for _, _, status in parts)
    checked = f"{len(parts) - stated} of {len(parts)} part(s) checked"
    if stated:
        checked += f"; {stated} only stated"
    return (f"**Verdict: {STATUS_WORDS[cr.verdict.status]}** (worst over {len(cr.results)} "
            f"obligation(s){_vacuous_count(cr)}; {checked})")


def _linked(text: str) -> str:
    """Citations of the theory page as links (claim pages sit one folder below the docs)."""
    return theory_links(text, base="../")


def claim_page(cr: ClaimResult) -> str:
    c = cr.claim
    lines = [
        f"# {c.title}", "",
        _headline(cr), "",
        f"> {_linked(c.statement)}", "",
        "| | |", "|---|---|",
        f"| claim id | `{c.id}` |",
        f"| source | {_linked(c.source)} |",
        f"| firmness | {c.firmness} |",
        f"| game variant | {c.variant} |",
        f"| bounds | {', '.join(f'`{b}`' for b in c.bounds) or '-'} |",
        f"| kernels | {', '.join(f'`{k}`' for k in c.kernels) or '-'} |",
        f"| checks | {', '.join(c.checks)} |", "",
    ]
    if c.notes:
        lines += [_linked(c.notes.strip()), ""]
    lines += _parts_table(cr)
    lines += ["## Grid checked", "",
              "| instance | check | verdict | value | evidence |",
              "|---|---|---|---|---|"]
    for r in cr.results:
        lines.append(f"| `{r.obligation.id}` | {r.obligation.kind} | "
                     f"{STATUS_WORDS[r.verdict.status]} | {_value(r)} | "
                     f"{_evidence(r).replace('|', '/')} |")
    for i, r in enumerate(cr.results):
        if r.obligation.kind == "io-curve" and "cells" in r.detail:
            lines += curve_section(c, i, r)
    lines += ["", "Run times, the seed and the tool versions of each verdict are in its "
                  "certificate (`ioverify check --certificates DIR`).", ""]
    return "\n".join(lines)


def curve_image(claim: Claim, index: int) -> str:
    """The curve plot of obligation ``index`` of ``claim``, relative to the claims folder."""
    return f"img/curve/{claim.id}--{index:03d}.png"


def curve_section(claim: Claim, index: int, result) -> list[str]:
    """An ``io-curve`` result: its plot and its table (M, the answer per variant, the trivial
    bound), and where each cell's ends came from, as its certificates record them."""
    cells, trivial = result.detail["cells"], result.detail["trivial_bound"]
    variants = [v for v in ("one-shot", "recompute") if any(c["variant"] == v for c in cells)]
    alt = curve_alt_text(cells, trivial, f"`{result.obligation.id}`").replace("[", "(")
    lines = ["", f"## Curve: `{result.obligation.id}`", "",
             f"![{alt.replace(']', ')')}]({curve_image(claim, index)})", "",
             "| M | " + " | ".join(variants) + " | trivial bound |",
             "|---|" + "---|" * len(variants) + "---|"]
    by_key = {(c["memory"], c["variant"]): c for c in cells}
    for memory in sorted({c["memory"] for c in cells}):
        row = [_cell_text(by_key[memory, v]) for v in variants]
        lines.append(f"| {memory} | " + " | ".join(row) + f" | {trivial} |")
    lines += ["", "Where each cell's ends came from:", ""]
    lines += [f"- M = {c['memory']} ({c['variant']}): {'; '.join(c['evidence'])}"
              for c in cells]
    return lines


def _cell_text(cell: dict) -> str:
    if cell["status"] == "optimal":
        return f"**{cell['upper_bound']}**"
    if cell["status"] == "infeasible":
        return "infeasible"
    if cell["status"] == "refuted":
        return f"{cell['upper_bound']} (refuted)"
    return f"[{cell['lower_bound']}, {cell['upper_bound']}]"


def draw_curves(folder: Path, claim_results) -> list[Path]:
    """The plot of every ``io-curve`` result, under ``img/curve/``."""
    drawn = []
    for cr in claim_results:
        for i, r in enumerate(cr.results):
            if r.obligation.kind == "io-curve" and "cells" in r.detail:
                path = folder / curve_image(cr.claim, i)
                path.parent.mkdir(parents=True, exist_ok=True)
                drawn.append(plot_cells(path, r.detail["cells"], r.detail["trivial_bound"],
                                        r.obligation.id))
    return drawn


IMAGE_CAPTIONS = {
    "forward-io.png": "Traced I/O of the forward kernels against M, with the explicit lower "
                      "bounds and the Θ shape; the crossover is at M = d².",
    "backward-io.png": "Traced I/O of the backward kernels against M, with the explicit lower "
                       "bound and the Θ shape.",
    "optima.png": "Exact optima on the small instances against the lower bounds claimed there.",
}


def _alt(name: str) -> str:
    """The image's alt text: what the plot shows, else its caption, else its name."""
    text = plotting.alt_text(name) or IMAGE_CAPTIONS.get(name) or name
    return text.replace("[", "(").replace("]", ")")


def _plot_order(name: str) -> tuple:
    """Plots in one fixed order, whether just drawn or kept from an earlier run."""
    known = list(IMAGE_CAPTIONS)
    return (known.index(name) if name in known else len(known), name)


def index_page(claim_results: list[ClaimResult], images: list[str] = ()) -> str:
    lines = ["# Claims and their verdicts", "",
             "Generated by `ioverify check`. Each claim links to its page with the grid checked "
             "and the evidence. *Verified* means proved on every instance listed, in the stated "
             "game variant; an asymptotic statement is never verified by finitely many instances.",
             "", "*Vacuous* obligations (a claimed bound <= 0, or one the trivial bound implies) "
             "hold but test nothing; they are counted apart.",
             "", "A claim's statement is split into parts; a part nothing checks is *only stated*. "
             "Refuted and contradicted statements are listed on the [findings](findings.md) page.",
             "", "| claim | firmness | verdict | parts checked | obligations | vacuous |",
             "|---|---|---|---|---|---|"]
    for cr in claim_results:
        c = cr.claim
        empty = sum(vacuous(r) is not None for r in cr.results)
        parts = part_results(cr)
        checked = sum(status is not None for _, _, status in parts)
        lines.append(f"| [{c.title}]({page_name(c)}) | {c.firmness} | "
                     f"{STATUS_WORDS[cr.verdict.status]} | {checked} of {len(parts)} | "
                     f"{len(cr.results)} | {empty} |")
    if images:
        lines += ["", "## Plots", ""]
        for name in images:
            lines += [f"![{_alt(name)}](img/{name})", "", IMAGE_CAPTIONS.get(name, ""), ""]
    return "\n".join(lines) + "\n"


def certificate_path(folder: Path, claim: Claim, index: int) -> Path:
    """The certificate of obligation ``index`` of ``claim`` (as ``ioverify check`` names it)."""
    return folder / f"{claim.id}--{index:03d}.json"


def results_from_certificates(claims: list[Claim], folder: Path) -> list[ClaimResult]:
    """Each claim's results as its certificates in ``folder`` record them.  A certificate that
    is missing, malformed, edited after sealing, or written for another obligation than the
    claim now has is an InvalidFormat naming it: the pages would be stale."""
    results = []
    for claim in claims:
        obligations = []
        for i, ob in enumerate(claim.obligations):
            doc = _certificate_of(folder, claim, i)
            if doc["obligation"]["id"] != ob.id or doc["obligation"]["spec"] != ob.spec:
                raise InvalidFormat(f"certificate {certificate_path(folder, claim, i)} is for "
                                    f"obligation {doc['obligation']['id']!r}, but the claim's "
                                    f"obligation {i} is {ob.id!r}: re-run `ioverify check`")
            for cell in doc["detail"].get("cells", ()):  # a curve: one certificate per cell
                _cell_certificate(folder, cell)
            verdict = from_json({**doc["verdict"], **_schedule_of(doc)})
            obligations.append(ObligationResult(ob, verdict, doc["seconds"], doc["detail"]))
        results.append(ClaimResult(claim, tuple(obligations)))
    return results


def _certificate_of(folder: Path, claim: Claim, index: int) -> dict:
    return _sealed(certificate_path(folder, claim, index), folder,
                   f"obligation {index} of claim {claim.id!r}")


def _cell_certificate(folder: Path, cell: dict) -> None:
    """A curve's cell certificate is there, sealed, and the one the curve's certificate names
    by digest: the page shows the cell as that summary records it."""
    path = folder / cell["certificate"]
    doc = _sealed(path, folder, f"the cell M = {cell['memory']}, {cell['variant']}")
    if doc["digest"] != cell["digest"]:
        raise InvalidFormat(f"certificate {path} is not the one its curve's certificate names "
                            f"by digest: re-run `ioverify check --certificates {folder}`")


def _sealed(path: Path, folder: Path, what: str) -> dict:
    """The certificate at ``path``, for ``what``: present, and unchanged since it was sealed."""
    if not path.is_file():
        raise InvalidFormat(f"no certificate {path} for {what}: run `ioverify check "
                            f"--certificates {folder}`")
    doc = read_certificate(path)
    if digest({k: v for k, v in doc.items() if k != "digest"}) != doc["digest"]:
        raise InvalidFormat(f"certificate {path} was edited after it was sealed")
    return doc


def _schedule_of(doc: dict) -> dict:
    """The schedule field of verdicts that have one (kept in the witness when sealed): an
    attained upper end's too."""
    if doc["verdict"]["status"] not in ("optimal", "refuted", "bounded", "unknown") \
            and "at_most" not in doc["verdict"]:
        return {}
    return {"schedule": doc["witness"].get("schedule")}


def findings_page(claim_results: list[ClaimResult]) -> str:
    """Every refuted or contradicted statement, with the instance or sweep that shows it."""
    lines = ["# Findings", "",
             "Generated from the claims: every statement, published or derived, that a "
             "certified run, a replayed schedule or a proof refutes, and every asymptotic "
             "statement a sweep of certified runs contradicts. `ioverify check` exits 1 while "
             "any of these stands.", ""]
    found = 0
    for cr in claim_results:
        for part, results, status in part_results(cr):
            if status not in ("refuted", "contradicted"):
                continue
            found += 1
            lines += [f"## {cr.claim.title}: {STATUS_WORDS[status]}", "",
                      f"> {_linked(part.statement)}", "",
                      f"Claim [`{cr.claim.id}`]({page_name(cr.claim)}), firmness "
                      f"{cr.claim.firmness}; source: {_linked(cr.claim.source)}.", ""]
            if part.reading:
                lines += [f"Read on ioverify's model as: {_linked(part.reading)}", ""]
            lines += [f"- `{r.obligation.id}`: {describe(r.verdict)}" for r in results
                      if r.verdict.status in ("refuted", "contradicted")]
            lines.append("")
    if not found:
        lines += ["Nothing is refuted or contradicted.", ""]
    return "\n".join(lines)


def render_pages(claim_results: list[ClaimResult], images: list[str] = ()) -> dict[str, str]:
    """Every page's text by file name: one per claim, the findings and the index."""
    pages = {page_name(cr.claim): claim_page(cr) for cr in claim_results}
    pages["findings.md"] = findings_page(claim_results)
    pages["index.md"] = index_page(claim_results, sorted(images, key=_plot_order))
    return pages


def write_pages(claim_results: list[ClaimResult], folder: Path, plots: bool = False) -> list[Path]:
    """The claim pages and the index; with ``plots`` (and matplotlib installed) the plots too."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for cr in claim_results:
        path = folder / page_name(cr.claim)
        write_text(claim_page(cr), str(path))
        written.append(path)
    write_text(findings_page(claim_results), str(folder / "findings.md"))
    written.append(folder / "findings.md")
    images = sorted(p.name for p in (folder / "img").glob("*.png"))  # kept if not redrawn
    if plots:
        if plotting.available():
            images = [p.name for p in plotting.write_all(folder / "img", claim_results)]
            written += [folder / "img" / name for name in images]
            written += draw_curves(folder, claim_results)
        else:
            import sys

            print("ioverify: plots not redrawn: matplotlib is not installed (the 'docs' extra)",
                  file=sys.stderr)
    index = folder / "index.md"
    write_text(index_page(claim_results, sorted(images, key=_plot_order)), str(index))
    return written + [index]
