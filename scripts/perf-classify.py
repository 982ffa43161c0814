# Sorts the samples of `perf script -F comm,ip,sym` (call chains, one
# sample per blank-line-separated block) by what the kernel or the process
# was doing, and prints each kind's share of all samples read. A sample's
# kind is its chain's first match in KINDS, from the leaf's side: a page
# fault inside an exit counts as the exit's. Used by
# scripts/cpu-profile-sandbox.sh.
#
#   perf script -i perf.data --comm python3 -F comm,ip,sym | python3 scripts/perf-classify.py
import collections
import sys

# (kind, symbols any one of which puts a sample there), tried in order.
KINDS = (
    ("exit: the memory's teardown", ("exit_mmap",)),
    ("exit: the rest", ("do_exit",)),
    ("fork: the page tables' copy", ("dup_mmap",)),
    ("fork: the rest", ("copy_process", "kernel_clone")),
    ("page fault: copy-on-write", ("do_wp_page", "do_huge_pmd_wp_page")),
    ("page fault: a file's page", ("do_fault",)),
    ("page fault: a new page", ("do_anonymous_page",)),
    ("page fault: entry and lookup", ("exc_page_fault", "handle_mm_fault")),
)


def kind_of(chain):
    """The kind of a sample from its chain of (address, symbol), leaf first."""
    if not chain or not chain[0][0].startswith("ffffffff"):
        return "the process's own code (Python, libraries)"
    syms = {sym for _, sym in chain}
    for kind, marks in KINDS:
        if syms.intersection(marks):
            return kind
    for _, sym in chain:
        if sym.startswith("__x64_sys_"):
            return "system call: " + sym[len("__x64_sys_"):]
    return "kernel: other (scheduling, interrupts)"


def samples(lines):
    """Each sample's chain, as (address, symbol) pairs, leaf first."""
    chain, inside = [], False
    for line in lines:
        if not line.strip():
            if inside:
                yield chain
            chain, inside = [], False
        elif line[0] in " \t":
            parts = line.split(None, 1)
            chain.append((parts[0], parts[1].strip() if len(parts) > 1 else ""))
        else:
            chain, inside = [], True
    if inside:
        yield chain


def main():
    counts = collections.Counter(kind_of(c) for c in samples(sys.stdin))
    total = sum(counts.values())
    if total == 0:
        print("no samples of python3 (was the benchmark running, and may perf sample every CPU?)", file=sys.stderr)
        sys.exit(1)
    print("%d samples of the sandbox's processes" % total)
    groups = collections.Counter()
    for kind, n in counts.items():
        groups[kind.split(":")[0]] += n
    for group, n in groups.most_common():
        print("%-45s %5.1f %%" % (group, 100.0 * n / total))
        for kind, m in counts.most_common():
            if kind.split(":")[0] == group and ":" in kind and 100.0 * m / total >= 0.3:
                print("  %-43s %5.1f %%" % (kind.split(":", 1)[1].strip(), 100.0 * m / total))


if __name__ == "__main__":
    main()
