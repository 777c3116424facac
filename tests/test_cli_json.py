"""The command line's JSON: the same value ``json.dumps`` gives (NaN and infinities, not JSON,
as null), indented by object, with a schedule's moves written by the C encoder
(``ioverify.cli.common.json_text``)."""

import json

from hypothesis import given, strategies as st

from ioverify.cli.common import json_text

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text()
KEYS = st.text() | st.integers() | st.booleans() | st.none()
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=5)
                      | st.tuples(inner, inner)
                      | st.dictionaries(KEYS, inner, max_size=5), max_leaves=30)


@given(VALUES)
def test_the_text_is_the_value_json_dumps_gives(value):
    assert json.loads(json_text(value)) == json.loads(json.dumps(value))


@given(st.dictionaries(st.text(), VALUES, min_size=1, max_size=4))
def test_every_member_of_an_object_starts_its_own_line(value):
    lines = json_text(value).splitlines()
    assert lines[0] == "{" and lines[-1] == "}"
    assert len(lines) >= len(value) + 2


def test_a_schedule_s_moves_are_one_line_and_its_fields_one_each():
    value = {"status": "optimal", "schedule": {"moves": [["load", "Q[0]"], ["compute", "S[0,0]"]],
                                               "io": 2}}
    assert json_text(value).splitlines() == [
        "{",
        '  "status": "optimal",',
        '  "schedule": {',
        '    "moves": [["load", "Q[0]"], ["compute", "S[0,0]"]],',
        '    "io": 2',
        "  }",
        "}",
    ]


def test_an_array_holding_an_object_is_indented():
    assert json_text([1, {"a": [2]}]).splitlines() == ["[", "  1,", "  {", '    "a": [2]', "  }",
                                                        "]"]


def _strict(text: str):
    """``json.loads`` refusing NaN and Infinity, which are not JSON."""
    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


def test_non_finite_floats_are_null():
    value = {"max_error": float("nan"), "rows": [1.5, float("inf"), [float("-inf")]]}
    assert _strict(json_text(value)) == {"max_error": None, "rows": [1.5, None, [None]]}


def test_a_kernel_that_overflows_prints_strict_json(capsys):
    """The README's overflowing FlashAttention run with --json: its max error (no output was
    computed) is null, not NaN."""
    from ioverify.cli import main

    assert main(["kernel", "flash-forward-v1", "--n", "16", "--d", "8", "--memory", "64",
                 "--literal-blocks", "--json"]) == 1
    doc = _strict(capsys.readouterr().out)
    assert doc["status"] == "refuted" and doc["max_error"] is None
