"""The command line's JSON: the same value ``json.dumps`` gives, indented by object, with a
schedule's moves written by the C encoder (``ioverify.cli.common.json_text``)."""

import json

from hypothesis import given, strategies as st

from ioverify.cli.common import json_text

SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
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
