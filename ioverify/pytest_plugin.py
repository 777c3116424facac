"""pytest plugin: ``pytest proofs/`` collects every claim's obligations as test items.

Registered through the ``pytest11`` entry point.  Importing it imports nothing heavy (no Z3, no
SymPy, no NumPy): the obligations import what they need when they run.

A claim file is a ``*.py`` file (not ``test_*``, ``_*`` or ``conftest.py``) that names
``CLAIMS`` (however it defines it: assigned, built by a helper, imported) and that is either one
of pytest's initial paths (named on the command line, in an ``@file`` of arguments, or in the ini
option ``testpaths``), or inside one of the folders of the ini option ``ioverify_claims`` (default
``proofs``, relative to the rootdir), or one of the shipped claims (``pytest --pyargs
ioverify.proofs``, from any folder once ioverify is installed): a module elsewhere that happens
to define ``CLAIMS`` is never collected.  Each obligation becomes one item with a readable id; items that run a solver
carry the ``ioverify_solver`` marker.  An item passes on a proof (optimal or verified) or a
supported confrontation (``ioverify.verdict.exit_code`` 0); a refutation or a contradiction fails
and prints the counterexample as commands you can paste; unknown or bounded fails too unless
``--ioverify-unknown=skip`` (it is never a pass).  A claim file whose ``CLAIMS`` is empty is
one item, ``FILE::CLAIMS``, unknown: nothing was checked (``ioverify check`` says the same).
"""

from __future__ import annotations

import functools
import re

import pytest

# The word CLAIMS anywhere: a claim file may bind it indented or take it from a helper.
_CLAIMS_RE = re.compile(r"\bCLAIMS\b")


def pytest_addoption(parser):
    group = parser.getgroup("ioverify", "ioverify claim checking")
    group.addoption("--ioverify-budget", type=float, default=120.0, metavar="SECONDS",
                    help="time limit per search obligation, a positive number (default "
                         "120)")
    group.addoption("--ioverify-seed", type=int, default=0,
                    help="solver seed, 0 to 2^32 - 1 (default 0)")
    group.addoption("--ioverify-unknown", choices=("fail", "skip"), default="fail",
                    help="what an unknown or bounded verdict does to its item (default fail)")
    parser.addini("ioverify_claims", type="linelist", default=["proofs"],
                  help="folders (relative to the rootdir) whose claim files are collected; a "
                       "claim file named on the command line is collected wherever it is")


def pytest_configure(config):
    _check_options(config)
    config.addinivalue_line("markers", "ioverify_solver: an obligation that runs a solver or an "
                                       "exhaustive search")


def _check_options(config) -> None:
    """Refuse a bad option once, at start-up, rather than fail every item with it."""
    import math

    from ioverify._check import seed
    from ioverify.errors import InvalidArgument

    budget = config.getoption("ioverify_budget")
    if not (budget > 0 and math.isfinite(budget)):
        raise pytest.UsageError(f"--ioverify-budget must be a positive number of seconds, got "
                                f"{budget!r}")
    try:
        seed("--ioverify-seed", config.getoption("ioverify_seed"))
    except InvalidArgument as error:
        raise pytest.UsageError(str(error)) from None


def _configured(file_path, session) -> bool:
    """One of pytest's initial paths (the command line, an ``@file``, ``testpaths``), or inside
    a folder of ``ioverify_claims``."""
    if session.isinitpath(file_path):
        return True
    config = session.config
    path = file_path.resolve()
    folders = [(config.rootpath / f).resolve() for f in config.getini("ioverify_claims")]
    return any(path.is_relative_to(folder) for folder in folders + [_shipped_claims()])


@functools.lru_cache(maxsize=1)
def _shipped_claims():
    """The folder of the shipped claims (``ioverify.proofs``) wherever ioverify is installed, so
    that ``pytest --pyargs ioverify.proofs`` runs them without a clone of the repository.  Found
    without importing it (its claims import the package)."""
    from importlib.util import find_spec
    from pathlib import Path

    spec = find_spec("ioverify.proofs")
    return Path(spec.origin).parent.resolve()


def pytest_collect_file(file_path, parent):
    if file_path.suffix != ".py" or file_path.name.startswith(("test_", "_", "conftest")):
        return None
    if not _configured(file_path, parent.session):
        return None
    try:
        text = file_path.read_text()
    except (OSError, UnicodeDecodeError):
        return None
    if _CLAIMS_RE.search(text):
        return ClaimFile.from_parent(parent, path=file_path)
    return None


class ClaimFile(pytest.File):
    def collect(self):
        from ioverify.claims.claim import load_file

        claims = load_file(self.path)
        if not claims:  # as in ``ioverify check``: nothing checked is unknown, never a pass
            yield NothingChecked.from_parent(self, name="CLAIMS")
        seen: dict[str, int] = {}
        for claim in claims:
            for ob in claim.obligations:
                item = ObligationItem.from_parent(self, name=_item_name(claim.id, ob.id, seen),
                                                  obligation=ob)
                if ob.heavy or ob.kind in ("exact-search", "partition"):
                    item.add_marker(pytest.mark.ioverify_solver)
                yield item


def _item_name(claim_id: str, obligation_id: str, seen: dict[str, int]) -> str:
    """``CLAIM[OBLIGATION-ID]``; the n-th obligation with an id already taken in the file (two
    numeric lower bounds on one instance: the id does not show the number) gets ``#n``, so
    that each item can be selected, deselected and told apart in reports on its own."""
    name = f"{claim_id}[{obligation_id}]"
    seen[name] = seen.get(name, 0) + 1
    return name if seen[name] == 1 else f"{claim_id}[{obligation_id}#{seen[name]}]"


class ObligationFailed(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class _ClaimItem(pytest.Item):
    def judge(self, verdict, failure) -> None:
        """Pass on a verdict of exit code 0 (optimal, verified, or supported: a sweep's
        evidence); skip an unknown or bounded one under ``--ioverify-unknown=skip``; fail
        otherwise, with the text ``failure()``."""
        from ioverify.verdict import describe, exit_code

        if exit_code(verdict) == 0:
            return
        if verdict.status in ("unknown", "bounded") and \
                self.config.getoption("ioverify_unknown") == "skip":
            pytest.skip(f"{verdict.status}: {describe(verdict)}")
        raise ObligationFailed(failure())

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ObligationFailed):
            return excinfo.value.message
        return super().repr_failure(excinfo, style)


class ObligationItem(_ClaimItem):
    def __init__(self, *, obligation, **kwargs):
        super().__init__(**kwargs)
        self.obligation = obligation

    def runtest(self):
        from ioverify.claims.run import Budget, budget_for, run

        config = self.config
        budget = Budget(timeout=config.getoption("ioverify_budget"),
                        seed=config.getoption("ioverify_seed"))
        verdict = run(self.obligation, budget_for(self.obligation, budget)).verdict
        self.judge(verdict, lambda: failure_text(self.obligation, verdict))

    def reportinfo(self):
        return self.path, None, f"{self.obligation.claim}: {self.obligation.id}"


class NothingChecked(_ClaimItem):
    """A claim file whose ``CLAIMS`` is empty: unknown, as ``ioverify check`` has it."""

    def runtest(self):
        from ioverify.verdict import Unknown, describe

        verdict = Unknown(f"{self.path.name} defines no claims: nothing was checked")
        self.judge(verdict, lambda: f"UNKNOWN: {describe(verdict)}")

    def reportinfo(self):
        return self.path, None, f"{self.path.name}: no claims"


def failure_text(obligation, verdict) -> str:
    """The failure as text, with a refuting schedule as commands a user can paste."""
    from ioverify.verdict import describe

    lines = [f"{verdict.status.upper()}: {obligation.claim} on {obligation.id}",
             f"  {describe(verdict)}"]
    schedule = getattr(verdict, "schedule", None)
    if schedule is not None and obligation.kind == "exact-search":
        lines += ["", _schedule_heading(verdict, schedule), *paste_commands(obligation, schedule)]
    return "\n".join(lines)


def _schedule_heading(verdict, schedule) -> str:
    """A counterexample only if the schedule beats the claimed figure; an unknown's best
    schedule, or an optimum above a claimed one (refuted by the search's proof), is not one."""
    claim = getattr(verdict, "claim", None)
    if verdict.status == "refuted" and claim is not None and schedule.io < claim:
        return "Replay the counterexample:"
    return f"Replay the best schedule found ({schedule.io} I/O; not a counterexample):"


def paste_commands(obligation, schedule) -> list[str]:
    import json

    from ioverify.claims.run import build_family

    spec = obligation.spec
    dag = build_family(spec)
    params = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in spec["params"].items())
    variant = " --one-shot" if spec.get("variant") == "one-shot" else ""
    return [f"ioverify dag {spec['family']} {params} -o dag.json",
            "cat > schedule.json <<'EOF'",
            json.dumps(schedule.to_dict(dag)),
            "EOF",
            f"ioverify replay dag.json schedule.json --memory {spec['memory']}{variant}"]
