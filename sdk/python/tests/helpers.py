"""Shared by the kit's tests: paths, and the kit on sys.path."""

import os
import sys

TESTS = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.dirname(TESTS)
REPO = os.path.dirname(os.path.dirname(SDK))
FIXTURES = os.path.join(TESTS, "fixtures")

if SDK not in sys.path:
    sys.path.insert(0, SDK)


# PATIENCE bounds a test's wait for what a plugin does on its own (exit,
# see a cancellation, write a line on its stderr): the wait ends as soon as
# it is done, so a slow machine only waits longer.
PATIENCE = 60.0


def fixture(name):
    """The path of a fixture file."""
    return os.path.join(FIXTURES, name)
