"""Bounds against exact optima on small instances, and the bounds CLI."""

import json

import pytest

from ioverify.bounds.confront import (Optimum, confront, explicit_lower_bounds, reference_optima,
                                      searched_optima)
from ioverify.report.confrontation import render_markdown
from ioverify.cli import main


def test_reference_optima_confront_the_matmul_bounds():
    rows = confront(reference_optima())
    bounds = {r.bound for r in rows}
    assert {"matmul-trivial", "matmul-lean", "matmul-lean-product", "cosma"} <= bounds
    assert all(r.status == "held" for r in rows)


def test_a_bound_above_an_optimum_fails():
    # a made-up optimum below the trivial bound 12 must be reported as a failure
    fake = Optimum("matmul", {"m": 2, "k": 2, "n": 2}, 6, 11, "made up for this test")
    rows = {r.bound: r for r in confront([fake])}
    assert rows["matmul-trivial"].status == "failed"
    assert rows["cosma"].status in ("held", "inconclusive")
    assert "failed" in render_markdown(list(rows.values()))


def test_one_shot_bound_above_a_recompute_optimum_is_inconclusive():
    fake = Optimum("matmul", {"m": 2, "k": 2, "n": 2}, 3, 13, "made up for this test")
    rows = {r.bound: r for r in confront([fake])}
    assert rows["cosma"].status == "inconclusive"  # 16/sqrt(3) + 4 > 13


def test_searched_optima_on_tiny_instances():
    optima = searched_optima(seconds=5, instances=(("matmul", {"m": 2, "k": 1, "n": 2}, (3,)),
                                                   ("attention-forward", {"n": 1, "d": 1},
                                                    (3,))))
    assert [(o.family, o.io) for o in optima] == [("matmul", 9), ("attention-forward", 4)]
    assert all(r.status == "held" for r in confront(optima))


def test_every_explicit_lower_bound_is_in_the_confrontation_page():
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "bounds-confrontation.md")
    text = page.read_text()
    for bound in explicit_lower_bounds():
        assert f"`{bound.id}`" in text


def test_cli_list_show_eval(capsys):
    assert main(["bounds", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert any(b["id"] == "saha-ye-thm3.1" for b in listed)
    assert main(["bounds", "show", "saha-ye-thm3.1"]) == 0
    assert r"\Theta" in capsys.readouterr().out
    assert main(["bounds", "eval", "matmul-trivial", "--m", "2", "--k", "2", "--n", "2",
                 "--memory", "3"]) == 0
    assert "= 12" in capsys.readouterr().out
    assert main(["bounds", "eval", "saha-ye-thm3.1", "--n", "4", "--d", "4",
                 "--memory", "16"]) == 0
    assert "asymptotic only" in capsys.readouterr().out


def test_cli_eval_out_of_regime_exits_2_with_one_line(capsys):
    assert main(["bounds", "eval", "saha-ye-algorithm1", "--n", "4", "--d", "3",
                 "--memory", "16"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "B divides d" in err
    assert main(["bounds", "show", "nope"]) == 2


def test_cli_facts_exit_codes(capsys, monkeypatch):
    assert main(["bounds", "facts", "--only", "crossover/saha-ye-thm3.1"]) == 0
    from ioverify.bounds import facts

    fake = facts.Fact("fake", "a fact z3 cannot settle",
                      lambda: facts.Part("unknown", "test", "made unknown"))
    monkeypatch.setitem(facts.FACTS, "fake", fake)
    assert main(["bounds", "facts", "--only", "fake"]) == 3
    wrong = facts.Fact("wrong", "a refuted fact",
                       lambda: facts.Part("refuted", "test", "made refuted"))
    monkeypatch.setitem(facts.FACTS, "wrong", wrong)
    capsys.readouterr()
    assert main(["bounds", "facts", "--only", "wrong", "fake", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "refuted"
    assert [r["status"] for r in out["facts"]] == ["refuted", "unknown"]
    assert [r["verdict"]["status"] for r in out["facts"]] == ["refuted", "unknown"]


@pytest.mark.slow
def test_cli_facts_all_proved():
    assert main(["bounds", "facts"]) == 0


def test_bounds_eval_says_when_a_lower_bound_is_vacuous(capsys):
    """Issue 19: a lower bound <= 0 on the instance is labelled vacuous, in text and JSON."""
    assert main(["bounds", "eval", "matmul-lean", "--m", "2", "--k", "2", "--n", "2",
                 "--memory", "4"]) == 0
    assert "vacuous" in capsys.readouterr().out
    assert main(["bounds", "eval", "matmul-lean", "--m", "8", "--k", "8", "--n", "8",
                 "--memory", "4", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["vacuous"] is False


def test_optima_of_either_variant_are_compared_soundly():
    """A one-shot optimum bounds the recompute optimum from above: below a recompute bound it
    refutes it, at or above it says nothing (no row); a one-shot bound meets it directly."""
    instance = ("matmul", {"m": 2, "k": 2, "n": 2})
    below = Optimum(*instance, 6, 11, "made up", "one-shot")
    rows = {r.bound: r for r in confront([below])}
    assert rows["matmul-trivial"].status == "failed"
    assert "recompute bound vs one-shot optimum" in rows["matmul-trivial"].note
    above = Optimum(*instance, 3, 25, "made up", "one-shot")
    rows = {r.bound: r for r in confront([above])}
    assert set(rows) == {"cosma"} and rows["cosma"].status == "held"
    assert "one-shot" in rows["cosma"].optimum.instance


def test_two_sources_disagreeing_on_an_optimum_is_an_internal_error():
    from ioverify.bounds.confront import distinct
    from ioverify.errors import InternalError

    first = Optimum("matmul", {"m": 2, "k": 2, "n": 2}, 4, 17, "one source")
    again = Optimum("matmul", {"k": 2, "m": 2, "n": 2}, 4, 17, "another source")
    other_variant = Optimum("matmul", {"m": 2, "k": 2, "n": 2}, 4, 18, "x", "one-shot")
    assert distinct([first, again, other_variant]) == [first, other_variant]
    with pytest.raises(InternalError, match="17 .*against 16"):
        distinct([first, Optimum("matmul", {"m": 2, "k": 2, "n": 2}, 4, 16, "wrong")])


def test_the_claims_optima_reach_the_confrontation_from_their_certificates():
    """Issue 16: the shipped claims' exact optima (exact-search obligations and the cells of
    I/O curves) are confronted with every explicit bound, in the variant each was proved in."""
    from pathlib import Path

    from ioverify.cli.docs_cmd import _claim_results
    from ioverify.report.confrontation import claimed_optima

    docs = Path(__file__).resolve().parent.parent / "docs"
    optima = claimed_optima(_claim_results(docs / "claims"))
    cells = {(o.family, o.memory, o.variant): o.io for o in optima
             if o.params in ({"n": 2, "d": 1}, {"m": 2, "k": 2, "n": 3})}
    assert cells[("attention-forward", 3, "one-shot")] == 24  # an I/O-curve cell
    assert cells[("attention-forward", 3, "recompute")] == 24
    assert cells[("matmul", 3, "recompute")] == 37
    assert all("certificate" in o.provenance for o in optima)
    rows = confront(optima)
    assert any(r.optimum.instance.startswith("matmul(m=2, k=2, n=3)") for r in rows)
    assert not [r for r in rows if r.status == "failed"]
