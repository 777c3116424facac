"""A checker of LRAT proofs of unsatisfiability, in pure Python (trusted; docs/explanation/proofs.md).

A CNF in DIMACS has clauses numbered 1, 2, ... in file order.  An LRAT proof is a list of lines:

* ``ID LITS 0 HINTS 0`` adds clause ``LITS`` under the new number ``ID`` (larger than every
  number so far).  It must follow by *reverse unit propagation* along ``HINTS``: assume every
  literal of the clause false; each hint, in order, names a live clause all of whose literals
  but one are then false (that one is made true), until a hint names a clause all of whose
  literals are false (a conflict).  Then the clause is implied by the clauses it names.
* ``ID d IDS 0`` deletes the clauses ``IDS``; ``ID`` is read and ignored.

The proof is accepted once it adds the empty clause: the CNF is then unsatisfiable.  RAT steps
(negative hints) are refused: the proofs ioverify writes need none.  Every way a proof can fail
raises ``ProofRejected`` with one line naming the line of the proof and what is wrong.
"""

from __future__ import annotations

import time

from ioverify.errors import CertificateRejected, DeadlineReached


class ProofRejected(CertificateRejected):
    """A CNF or a proof that does not check; the message says where and why."""


def read_dimacs(text: str) -> list[tuple[int, ...]]:
    """The clauses of a DIMACS CNF, in file order; the header's counts must be met exactly."""
    header, clauses, current = None, [], []
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if not words or words[0] == "c":
            continue
        if words[0] == "p":
            if header is not None or len(words) != 4 or words[1] != "cnf":
                raise ProofRejected(f"CNF line {number}: a second or malformed 'p cnf' header")
            header = (_int(words[2], number, "CNF"), _int(words[3], number, "CNF"))
            continue
        if header is None:
            raise ProofRejected(f"CNF line {number}: a clause before the 'p cnf' header")
        for word in words:
            lit = _int(word, number, "CNF")
            if abs(lit) > header[0]:
                raise ProofRejected(f"CNF line {number}: literal {lit} beyond the "
                                    f"{header[0]} variables of the header")
            if lit == 0:
                clauses.append(tuple(current))
                current = []
            else:
                current.append(lit)
    if header is None or current:
        raise ProofRejected("CNF: no 'p cnf' header" if header is None
                            else "CNF: the last clause is not ended by 0")
    if len(clauses) != header[1]:
        raise ProofRejected(f"CNF: the header announces {header[1]} clauses, the file has "
                            f"{len(clauses)}")
    return clauses


def _int(word: str, number: int, what: str) -> int:
    try:
        return int(word)
    except ValueError:
        raise ProofRejected(f"{what} line {number}: {word!r} is not an integer") from None


def _ints(words: list[str], number: int) -> list[int]:
    try:
        return list(map(int, words))
    except ValueError:
        bad = next(w for w in words if not w.lstrip("-").isdigit())
        raise ProofRejected(f"proof line {number}: {bad!r} is not an integer") from None


def check_lrat(clauses, proof: str, deadline: float | None = None) -> int:
    """Check ``proof`` (LRAT text) against ``clauses`` (``read_dimacs``); the number of clauses
    it added, once it adds the empty clause.  ``ProofRejected`` otherwise; ``DeadlineReached``
    (nothing decided) if the ``time.monotonic()`` value ``deadline`` passes first."""
    live = {i: tuple(c) for i, c in enumerate(clauses, 1)}
    last, added = len(live), 0
    for number, line in enumerate(proof.splitlines(), 1):
        if deadline is not None and number % 4096 == 1 and time.monotonic() > deadline:
            raise DeadlineReached(f"the check of the LRAT proof stopped at its deadline at "
                                  f"line {number}")
        words = line.split()
        if not words or words[0] == "c":
            continue
        if len(words) > 1 and words[1] == "d":
            _delete(live, _ints(words[2:], number), number)
            continue
        ident, lits, hints = _addition(_ints(words, number), number)
        if ident <= last:
            raise ProofRejected(f"proof line {number}: clause number {ident} is not above "
                                f"{last}, the last one used")
        _rup(live, lits, hints, number)
        live[ident], last, added = lits, ident, added + 1
        if not lits:
            return added
    raise ProofRejected("proof: it ends without adding the empty clause (truncated, or not a "
                        "proof of unsatisfiability)")


def _addition(ints: list[int], number: int):
    """(id, literals, hints) of an addition line ``ID LITS 0 HINTS 0``."""
    if len(ints) < 3 or ints[-1] != 0 or 0 not in ints[1:-1]:
        raise ProofRejected(f"proof line {number}: not 'ID literals 0 hints 0'")
    end = ints.index(0, 1)
    lits, hints = tuple(ints[1:end]), ints[end + 1:-1]
    if 0 in hints:
        raise ProofRejected(f"proof line {number}: a third 0")
    if min(hints, default=1) < 0:
        raise ProofRejected(f"proof line {number}: a RAT step (negative hint); only reverse "
                            f"unit propagation is accepted")
    if not {-lit for lit in lits}.isdisjoint(lits):
        raise ProofRejected(f"proof line {number}: the clause is a tautology")
    return ints[0], lits, hints


def _delete(live: dict, ids: list[int], number: int) -> None:
    if not ids or ids[-1] != 0 or 0 in ids[:-1]:
        raise ProofRejected(f"proof line {number}: not 'ID d clause numbers 0'")
    for ident in ids[:-1]:
        if live.pop(ident, None) is None:
            raise ProofRejected(f"proof line {number}: deletes clause {ident}, which is not "
                                f"live")


def _rup(live: dict, lits, hints, number: int) -> None:
    """The clause ``lits`` follows from the hinted clauses by unit propagation."""
    true = {-lit for lit in lits}
    for hint in hints:
        clause = live.get(hint)
        if clause is None:
            raise ProofRejected(f"proof line {number}: hint {hint} is not a live clause "
                                f"(never added, or deleted)")
        unit = None
        for lit in clause:
            if lit in true:
                raise ProofRejected(f"proof line {number}: hint {hint} is already satisfied")
            if -lit not in true:
                if unit is not None:
                    raise ProofRejected(f"proof line {number}: hint {hint} is not unit (two "
                                        f"literals unassigned, {unit} and {lit})")
                unit = lit
        if unit is None:
            return  # every literal false: the conflict
        true.add(unit)
    raise ProofRejected(f"proof line {number}: the hints end without a conflict")
