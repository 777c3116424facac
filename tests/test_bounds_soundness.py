"""Soundness of the fact prover (adversarial review s50): no "proved" for a look-alike symbol, a
merged pair of symbols, an empty region or a domain Z3 does not encode.  Each test failed before
its fix."""

import pytest
import sympy
from sympy import And, Dummy, Eq, Mod, Symbol, floor, sqrt

from ioverify.bounds import facts, get
from ioverify.bounds.model import Bound
from ioverify.bounds.symbols import M, d, n
from ioverify.encode import arithmetic as smt
from ioverify.errors import InvalidArgument
from ioverify.verdict import describe

M_REAL = Symbol("M", positive=True)  # named M, but a real: not the registry's integer M


def _bound(bound_id, params, regime, expr):
    return Bound(bound_id, "t", "s", "src", "derived", "upper", "recompute", "any", params,
                 regime, expr, monotone_in_M=True)


def test_a_lookalike_registry_symbol_is_refused_naming_bound_and_parameter():
    """Regression (found by trying): a plugin bound n*M with its own real M got its monotone
    fact "nonincreasing in M" proved (substituting the registry's M changed nothing)."""
    with pytest.raises(InvalidArgument, match=r"bound 'probe'.*parameter M is not the registry"):
        _bound("probe", (n, M_REAL), M_REAL >= 3, n * M_REAL)


def test_monotone_of_an_expression_without_M_is_not_proved():
    """Regression (found by trying): nonincreasing_in_M(n*M_real) was proved ("negation
    unsat" of the goal True)."""
    result = facts.nonincreasing_in_M(n * M_REAL, [M_REAL >= 3])
    assert result.status == "unknown" and "does not contain the parameter M" in result.detail


def test_a_goal_sympy_already_decided_is_said_trivial_not_negation_unsat():
    """Regression (found by trying): a goal SymPy evaluated to True was reported "negation
    unsat"; one evaluated to False is refuted by a witness of the region."""
    true = facts.forall([M >= 3], sympy.true)
    assert true.status == "proved" and "trivially true" in true.detail
    assert "negation unsat" not in true.detail
    false = facts.forall([M >= 3], sympy.false)
    assert false.status == "refuted" and "trivially false" in false.detail
    assert int(false.data["counterexample"]["M"]) >= 3


def test_an_empty_monotone_regime_is_vacuous_and_verifies_nothing(monkeypatch):
    """Regression (found by trying): a plugin record with regime M >= 10 and M <= 5 got its
    monotone fact proved with no word that it is vacuous."""
    bound = _bound("empty-regime", (n, M), And(M >= 10, M <= 5), n / M)
    fact = facts.Fact("monotone/empty-regime", "s",
                      lambda: facts.nonincreasing_in_M(bound.expr, list(bound.conditions)))
    monkeypatch.setitem(facts.FACTS, fact.id, fact)
    result = facts.prove(fact.id)
    assert result.status == "vacuous" and "vacuous" in result.detail
    verdict = result.verdict()
    assert verdict.status == "unknown" and "vacuous" in describe(verdict)


@pytest.mark.parametrize("other", [Symbol("x", positive=True, integer=True),
                                   Dummy("x", positive=True)])
def test_two_symbols_with_one_name_are_not_merged(other):
    """Regression (found by trying): Z3 constants were made by name, so x <= x' was proved
    for two independent symbols named x."""
    result = facts.forall([], Symbol("x", positive=True) <= other)
    assert result.status == "unknown" and "two distinct symbols named x" in result.detail


def test_an_auxiliary_never_shares_a_constant_with_a_parameter():
    """Regression (found by trying): sqrt(M)'s auxiliary was the Z3 real "_aux1", the same
    constant as a parameter named _aux1, so sqrt(M) <= _aux1 was proved (false: M=4)."""
    result = facts.forall([], sqrt(M) <= Symbol("_aux1", positive=True))
    assert result.status != "proved"


def test_an_empty_region_is_vacuous_not_proved():
    """Regression (found by trying): at_most over M < 3 and M > 5, and smallest_constant over
    M <= d and M >= d + 1 ("C = 1/16"), were proved with no warning."""
    assert facts.at_most(n, 0, [M < 3, M > 5]).status == "vacuous"
    assert facts.at_most(n**2, d, [M <= d, M >= d + 1]).status == "vacuous"
    result = facts.smallest_constant(n**2, sympy.Integer(1), [M <= d, M >= d + 1])
    assert result.status == "vacuous" and "C" not in result.data


def test_a_proof_carries_a_witness_of_its_region_checked_exactly():
    result = facts.at_most(d, M, [d**2 <= M, M <= 2 * d**2])
    point = {sym: sympy.Integer(result.data["witness"][sym.name]) for sym in (M, d)}
    m, k = point[M], point[d]
    assert result.status == "proved" and k**2 <= m <= 2 * k**2


def test_a_crossover_outside_the_region_is_not_proved():
    """Regression (found by trying): crossover at M = d^2 over the region M >= 2d^2 was
    proved although no point of the region has M = d^2."""
    first, second = facts._branches("saha-ye-thm3.1")
    result = facts.crossover(first, second, d**2, hypotheses=[M >= 2 * d**2])
    assert result.status == "vacuous" and "outside the region" in result.detail


@pytest.mark.parametrize("sym, goal", [
    (Symbol("y", negative=True), lambda y: y**2 + y > 0),  # false at y = -1/2
    (Symbol("y", negative=True), lambda y: sqrt(-y) < sympy.Rational(1, 2)),  # false at -1
    (Symbol("z", nonnegative=True, integer=True), lambda z: z >= 1)])  # false at z = 0
def test_a_symbol_z3_cannot_encode_faithfully_is_refused(sym, goal):
    """Regression (found by trying): Z3 made every parameter positive whatever SymPy assumed,
    so y**2 + y > 0 was proved for a negative y and z >= 1 for a nonnegative z."""
    result = facts.forall([], goal(sym))
    assert result.status == "unknown" and "not a plain positive" in result.detail


@pytest.mark.parametrize("hyps, goal", [([Eq(Mod(n, 3), 0)], n >= 3),
                                        ([], 2 * floor(n / 2) >= n - 1)])
def test_a_relaxed_point_that_is_no_counterexample_is_unknown(hyps, goal):
    """Regression (found by trying): over the reals (divisibility dropped, floor relaxed)
    Z3's point failed SymPy's re-check and raised InternalError ("a translation bug")."""
    outcome = smt.forall(hyps, goal, integer_step=False)
    assert outcome.status == "unknown" and "no counterexample" in outcome.detail


def test_the_method_label_says_reals_when_no_parameter_is_an_integer():
    """Regression (found by trying): a query in reals only was labelled "integer arithmetic
    over the integers"."""
    x = Symbol("x", positive=True)
    result = facts.forall([x >= 1], x**2 >= x)
    assert result.status == "proved" and "integer" not in result.method.replace(
        "no integer parameter", "")


def test_a_constant_whose_lower_neighbour_is_unknown_is_not_called_smallest(monkeypatch):
    """Regression (found by trying): smallest_constant called C the smallest when the
    candidate below was only unknown."""
    real = facts.at_most

    def at_most(lhs, rhs, hypotheses, **kw):
        if rhs == n / 2:
            return facts.Part("unknown", "stub", "z3 unknown (stub)")
        return real(lhs, rhs, hypotheses, **kw)

    monkeypatch.setattr(facts, "at_most", at_most)
    ladder = (sympy.Rational(1, 2), sympy.Integer(1), sympy.Integer(2))
    result = facts.smallest_constant(n, n, [], ladder=ladder)
    assert result.status == "proved" and result.data["C"] == "1"
    assert result.data["shown_smallest"] is False
    assert "not shown the smallest" in result.detail


def test_a_bad_default_names_the_default_and_what_it_needs():
    """Regression (found by trying): M = 3 gave "parameter B must be positive, got 0" for the
    default B = floor(sqrt(M/4)) the user never gave."""
    with pytest.raises(InvalidArgument, match=r"default B = .* is 0 .* needs M >= 4"):
        get("saha-ye-algorithm1").evaluate(n=6, d=6, M=3)
