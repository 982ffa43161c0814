"""runs.py, forkserver.py and watch.py: a run's request bodies, the
descriptors the fork server passes, the capture files it empties, the start
marks the worker reads."""
import marshal
import os
import struct
import sys

import forkserver
import program
import runs
import watch
import worker as worker_module


def test_a_body_reads_back_whole_with_its_code():
    code = compile("x = 1\n", "t.py", "exec")
    head = {"req": {"limits": {"cpu_s": 2}}, "plan": [("id", "test_a", None, None)], "room": None}
    fd = forkserver.memfd_of(runs.body_bytes(head, marshal.dumps(code)))
    got, tail = runs.split_body(runs.read_body(fd))
    assert got == head and marshal.loads(tail) == code
    # read_body closed the memfd.
    try:
        os.fstat(fd)
        closed = False
    except OSError:
        closed = True
    assert closed


def test_a_large_body_is_read_at_its_size():
    data = runs.body_bytes({"n": 1}, b"x" * (3 << 20))
    assert runs.read_body(forkserver.memfd_of(data)) == data


def test_the_capture_files_are_emptied_by_descriptor(tmp_path):
    f = open(tmp_path / "cap", "w+b")
    f.write(b"left over by a run that died")
    f.flush()
    forkserver.reset_files([f.fileno(), 9999])  # a closed descriptor is passed over
    assert os.fstat(f.fileno()).st_size == 0 and os.lseek(f.fileno(), 0, os.SEEK_CUR) == 0


def test_program_paths_leave_the_run_folder_out(tmp_path, monkeypatch):
    work = str(tmp_path)
    monkeypatch.setattr(sys, "path", [work, work + "/sub", "/usr/lib/python3", ""])
    monkeypatch.setattr(sys, "path_importer_cache", {work: None, "/usr/lib/python3": None})
    path, drop = runs.program_paths(work)
    assert path == [os.path.join(work, runs.PROGRAM_FOLDER), "/usr/lib/python3"] and drop == [work]


def test_the_program_streams_are_made_as_on_a_pipe():
    out, err = worker_module.program_streams(program)
    assert not out.seekable() and not err.seekable()
    assert out.write_through and err.errors == "backslashreplace"


def test_a_start_mark_is_read_in_pieces():
    r, w = os.pipe()
    try:
        got = bytearray()
        os.write(w, struct.pack("<q", 12345)[:3])
        assert not watch.read_mark(r, got) and watch.mark_value(got) is None
        os.write(w, struct.pack("<q", 12345)[3:])
        assert watch.read_mark(r, got) and watch.mark_value(got) == 12345
    finally:
        os.close(r)
        os.close(w)


def test_a_runs_descriptors_go_to_each_side():
    mine, send = forkserver.run_fds(b"judge", b"program")
    assert len(send) == forkserver.JUDGE_FDS + forkserver.PROGRAM_FDS and mine[2] is not None
    for fd in mine:
        os.close(fd)
    for fd in send:
        os.close(fd)
    mine, send = forkserver.run_fds(b"judge", None)
    assert len(send) == forkserver.JUDGE_FDS and mine[2] is None
    for fd in mine[:2] + send:
        os.close(fd)
