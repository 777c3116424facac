"""Search certificates (issue 15): the exhaustive search's closed configurations, checked block
by block by ``ioverify.certificate.closed`` without the search's code.

Accepted at the proved optimum and rejected one above it, on reference instances and random
DAGs in both variants (against the naive search over every legal move); the checker's blocks
equal the search's on random configurations; every tampering of the file is rejected with a
reason naming the line; ``pebble --proof`` writes one for the recompute variant, and
``certificate check`` re-checks it with Z3 and PySAT unimportable."""

import ast
import hashlib
import json
import random
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from ioverify.certificate.closed import SearchCertificateRejected, _Game, check_closed
from ioverify.certificate.format import CONTRACTION_RELIES_ON, SINGLE_USE_RELIES_ON
from ioverify.certificate.recheck import check_file
from ioverify.cli import main
from ioverify.dag import DAG as Graph, approximate_attention, attention_forward, matmul, pyramid
from ioverify.dag.jsonio import dag_to_dict
from ioverify.errors import EXIT_OK
from ioverify.game import exhaustive
from ioverify.game.exhaustive import INFINITY, _Search, exhaustive_optimum
from ioverify.game.lemmas import CHAIN_CONTRACTION, INPUT_CHAIN_CONTRACTION, contract_chains
from ioverify.game.rules import require_variant
from ioverify.search.proof import CLOSED_FILE, closed_text, search_certificate
from ioverify.strategies import dags, memory_sizes

from resealing import check_without_solvers, rejection, reseal
from test_game_abstraction import naive_restricted
from test_game_exhaustive import naive_optimum

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ("recompute", "one-shot")


def certificate(dag, memory: int, variant: str, below: int) -> str:
    result = exhaustive_optimum(dag, memory, variant, below=below, keep_closed=True)
    assert result.complete and result.optimum is None, result
    return closed_text(dag, variant, result.closed or {}, result.automorphisms)


def rejected(dag, memory: int, variant: str, below: int, text: str) -> str:
    with pytest.raises(SearchCertificateRejected) as caught:
        check_closed(dag, memory, variant == "one-shot", below, text)
    return str(caught.value)


CASES = [("matmul(2,2,2)", matmul(2, 2, 2), m, q) for m, q in ((3, 25), (4, 17), (5, 14), (6, 13))]
CASES += [("attention_forward(2,1)", attention_forward(2, 1), m, q)
          for m, q in ((5, 11), (6, 10), (7, 9), (8, 8))]


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("name, dag, memory, optimum", CASES,
                         ids=[f"{c[0]}-M{c[2]}" for c in CASES])
def test_accepted_at_the_optimum_and_not_one_above(name, dag, memory, optimum, variant):
    text = certificate(dag, memory, variant, optimum)
    states = check_closed(dag, memory, variant == "one-shot", optimum, text)
    assert states == sum(1 for line in text.splitlines() if line.startswith("s "))
    assert "leaves room below" in rejected(dag, memory, variant, optimum + 1, text) or \
        "does not reach" in rejected(dag, memory, variant, optimum + 1, text)


@pytest.mark.parametrize("lazy", [True, False], ids=["keyed-when-popped", "keyed-when-stored"])
@pytest.mark.parametrize("memory, optimum", [(4, 14), (5, 11)])
def test_accepted_whichever_image_of_a_configuration_the_search_expanded(monkeypatch, lazy,
                                                                         memory, optimum):
    """The search expands the image of a configuration it reached, and N16 takes that image's
    first eager vertex; the listed image may have that vertex's image elsewhere in vertex
    order, so the checker tries the blocks of each eager vertex (the first alone rejected both
    of these one-shot certificates of approximate_attention(2,1,1), 3 automorphisms, with
    the keys made canonical when stored)."""
    monkeypatch.setattr(exhaustive, "LAZY_GROUP", 3 if lazy else 64)
    dag = approximate_attention(2, 1, 1)
    text = certificate(dag, memory, "one-shot", optimum)
    assert text.count("\na ") == 3
    assert check_closed(dag, memory, True, optimum, text) > 0
    assert "leaves room below" in rejected(dag, memory, "one-shot", optimum + 1, text)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_random_dags_against_the_naive_search(data):
    dag = data.draw(dags(max_vertices=6))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    for variant in VARIANTS:
        optimum = naive_optimum(dag, memory, variant)
        if optimum is None or optimum < 1:
            continue
        text = certificate(dag, memory, variant, optimum)
        check_closed(dag, memory, variant == "one-shot", optimum, text)
        with pytest.raises(SearchCertificateRejected):
            check_closed(dag, memory, variant == "one-shot", optimum + 1, text)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_checker_blocks_are_the_searchs_blocks(data):
    """The checker enumerates the normal form's blocks from the rules; on random reachable
    configurations they are exactly the search's (which the naive search vouches for), once
    the blue of the IDLE vertices is dropped (the search keys configurations without it)."""
    _same_blocks_along_a_walk(data)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(st.data())
def test_checker_blocks_are_the_searchs_blocks_thoroughly(data):
    """As above, on many more walks: the search computes what a block leaves finished and
    spent incrementally, the checker from scratch (N13, N14)."""
    _same_blocks_along_a_walk(data)


def _count(value: int) -> float:
    """The search's count as the checker gives it: the search's "no completion" is
    ``INFINITY``, an int, the checker's ``float("inf")``."""
    return float("inf") if value == INFINITY else value


def _same_blocks_along_a_walk(data):
    dag = data.draw(dags(max_vertices=7))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    variant = data.draw(st.sampled_from(VARIANTS))
    search = _Search(dag, memory, require_variant(variant, set(VARIANTS), "test"))
    game = _Game(dag, memory, variant == "one-shot")
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    red, blue, fresh, computed = 0, game.inputs, 0, 0
    for _ in range(12):
        mine = sorted((w, r, b & ~game.idle(r, b, c), f, c)
                      for w, _, r, b, f, c in game.blocks(red, blue, fresh, computed))
        theirs = sorted(t[:5] for t in search.blocks(red, blue, fresh, computed))
        assert mine == theirs
        assert game.lower(red, blue, computed) == _count(search._trivial(
            search.output_mask & ~blue, red, blue, computed))
        if not mine:
            break
        _, red, blue, fresh, computed = rng.choice(mine)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_the_floor_leaves_out_only_blocks_whose_lower_bound_reaches_the_budget(data):
    """THE FLOOR: with a budget, the checker's blocks are a subset of all of them, and every
    block left out has cost + LOWER after it at the budget or more, in both variants, from any
    red, blue, fresh and computed (recompute: owed) sets the check lets through (the argument
    assumes no reachable configuration)."""
    dag = data.draw(dags(max_vertices=8, max_in_degree=3))
    memory = data.draw(memory_sizes(dag, max_extra=2))
    one_shot = data.draw(st.booleans())
    game = _Game(dag, memory, one_shot)
    full = (1 << len(dag)) - 1
    red = data.draw(st.integers(0, full))
    while red.bit_count() > memory:
        red &= red - 1
    blue = data.draw(st.integers(0, full)) | game.inputs
    computed = data.draw(st.integers(0, full)) & ~game.inputs
    if not one_shot:  # owed: stored, no input, no output (``_check_one`` rejects the rest)
        computed &= blue & ~game.outputs & ~red
    fresh = red & (computed if one_shot else full) & data.draw(st.integers(0, full))
    _floor_leaves_out_only_what_it_may(game, red, blue, fresh, computed, range(0, 12))


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_floor_on_random_pebbles_of_attention_forward(variant):
    """As above on attention_forward(2,1) at M = 3 and 5, whose outputs are evicted and stored
    by blocks (tiny random DAGs rarely do that, and a floor counting those stores twice went
    unnoticed there)."""
    dag, one_shot, rng = attention_forward(2, 1), variant == "one-shot", random.Random(7)
    n = len(dag)
    for memory in (3, 5):
        game = _Game(dag, memory, one_shot)
        for _ in range(150):
            share = rng.random()
            red = sum(1 << v for v in range(n) if rng.random() < share * 0.6)
            while red.bit_count() > memory:
                red &= red - 1
            blue = sum(1 << v for v in range(n) if rng.random() < share) | game.inputs
            computed = sum(1 << v for v in range(n) if rng.random() < share) & ~game.inputs
            if not one_shot:
                computed &= blue & ~game.outputs & ~red & rng.getrandbits(n)
            fresh = red & (computed if one_shot else rng.getrandbits(n))
            _floor_leaves_out_only_what_it_may(game, red, blue, fresh, computed,
                                               range(0, 24, 3))


def _floor_leaves_out_only_what_it_may(game, red, blue, fresh, computed, budgets):
    every = list(game.blocks(red, blue, fresh, computed))
    for budget in budgets:
        kept = list(game.blocks(red, blue, fresh, computed, budget))
        assert all(block in every for block in kept)
        for cost, _, nred, nblue, _, ncomputed in (b for b in every if b not in kept):
            assert cost + game.lower(nred, nblue, ncomputed) >= budget


def test_an_owed_load_is_counted_and_an_owed_dead_vertex_ends_the_search():
    """N15: x stored and not loaded since is owed a load.  With a and b red, computing x again
    would cost nothing, but a schedule of least I/O loads x (it stored it for that): the count
    says 2, not 1.  Once y has blue, x is dead and can never be loaded: no completion."""
    dag = Graph.from_edges(["a", "b", "x", "y"], [("a", "x"), ("b", "x"), ("x", "y")],
                           outputs=["y"])
    search = _Search(dag, 3, require_variant("recompute", set(VARIANTS), "test"))
    a, b, x, y = (1 << dag.names.index(name) for name in "abxy")
    assert search._trivial(y, a | b, a | b | x, x) == 2  # the owed load of x, store y
    assert search._trivial(y, a | b, a | b | x, x, cap=1) >= 1  # a capped count stays a bound
    assert search._trivial(0, a | b, a | b | x | y, x) == INFINITY
    game = _Game(dag, 3, False)  # the certificate checker counts the same
    assert game.lower(a | b, a | b | x, x) == 2
    assert game.lower(a | b, a | b | x | y, x) == float("inf")


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_the_recompute_lower_bound_is_the_unlimited_optimum(data):
    """The checker's LOWER in recompute is the optimum of the game with no bound on red
    pebbles (the naive search with M = the number of vertices), from any red and blue."""
    dag = data.draw(dags(max_vertices=7, max_in_degree=3))
    full, n = (1 << len(dag)) - 1, len(dag)
    inputs, outputs = (sum(1 << v for v in vs) for vs in (dag.inputs, dag.outputs))
    red = data.draw(st.integers(0, full)) & data.draw(st.integers(0, full))
    blue = data.draw(st.integers(0, full)) & ~outputs | inputs
    game = _Game(dag, n, False)
    unlimited = naive_restricted(dag, n, False, full, red, blue, 0)
    enough = data.draw(st.integers(0, 12))  # all a check needs: LOWER, or that it reaches this
    capped = game.lower(red, blue, 0, enough)
    assert capped == unlimited if unlimited < enough else unlimited >= capped >= enough
    assert game.lower(red, blue, 0) == unlimited  # a capped value remembered is not taken as exact


# --- tampering: each is rejected with a reason ------------------------------------------------

DAG, M, BELOW = attention_forward(2, 1), 5, 11


@pytest.fixture(scope="module")
def lines():
    return certificate(DAG, M, "recompute", BELOW).splitlines()


def _states(lines):
    return [i for i, line in enumerate(lines) if line.startswith("s ")]


def test_every_dropped_configuration_is_noticed(lines):
    """Dropping any one of 40 configurations (spread over the file) breaks the check."""
    states = _states(lines)
    for i in states[::max(1, len(states) // 40)]:
        text = "\n".join(lines[:i] + lines[i + 1:])
        reason = rejected(DAG, M, "recompute", BELOW, text)
        assert "not listed" in reason or "listed with g" in reason or "start" in reason


def test_a_raised_cost_is_noticed(lines):
    i = _states(lines)[len(_states(lines)) // 2]
    _, key, g = lines[i].split()
    text = "\n".join(lines[:i] + [f"s {key} {int(g) + 1}"] + lines[i + 1:])
    assert "listed with g" in rejected(DAG, M, "recompute", BELOW, text)


@pytest.mark.parametrize("edit, reason", [
    (lambda ls: ["p closed 25 4"] + ls[2:], "the header must be 'p closed 24 4'"),
    (lambda ls: [ls[1].replace(" 4", " 3")] + ls[2:], "the header must be"),
    (lambda ls: ls[:1], "no 'p closed' header"),
    (lambda ls: ls[:1] + ls[2:], "the header must be"),
    (lambda ls: ls + [ls[-1]], "again"),
    (lambda ls: ls + ["s zz 3"], "is not a number in base 16"),
    (lambda ls: ls + [f"s {1 << 96:x} 3"], "more than 96 bits"),
    (lambda ls: ls + ["x 1 2"], "expected 'a PERMUTATION' or 's KEY G'"),
    (lambda ls: ls[:2] + ["a " + " ".join(map(str, range(24)))[:-3]] + ls[2:],
     "not a permutation"),
    (lambda ls: ls[:2] + ["a 1 0 " + " ".join(map(str, range(2, 24)))] + ls[2:],
     "not an automorphism"),
])
def test_malformed_files_are_rejected(lines, edit, reason):
    assert reason in rejected(DAG, M, "recompute", BELOW, "\n".join(edit(lines)))


def test_start_with_a_cost_is_rejected(lines):
    game = _Game(DAG, M, False)  # the start: the inputs blue, nothing else
    key = f"{game.pack(0, game.inputs, 0, 0):x}"
    assert any(line.split()[1:2] == [key] for line in lines)
    out = [f"s {key} 1" if line.split()[1:2] == [key] else line for line in lines]
    assert "the start configuration is listed with g = 1" in rejected(
        DAG, M, "recompute", BELOW, "\n".join(out))


def test_another_memory_or_variant_is_rejected(lines):
    text = "\n".join(lines)
    # Both variants' keys have four masks (recompute: R, B, F and the owed O); read as one-shot,
    # the recompute file lacks the configurations with their computed vertices
    assert "not listed" in rejected(DAG, M, "one-shot", BELOW, text)
    # M = 4, where the optimum is 15: the blocks evict, the stored configurations are not the
    # ones reached, and a bound of 15 is out of reach of the M = 5 file
    assert "leaves room below" in rejected(DAG, M - 1, "recompute", 15, text)


def test_checker_imports_nothing_of_the_search():
    tree = ast.parse((ROOT / "ioverify" / "certificate" / "closed.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import)
                 for a in node.names}
    assert imported <= {"__future__", "itertools", "time", "ioverify.errors"}, imported


# --- pebble --proof (recompute) and certificate check ------------------------------------------

@pytest.fixture(scope="module")
def proved(tmp_path_factory):
    base = tmp_path_factory.mktemp("search-proofs")
    dag_file = base / "af21.json"
    dag_file.write_text(json.dumps(dag_to_dict(attention_forward(2, 1))))
    assert main(["pebble", str(dag_file), "-M", "6", "--proof", str(base / "opt")]) == EXIT_OK
    assert main(["pebble", str(dag_file), "-M", "6", "--one-shot", "--proof-kind", "search",
                 "--proof", str(base / "once")]) == EXIT_OK
    return base


def test_pebble_proof_writes_a_recompute_search_certificate(proved):
    for name, variant in (("opt", "recompute"), ("once", "one-shot")):
        outcome = check_file(proved / name / "certificate.json")
        assert outcome.outcome == "accepted" and outcome.status == "optimal", outcome
        assert any(f"no {variant} schedule with I/O < 10" in line for line in outcome.rechecked)
        assert any("normal form" in line for line in outcome.relies_on)


def test_edited_file_raised_level_and_wrong_count_are_rejected(proved, tmp_path):
    folder = tmp_path / "opt"
    shutil.copytree(proved / "opt", folder)
    (folder / CLOSED_FILE).write_text((folder / CLOSED_FILE).read_text() + "c\n")
    assert "closed_sha256" in rejection(folder / "certificate.json")

    shutil.rmtree(folder)
    shutil.copytree(proved / "opt", folder)

    def claim_more(doc):  # a Verified of 11 on the same closed set
        doc["verdict"] = {"status": "verified", "bound": 11, "variant": "recompute",
                          "evidence": {**doc["verdict"]["evidence"], "below": 11}}
        doc["witness"] = {}
        doc["obligation"]["spec"]["lower_bound"] = 11
        doc["detail"].update(claimed_lower_bound=11, lower_bound_source="number")
    path = reseal(folder, claim_more)
    assert "search certificate" in rejection(path)

    shutil.rmtree(folder)
    shutil.copytree(proved / "opt", folder)
    path = reseal(folder, lambda doc: doc["verdict"]["evidence"].update(
        states=doc["verdict"]["evidence"]["states"] + 1))
    assert "evidence states" in rejection(path)


def test_a_text_swapped_for_another_memorys_is_rejected(proved, tmp_path):
    folder = tmp_path / "opt"
    shutil.copytree(proved / "opt", folder)
    other = search_certificate(attention_forward(2, 1), 7, "recompute", 9, tmp_path / "m7")
    text = (tmp_path / "m7" / CLOSED_FILE).read_text()

    def swap(doc):
        (folder / CLOSED_FILE).write_text(text)
        doc["verdict"]["evidence"].update(closed_sha256=hashlib.sha256(text.encode()).hexdigest(),
                                          states=other["states"])
    assert "search certificate" in rejection(reseal(folder, swap))


def test_search_certificate_rechecks_without_solvers(proved):
    out = check_without_solvers(proved / "opt" / "certificate.json", ROOT)
    assert "search certificate search.closed checked" in out


# --- proofs on the DAG with its chains contracted -----------------------------------------------

def test_a_proof_is_made_on_the_contracted_dag_and_checked_on_it_contracted_again(proved):
    """attention_forward(2,1) at M = 6 (optimum 10, the contracted DAG's too): ``pebble
    --proof`` writes its search certificate on the contracted DAG, with fewer closed
    configurations than on the DAG itself, and the check contracts the DAG again."""
    dag = attention_forward(2, 1)
    for name, variant in (("opt", "recompute"), ("once", "one-shot")):
        doc = json.loads((proved / name / "certificate.json").read_text())
        evidence = doc["verdict"]["evidence"]
        assert evidence["contracted"] == CHAIN_CONTRACTION
        itself = exhaustive_optimum(dag, 6, variant, below=10, keep_closed=True)
        assert itself.complete and evidence["states"] < len(itself.closed)
        outcome = check_file(proved / name / "certificate.json")
        assert outcome.outcome == "accepted", outcome
        assert any("chains contracted again" in line for line in outcome.rechecked)
        assert CONTRACTION_RELIES_ON in outcome.relies_on


@pytest.mark.parametrize("change, reason", [
    (lambda doc: doc["verdict"]["evidence"].pop("contracted"), "search certificate"),
    (lambda doc: doc["verdict"]["evidence"].update(contracted="a lemma"), "evidence contracted"),
    (lambda doc: doc.update(relies_on=[line for line in doc["relies_on"]
                                       if line != CONTRACTION_RELIES_ON]), "relies_on"),
])
def test_a_resealed_contracted_proof_is_rejected(proved, tmp_path, change, reason):
    """Without its lemma the closed configurations are read against the DAG itself, where
    they are not closed; another lemma, or the lemma not relied on, is named."""
    folder = tmp_path / "opt"
    shutil.copytree(proved / "opt", folder)
    assert reason in rejection(reseal(folder, change))


def test_a_count_stated_as_a_float_is_malformed(proved, tmp_path):
    """(found by trying: a count stated as a float passed as equal to the count; the schema's
    integers are ints, so it is malformed now, before anything reads it.)  The digest is
    computed anew as anyone can: the writer's own check would refuse the document."""
    from ioverify.certificate.format import digest

    folder = tmp_path / "opt"
    shutil.copytree(proved / "opt", folder)
    path = folder / "certificate.json"
    doc = json.loads(path.read_text())
    doc["verdict"]["evidence"]["states"] = float(doc["verdict"]["evidence"]["states"])
    doc["digest"] = digest({k: v for k, v in doc.items() if k != "digest"})
    path.write_text(json.dumps(doc))
    outcome = check_file(path)
    assert outcome.outcome == "malformed" and "$.verdict.evidence.states" in outcome.reason


def test_a_recompute_proof_is_made_with_the_inputs_as_roots_where_it_reaches(tmp_path):
    """approximate_attention(1,1,2) in recompute: at M = 3 the DAG contracted with the inputs
    as roots has the DAG's optimum, 15, and the proof is made there; at M = 4 its optimum
    (8) lies below the DAG's (9) and the proof is made on the next DAG tried."""
    dag = approximate_attention(1, 1, 2)
    lemmas = []
    for memory, optimum in ((3, 15), (4, 9)):
        detail = search_certificate(dag, memory, "recompute", optimum, tmp_path / str(memory))
        lemmas.append(detail.get("contracted"))
    assert lemmas[0] == INPUT_CHAIN_CONTRACTION and lemmas[1] != INPUT_CHAIN_CONTRACTION
    dag_file = tmp_path / "aa112.json"
    dag_file.write_text(json.dumps(dag_to_dict(dag)))
    assert main(["pebble", str(dag_file), "-M", "3", "--proof", str(tmp_path / "p")]) == EXIT_OK
    outcome = check_file(tmp_path / "p" / "certificate.json")
    assert outcome.outcome == "accepted", outcome
    assert any("inputs as roots" in line for line in outcome.rechecked)


def test_a_proof_below_the_contracted_optimum_is_made_on_the_dag(tmp_path):
    """Joining v4 to v2 merges two outputs into one store: the contracted optimum is 5, the
    DAG's 6.  No proof of 6 exists on the contracted DAG, so the certificate is made on the
    DAG itself, without the lemma, and is accepted."""
    dag = Graph.from_edges([f"v{i}" for i in range(7)],
                           [("v0", "v2"), ("v1", "v2"), ("v0", "v3"), ("v2", "v3"),
                            ("v2", "v4"), ("v2", "v5"), ("v0", "v6")],
                           outputs=["v2", "v3", "v4", "v6"])
    assert exhaustive_optimum(contract_chains(dag), 3, "one-shot").optimum == 5
    dag_file = tmp_path / "joined.json"
    dag_file.write_text(json.dumps(dag_to_dict(dag)))
    for variant in VARIANTS:
        folder = tmp_path / variant
        assert main(["pebble", str(dag_file), "-M", "3", "--variant", variant,
                     "--proof-kind", "search", "--proof", str(folder)]) == EXIT_OK
        doc = json.loads((folder / "certificate.json").read_text())
        assert doc["verdict"]["io"] == 6 and "contracted" not in doc["verdict"]["evidence"]
        assert check_file(folder / "certificate.json").outcome == "accepted"


def test_proof_kind_without_proof_and_clausal_in_recompute_are_refused(tmp_path, capsys):
    dag_file = tmp_path / "p.json"  # pyramid(3): its middle vertices have two uses each
    dag_file.write_text(json.dumps(dag_to_dict(pyramid(3))))
    assert main(["pebble", str(dag_file), "-M", "3", "--proof-kind", "search"]) == 2
    assert "--proof-kind needs --proof" in capsys.readouterr().err
    assert main(["pebble", str(dag_file), "-M", "3", "--proof-kind", "clausal", "--proof",
                 str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err
    assert "--proof-kind clausal needs the one-shot variant" in err and "2 times" in err
    assert not (tmp_path / "x").exists()


# --- a recompute bound proved in one-shot, under the single-use lemma ----------------------------

@pytest.fixture(scope="module")
def single_use(tmp_path_factory):
    """matmul(1,2,2) at M = 3 (optimum 13 in both variants; every product and partial sum has
    one use): recompute proofs of both kinds, written in one-shot, and a one-shot one."""
    base = tmp_path_factory.mktemp("single-use")
    dag_file = base / "mm.json"
    dag_file.write_text(json.dumps(dag_to_dict(matmul(1, 2, 2))))
    assert main(["pebble", str(dag_file), "-M", "3", "--proof", str(base / "search")]) == EXIT_OK
    if _has_cadical():
        for name, variant in (("clausal", []), ("once", ["--one-shot"])):
            assert main(["pebble", str(dag_file), "-M", "3", *variant, "--proof-kind", "clausal",
                         "--proof", str(base / name)]) == EXIT_OK
    return base


def _has_cadical() -> bool:
    from ioverify.solve.proof import available

    return available()


def _needs(folder: Path) -> Path:
    if not folder.exists():
        pytest.skip("no PySAT with CaDiCaL 1.9.5: no clausal proof was written")
    return folder


def test_a_single_use_recompute_bound_is_proved_in_one_shot_and_names_the_lemma(single_use):
    for kind, checked in (("search", "search certificate search.closed checked"),
                          ("clausal", "LRAT proof query.lrat checked")):
        path = _needs(single_use / kind) / "certificate.json"
        doc = json.loads(path.read_text())
        assert doc["verdict"]["variant"] == "recompute"
        assert doc["verdict"]["evidence"]["searched"] == "one-shot"
        outcome = check_file(path)
        assert outcome.outcome == "accepted" and outcome.status == "optimal", outcome
        assert any("single-use lemma re-derived" in line for line in outcome.rechecked)
        assert any(checked in line for line in outcome.rechecked)
        assert outcome.relies_on[0] == SINGLE_USE_RELIES_ON
    closed = (single_use / "search" / CLOSED_FILE).read_text()
    assert closed.startswith("c ioverify search certificate: ") and "one-shot" in closed[:80]


def _drop(*fields):
    def change(doc):
        for name in fields:
            del doc["verdict"]["evidence"][name]
    return change


@pytest.mark.parametrize("kind, change, reason", [
    ("search", _drop("searched", "lemma"), "search certificate"),  # one-shot masks read as owed
    ("search", lambda doc: doc.update(relies_on=doc["relies_on"][1:]), "relies_on"),
    ("search", lambda doc: doc["verdict"]["evidence"].update(searched="recompute"),
     "only a recompute bound"),
    ("clausal", _drop("searched", "lemma"), "proves nothing in the recompute variant"),
    ("clausal", lambda doc: doc.update(relies_on=[]), "relies_on"),
    ("once", lambda doc: doc["verdict"]["evidence"].update(searched="one-shot"),
     "only a recompute bound"),
])
def test_a_resealed_proof_in_another_variant_is_rejected(single_use, tmp_path, kind, change,
                                                         reason):
    folder = tmp_path / kind
    shutil.copytree(_needs(single_use / kind), folder)
    assert reason in rejection(reseal(folder, change))


def test_a_one_shot_proof_of_a_dag_without_the_lemma_is_rejected(proved, tmp_path):
    """attention_forward(2,1) at M = 6: a one-shot search certificate resealed as recompute
    evidence 'searched' in one-shot (its S entries have several uses)."""
    folder = tmp_path / "once"
    shutil.copytree(proved / "once", folder)

    def as_recompute(doc):
        doc["verdict"]["variant"] = "recompute"
        doc["obligation"]["spec"]["variant"] = "recompute"
        doc["obligation"]["id"] = doc["obligation"]["id"].replace("/one-shot/", "/recompute/")
        doc["verdict"]["evidence"].update(searched="one-shot", lemma="x")
        doc["relies_on"] = [SINGLE_USE_RELIES_ON] + doc["relies_on"]
    assert "single-use lemma does not hold" in rejection(reseal(folder, as_recompute))


def test_a_check_past_its_deadline_decides_nothing(proved):
    """``pebble --proof`` re-checks within --timeout: past the deadline the certificate is not
    re-checked (neither accepted nor rejected), and without one it is accepted."""
    import time

    import json

    from ioverify.certificate.recheck import check
    from ioverify.errors import DeadlineReached

    path = proved / "opt" / "certificate.json"
    late = check_file(path, deadline=time.monotonic() - 1)
    assert late.outcome == "not re-checked" and "time limit passed" in late.reason
    with pytest.raises(DeadlineReached, match="stopped at its deadline"):  # the closed check's
        check(json.loads(path.read_text()), path.parent, (path.name,), time.monotonic() - 1)
    assert check_file(path, deadline=time.monotonic() + 600).outcome == "accepted"


def test_a_proof_not_rechecked_in_time_says_how_to_check_it():
    from ioverify.cli.pebble_cmd import describe_proof

    line = describe_proof({"written": True, "rechecked": False, "lower_bound": 9,
                           "certificate": "p/certificate.json", "reason": "--timeout reached"})
    assert "not re-checked" in line and "ioverify certificate check p/certificate.json" in line
