"""Soundness holes in the certificate re-check, found by trying (an adversarial review): every
test edits a shipped certificate (docs/claims/certificates), reseals it with a fresh digest
(anyone can: it is a checksum) and checks that the re-check does not accept it, and never runs
what it reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ioverify.certificate.format import digest
from ioverify.certificate.recheck import check_file, obligation_id
from ioverify.errors import InvalidArgument

SHIPPED = Path(__file__).resolve().parent.parent / "docs" / "claims" / "certificates"
CONFRONT = "lower-bounds-vs-kernels--002.json"  # matmul-trivial vs matmul-tiled, supported
ONE_SHOT_M3 = "approximate-attention-degree-2-recompute-pays--000--M3-one-shot.json"


def _load(name: str) -> dict:
    return json.loads((SHIPPED / name).read_text())


def _reseal(doc: dict, path: Path) -> Path:
    """Write ``doc`` with a fresh digest (no schema check: malformed documents too)."""
    body = {k: v for k, v in doc.items() if k != "digest"}
    path.write_text(json.dumps({**body, "digest": digest(body)}))
    return path


def _copy(names, folder: Path) -> None:
    for name in names:
        shutil.copy(SHIPPED / name, folder / name)


# --- F1: no certificate text is evaluated as Python ------------------------------------------

def _payload(marker: Path) -> str:
    return f"__import__('builtins').open({str(marker)!r}, 'w').write('ran') and 2"


def test_a_confront_reading_is_never_evaluated_as_python(tmp_path):
    """Regression (found by trying): ``bound_on_run`` handed a confront spec's ``reading``
    strings to ``sympy.sympify``, which evaluates Python: a resealed certificate ran code
    inside the checker (and disabled its checks).  A reading is now parsed as arithmetic."""
    marker = tmp_path / "PWNED"
    doc = _load(CONFRONT)
    doc["obligation"]["spec"]["reading"] = {"m": _payload(marker)}
    outcome = check_file(_reseal(doc, tmp_path / "c.json"))
    assert outcome.outcome == "malformed", outcome
    assert "reading m" in outcome.reason and "not arithmetic" in outcome.reason
    assert not marker.exists()


def test_a_bound_parameter_from_a_certificate_is_never_evaluated_as_python(tmp_path):
    """Regression (found by trying): ``_to_sympy`` sympified string parameter values, so an
    exact-search spec of family dag-file with a ``lower_bound`` id and a parameter written as
    Python ran it in the checker.  Bound parameters must be numbers."""
    marker = tmp_path / "PWNED2"
    doc = _load(ONE_SHOT_M3)
    spec = doc["obligation"]["spec"]
    spec.pop("optimum", None)
    doc["detail"].pop("expected_optimum", None)
    spec.update(family="dag-file", lower_bound="attention-forward-trivial",
                params={"file": "x.json", "n": _payload(marker), "d": 1})
    doc["obligation"]["id"] = obligation_id("exact-search", spec)
    outcome = check_file(_reseal(doc, tmp_path / "c.json"))
    assert outcome.outcome == "malformed", outcome
    assert "parameter n" in outcome.reason and "not a number" in outcome.reason
    assert not marker.exists()


@pytest.mark.parametrize("text, known", [
    ("n*d", True), ("m*100", True), ("-2 + M/4", True), ("2**10", True), ("Z_QK", True),
    ("n*d*0.5", True),
    ("__import__('os').getpid()", False), ("n.real", False), ("sqrt(n)", False),
    ("[n][0]", False), ("nope", False), ("n if M else d", False), ("9**9**9", False),
    ("n/0", False), ("'n'", False), ("True", False), ("n" + "*n" * 150, False),
])
def test_a_reading_is_arithmetic_over_the_runs_names_only(text, known):
    """Regression (found by trying): readings were sympified (Python); now numbers, the run's
    names and + - * / ** only, anything else refused in one line, before any large power is
    computed."""
    from ioverify.bounds.instance import read_expression

    names = {"n": 8, "d": 4, "m": 2, "M": 16, "Z_QK": 40}
    if known:
        value = read_expression(text, names)
        assert value.is_number
    else:
        with pytest.raises(InvalidArgument):
            read_expression(text, names)


def test_bound_parameters_as_text_are_refused_not_sympified():
    """Regression (found by trying): ``Bound.evaluate`` sympified text parameters; text is now
    refused (the CLI turns its arguments into numbers first)."""
    from ioverify.bounds.instance import bound_value
    from ioverify.bounds.records import get

    with pytest.raises(InvalidArgument, match="must be a number"):
        get("matmul-trivial").evaluate(m="2", k=2, n=2, M=3)
    with pytest.raises(InvalidArgument, match="not a number"):
        bound_value("matmul-trivial", {"m": "2", "k": 2, "n": 2}, 3)
    assert get("matmul-trivial").evaluate(m=2, k=2, n=2, M=3) == bound_value(
        "matmul-trivial", {"m": 2, "k": 2, "n": 2}, 3)


def test_the_cli_reads_a_fraction_without_evaluating_it(capsys):
    """Regression (found by trying): ``bounds eval`` passed non-integer text to sympify; it is
    now read as an exact fraction, and anything else is refused in one line (exit 2)."""
    from ioverify.cli import main

    assert main(["bounds", "eval", "flash-block-sparse", "--n", "4", "--d", "2", "--memory",
                 "4", "--s", "1/2"]) == 0
    capsys.readouterr()
    assert main(["bounds", "eval", "flash-block-sparse", "--n", "4", "--d", "2", "--memory",
                 "4", "--s", "__import__('os').getpid()"]) == 2
    assert "not a number" in capsys.readouterr().err


# --- F2: a refutation above the expected optimum states only what it shows --------------------

CURVE = "approximate-attention-degree-2-recompute-pays--000"  # optima one-shot M=3: 17


def _refuted_cell(io: int, reason: str, schedule: bool) -> dict:
    """The shipped M = 3 one-shot cell (optimum 17), its spec now expecting 5, refuted."""
    doc = _load(ONE_SHOT_M3)
    doc["obligation"]["spec"]["optimum"] = 5
    doc["detail"]["expected_optimum"] = 5
    evidence = dict(doc["verdict"]["evidence"], below=io)
    doc["verdict"] = {"status": "refuted", "io": io, "claim": 5, "variant": "one-shot",
                      "reason": reason, "evidence": evidence}
    if not schedule:
        doc["witness"] = {}
    return doc


def test_a_refutation_without_a_schedule_does_not_state_the_optimum(tmp_path):
    """Regression (found by trying): a refuted exact-search above its expected optimum carried
    no schedule and re-derived only the lower end, yet said "the optimum is 10, not 5" (the
    true optimum is 17).  Without a schedule it may say only "at least 10"."""
    forged = _refuted_cell(10, "the optimum is 10, not 5 (exhaustive-search)", schedule=False)
    outcome = check_file(_reseal(forged, tmp_path / "forged.json"))
    assert outcome.outcome == "rejected" and "the optimum is at least 10" in outcome.reason
    weak = _refuted_cell(10, "the optimum is at least 10, not 5 (exhaustive-search)",
                         schedule=False)
    assert check_file(_reseal(weak, tmp_path / "weak.json")).outcome == "accepted"
    whole = _refuted_cell(17, "the optimum is 17, not 5 (exhaustive-search)", schedule=True)
    assert check_file(_reseal(whole, tmp_path / "whole.json")).outcome == "accepted"
    wrong = _refuted_cell(16, "the optimum is 16, not 5 (exhaustive-search)", schedule=True)
    assert check_file(_reseal(wrong, tmp_path / "wrong.json")).outcome == "rejected"


def _curve_with_cell(tmp_path: Path, cell_doc: dict, **stated) -> Path:
    """The shipped curve with its M = 3 one-shot cell replaced by ``cell_doc`` (the curve's
    expected optimum there now 5), the curve's cell line stating ``stated``."""
    names = [p.name for p in SHIPPED.glob(f"{CURVE}--M*.json")]
    _copy(names, tmp_path)
    cell = _reseal(cell_doc, tmp_path / f"{CURVE}--M3-one-shot.json")
    sealed = json.loads(cell.read_text())
    doc = _load(f"{CURVE}.json")
    doc["obligation"]["spec"]["optima"]["one-shot"]["3"] = 5
    line = doc["detail"]["cells"][0]
    assert (line["memory"], line["variant"]) == (3, "one-shot")
    line.update(status=sealed["verdict"]["status"], digest=sealed["digest"], **stated)
    doc["verdict"] = sealed["verdict"]
    from ioverify.certificate.format import relies_on
    doc["relies_on"] = relies_on(sealed["verdict"])
    return _reseal(doc, tmp_path / f"{CURVE}.json")


def test_a_curve_cell_shows_no_upper_end_a_refutation_does_not_prove(tmp_path):
    """Regression (found by trying): an io-curve cell refuted without a schedule showed its io
    (10) as the cell's upper end, below the recompute optimum 15 at the same M."""
    weak = _refuted_cell(10, "the optimum is at least 10, not 5 (exhaustive-search)",
                         schedule=False)
    path = _curve_with_cell(tmp_path, weak, lower_bound=None, upper_bound=10)
    outcome = check_file(path)
    assert outcome.outcome == "rejected" and "upper_bound" in outcome.reason, outcome
    path = _curve_with_cell(tmp_path, weak, lower_bound=None, upper_bound=None)
    assert check_file(path).outcome == "accepted", check_file(path)


def test_a_curve_cell_upper_end_below_a_lower_end_proved_elsewhere_is_rejected(tmp_path):
    """Regression (found by trying): an unknown cell's upper end, recorded without a schedule
    (not re-derived), was shown on the curve even below the optimum another cell proves at a
    larger M (M = 4 one-shot: 9); the cells are now checked against each other."""
    doc = _load(ONE_SHOT_M3)
    doc["verdict"] = {"status": "unknown", "reason": "timeout", "lower_bound": None,
                      "upper_bound": 8, "variant": "one-shot"}
    doc["witness"], doc["relies_on"] = {}, []
    doc["obligation"]["spec"]["optimum"] = 5  # keep the curve's optima as the cell's spec
    doc["detail"]["expected_optimum"] = 5
    doc["detail"]["curve"][1:] = ["lower end proved by the cell's own search"]
    path = _curve_with_cell(tmp_path, doc, lower_bound=None, upper_bound=8,
                            evidence=doc["detail"]["curve"])
    outcome = check_file(path)
    assert outcome.outcome == "rejected" and "non-increasing" in outcome.reason, outcome


# --- F3 / F7: an io-curve spec has a schema, and every expected optimum is checked ------------

TINY = "attention-forward-tiny-optima--000"  # attention-forward, M = 3..8, one-shot only


def _curve(tmp_path: Path, stem: str, change) -> Path:
    _copy([p.name for p in SHIPPED.glob(f"{stem}*.json")], tmp_path)
    doc = _load(f"{stem}.json")
    change(doc["obligation"]["spec"])
    try:
        doc["obligation"]["id"] = obligation_id("io-curve", doc["obligation"]["spec"])
    except Exception:  # noqa: BLE001 - a malformed spec has no id; the schema says so first
        pass
    return _reseal(doc, tmp_path / f"{stem}.json")


@pytest.mark.parametrize("key, optima", [
    ("M outside the range", {"9": 0}), ("M below the range", {"2": 1}),
    ("M with a leading zero", {"03": 99}),
])
def test_an_expected_optimum_no_cell_checks_is_not_accepted(tmp_path, key, optima):
    """Regression (found by trying): ``_curve_cell`` looked expected optima up by str(M), so an
    io-curve spec could state optima for M outside its range, M spelled "03" or a variant not
    among its own, and nothing checked them."""
    path = _curve(tmp_path, TINY, lambda spec: spec["optima"]["one-shot"].update(optima))
    assert check_file(path).outcome in ("rejected", "malformed"), check_file(path)


def test_an_expected_optimum_of_a_variant_not_on_the_curve_is_rejected(tmp_path):
    """Regression (found by trying): see above; a variant the curve does not compute."""
    path = _curve(tmp_path, TINY, lambda spec: spec["optima"].update(recompute={"3": 1}))
    outcome = check_file(path)
    assert outcome.outcome == "rejected" and "no cell checks" in outcome.reason, outcome


@pytest.mark.parametrize("key, value", [
    ("memory_range", [3, "8"]), ("memory_range", [3, 8.5]), ("memory_range", [3, 8, 9]),
    ("memory_range", [8, 3]), ("memory_range", [3, 8.0]), ("optima", [1, 2]),
    ("params", [1]), ("variants", "one-shot"), ("variants", ["one-shot", "one-shot"]),
    ("variants", ["one-shot", "both"]), ("optima", {"one-shot": {"3": -1}}),
    ("optima", {"one-shot": {"3": "17"}}), ("extra", 1),
])
def test_a_malformed_io_curve_spec_is_malformed_in_one_line(tmp_path, key, value):
    """Regression (found by trying): no schema covered the io-curve spec: a memory_range of a
    string, a float or three items, optima or params as lists gave internal errors (exit 4),
    and variants as a string was accepted."""
    path = _curve(tmp_path, TINY, lambda spec: spec.__setitem__(key, value))
    outcome = check_file(path)
    assert outcome.outcome == "malformed" and "\n" not in outcome.reason, outcome


def test_the_shipped_curves_still_re_check(tmp_path):
    """The io-curve schema and the optima check accept what the runner writes."""
    path = _curve(tmp_path, TINY, lambda spec: None)
    assert check_file(path).outcome == "accepted"


# --- F4: literal_blocks is never overridden by params.blocks ----------------------------------

LITERAL = "flash-literal-block-sizes-overflow--000.json"  # flash-forward-v1, literal, fails


def test_params_blocks_cannot_override_literal_blocks_in_a_certificate(tmp_path):
    """Regression (found by trying): ``plan_spec`` let a ``blocks`` key in params win over
    ``literal_blocks``, so ``flash-forward-v1(...)/M=64/literal-blocks/kernel`` with
    expect_certified true was accepted (verified) for a run on the planner's blocks.  A
    certificate's kernel params may not carry blocks; the planner's are re-derived."""
    from ioverify.certificate.format import relies_on
    from ioverify.certificate.recheck import kernel_verdict
    from ioverify.trace.kernel import plan, run_kernel

    doc = _load(LITERAL)
    spec = doc["obligation"]["spec"]
    assert spec["kernel"] == "flash-forward-v1" and spec.get("literal_blocks")
    sizes = {k: v for k, v in spec["params"].items()}
    _, _, planned = plan(spec["kernel"], memory=spec["memory"], **sizes)
    spec["params"] = {**sizes, "blocks": planned}
    spec["expect_certified"] = True
    doc["obligation"]["id"] = obligation_id("kernel", spec)
    report = run_kernel(spec["kernel"], memory=spec["memory"], seed=doc["seed"], **sizes)
    doc["verdict"], doc["detail"] = kernel_verdict(spec, report)
    doc["relies_on"] = relies_on(doc["verdict"])
    assert doc["verdict"]["status"] == "verified"  # what the forgery would have been
    outcome = check_file(_reseal(doc, tmp_path / "c.json"))
    assert outcome.outcome == "malformed" and "blocks" in outcome.reason, outcome


def test_blocks_and_literal_blocks_together_are_refused():
    """Regression (found by trying): see above; the planner refuses both at once, and blocks
    that are not positive integers, in one line."""
    from ioverify.trace.kernel import plan

    _, _, planned = plan("flash-forward-v1", memory=64, n=64, d=8)
    with pytest.raises(InvalidArgument, match="literal_blocks together"):
        plan("flash-forward-v1", memory=64, literal_blocks=True, n=64, d=8, blocks=planned)
    with pytest.raises(InvalidArgument, match="positive integers"):
        plan("flash-forward-v1", memory=64, n=64, d=8,
             blocks={k: str(v) for k, v in planned.items()})


def test_a_confront_sweep_cannot_carry_blocks(tmp_path):
    """Regression (found by trying): a confront sweep's params could carry blocks, which the
    re-run honoured instead of planning; a certificate's sweep names sizes only."""
    doc = _load(CONFRONT)
    point = doc["obligation"]["spec"]["sweep"][0]
    point["params"]["blocks"] = {"block": 1}
    outcome = check_file(_reseal(doc, tmp_path / "c.json"))
    assert outcome.outcome == "malformed" and "blocks" in outcome.reason, outcome


# --- F6: a bound carried from an attained upper end is rejected, not an internal error ------

def test_a_bound_carried_from_an_upper_end_certificate_is_rejected_cleanly(tmp_path):
    """Regression (found by trying): a carried bound whose source certificate is an attained
    upper end (verified, ``at_most``: no ``bound``) gave ``KeyError: 'bound'`` (exit 4)."""
    from ioverify.certificate.format import relies_on
    from ioverify.game.lemmas import carry_fact

    source = _load("approximate-attention-2x1-degree-2-optima--001.json")  # M = 4, 26
    spec = source["obligation"]["spec"]
    spec["at_most"] = spec.pop("optimum")
    source["detail"]["claimed_upper_end"] = source["detail"].pop("expected_optimum")
    source["obligation"]["id"] = obligation_id("exact-search", spec)
    source["verdict"] = {"status": "verified", "io": 26, "at_most": 26,
                         "evidence": {"kind": "replay"}, "variant": "one-shot"}
    source["relies_on"] = relies_on(source["verdict"])
    sealed = json.loads(_reseal(source, tmp_path / "source.json").read_text())
    assert check_file(tmp_path / "source.json").outcome == "accepted"
    cell = _load("approximate-attention-2x1-degree-2-optima--000.json")  # M = 3, 43
    cell["verdict"]["evidence"] = {"kind": "carried", "memory": 4, "variant": "one-shot",
                                   "bound": 43, "fact": carry_fact("one-shot"),
                                   "certificate": "source.json", "digest": sealed["digest"]}
    cell["relies_on"] = relies_on(cell["verdict"])
    outcome = check_file(_reseal(cell, tmp_path / "cell.json"))
    assert outcome.outcome == "rejected" and "proves no lower bound" in outcome.reason, outcome


# --- F8: the curve lines shown on claim pages are checked -------------------------------------

def _curve_cell_lines(tmp_path: Path, cell_lines=None, certificate_lines=None) -> Path:
    """The shipped tiny curve, its first cell's evidence lines (in the curve certificate, and
    in the cell certificate's detail curve) replaced where given."""
    _copy([p.name for p in SHIPPED.glob(f"{TINY}*.json")], tmp_path)
    doc = _load(f"{TINY}.json")
    line = doc["detail"]["cells"][0]
    if certificate_lines is not None:
        cell = json.loads((tmp_path / line["certificate"]).read_text())
        cell["detail"]["curve"] = certificate_lines
        sealed = json.loads(_reseal(cell, tmp_path / line["certificate"]).read_text())
        line["digest"] = sealed["digest"]
    if cell_lines is not None:
        line["evidence"] = cell_lines
    return _reseal(doc, tmp_path / f"{TINY}.json")


def test_a_curve_cells_evidence_lines_are_compared(tmp_path):
    """Regression (found by trying): io-curve cell ``evidence`` lines (shown on claim pages)
    were never compared: "lower end by Lean proof #42" was accepted."""
    line = _load(f"{TINY}.json")["detail"]["cells"][0]["evidence"]
    forged = [line[0], "lower end by Lean proof #42"]
    outcome = check_file(_curve_cell_lines(tmp_path, cell_lines=forged))
    assert outcome.outcome == "rejected" and "evidence" in outcome.reason, outcome


def test_a_cell_certificates_curve_lines_are_re_derived(tmp_path):
    """Regression (found by trying): a cell certificate's ``detail.curve`` lines were recorded
    only; the lower end's line is now re-derived from the verdict's evidence, the upper end's
    must be a form the curve writes."""
    line = _load(f"{TINY}.json")["detail"]["cells"][0]["evidence"]
    forged = [line[0], "lower end by Lean proof #42"]
    outcome = check_file(_curve_cell_lines(tmp_path, forged, forged))
    assert outcome.outcome == "rejected" and "detail curve" in outcome.reason, outcome
    odd = ["upper end from a proof in my head", line[1]]
    outcome = check_file(_curve_cell_lines(tmp_path, odd, odd))
    assert outcome.outcome == "rejected" and "detail curve" in outcome.reason, outcome
    assert check_file(_curve_cell_lines(tmp_path)).outcome == "accepted"


# --- F5: the claim block is not re-derived, and an accepted outcome says so -------------------

def test_an_accepted_outcome_says_the_claims_prose_is_not_checked(tmp_path):
    """Regression (found by trying): a resealed certificate's claim block (statement, source,
    firmness) was accepted as written with nothing said: the re-check cannot re-derive it (it
    does not import the claims layer), so every accepted outcome now lists it under "not
    re-derived", once."""
    from ioverify.certificate.recheck import CLAIM_PROSE

    doc = _load(CONFRONT)
    doc["claim"].update(statement="P = NP", source="a dream", firmness="paper")
    outcome = check_file(_reseal(doc, tmp_path / "c.json"))
    assert outcome.outcome == "accepted" and CLAIM_PROSE in outcome.not_rederived
    _copy([p.name for p in SHIPPED.glob(f"{TINY}*.json")], tmp_path)
    outcome = check_file(tmp_path / f"{TINY}.json")
    assert outcome.outcome == "accepted"
    assert [line for line in outcome.not_rederived if "prose" in line] == [CLAIM_PROSE]


@pytest.mark.parametrize("value", [13.0, 1e308])
def test_a_numeric_lower_bound_that_is_not_an_integer_is_malformed(tmp_path, value):
    """Regression (found by trying): JSON Schema lets 13.0 pass as an integer, and the re-check
    then looked the number up as a bound id: internal error (exit 4), TypeError in difflib.  The
    schema's integers are ints now, so the structure check names it; the spec's reader refuses
    it too, for a spec that comes from a claim file, not a certificate."""
    from ioverify.bounds.instance import resolve_lower_bound
    from ioverify.errors import InvalidArgument

    doc = _load(ONE_SHOT_M3)
    doc["obligation"]["spec"]["lower_bound"] = value
    outcome = check_file(_reseal(doc, tmp_path / "lower.json"))
    assert outcome.outcome == "malformed", outcome
    assert "lower_bound" in outcome.reason
    with pytest.raises(InvalidArgument, match="lower_bound must be an integer >= 0"):
        resolve_lower_bound({**doc["obligation"]["spec"], "lower_bound": value})
