"""`recall sync` in a process that says when its round begins, for the tests that kill it.

Usage: ``python -m tests.helpers.sync_worker RECALL-ARGUMENTS...``. Loads what a round
needs, prints ``started`` and runs the command line with the arguments, its own output
sent to /dev/null. A kill timed from ``started`` lands in the round itself, not in
Python's start-up, however long that takes on a busy machine.
"""

from __future__ import annotations

import os
import sys

import recall.collection.opening
import recall.sync.rounds
from recall.cli.main import main

# Loaded before ``started``: a round's modules, so the round does not wait for them.
LOADED = (recall.collection.opening, recall.sync.rounds)


def run() -> int:
    """Say ``started``, then run ``recall`` with this process's arguments."""
    print("started", flush=True)
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, sys.stdout.fileno())
    os.dup2(quiet, sys.stderr.fileno())
    return main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(run())
