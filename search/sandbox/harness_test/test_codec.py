"""The signed frames: the pytest harness's per-test lines (make_emitter and
verify_lines in worker.py) and the re-check's one report (recheck.py's
write_report and worker.py's read_recheck). Only frames signed with the
run's key, in sequence, are accepted; anything else is counted as forged."""
import os

KEY = bytes(range(32))


def emitted(worker, events, key=KEY):
    r, w = os.pipe()
    try:
        emit = worker["make_emitter"](w, key)
        for ev in events:
            emit(ev)
    finally:
        os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 1 << 16)
        if not chunk:
            break
        data += chunk
    os.close(r)
    return data


EVENTS = [{"t": "collected", "names": ["test_solution.py::test_a"]},
          {"t": "test", "name": "test_solution.py::test_a", "passed": True, "dur_ms": 1.0, "msg": "", "text": "é"},
          {"t": "done", "exit": 0, "output_limit": False}]


def test_lines_round_trip(worker):
    events, forged, sample = worker["verify_lines"](emitted(worker, EVENTS), KEY)
    assert events == EVENTS and forged == 0 and sample == ""


def test_wrong_key_is_forged(worker):
    events, forged, sample = worker["verify_lines"](emitted(worker, EVENTS, key=b"x" * 32), KEY)
    assert events == [] and forged == 3 and sample


def test_changed_line_is_forged(worker):
    data = emitted(worker, EVENTS).replace(b'"passed": true', b'"passed": false')
    events, forged, _ = worker["verify_lines"](data, KEY)
    # The changed line fails its signature; the next one is then out of sequence.
    assert events == EVENTS[:1] and forged == 2


def test_reordered_and_replayed_lines_are_forged(worker):
    lines = emitted(worker, EVENTS).split(b"\n")[:-1]
    events, forged, _ = worker["verify_lines"](b"\n".join([lines[1], lines[0], lines[2]]) + b"\n", KEY)
    assert events == EVENTS[:1] and forged == 2
    events, forged, _ = worker["verify_lines"](b"\n".join([lines[0], lines[1], lines[1], lines[2]]) + b"\n", KEY)
    assert events == EVENTS and forged == 1


def test_unsigned_lines_are_forged(worker):
    events, forged, sample = worker["verify_lines"](b'{"t": "test", "passed": true}\n' + b"0" * 32 + b' {"t": "done"}\n', KEY)
    assert events == [] and forged == 2 and sample.startswith('{"t"')


def recheck_frames(recheck, reports, key=KEY):
    r, w = os.pipe()
    try:
        for rep in reports:
            recheck[0]["write_frame"](rep, key, w)
    finally:
        os.close(w)
    data = os.read(r, 1 << 20)
    os.close(r)
    return data


REPORT = {"n": 2, "verdicts": "pp", "first": "", "unsupported": "", "tamper": "", "load_error": ""}


def test_recheck_report_round_trip(recheck, worker):
    reports, tampers, forged = worker["read_recheck"](recheck_frames(recheck, [{"tamper_event": "audit hook: x"}, REPORT]), KEY)
    assert reports == [REPORT] and tampers == ["audit hook: x"] and forged == 0


def test_recheck_report_forgeries(recheck, worker):
    good = recheck_frames(recheck, [REPORT])
    flipped = good[:-3] + bytes([good[-3] ^ 1]) + good[-2:]
    assert worker["read_recheck"](flipped, KEY)[::2] == ([], 1)
    truncated = worker["read_recheck"](good[:-1], KEY)
    assert truncated[0] == [] and truncated[2] >= 1
    assert worker["read_recheck"](good + b"\x00", KEY)[::2] == ([REPORT], 1)
    assert worker["read_recheck"](recheck_frames(recheck, [REPORT], key=b"y" * 32), KEY) == ([], [], 1)
    # The pytest harness's key and framing do not make a re-check report.
    assert worker["read_recheck"](emitted(worker, [REPORT]), KEY)[0] == []
