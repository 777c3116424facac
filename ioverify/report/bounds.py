"""Render the bound registry (and the list of facts) to Markdown: ``docs/bounds.md``.

The committed file must equal ``render()`` (a test checks it), so it cannot go stale:

    ioverify docs
"""

from __future__ import annotations

from ioverify.bounds.model import describe
from ioverify.bounds.records import REGISTRY, UNRECORDED
from ioverify.report.links import theory_links


# What the checks found against the theory page (docs/theory.md), each backed by a fact of
# ``ioverify.bounds.facts``.
FINDINGS = (
    ("flash-literal-blocks-fit-large-M",
     "[The theory page, §6](theory.md#section-6) says FlashAttention's literal block sizes "
     "always overflow M. They do for d <= M <= 4d^2 (fact `flash-literal-blocks-overflow`), but "
     "they FIT for M >= 8d^2 + 12d; the traced kernel `flash-forward-v1` with literal blocks "
     "agrees (d = 2, M = 64, n = 16: peak 57 <= 64)"),
    ("kernel-count-vs-theory/flash-forward-v1",
     "the traced FlashAttention forward moves n(d + 2) words fewer than the count "
     "2nd + T_c(3nd + 4n) of [§6](theory.md#section-6): it does not write the initial O, l, m "
     "to slow memory"),
    ("kernel-count-vs-theory/flash-backward-v1",
     "the traced FlashAttention backward moves nd words fewer than the count "
     "4nd + T_c(5nd + 2n) of [§6](theory.md#section-6)"),
    ("count-vs-theta/saha-ye-algorithm1",
     "Saha-Ye Algorithm 1's count is at most 23 n^2 d / sqrt(M) for M < d^2 with "
     "B = floor(sqrt(M/4)); 22 fails (n = 1, d = 4, M = 15, B = 1): the floor costs a factor"),
)


def render() -> str:
    lines = ["# The bound library", "",
             "Generated from `ioverify.bounds.REGISTRY` by `ioverify docs`; "
             "do not edit by hand (a test compares this file with the rendering).", "",
             "Firmness follows [the theory page](theory.md#firmness): **paper** (read in the "
             "full text), **summary** (known from an abstract or review), **recalled** (from "
             "memory: a hypothesis), **derived** (worked out for ioverify: a conjecture until "
             "checked). Each record names the [theory](theory.md) section it comes from. "
             "An *asymptotic* record is "
             "a shape without constants: `evaluate` refuses it, `shape` gives the shape's value, "
             "which is not a number of transfers.", "",
             "| id | kind | firmness | claim | regime |", "|---|---|---|---|---|"]
    for b in REGISTRY.values():
        lines.append(f"| [`{b.id}`](#{b.id.replace('.', '')}) | {b.kind} | {b.firmness} | "
                     f"${b.latex()}$ | {_regime(b)} |")
    lines.append("")
    for b in REGISTRY.values():
        lines += _section(b)
    lines += ["## Findings", ""] + [f"- {text} (fact `{fact}`)" for fact, text in FINDINGS] + [""]
    lines += ["## Known results without a formula", ""]
    lines += [f"- {source}: {theory_links(what)}" for source, what in UNRECORDED]
    lines += ["", "## Facts", "", "Proved by `ioverify bounds facts` (SymPy identities and "
              "solution sets, Z3 over the whole region; never sampled):", ""]
    from ioverify.bounds.facts import FACTS

    lines += [f"- `{f.id}`: {theory_links(f.statement)}" for f in FACTS.values()]
    return "\n".join(lines) + "\n"


def _section_link(section: str) -> str:
    """``§4`` as a link to that section of the theory page."""
    number = section.lstrip("§")
    return f"[{section}](theory.md#section-{number})" if number.isdigit() else "-"


def _regime(b) -> str:
    return "; ".join(describe(c) for c in b.conditions).replace("*", r"\*") or "all"


def _section(b) -> list[str]:
    rows = [("Statement", b.statement), ("Source", b.source), ("Firmness", b.firmness),
            ("Kind", b.kind + (" (asymptotic only)" if b.asymptotic else "")),
            ("Game variant", b.variant), ("Graph", b.graph),
            ("Parameters", ", ".join(f"`{p}`" for p in b.param_names)),
            ("Regime", _regime(b)), ("Formula", f"${b.latex()}$"),
            ("Theory", _section_link(b.section))]
    if b.defaults:
        rows.append(("Defaults", ", ".join(f"`{s} = {e}`" for s, e in b.defaults)))
    if b.family:
        rows.append(("DAG family", f"`{b.family}`"))
    if b.notes:
        rows.append(("Notes", b.notes))
    out = [f"## {b.id}", "", f"**{b.title}**", "", "| | |", "|---|---|"]
    out += [f"| {k} | {theory_links(v.replace('|', '/'))} |" for k, v in rows]
    return out + [""]

