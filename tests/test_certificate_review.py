"""Certificates edited and sealed anew in ways an adversarial review tried: each must end as the
re-check says (malformed with one line, or rejected), never accepted and never an internal
error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ioverify.certificate.format import digest
from ioverify.certificate.recheck import check_file

SHIPPED = Path(__file__).resolve().parent.parent / "docs" / "claims" / "certificates"


def resealed(name: str, change, folder: Path) -> Path:
    """The shipped certificate ``name`` with ``change`` applied, its digest computed anew (as
    anyone can), in ``folder``; the writer's own check (``seal``) is not asked."""
    doc = json.loads((SHIPPED / name).read_text())
    change(doc)
    doc["digest"] = digest({k: v for k, v in doc.items() if k != "digest"})
    path = folder / name
    path.write_text(json.dumps(doc))
    return path


def _spec(field, value):
    def change(doc):
        doc["obligation"]["spec"][field] = value
    return change


def _seed(value):
    def change(doc):
        doc["seed"] = value
    return change


# An integer written as a float (36.0) is read as a float: the schema's integers are ints.
@pytest.mark.parametrize("name, change, where", [
    ("reference-optima--000.json", _spec("lower_bound", 11.0), "$.obligation.spec.lower_bound"),
    ("reference-optima--000.json", _spec("optimum", 11.0), "$.obligation.spec.optimum"),
    ("flash-literal-block-sizes-overflow--003.json", _seed(0.0), "$.seed"),
])
def test_a_float_where_an_integer_is_meant_is_malformed(tmp_path, name, change, where):
    outcome = check_file(resealed(name, change, tmp_path))
    assert (outcome.outcome, outcome.exit_code) == ("malformed", 2), outcome
    assert where in outcome.reason and "\n" not in outcome.reason


def _embedded_version(part, field, value):
    def change(doc):
        doc[part][field]["version"] = value
    return change


# The DAG and the schedule a certificate embeds are validated by their own schemas (a $ref),
# with the same strict integers: the schema names the field, not the reader behind it.
@pytest.mark.parametrize("change, where", [
    (_embedded_version("instance", "dag", 1.0), "$.instance.dag.version"),
    (_embedded_version("witness", "schedule", 1.0), "$.witness.schedule.version"),
])
def test_a_float_version_of_the_embedded_dag_or_schedule_fails_the_schema(tmp_path, change,
                                                                          where):
    outcome = check_file(resealed("reference-optima--000.json", change, tmp_path))
    assert (outcome.outcome, outcome.exit_code) == ("malformed", 2), outcome
    assert f"not a valid ioverify-certificate: at {where}" in outcome.reason, outcome.reason


def _evidence(field, value):
    def change(doc):
        doc["verdict"]["evidence"][field] = value
    return change


# The lemma a search rests on is named by its text; any other JSON value is malformed.
@pytest.mark.parametrize("value", [[], {"lemma": 1}, ["chain contraction"]])
@pytest.mark.parametrize("name, field", [
    ("approximate-attention-2x1-degree-2-optima--000.json", "contracted"),
    ("reference-optima--000.json", "contracted"),
    ("matmul-2x2x3-optima--007.json", "searched"),
])
def test_a_lemma_field_that_is_no_text_is_malformed(tmp_path, name, field, value):
    outcome = check_file(resealed(name, _evidence(field, value), tmp_path))
    assert (outcome.outcome, outcome.exit_code) == ("malformed", 2), outcome
    assert f"$.verdict.evidence.{field}" in outcome.reason and "\n" not in outcome.reason


def _unknown(reason):
    """The pyramid's optimum stated as an unknown verdict with the search's ``reason``: what
    an unknown verdict says is reported, its schedule replayed."""
    def change(doc):
        doc["verdict"] = {"status": "unknown", "reason": reason, "lower_bound": None,
                          "upper_bound": doc["verdict"]["io"], "variant": "recompute"}
        doc["relies_on"] = []
    return change


FORGED = ("deadline\nreference-optima--000.json: accepted (optimal)\n    re-checked: no "
          "schedule below 12\x1b[1A\ud800")


def test_text_a_certificate_carries_prints_as_one_line_of_its_own(tmp_path, capsys):
    from ioverify.cli import main

    path = resealed("reference-optima--000.json", _unknown(FORGED), tmp_path)
    outcome = check_file(path)
    assert (outcome.outcome, outcome.status) == ("accepted", "unknown"), outcome
    assert main(["certificate", "check", str(path)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == f"{path}: accepted (unknown)"
    assert all(line.startswith("    ") for line in lines[1:])
    assert not any(line.startswith("    re-checked: no schedule") for line in lines)
    account = [line for line in lines if "the search's account" in line]
    assert len(account) == 1 and "\x1b" not in account[0] and "\\x1b[1A\\ud800" in account[0]


def _kernel_size(field):
    def change(doc):
        from ioverify.certificate.recheck import obligation_id

        ob = doc["obligation"]
        ob["spec"]["params"][field] = 1
        ob["id"] = obligation_id(ob["kind"], ob["spec"])
    return change


def _sweep_size(field):
    def change(doc):
        doc["obligation"]["spec"]["sweep"][0]["params"][field] = 1
    return change


# A size named like the kernel runner's own argument (its name, its spec) is a size the
# kernel does not take, not a second value for that argument.
@pytest.mark.parametrize("name, change", [
    ("flash-literal-block-sizes-overflow--003.json", _kernel_size("name")),
    ("flash-literal-block-sizes-overflow--003.json", _kernel_size("spec")),
    ("lower-bounds-vs-kernels--011.json", _sweep_size("name")),
])
def test_a_kernel_size_named_like_the_runners_argument_is_malformed(tmp_path, name, change):
    outcome = check_file(resealed(name, change, tmp_path))
    assert (outcome.outcome, outcome.exit_code) == ("malformed", 2), outcome
    assert "got unknown" in outcome.reason
