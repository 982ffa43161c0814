"""The sandbox's harness files are plain modules of the folder above this
one (the worker imports them from there before its new root hides it)."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SANDBOX = os.path.dirname(HERE)
if SANDBOX not in sys.path:
    sys.path.insert(0, SANDBOX)

import direct  # noqa: E402
import failtext  # noqa: E402
import forkserver  # noqa: E402
import harness  # noqa: E402
import runs  # noqa: E402
import testids  # noqa: E402
import watch  # noqa: E402
import worker as worker_module  # noqa: E402


@pytest.fixture(scope="session")
def worker():
    """The names of the harness's modules in one namespace, as the older
    tests of this folder read them."""
    ns = {}
    for m in (testids, failtext, harness, forkserver, direct, watch, runs, worker_module):
        ns.update(vars(m))
    return ns


pytest_plugins = ["pytester"]
