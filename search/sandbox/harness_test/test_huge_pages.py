"""huge_page_spans: which parts of a /proc maps listing the fork server asks
the kernel to make 2 MiB huge pages."""
import inspect
import os
import subprocess
import sys

import pytest

MIB = 1 << 20

MAPS = (
    # python's writable data: a file's mapping, never
    "00946000-00a85000 rw-p 00145000 fe:00 247261 /usr/bin/python3.11\n"
    # malloc's heap: the whole 2 MiB pieces inside it
    "02bef000-038cc000 rw-p 00000000 00:00 0 [heap]\n"
    # anonymous, under 2 MiB once aligned: nothing
    "7f807659a000-7f8076600000 rw-p 00000000 00:00 0 \n"
    # read-only anonymous: never
    "7f8076800000-7f8076c00000 r--p 00000000 00:00 0 \n"
    # the arenas: 24 MiB starting off a boundary
    "7f8076a9e000-7f807829e000 rw-p 00000000 00:00 0\n"
    # a shared mapping: never
    "7f8078400000-7f8078800000 rw-s 00000000 00:01 12 /dev/zero (deleted)\n"
    "7ffd637c6000-7ffd637e7000 rw-p 00000000 00:00 0 [stack]\n"
    "garbage line\n"
    "zz-yy rw-p 00000000 00:00 0\n"
)


def spans_of(worker, text):
    r, w = os.pipe()
    os.write(w, text.encode())
    os.close(w)
    return worker["huge_page_spans"](r)


def test_spans_are_whole_aligned_pieces_of_private_anonymous_memory(worker):
    spans = spans_of(worker, MAPS)
    assert spans == [(0x2C00000, 0x3800000), (0x7F8076C00000, 0x7F8078200000)]
    for lo, hi in spans:
        assert lo % (2 * MIB) == 0 and hi % (2 * MIB) == 0 and hi > lo


@pytest.mark.parametrize("text", ["", "\n\n", "not a maps file at all", "0-1 rw-p\n"])
def test_nothing_to_collapse(worker, text):
    assert spans_of(worker, text) == []


def test_no_descriptor(worker):
    assert worker["huge_page_spans"](None) == []


def test_descriptor_is_closed(worker):
    r, w = os.pipe()
    os.close(w)
    worker["huge_page_spans"](r)
    with pytest.raises(OSError):
        os.fstat(r)


def test_arena_reserve_is_one_run_of_arenas(worker):
    # In a fresh interpreter, as at the worker's start: one kept object per
    # 512 KiB window that the blocks made filled, and those windows one run
    # of address space, every window in it holding a kept object, so that
    # every 1 MiB arena of the run (which holds a whole window) keeps a live
    # object. A few blocks may land in the interpreter's own arenas, on
    # either side of the run: their windows are kept too, apart from it.
    src = inspect.getsource(worker["reserve_arenas"])
    code = src + "pins = reserve_arenas(8)\nprint(len(pins), *sorted(id(p) for p in pins))\n"
    out = subprocess.run([sys.executable, "-s", "-c", code], capture_output=True, text=True, check=True).stdout.split()
    n, windows = int(out[0]), sorted({int(a) >> 19 for a in out[1:]})
    assert len(windows) == n  # one kept object per window
    longest = run = 1
    for a, b in zip(windows, windows[1:]):
        run = run + 1 if b == a + 1 else 1
        longest = max(longest, run)
    assert longest >= 12, windows  # 6 MiB of the 8 asked for, in one run
    assert n - longest <= 6, windows  # and little beside it
