"""Claims are validated when they are loaded: every id a claim names is known before any
obligation runs, and an unknown one is one line naming the claim, the field and the id."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from ioverify.claims import Claim, confront, exact_search, kernel, load, partition, symbolic
from ioverify.claims.validate import validate
from ioverify.cli import main
from ioverify.errors import InvalidArgument

ROOT = Path(__file__).resolve().parent.parent

ID = "typo-claim"


def claim(*obligations, **kw) -> Claim:
    return Claim(ID, "a claim", "a statement", "tests", "user", "recompute", obligations, **kw)


BAD = [
    ("family", lambda: exact_search(ID, "pyramd", {"height": 2}, 3), "'pyramd'", "pyramid"),
    ("family parameter", lambda: exact_search(ID, "pyramid", {"heigth": 2}, 3), "'heigth'",
     "height"),
    ("missing parameter", lambda: partition(ID, "matmul", {"m": 2, "k": 2}, 3), "'n'", None),
    ("variant", lambda: exact_search(ID, "pyramid", {"height": 2}, 3, variant="one_shot"),
     "'one_shot'", "one-shot"),
    ("memory", lambda: exact_search(ID, "pyramid", {"height": 2}, 0), "memory M", None),
    ("lower-bound id", lambda: exact_search(ID, "matmul", {"m": 2, "k": 2, "n": 2}, 3,
                                            lower_bound="matmul-trivail"), "'matmul-trivail'",
     "matmul-trivial"),
    ("lower-bound parameters", lambda: exact_search(ID, "pyramid", {"height": 2}, 3,
                                                    lower_bound="matmul-trivial"), "needs", None),
    ("upper end and lower bound", lambda: exact_search(ID, "pyramid", {"height": 2}, 3,
                                                       lower_bound=4, at_most=5),
     "at_most is checked alone", None),
    ("upper end", lambda: exact_search(ID, "pyramid", {"height": 2}, 3, at_most=-1),
     "at_most must be an integer >= 0", None),
    ("kernel", lambda: kernel(ID, "flash-forward-v3", {"n": 8, "d": 2}, 64),
     "'flash-forward-v3'", "flash-forward-v2"),
    ("kernel size", lambda: kernel(ID, "flash-forward-v2", {"n": 8, "dd": 2}, 64), "'dd'", None),
    ("kernel lower bound", lambda: kernel(ID, "matmul-tiled", {"m": 4, "k": 4, "n": 4}, 16,
                                          lower_bounds=("cosmo",)), "'cosmo'", "cosma"),
    ("kernel upper bound", lambda: kernel(ID, "matmul-tiled", {"m": 4, "k": 4, "n": 4}, 16,
                                          upper_bounds=("matmul-trivail",)), "'matmul-trivail'",
     None),
    ("fact", lambda: symbolic(ID, "crossover/saha-ye-thm3.2"), "'crossover/saha-ye-thm3.2'",
     "crossover/saha-ye-thm3.1"),
]


@pytest.mark.parametrize("what, make, fragment, suggestion", BAD, ids=[b[0] for b in BAD])
def test_unknown_ids_are_refused_naming_claim_and_id(what, make, fragment, suggestion):
    with pytest.raises(InvalidArgument) as error:
        validate([claim(make())])
    message = str(error.value)
    assert f"claim {ID!r}" in message and fragment in message
    if suggestion:
        assert repr(suggestion) in message


@pytest.mark.parametrize("field, value", [("bounds", ("saha-ye-thm3.2",)),
                                          ("kernels", ("flash-forward-v3",))])
def test_claim_level_ids_are_checked(field, value):
    ob = exact_search(ID, "pyramid", {"height": 2}, 3)
    with pytest.raises(InvalidArgument, match=f"{field}: unknown id"):
        validate([claim(ob, **{field: value})])


def test_shipped_claims_load():
    assert len(load(["proofs"])) >= 10


def test_a_typo_stops_check_before_any_obligation_runs(tmp_path, capsys, monkeypatch):
    from ioverify.claims import check, run

    def must_not_run(*args, **kwargs):
        raise AssertionError("an obligation ran before the claims were validated")

    # Both names: ``check`` binds ``run`` when first imported, which must not happen here
    # (it would keep the patched function for the tests that follow).
    monkeypatch.setattr(run, "run", must_not_run)
    monkeypatch.setattr(check, "run", must_not_run)
    path = tmp_path / "typo_claims.py"
    path.write_text(textwrap.dedent(f"""
        from ioverify.claims import Claim, exact_search
        CLAIMS = [Claim("{ID}", "t", "s", "tests", "user", "recompute",
                        (exact_search("{ID}", "pyramid", {{"height": 2}}, 3),
                         exact_search("{ID}", "matmul", {{"m": 2, "k": 2, "n": 2}}, 3,
                                      lower_bound="matmul-trivail")))]
        """))
    code = main(["check", str(path), "--jobs", "1", "--certificates", str(tmp_path / "c"),
                 "--docs", str(tmp_path / "d")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "'matmul-trivail'" in err
    assert not (tmp_path / "c").exists()


def test_shipped_obligation_ids_are_unique_within_a_claim():
    """A failure names the obligation that failed: two obligations of one claim never share
    an id (obligations differing only in their bound id used to)."""
    from collections import Counter

    claims = load([ROOT / "proofs"])
    ids = Counter((c.id, ob.id) for c in claims for ob in c.obligations)
    assert not [key for key, count in ids.items() if count > 1]


def test_upper_bound_with_an_exact_count_record_uses_the_kernels_own_tile():
    """Issue 19: an exact count record with block parameters (COSMA's a x b tile) is evaluated
    with the kernel's own blocks; the whole-tile run meets it exactly."""
    from ioverify.claims.run import Budget, run

    ob = kernel("c", "matmul-tiled", {"m": 28, "k": 16, "n": 28}, 64,
                upper_bounds=("cosma-tiling",))
    result = run(ob, Budget())
    assert result.verdict.status == "verified"
    assert result.detail["upper_bounds"] == {"cosma-tiling": str(result.detail["io"])}


def test_an_asymptotic_bound_in_a_kernel_obligation_is_refused_at_load():
    claim = Claim("c", "t", "s", "tests", "user", "kernel", (kernel(
        "c", "flash-forward-v2", {"n": 8, "d": 4}, 64, upper_bounds=("flash-forward-thm2",)),))
    with pytest.raises(InvalidArgument, match="asymptotic .* confront it"):
        validate([claim])


@pytest.mark.parametrize("build, field", [
    (lambda: kernel("c", "flash-forward-v1", {"n": 64, "d": 8, "blocks": {"block_r": 8,
                                                                         "block_c": 8}}, 64),
     "kernel obligation's params give 'blocks'"),
    (lambda: kernel("c", "flash-forward-v1", {"n": 64, "d": 8, "blocks": {"block_r": 8,
                                                                         "block_c": 8}}, 64,
                    literal_blocks=True), "kernel obligation's params give 'blocks'"),
    (lambda: kernel("c", "matmul-tiled", {"m": 2, "k": 2, "n": 2, "literal_blocks": True}, 16),
     "kernel obligation's params give 'literal_blocks'"),
    (lambda: confront("c", "flash-forward-v2-count", "flash-forward-v2", "sweep",
                      [({"n": 8, "d": 2}, 64), ({"n": 16, "d": 2, "blocks": {"block_r": 2}},
                                                64)]),
     "confront obligation's sweep[1].params give 'blocks'"),
], ids=["blocks", "blocks-and-literal-blocks", "literal-blocks-in-params", "confront-blocks"])
def test_params_a_certificate_may_not_carry_are_refused_when_the_claim_is_built(build, field):
    """Regression (found by trying): blocks in a kernel run's params passed the claim's
    construction and loading, ran, and only the certificate checker refused them (its schema
    allows no blocks, memory, seed or literal_blocks there)."""
    with pytest.raises(InvalidArgument, match=f"claim 'c': {re.escape(field)}, which a "
                                              f"certificate may not carry"):
        build()


def test_the_reserved_params_are_the_ones_the_certificate_schema_refuses():
    import json

    from ioverify.claims.claim import RESERVED_PARAMS

    schema = json.loads((Path(__file__).resolve().parent.parent / "ioverify" / "schemas" /
                         "certificate.schema.json").read_text())
    defs = schema["$defs"]
    refused = [defs["kernel-spec"]["properties"]["params"]["propertyNames"]["not"]["enum"],
               defs["confront-spec"]["properties"]["sweep"]["items"]["properties"]["params"]
               ["propertyNames"]["not"]["enum"]]
    assert all(sorted(names) == sorted(RESERVED_PARAMS) for names in refused)
