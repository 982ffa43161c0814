"""wire.py: values by exact type, in both directions; limits on the
reading side; what is not data goes to the other hook; write-back."""
import collections
import datetime
import decimal
import fractions
import json
import math
import pathlib
import socket

import pytest

import wire


def handles():
    """(other, resolve) hooks that hand out and take back numbered handles."""
    table = []

    def other(x):
        table.append(x)
        return ["h", len(table) - 1]

    def resolve(form):
        if form[0] != "h":
            raise wire.DataError("unknown tag")
        return table[form[1]]

    return other, resolve


def round_trip(x, **kw):
    other, resolve = handles()
    form = wire.Encoder(other, **kw).encode(x)
    # Through JSON, as on the socket.
    form = json.loads(json.dumps(form))
    return wire.Decoder(resolve).decode(form)


Point = collections.namedtuple("Point", "x y")
VALUES = [
    None, True, False, 0, -1, 2**63, -(2**70), 10**5000, 1.5, -0.0, float("inf"), "", "é\ud800", b"\x00\xff",
    bytearray(b"ab"), 3 + 4j, [1, [2, [3]]], (1, (2,)), {"a": 1, 2: [3], (1, 2): None}, {1, 2, "x"},
    frozenset({1, 2}), range(1, 10, 3), collections.Counter("abca"), collections.OrderedDict([("b", 1), ("a", 2)]),
    collections.defaultdict(list, {"k": [1]}), collections.deque([1, 2], maxlen=5), fractions.Fraction(3, 7),
    decimal.Decimal("1.10"), decimal.Decimal("-0"), datetime.date(2024, 2, 29),
    datetime.datetime(2024, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone(datetime.timedelta(hours=2), "X")),
    datetime.time(1, 2, 3, 4, fold=1), datetime.timedelta(days=-1, seconds=5), datetime.timezone.utc,
    pathlib.PurePosixPath("a/b"), pathlib.Path("/x/y"),
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_values_round_trip_by_exact_type(value):
    got = round_trip(value)
    assert type(got) is type(value)
    assert got == value or (isinstance(value, float) and math.isnan(value))
    if isinstance(value, collections.deque):
        assert got.maxlen == value.maxlen
    if isinstance(value, collections.defaultdict):
        assert got.default_factory is list


def test_nan_and_order_of_dicts():
    got = round_trip([float("nan"), {"b": 1, "a": 2}])
    assert math.isnan(got[0]) and list(got[1]) == ["b", "a"]


def test_namedtuple_is_the_judges_own_class():
    got = round_trip(Point(1, 2))
    assert got == (1, 2) and got.x == 1 and type(got).__name__ == "Point" and type(got) is not Point
    assert repr(got) == "Point(x=1, y=2)"


def test_what_is_not_data_is_a_handle():
    class Mine:
        pass

    class Sub(int):
        pass

    class ListSub(list):
        pass

    m, s, ls = Mine(), Sub(3), ListSub([1])
    got = round_trip([m, s, ls, print])
    assert got[0] is m and got[1] is s and got[2] is ls and got[3] is print


def test_builtin_subclasses_cross_as_what_they_hold_from_the_program():
    """storage=True (the program's side): a subclass of a builtin value type
    is its storage, read by the builtin's slot, whatever its methods say."""
    class Liar(list):
        def __iter__(self):
            return iter([1, 2, 3])

        def __len__(self):
            return 3

        def copy(self):
            return [1, 2, 3]

    class S(str):
        def __str__(self):
            return "lie"

    class I(int):
        def __int__(self):
            return 7

    class T(tuple):
        def __getitem__(self, k):
            return (9,)

    class F(float):
        pass

    class D(dict):
        def keys(self):
            return ["x"]

    liar = Liar([1])
    got = round_trip([liar, S("s"), I(1), T((4,)), F(0.5), D(a=1), liar], storage=True)
    assert got == [[1], "s", 1, (4,), 0.5, {"a": 1}, [1]]
    assert [type(v) for v in got] == [list, str, int, tuple, float, dict, list]
    assert got[0] is got[6]  # shared as it was


def test_a_namedtuple_with_its_own_methods_is_not_data():
    class P(collections.namedtuple("P", "x")):
        def __eq__(self, other):
            return True

    p = P(1)
    assert round_trip(p) is p


def test_shared_and_cyclic_values_keep_their_shape():
    inner = [1]
    cyc = [inner, inner]
    cyc.append(cyc)
    got = round_trip(cyc)
    assert got[0] is got[1] and got[2] is got and got[0] == [1]
    d = {}
    d["self"] = d
    assert round_trip(d)["self"] is not None


def test_a_tuple_that_contains_itself_is_refused():
    lst = []
    t = (lst,)
    lst.append(t)
    other, resolve = handles()
    form = wire.Encoder(other).encode(t)
    with pytest.raises(wire.DataError):
        wire.Decoder(resolve).decode(form)


@pytest.mark.parametrize("form", [
    {"a": 1}, [], [1, 2], ["zz", 1], ["m", 5], ["a", 0], ["s", 1, 1], ["d", 1], ["d", 1, 2, 1, 3], ["F", 1, 0],
    ["F", 1.5, 2], ["c", "x", 1.0], ["b", "@@"], ["Q", -1], ["N", "m", "P", ["x", "x"], 1, 2], ["N", "m", "P", ["_x"], 1],
    ["N", "m", "P", ["x"], 1, 2], ["dt", 2024, 13, 1], ["i", "zz"], ["E", 5], ["r", 1, 2, 0], ["D", 5, "k", 1],
    ["tz", ["td", 0, 0, 0], 5], ["DT", 1, 2, 3, 4, 5, 6, 7, 0, ["x"]], ["DT", 2024, 1, 2, 3, 4, 5, 6, 0, None, None],
])
def test_malformed_forms_are_data_errors(form):
    other, resolve = handles()
    with pytest.raises(wire.DataError):
        wire.Decoder(resolve).decode(form)


def test_limits_hold_on_the_reading_side():
    deep = 1
    for _ in range(300):
        deep = ["l", deep]
    with pytest.raises(wire.LimitError):
        wire.Decoder(lambda f: None).decode(deep)
    with pytest.raises(wire.LimitError):
        wire.Decoder(lambda f: None, max_items=10).decode(["l"] + list(range(11)))
    with pytest.raises(wire.LimitError):
        wire.Encoder(lambda x: None, max_items=10).encode(list(range(11)))
    nested = []
    for _ in range(300):
        nested = [nested]
    with pytest.raises(wire.LimitError):
        wire.Encoder(lambda x: None).encode(nested)


def test_frames_over_the_limit_are_refused():
    a, b = socket.socketpair()
    with a, b:
        wire.send(a, {"x": "y" * 100})
        with pytest.raises(wire.LimitError):
            wire.recv(b, limit=50)
        b.recv(200)  # the frame's body, left unread
        a.sendall(b"\x00\x00\x00\x03abc")
        with pytest.raises(wire.DataError):
            wire.recv(b)
        wire.send(a, {"ok": [1, 2]})
        assert wire.recv(b) == {"ok": [1, 2]}
        a.close()
        with pytest.raises(wire.Gone):
            wire.recv(b)


def test_a_channel_reads_frames_however_they_come():
    a, b = socket.socketpair()
    with a, b:
        chan = wire.Channel(b, limit=1000)
        # Two frames in one write, then one frame a byte at a time.
        a.sendall(wire.dumps({"n": 1}) + wire.dumps({"n": 2}))
        assert chan.recv() == {"n": 1}
        assert chan.pending()
        assert chan.recv() == {"n": 2}
        assert not chan.pending()
        for byte in wire.dumps({"n": [3, "x"]}):
            a.sendall(bytes([byte]))
        assert chan.recv() == {"n": [3, "x"]}
        a.sendall(wire.dumps({"x": "y" * 2000})[:8])
        with pytest.raises(wire.LimitError):
            chan.recv()


@pytest.mark.parametrize("body", [b"abc", b'{"a": 1} x', b"[1, 2]", b"\xff\xfe{}", b'{"a": NaN', b""])
def test_a_frame_that_is_not_one_json_object_is_a_data_error(body):
    with pytest.raises(wire.DataError):
        wire.loads(body)


def test_write_back_keeps_the_judges_objects():
    """A call's mutations of its arguments, told by the program's side and
    applied in place on the judge's side, with references between the
    arguments kept."""
    inner = [1, 2]
    outer = [inner, {"k": inner}]
    other, resolve = handles()
    enc = wire.Encoder(other)
    forms = [enc.encode(outer)]
    # The program's side.
    mutables = []
    dec = wire.Decoder(resolve, mutables=mutables)
    theirs = dec.decode(json.loads(json.dumps(forms[0])))
    snaps = {slot: wire.snapshot(o) for slot, o in mutables}
    theirs[0].append(3)
    theirs[1]["new"] = theirs[0]
    refs = {id(v): ["a", i] for i, v in enumerate(dec.memo)}
    back = wire.Encoder(other, refs=refs, keep=dec.memo)
    wb = [[slot, back.content(o)] for slot, o in mutables if wire.changed(o, snaps[slot])]
    result = back.encode(theirs[0])
    assert len(wb) == 2
    # The judge's side.
    jdec = wire.Decoder(resolve, refs=enc.keep)
    for slot, form in json.loads(json.dumps(wb)):
        wire.write_back(enc.keep[slot], jdec.decode(form))
    got = jdec.decode(json.loads(json.dumps(result)))
    assert got is inner and inner == [1, 2, 3] and outer[1]["new"] is inner and outer[1]["k"] is inner


def test_unchanged_arguments_are_not_written_back():
    xs = [1, 2, 3]
    for x in ([1, 2], {"a": 1}, {1}, bytearray(b"x"), collections.deque([1]), collections.Counter("a"),
              collections.defaultdict(int, {"a": 1})):
        assert not wire.changed(x, wire.snapshot(x))
    snap = wire.snapshot(xs)
    xs.sort(reverse=True)
    assert wire.changed(xs, snap)
