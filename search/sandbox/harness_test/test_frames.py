"""frames.py: the program's frames as the judge shows them."""
import traceback

import frames


def test_fake_frames_carry_the_programs_file_name_and_lines(tmp_path):
    src = tmp_path / "solution.py"
    src.write_text("def f(x):\n    return g(x)\n\ndef g(x):\n    return 1 / x\n")
    tb = frames.fake_traceback([[str(src), "f", 1, 2], [str(src), "g", 4, 5]], None, lambda p: p)
    got = [(fs.filename, fs.name, fs.lineno, fs.line) for fs in traceback.extract_tb(tb)]
    assert got == [(str(src), "f", 2, "return g(x)"), (str(src), "g", 5, "return 1 / x")]


def test_a_cut_gives_the_repeating_frame_the_locals_of_the_one_it_repeats():
    tb = frames.fake_traceback([["s.py", "f", 1, 2]] * 3, [2, 0], lambda p: p)
    locs = []
    while tb is not None:
        locs.append(tb.tb_frame.f_locals)
        tb = tb.tb_next
    assert locs[2] == locs[0] and locs[1] != locs[0]


def test_malformed_frames_are_left_out():
    tb = frames.fake_traceback([["s.py", "f", "1", 2], [3, "g", 1, 1], ["s.py", "h", 1, 1]], "x", lambda p: p)
    assert [fs.name for fs in traceback.extract_tb(tb)] == ["h"]


def _hiding_frame():
    __tracebackhide__ = True
    raise ValueError("boom")


def test_clean_traceback_takes_out_the_hiding_files_frames_from_chains():
    frames.HIDING_FILES.add(__file__)
    try:
        try:
            try:
                _hiding_frame()
            except ValueError as inner:
                raise KeyError("outer") from inner
        except KeyError as e:
            frames.clean_traceback(e)
            names = [fs.name for fs in traceback.extract_tb(e.__cause__.__traceback__)]
            assert "_hiding_frame" not in names and names
    finally:
        frames.HIDING_FILES.discard(__file__)
