"""pytest plugin: ``pytest proofs/`` collects every claim's obligations as test items.

Registered through the ``pytest11`` entry point.  Importing it imports nothing heavy (no Z3, no
SymPy, no NumPy): the obligations import what they need when they run.

A claim file is a ``*.py`` file (not ``test_*``, ``_*`` or ``conftest.py``) that defines
``CLAIMS`` and imports ``ioverify``, and that is either named on the command line or inside one
of the folders of the ini option ``ioverify_claims`` (default ``proofs``, relative to the
rootdir), or one of the shipped claims (``pytest --pyargs ioverify.proofs``, from any folder
once ioverify is installed): a module elsewhere that happens to define ``CLAIMS`` is never collected.  Each
obligation becomes one item with a readable id; items that run a solver carry the
``ioverify_solver`` marker.  An item passes only on a proof
(optimal or verified); a refutation fails and prints the counterexample as commands you can paste;
unknown or bounded fails too unless ``--ioverify-unknown=skip`` (it is never a pass).
"""

from __future__ import annotations

import functools
import re

import pytest

_CLAIMS_RE = re.compile(r"^CLAIMS\s*[:=]", re.M)


def pytest_addoption(parser):
    group = parser.getgroup("ioverify", "ioverify claim checking")
    group.addoption("--ioverify-budget", type=float, default=120.0, metavar="SECONDS",
                    help="time limit per search obligation (default 120)")
    group.addoption("--ioverify-seed", type=int, default=0, help="solver seed (default 0)")
    group.addoption("--ioverify-unknown", choices=("fail", "skip"), default="fail",
                    help="what an unknown or bounded verdict does to its item (default fail)")
    parser.addini("ioverify_claims", type="linelist", default=["proofs"],
                  help="folders (relative to the rootdir) whose claim files are collected; a "
                       "claim file named on the command line is collected wherever it is")


def pytest_configure(config):
    config.addinivalue_line("markers", "ioverify_solver: an obligation that runs a solver or an "
                                       "exhaustive search")


def _configured(file_path, config) -> bool:
    """Named on the command line, or inside a folder of ``ioverify_claims``."""
    path = file_path.resolve()
    named = {(config.invocation_params.dir / a.split("::")[0]).resolve()
             for a in config.invocation_params.args if not a.startswith("-")}
    if path in named:
        return True
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
    if not _configured(file_path, parent.config):
        return None
    try:
        text = file_path.read_text()
    except (OSError, UnicodeDecodeError):
        return None
    if "ioverify" in text and _CLAIMS_RE.search(text):
        return ClaimFile.from_parent(parent, path=file_path)
    return None


class ClaimFile(pytest.File):
    def collect(self):
        from ioverify.claims.claim import load_file

        for claim in load_file(self.path):
            for i, ob in enumerate(claim.obligations):
                item = ObligationItem.from_parent(self, name=f"{claim.id}[{ob.id}]",
                                                  obligation=ob)
                if ob.heavy or ob.kind in ("exact-search", "partition"):
                    item.add_marker(pytest.mark.ioverify_solver)
                yield item


class ObligationFailed(Exception):
    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class ObligationItem(pytest.Item):
    def __init__(self, *, obligation, **kwargs):
        super().__init__(**kwargs)
        self.obligation = obligation

    def runtest(self):
        from ioverify.claims.run import Budget, budget_for, run

        config = self.config
        budget = Budget(timeout=config.getoption("ioverify_budget"),
                        seed=config.getoption("ioverify_seed"))
        result = run(self.obligation, budget_for(self.obligation, budget))
        verdict = result.verdict
        from ioverify.verdict import exit_code

        if exit_code(verdict) == 0:  # optimal, verified, or supported (a sweep's evidence)
            return
        if verdict.status in ("unknown", "bounded") and \
                config.getoption("ioverify_unknown") == "skip":
            from ioverify.verdict import describe

            pytest.skip(f"{verdict.status}: {describe(verdict)}")
        raise ObligationFailed(failure_text(self.obligation, verdict))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ObligationFailed):
            return excinfo.value.message
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"{self.obligation.claim}: {self.obligation.id}"


def failure_text(obligation, verdict) -> str:
    """The failure as text, with a refuting schedule as commands a user can paste."""
    from ioverify.verdict import describe

    lines = [f"{verdict.status.upper()}: {obligation.claim} on {obligation.id}",
             f"  {describe(verdict)}"]
    schedule = getattr(verdict, "schedule", None)
    if schedule is not None and obligation.kind == "exact-search":
        lines += ["", "Replay the counterexample:", *paste_commands(obligation, schedule)]
    return "\n".join(lines)


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
