"""worker.py's ProgramClock.pause and resume, and pause_clock_in_explanations:
pytest's explanation of a failing assert, run from inside a test body, is
not counted as the program's CPU; everything around it still is."""
import mmap
import struct
import types

import pytest


class FakeTime:
    def __init__(self):
        self.t = 0

    def __call__(self):
        return self.t


def clock_with(worker, shared=None):
    now = FakeTime()
    c = worker["ProgramClock"](shared)
    c._now = now
    return c, now


def test_pause_stops_the_count_and_resume_restarts_it(worker):
    shared = mmap.mmap(-1, 16)
    c, now = clock_with(worker, shared)
    c.enter()
    now.t = 10
    depth = c.pause()
    assert depth == 1
    assert c.used["tests"] == 10
    assert struct.unpack_from("<qq", shared, 0) == (10, 0), "paused: no open phase published"
    now.t = 110  # pytest's work: not the program's
    c.resume(depth)
    assert struct.unpack_from("<qq", shared, 0) == (10, 110)
    now.t = 115
    c.leave("tests")
    assert c.used["tests"] == 15
    assert c.depth == 0


def test_pause_keeps_the_nesting(worker):
    c, now = clock_with(worker)
    c.enter()
    c.enter()  # an import inside a test
    now.t = 4
    depth = c.pause()
    assert depth == 2 and c.depth == 0
    now.t = 50
    c.resume(depth)
    assert c.depth == 2
    now.t = 54
    c.leave("import")
    assert c.depth == 1
    c.leave("tests")
    assert c.used["import"] + c.used["tests"] == 8


def test_pause_outside_a_phase_does_nothing(worker):
    c, now = clock_with(worker)
    assert c.pause() is None
    c.resume(None)
    assert c.depth == 0 and c.used == {"import": 0, "tests": 0}


def fake_rewrite(now, cost):
    def burn(*args, **kwargs):
        now.t += cost
        if args and args[0] == "raise":
            raise ValueError("a program's __repr__ raised")
        return ("explained",) + args

    return types.SimpleNamespace(_call_reprcompare=burn, _saferepr=burn, _format_explanation=burn,
                                 _format_assertmsg=burn, _should_repr_global_name=burn)


def test_explanations_are_not_the_programs(worker):
    collector = worker["Collector"]()
    c, now = clock_with(worker)
    collector.clock = c
    rw = fake_rewrite(now, 1000)
    originals = dict(vars(rw))
    worker["pause_clock_in_explanations"](collector, rw)
    for name in ("_call_reprcompare", "_saferepr", "_format_explanation", "_format_assertmsg"):
        assert getattr(rw, name) is not originals[name] and getattr(rw, name).__wrapped__ is originals[name]
    assert rw._should_repr_global_name is originals["_should_repr_global_name"], "only the costly helpers"

    c.enter()
    now.t += 3  # the test body
    assert rw._call_reprcompare(("==",), (False,), ("e",), ([1], [2])) == ("explained", ("==",), (False,), ("e",), ([1], [2]))
    assert rw._saferepr([1]) == ("explained", [1])
    with pytest.raises(ValueError):
        rw._format_explanation("raise")
    assert c.depth == 1, "resumed after the helper raised"
    now.t += 2
    c.leave("tests")
    assert c.used["tests"] == 5, "the helpers' 3000 units were counted"

    # Outside a test body (pytest's report of a failure): untouched.
    rw._format_assertmsg("x")
    assert c.depth == 0 and c.used["tests"] == 5
    collector.clock = None
    assert rw._saferepr("y") == ("explained", "y")


def test_pytests_own_helpers_still_answer(worker):
    from _pytest.assertion import rewrite

    stand_in = types.SimpleNamespace(**{n: getattr(rewrite, n) for n in ("_call_reprcompare", "_saferepr", "_format_explanation", "_format_assertmsg")})
    collector = worker["Collector"]()
    collector.clock, _ = clock_with(worker)
    worker["pause_clock_in_explanations"](collector, stand_in)
    collector.clock.enter()
    assert stand_in._saferepr([1, 2]) == rewrite._saferepr([1, 2])
    assert stand_in._format_explanation("assert 1\n{1 = f()\n}") == rewrite._format_explanation("assert 1\n{1 = f()\n}")
    assert stand_in._call_reprcompare(("==",), (False,), ("1 == 2",), (1, 2)) == rewrite._call_reprcompare(("==",), (False,), ("1 == 2",), (1, 2))
    collector.clock.leave("tests")
