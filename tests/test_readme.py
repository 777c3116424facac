"""The README's set-up commands and tour are true: the tour runs as written, and the two set-up
lines are the ones CI runs."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def tour_commands() -> list[tuple[str, int]]:
    """``$ command  # exit N: ...`` lines of the console blocks, with the exit code they expect."""
    commands = []
    for block in re.findall(r"```console\n(.*?)```", README, flags=re.S):
        for line in block.splitlines():
            if line.startswith("$ "):
                command, _, comment = line[2:].partition("  #")
                match = re.search(r"exit (\d)", comment)
                commands.append((command.strip(), int(match.group(1)) if match else 0))
    return commands


def test_readme_starts_with_exactly_two_setup_commands():
    setup = README[README.index("## Set-up"):README.index("## A short tour")]
    commands = re.findall(r"```sh\n(.*?)```", setup, flags=re.S)
    assert [c.strip() for c in commands] == ["pip install -e . && ioverify check",
                                             "pip install -e '.[test,docs,distributed]' && pytest"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "pip install -e '.[test,docs,distributed]' && pytest" in ci


def test_tour_runs_as_written(tmp_path):
    commands = tour_commands()
    assert len(commands) >= 5
    for command, expected in commands:
        done = subprocess.run(shlex.split(command), cwd=tmp_path, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == expected, (f"`{command}` exited {done.returncode}, README "
                                             f"says {expected}:\n{done.stdout}\n{done.stderr}")
