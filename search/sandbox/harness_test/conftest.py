"""Loads the sandbox's harness files the way worker.py does: each executed
into a private namespace with its own copy of the builtins (they are not
importable modules inside the sandbox). worker.py itself is executed with a
stand-in configuration and without running main()."""
import builtins
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
SANDBOX = os.path.dirname(HERE)


def _load_worker(workdir):
    path = os.path.join(SANDBOX, "worker.py")
    saved = sys.argv
    sys.argv = [path, json.dumps({"workdir": workdir})]
    try:
        ns = {"__name__": "triage_worker", "__file__": path}
        with open(path, encoding="utf-8") as f:
            exec(compile(f.read(), path, "exec"), ns)
    finally:
        sys.argv = saved
    return ns


@pytest.fixture(scope="session")
def worker(tmp_path_factory):
    """worker.py's namespace (its functions, not its main loop)."""
    return _load_worker(str(tmp_path_factory.mktemp("work")))


@pytest.fixture(scope="session")
def load(worker):
    """load(name): a harness file's private namespace, through worker.py's
    own load_private."""
    snapshot = dict(builtins.__dict__)
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = worker["load_private"](name, snapshot)
        return cache[name]

    return get


@pytest.fixture(scope="session")
def recheck(load, worker):
    """recheck.py's namespace bound to worker.py's api (as the worker does
    at start-up), and compare.py's."""
    compare = load("compare.py")
    ns = load("recheck.py")
    ns["make"](worker["recheck_api"](dict(builtins.__dict__), compare))
    return ns, compare


pytest_plugins = ["pytester"]
