"""Files are strict JSON: NaN and the infinities, which Python's ``json`` writes and reads but
JSON has not, are refused by every reader and written as null.

Before, a kernel whose trace overflowed fast memory has no checked output, and its certificate
stated ``"max_error": NaN``: four shipped certificates of flash-literal-block-sizes-overflow
were no JSON for jq or a browser."""

import json
from pathlib import Path

import pytest

from ioverify._io import finite, load_json_document
from ioverify.certificate.body import write_certificates
from ioverify.certificate.format import read
from ioverify.certificate.recheck import check_file
from ioverify.claims import Claim, kernel
from ioverify.claims.check import check_claims
from ioverify.claims.run import Budget
from ioverify.errors import InvalidFormat

SHIPPED = Path(__file__).resolve().parents[1] / "docs" / "claims" / "certificates"


def strict(text: str):
    def refuse(name):
        raise ValueError(f"{name} is no JSON value")
    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_a_reader_refuses_what_json_has_not(constant):
    with pytest.raises(InvalidFormat, match=f"{constant} is no JSON value"):
        load_json_document(f'{{"format": "x", "value": [1, {constant}]}}', "the file")


def test_non_finite_floats_become_null_at_every_depth():
    nan, inf = float("nan"), float("inf")
    assert finite({"a": [1.5, nan, (inf, -inf)], "b": {"c": nan}, "d": "NaN"}) == \
        {"a": [1.5, None, [None, None]], "b": {"c": None}, "d": "NaN"}


def test_every_shipped_certificate_is_strict_json():
    files = sorted(SHIPPED.glob("*.json"))
    assert len(files) > 300
    for path in files:
        strict(path.read_text())


def test_an_overflowing_kernel_states_null_and_re_checks(tmp_path):
    claim = Claim(id="overflow-null", title="t", statement="s", source="test",
                  firmness="derived", variant="kernel",
                  obligations=(kernel("overflow-null", "flash-forward-v1", {"n": 64, "d": 8},
                                      64, literal_blocks=True, expect_certified=False),))
    [path] = write_certificates(check_claims([claim], Budget()), tmp_path, Budget())
    doc = strict(path.read_text())
    assert doc["verdict"]["status"] == "verified"
    assert doc["verdict"]["max_error"] is None and doc["detail"]["max_error"] is None
    assert check_file(path).outcome == "accepted"


def test_a_certificate_stating_nan_is_malformed(tmp_path):
    text = (SHIPPED / "flash-literal-block-sizes-overflow--000.json").read_text()
    path = tmp_path / "old.json"
    path.write_text(text.replace('"max_error": null', '"max_error": NaN'))
    with pytest.raises(InvalidFormat, match="NaN is no JSON value"):
        read(path)
    assert check_file(path).outcome == "malformed"


def test_null_stands_only_for_a_non_finite_value(tmp_path):
    """A certified kernel's max error is a number: a certificate stating null for it is
    rejected (the digest resealed, so only the comparison can catch it)."""
    from ioverify.certificate.format import seal

    claim = Claim(id="fits", title="t", statement="s", source="test", firmness="derived",
                  variant="kernel",
                  obligations=(kernel("fits", "flash-forward-v2", {"n": 64, "d": 8}, 4096),))
    [path] = write_certificates(check_claims([claim], Budget()), tmp_path, Budget())
    doc = json.loads(path.read_text())
    assert isinstance(doc["verdict"]["max_error"], float)
    doc["verdict"]["max_error"] = None
    path.write_text(json.dumps(seal({k: v for k, v in doc.items()
                                     if k not in ("format", "version", "digest")})))
    outcome = check_file(path)
    assert outcome.outcome == "rejected" and "max_error" in outcome.reason
