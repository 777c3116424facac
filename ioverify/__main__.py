from ioverify.cli import run

run()
