package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// A test file in one of the styles task sources write, with a right and a
// wrong program for it.
type styleCase struct {
	name, right, wrong, tests string
}

var styleCases = []styleCase{
	{name: "unittest.TestCase",
		right: `class StackEmpty(Exception):
    pass


class Stack:
    def __init__(self):
        self.items = []

    def push(self, x):
        self.items.append(x)

    def pop(self):
        if not self.items:
            raise StackEmpty("pop from an empty stack")
        return self.items.pop()

    def __len__(self):
        return len(self.items)


def mean(xs):
    if not xs:
        raise ValueError("mean of nothing")
    return sum(xs) / len(xs)


def histogram(text):
    out = {}
    for c in text:
        out[c] = out.get(c, 0) + 1
    return out
`,
		wrong: `class StackEmpty(Exception):
    pass


class Stack:
    def __init__(self):
        self.items = []

    def push(self, x):
        self.items.insert(0, x)

    def pop(self):
        if not self.items:
            raise IndexError("pop from an empty list")
        return self.items.pop()

    def __len__(self):
        return len(self.items)


def mean(xs):
    if not xs:
        return 0
    return sum(xs) // len(xs)


def histogram(text):
    return {c: 1 for c in text}
`,
		tests: `import unittest

from solution import Stack, StackEmpty, histogram, mean


class StackTest(unittest.TestCase):
    def setUp(self):
        self.stack = Stack()

    def test_last_in_first_out(self):
        for x in (1, 2, 3):
            self.stack.push(x)
        self.assertEqual([self.stack.pop() for _ in range(3)], [3, 2, 1])
        self.assertEqual(len(self.stack), 0)

    def test_empty_pop_raises_its_own_error(self):
        with self.assertRaises(StackEmpty) as err:
            self.stack.pop()
        self.assertEqual(err.exception.args[0], "pop from an empty stack")
        self.assertIsInstance(err.exception, Exception)

    def test_is_a_stack(self):
        self.assertIsInstance(self.stack, Stack)


class MeanTest(unittest.TestCase):
    def test_values(self):
        for xs, want in (([1, 2], 1.5), ([3], 3.0), ([0.1, 0.2], 0.15)):
            with self.subTest(xs=xs):
                self.assertAlmostEqual(mean(xs), want)

    def test_nothing(self):
        with self.assertRaisesRegex(ValueError, "of nothing"):
            mean([])


class HistogramTest(unittest.TestCase):
    def test_counts(self):
        h = histogram("abca")
        self.assertEqual(h, {"a": 2, "b": 1, "c": 1})
        self.assertCountEqual(list(h), ["c", "b", "a"])
        self.assertIn("a", h)
        self.assertIsNone(h.get("z"))


if __name__ == "__main__":
    unittest.main()
`},
	{name: "pytest's raises, approx, parametrize, fixtures, capsys and tmp_path",
		right: `import json


def area(r):
    return 3.141592653589793 * r * r


def parse(text):
    if not text.strip():
        raise ValueError("empty input")
    return [int(x) for x in text.split(",")]


def greet(name):
    print("hello, " + name)
    return len(name)


def save(path, data):
    with open(path, "w") as f:
        json.dump(data, f)


def dedupe(xs):
    seen = set()
    out = []
    for x in xs:
        if x not in seen:
            seen.add(x)
            out.append(x)
    xs[:] = out
`,
		wrong: `import json
import math


def area(r):
    return math.pi * r ** 2


def parse(text):
    return [int(x) for x in text.split(",") if x]


def greet(name):
    print("hi, " + name)
    return len(name)


def save(path, data):
    with open(path, "w") as f:
        f.write(json.dumps(data, indent=2))


def dedupe(xs):
    return list(dict.fromkeys(xs))
`,
		tests: `import json

import pytest

from solution import area, dedupe, greet, parse, save


@pytest.fixture
def numbers():
    yield [3, 1, 3, 2, 1]


@pytest.mark.parametrize("r, want", [(1, 3.14159265), (2, 12.5663706), (0.5, 0.785398163)], ids=["one", "two", "half"])
def test_area(r, want):
    assert area(r) == pytest.approx(want)


def test_areas_as_a_list():
    assert [area(r) for r in (1, 2)] == pytest.approx([3.14159265, 12.5663706])


def test_parse():
    assert parse("1,2,3") == [1, 2, 3]
    with pytest.raises(ValueError, match="empty input"):
        parse("  ")


def test_greet_prints(capsys):
    assert greet("Ada") == 3
    assert capsys.readouterr().out == "hello, Ada\n"


def test_save(tmp_path):
    path = tmp_path / "out.json"
    save(str(path), {"a": [1, 2]})
    assert json.loads(path.read_text()) == {"a": [1, 2]}


def test_dedupe_in_place(numbers):
    assert dedupe(numbers) is None
    assert numbers == [3, 1, 2]
`},
	{name: "doctest examples turned into asserts",
		right: `def binary_search(xs, target):
    """
    >>> binary_search([1, 3, 5], 3)
    1
    >>> binary_search([1, 3, 5], 4)
    -1
    """
    lo, hi = 0, len(xs) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if xs[mid] == target:
            return mid
        if xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


def factorial(n):
    """
    >>> factorial(5)
    120
    >>> factorial(-1)
    Traceback (most recent call last):
        ...
    ValueError: factorial() not defined for negative values
    """
    if n < 0:
        raise ValueError("factorial() not defined for negative values")
    return 1 if n < 2 else n * factorial(n - 1)
`,
		wrong: `def binary_search(xs, target):
    lo, hi = 0, len(xs)
    while lo < hi:
        mid = (lo + hi) // 2
        if xs[mid] < target:
            lo = mid + 1
        else:
            hi = mid
    return lo


def factorial(n):
    return 1 if n < 2 else n * factorial(n - 1)
`,
		tests: `import pytest

from solution import binary_search, factorial


def test_binary_search_1():
    assert binary_search([1, 3, 5], 3) == 1


def test_binary_search_2():
    assert binary_search([1, 3, 5], 4) == -1


def test_factorial_1():
    assert factorial(5) == 120


def test_factorial_2():
    with pytest.raises(ValueError, match=r"factorial\(\) not defined for negative values"):
        factorial(-1)
`},
}

// TestTestStylesAcrossTheProcesses: test files in the styles task sources
// use (unittest.TestCase with its assertions, subTest and assertRaises on
// the program's own exception; pytest's raises, approx, parametrize,
// fixtures, capsys and tmp_path; doctest examples as asserts) get the same
// per-test verdicts in the sandbox as under plain pytest, for a right and a
// wrong program each, through the direct runner and pytest's run.
func TestTestStylesAcrossTheProcesses(t *testing.T) {
	if _, err := exec.LookPath(DefaultOptions().Python); err != nil {
		t.Skip("no python")
	}
	if os.Geteuid() != 0 {
		t.Skip("the full sandbox needs root")
	}
	direct, viaPytest := runnerPools(t, Options{Workers: 1, Timeout: 20 * time.Second}, 0)
	plain := PerProcess{Timeout: 60 * time.Second}
	ctx := context.Background()
	for _, c := range styleCases {
		t.Run(c.name, func(t *testing.T) {
			for _, prog := range []struct{ label, text string }{{"right", c.right}, {"wrong", c.wrong}} {
				want, err := plain.Run(ctx, prog.text, c.tests)
				if err != nil {
					t.Fatal(err)
				}
				if solved := want.Solved(); solved != (prog.label == "right") {
					t.Fatalf("plain pytest, %s program: solved %v:\n%s", prog.label, solved, want.Feedback)
				}
				for _, side := range []struct {
					label string
					pool  *Pool
				}{{"direct runner", direct}, {"pytest's run", viaPytest}} {
					got, err := side.pool.Run(ctx, prog.text, c.tests)
					if err != nil {
						t.Fatal(err)
					}
					t.Logf("%s, %s program: %s, pass rate %.2f, %d tests", side.label, prog.label, got.Status, got.PassRate, len(got.Tests))
					if same, why := SameVerdicts(got, want); !same {
						t.Errorf("%s, %s program: %s\nsandbox:\n%s\nplain pytest:\n%s", side.label, prog.label, why,
							got.Feedback, want.Feedback)
					}
				}
			}
		})
	}
}
