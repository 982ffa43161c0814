# Generates suites.json (the benchmark and parity set) from the task literals below: python3 gen_suites.py
import json
T = []
def task(id, sol, test, muts):
    T.append({"id": id, "solution": sol, "test": test, "mutants": muts})

task("add", "def add(a, b):\n    return a + b\n",
"""import pytest
from solution import add

@pytest.mark.parametrize("a,b,expected", [(1, 2, 3), (0, 0, 0), (-1, 1, 0), (10, -3, 7)])
def test_add(a, b, expected):
    assert add(a, b) == expected

def test_add_floats():
    assert add(0.1, 0.2) == pytest.approx(0.3)
""", [["a + b", "a - b"], ["a + b", "a * b"], ["a + b", "a + b + 1"], ["a + b", "abs(a) + b"]])

task("fizzbuzz", """def fizzbuzz(n):
    out = []
    for i in range(1, n + 1):
        if i % 15 == 0:
            out.append("FizzBuzz")
        elif i % 3 == 0:
            out.append("Fizz")
        elif i % 5 == 0:
            out.append("Buzz")
        else:
            out.append(str(i))
    return out
""", """from solution import fizzbuzz

def test_small():
    assert fizzbuzz(5) == ["1", "2", "Fizz", "4", "Buzz"]

def test_fifteen():
    assert fizzbuzz(15)[-1] == "FizzBuzz"

def test_zero():
    assert fizzbuzz(0) == []

def test_length():
    assert len(fizzbuzz(100)) == 100
""", [["range(1, n + 1)", "range(1, n)"], ["i % 15 == 0", "i % 15 == 1"], ["elif i % 3 == 0", "elif i % 3 == 1"], ["str(i)", "i"], ["range(1, n + 1)", "range(n + 1)"]])

task("stack", """class Stack:
    def __init__(self):
        self.items = []

    def push(self, x):
        self.items.append(x)

    def pop(self):
        if not self.items:
            raise IndexError("pop from empty stack")
        return self.items.pop()

    def peek(self):
        if not self.items:
            return None
        return self.items[-1]

    def __len__(self):
        return len(self.items)
""", """import pytest
from solution import Stack

@pytest.fixture
def stack():
    s = Stack()
    s.push(1)
    s.push(2)
    return s

def test_pop(stack):
    assert stack.pop() == 2
    assert stack.pop() == 1

def test_pop_empty():
    with pytest.raises(IndexError):
        Stack().pop()

def test_peek(stack):
    assert stack.peek() == 2
    assert len(stack) == 2

def test_peek_empty():
    assert Stack().peek() is None

class TestLen:
    def test_len_empty(self):
        assert len(Stack()) == 0

    def test_len_push(self, stack):
        stack.push(3)
        assert len(stack) == 3
""", [["self.items.pop()", "self.items.pop(0)"], ["raise IndexError(\"pop from empty stack\")", "return None"], ["self.items[-1]", "self.items[0]"], ["len(self.items)", "len(self.items) + 1"], ["            return None\n        return self.items[-1]", "            raise IndexError('empty')\n        return self.items[-1]"]])

task("mean", """def mean(xs):
    if not xs:
        raise ValueError("empty")
    return sum(xs) / len(xs)
""", """import pytest
from solution import mean

def test_mean():
    assert mean([1, 2, 3, 4]) == pytest.approx(2.5)

def test_mean_floats():
    assert mean([0.1, 0.2, 0.3]) == pytest.approx(0.2)

def test_empty():
    with pytest.raises(ValueError, match="empty"):
        mean([])

@pytest.mark.parametrize("xs", [[5], [1, 1, 1], [-2, 2]])
def test_mean_param(xs):
    assert mean(xs) == pytest.approx(sum(xs) / len(xs))
""", [["sum(xs) / len(xs)", "sum(xs) // len(xs)"], ["raise ValueError(\"empty\")", "return 0"], ["sum(xs) / len(xs)", "sum(xs) / (len(xs) + 1)"], ["raise ValueError(\"empty\")", "raise ValueError(\"nothing\")"]])

task("reverse_words", """def reverse_words(s):
    return " ".join(reversed(s.split()))
""", """from solution import reverse_words

def test_basic():
    assert reverse_words("hello world") == "world hello"

def test_spaces():
    assert reverse_words("  a   b  ") == "b a"

def test_single():
    assert reverse_words("x") == "x"

def test_empty():
    assert reverse_words("") == ""
""", [["s.split()", "s.split(' ')"], ["reversed(s.split())", "s.split()"], ["\" \".join", "\"\".join"], ["reversed(s.split())", "sorted(s.split())"]])

task("binary_search", """def binary_search(arr, target):
    lo, hi = 0, len(arr) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if arr[mid] == target:
            return mid
        if arr[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1
""", """import pytest
from solution import binary_search

@pytest.mark.parametrize("arr,target,expected", [
    ([1, 3, 5, 7, 9], 7, 3),
    ([1, 3, 5, 7, 9], 1, 0),
    ([1, 3, 5, 7, 9], 9, 4),
    ([1, 3, 5, 7, 9], 4, -1),
    ([], 1, -1),
])
def test_search(arr, target, expected):
    assert binary_search(arr, target) == expected
""", [["while lo <= hi", "while lo < hi"], ["lo = mid + 1", "lo = mid + 2"], ["hi = mid - 1", "hi = mid - 2"], ["len(arr) - 1", "len(arr) - 2"], ["return -1", "return None"]])

task("word_count", """def word_count(text):
    counts = {}
    for w in text.lower().split():
        w = w.strip(".,!?")
        if w:
            counts[w] = counts.get(w, 0) + 1
    return counts
""", """from solution import word_count

def test_simple():
    assert word_count("a b a") == {"a": 2, "b": 1}

def test_case():
    assert word_count("The the THE") == {"the": 3}

def test_punct():
    assert word_count("Hi, hi! ok.") == {"hi": 2, "ok": 1}

def test_empty():
    assert word_count("") == {}
""", [["text.lower().split()", "text.split()"], ["w.strip(\".,!?\")", "w"], ["counts.get(w, 0) + 1", "1"], ["counts.get(w, 0) + 1", "counts.get(w, 1) + 1"]])

task("is_palindrome", """def is_palindrome(s):
    cleaned = [c.lower() for c in s if c.isalnum()]
    return cleaned == cleaned[::-1]
""", """import pytest
from solution import is_palindrome

@pytest.mark.parametrize("s", ["racecar", "A man, a plan, a canal: Panama", "", "a"])
def test_true(s):
    assert is_palindrome(s)

@pytest.mark.parametrize("s", ["hello", "ab", "race a car"])
def test_false(s):
    assert not is_palindrome(s)
""", [["c.lower()", "c"], ["if c.isalnum()", ""], ["cleaned[::-1]", "cleaned[::1]"], ["cleaned == cleaned[::-1]", "cleaned != cleaned[::-1]"]])

task("matrix", """def transpose(m):
    return [list(row) for row in zip(*m)]

def matmul(a, b):
    bt = transpose(b)
    return [[sum(x * y for x, y in zip(r, c)) for c in bt] for r in a]
""", """from solution import transpose, matmul

def test_transpose():
    assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]

def test_matmul_identity():
    i = [[1, 0], [0, 1]]
    m = [[2, 3], [4, 5]]
    assert matmul(m, i) == m

def test_matmul():
    assert matmul([[1, 2], [3, 4]], [[5, 6], [7, 8]]) == [[19, 22], [43, 50]]
""", [["zip(*m)", "m"], ["x * y", "x + y"], ["bt = transpose(b)", "bt = b"], ["for c in bt] for r in a]", "for r in a] for c in bt]"]])

task("primes", """def primes_up_to(n):
    if n < 2:
        return []
    sieve = [True] * (n + 1)
    sieve[0] = sieve[1] = False
    for i in range(2, int(n ** 0.5) + 1):
        if sieve[i]:
            for j in range(i * i, n + 1, i):
                sieve[j] = False
    return [i for i, p in enumerate(sieve) if p]
""", """from solution import primes_up_to

def test_small():
    assert primes_up_to(10) == [2, 3, 5, 7]

def test_edge():
    assert primes_up_to(1) == []
    assert primes_up_to(2) == [2]

def test_count():
    assert len(primes_up_to(100)) == 25
""", [["int(n ** 0.5) + 1", "int(n ** 0.5)"], ["range(i * i, n + 1, i)", "range(i * i, n, i)"], ["if n < 2", "if n < 1"], ["sieve[0] = sieve[1] = False", "sieve[0] = False"]])

task("temperature", """def c_to_f(c):
    return c * 9 / 5 + 32

def f_to_c(f):
    return (f - 32) * 5 / 9
""", """import pytest
from solution import c_to_f, f_to_c

@pytest.mark.parametrize("c,f", [(0, 32), (100, 212), (-40, -40), (37, 98.6)])
def test_c_to_f(c, f):
    assert c_to_f(c) == pytest.approx(f)

@pytest.mark.parametrize("c,f", [(0, 32), (100, 212)])
def test_f_to_c(c, f):
    assert f_to_c(f) == pytest.approx(c)

def test_roundtrip():
    assert f_to_c(c_to_f(12.5)) == pytest.approx(12.5, rel=1e-9)
""", [["c * 9 / 5 + 32", "c * 9 / 5"], ["(f - 32) * 5 / 9", "f - 32 * 5 / 9"], ["c * 9 / 5 + 32", "c * 5 / 9 + 32"], ["c * 9 / 5 + 32", "round(c * 9 / 5 + 32)"]])

task("flatten", """def flatten(xs):
    out = []
    for x in xs:
        if isinstance(x, list):
            out.extend(flatten(x))
        else:
            out.append(x)
    return out
""", """from solution import flatten

def test_flat():
    assert flatten([1, 2, 3]) == [1, 2, 3]

def test_nested():
    assert flatten([1, [2, [3, [4]]], 5]) == [1, 2, 3, 4, 5]

def test_empty():
    assert flatten([[], [[]]]) == []
""", [["out.extend(flatten(x))", "out.extend(x)"], ["out.extend(flatten(x))", "out.append(flatten(x))"], ["isinstance(x, list)", "isinstance(x, tuple)"]])

task("bank", """class InsufficientFunds(Exception):
    pass

class Account:
    def __init__(self, balance=0):
        if balance < 0:
            raise ValueError("negative balance")
        self.balance = balance

    def deposit(self, amount):
        if amount <= 0:
            raise ValueError("amount must be positive")
        self.balance += amount

    def withdraw(self, amount):
        if amount > self.balance:
            raise InsufficientFunds(f"balance {self.balance} < {amount}")
        self.balance -= amount
        return self.balance
""", """import pytest
from solution import Account, InsufficientFunds

@pytest.fixture
def acct():
    return Account(100)

def test_deposit(acct):
    acct.deposit(50)
    assert acct.balance == 150

def test_withdraw(acct):
    assert acct.withdraw(30) == 70

def test_overdraw(acct):
    with pytest.raises(InsufficientFunds):
        acct.withdraw(101)

def test_exact(acct):
    assert acct.withdraw(100) == 0

@pytest.mark.parametrize("amount", [0, -5])
def test_bad_deposit(acct, amount):
    with pytest.raises(ValueError):
        acct.deposit(amount)

def test_negative_open():
    with pytest.raises(ValueError):
        Account(-1)
""", [["amount > self.balance", "amount >= self.balance"], ["amount <= 0", "amount < 0"], ["self.balance -= amount\n", "self.balance -= amount + 1\n"], ["if balance < 0:\n            raise ValueError(\"negative balance\")\n", ""], ["raise InsufficientFunds", "raise ValueError"]])

task("running_max", """def running_max(xs):
    out = []
    best = None
    for x in xs:
        if best is None or x > best:
            best = x
        out.append(best)
    return out
""", """from solution import running_max

def test_up():
    assert running_max([1, 2, 3]) == [1, 2, 3]

def test_mixed():
    assert running_max([3, 1, 4, 1, 5]) == [3, 3, 4, 4, 5]

def test_negative():
    assert running_max([-5, -7, -1]) == [-5, -5, -1]
""", [["x > best", "x < best"], ["best is None or x > best", "x > (best or 0)"], ["out.append(best)", "out.append(x)"]])

task("roman", """def to_roman(n):
    vals = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
            (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]
    out = []
    for v, s in vals:
        while n >= v:
            out.append(s)
            n -= v
    return "".join(out)
""", """import pytest
from solution import to_roman

@pytest.mark.parametrize("n,expected", [(1, "I"), (4, "IV"), (9, "IX"), (14, "XIV"), (40, "XL"), (1994, "MCMXCIV"), (3999, "MMMCMXCIX")])
def test_roman(n, expected):
    assert to_roman(n) == expected
""", [["(900, \"CM\"), ", ""], ["while n >= v", "while n > v"], ["(4, \"IV\"), ", ""], ["(40, \"XL\")", "(40, \"LX\")"]])

task("dedupe", """def dedupe(xs):
    seen = set()
    out = []
    for x in xs:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out
""", """from solution import dedupe

def test_order():
    assert dedupe([3, 1, 3, 2, 1]) == [3, 1, 2]

def test_strings():
    assert dedupe(list("banana")) == ["b", "a", "n"]

def test_empty():
    assert dedupe([]) == []
""", [["seen.add(x)\n", ""], ["if x not in seen", "if x in seen"], ["out.append(x)", "out.insert(0, x)"]])

task("capsys_greet", """def greet(name):
    print(f"Hello, {name}!")
""", """from solution import greet

def test_greet(capsys):
    greet("Ada")
    assert capsys.readouterr().out == "Hello, Ada!\\n"

def test_greet_twice(capsys):
    greet("a")
    greet("b")
    assert capsys.readouterr().out.splitlines() == ["Hello, a!", "Hello, b!"]
""", [["Hello, {name}!", "Hello {name}!"], ["print(f\"Hello, {name}!\")", "return f\"Hello, {name}!\""], ["print(f\"Hello, {name}!\")", "print(f\"Hello, {name}!\", end='')"]])

task("file_io", """def write_lines(path, lines):
    with open(path, "w") as f:
        for line in lines:
            f.write(line + "\\n")

def read_lines(path):
    with open(path) as f:
        return [l.rstrip("\\n") for l in f]
""", """from solution import write_lines, read_lines

def test_roundtrip(tmp_path):
    p = tmp_path / "x.txt"
    write_lines(p, ["a", "b"])
    assert read_lines(p) == ["a", "b"]

def test_content(tmp_path):
    p = tmp_path / "y.txt"
    write_lines(p, ["z"])
    assert p.read_text() == "z\\n"
""", [["f.write(line + \"\\n\")", "f.write(line)"], ["l.rstrip(\"\\n\")", "l"], ["\"w\"", "\"a\""]])

task("gcd", """def gcd(a, b):
    while b:
        a, b = b, a % b
    return abs(a)

def lcm(a, b):
    return abs(a * b) // gcd(a, b) if a and b else 0
""", """import pytest
from solution import gcd, lcm

@pytest.mark.parametrize("a,b,g", [(12, 18, 6), (7, 5, 1), (0, 9, 9), (-4, 6, 2)])
def test_gcd(a, b, g):
    assert gcd(a, b) == g

def test_lcm():
    assert lcm(4, 6) == 12
    assert lcm(0, 5) == 0
""", [["a, b = b, a % b", "a, b = b, b % a"], ["return abs(a)", "return a"], ["abs(a * b) // gcd(a, b)", "a * b"], ["if a and b else 0", "if a or b else 0"]])

task("dict_merge", """def merge(a, b):
    out = dict(a)
    for k, v in b.items():
        if k in out and isinstance(out[k], dict) and isinstance(v, dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = v
    return out
""", """from solution import merge

def test_flat():
    assert merge({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}

def test_override():
    assert merge({"a": 1}, {"a": 2}) == {"a": 2}

def test_deep():
    assert merge({"x": {"y": 1, "z": 2}}, {"x": {"z": 3}}) == {"x": {"y": 1, "z": 3}}

def test_no_mutation():
    a = {"x": {"y": 1}}
    merge(a, {"x": {"y": 2}})
    assert a == {"x": {"y": 1}}
""", [["out[k] = merge(out[k], v)", "out[k] = v"], ["out = dict(a)", "out = a"], ["out[k] = v\n    return", "pass\n    return"]])

# crashing / loading failures over real test files
CRASH = [
    ["add", "import os\nos._exit(3)\n"],
    ["add", "def add(a, b)\n    return a + b\n"],
    ["add", "def plus(a, b):\n    return a + b\n"],
    ["add", "raise RuntimeError('boom at import')\n"],
    ["stack", "import ctypes\nclass Stack:\n    def __init__(self):\n        ctypes.string_at(0)\n"],
    ["mean", "import os, signal\ndef mean(xs):\n    os.kill(os.getpid(), signal.SIGKILL)\n"],
    ["fizzbuzz", "def fizzbuzz(n):\n    return fizzbuzz(n)\n"],
    ["reverse_words", "import sys\nsys.exit(1)\n"],
    ["gcd", "def gcd(a, b):\n    raise KeyboardInterrupt\ndef lcm(a, b):\n    return 0\n"],
    ["dedupe", "import pytest\npytest.skip('no', allow_module_level=True)\n"],
    ["flatten", "def flatten(xs):\n    import os\n    os._exit(0)\n"],
    ["primes", "def primes_up_to(n):\n    raise MemoryError('simulated')\n"],
]
for t in T:
    for old, new in t["mutants"]:
        assert old in t["solution"], (t["id"], old)
json.dump({"tasks": T, "crash": CRASH}, open(__import__("os").path.join(__import__("os").path.dirname(__file__), "suites.json"), "w"), indent=1)
n = sum(1 + len(t["mutants"]) for t in T) + len(CRASH)
print("pairs", n)
