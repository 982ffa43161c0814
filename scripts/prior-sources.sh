#!/usr/bin/env bash
# prior-sources.sh OUT — gathers the code the code prior is fitted on
# (docs/prior.md) and writes OUT/sources.json for `triage prior build`:
#   - the interpreter's standard library, /usr/lib/python3.11 of Debian's
#     python3 (libpython3.11-stdlib; its version recorded);
#   - the named Debian packages below, pure Python (Architecture: all),
#     fetched with `apt-get download` and unpacked with `dpkg -x` into
#     OUT/deb/<package> (version and the licence of their main files, from
#     the package's copyright file, recorded).
# Nothing else is downloaded. The builder records each folder's file count
# and the sha256 of its file list, so a rebuild shows whether it read the
# same code.
set -euo pipefail

OUT=${1:-out/prior-src}
PYTHON=${PYTHON:-/usr/bin/python3}
STDLIB=${STDLIB:-/usr/lib/python3.11}

# The named list: general-purpose pure-Python libraries with much
# algorithmic code (graphs, symbolic maths, containers, parsers, text)
# and a few large applications' libraries for breadth. None is a task
# source or a benchmark.
PACKAGES=(
  python3-astroid python3-attr python3-boltons python3-bs4 python3-cachetools python3-chardet
  python3-click python3-dateutil python3-decorator python3-django python3-docutils python3-html5lib
  python3-hypothesis python3-intervaltree python3-isort python3-jinja2 python3-markdown
  python3-more-itertools python3-mpmath python3-networkx python3-nltk python3-parso python3-ply
  python3-pycodestyle python3-pycparser python3-pyflakes python3-pyparsing python3-requests
  python3-rope python3-setuptools python3-sortedcontainers python3-sqlparse python3-sympy
  python3-tabulate python3-toolz python3-twisted python3-urllib3 python3-yapf
)

mkdir -p "$OUT/debs" "$OUT/deb"
OUT=$(cd "$OUT" && pwd)
(cd "$OUT/debs" && apt-get download "${PACKAGES[@]}" 2>&1 | grep -v '^W: Download is performed unsandboxed' || true)

entries=()
stdlib_version=$(dpkg-query -W -f='${Version}' libpython3.11-stdlib)
entries+=("$STDLIB|stdlib|stdlib|libpython3.11-stdlib|$stdlib_version|PSF-2.0")
for p in "${PACKAGES[@]}"; do
  deb=$(ls "$OUT/debs/${p}_"*.deb | head -1)
  [ "$(dpkg-deb -f "$deb" Architecture)" = all ] || { echo "$p is not Architecture: all" >&2; exit 1; }
  rm -rf "${OUT:?}/deb/$p"
  mkdir -p "$OUT/deb/$p"
  dpkg -x "$deb" "$OUT/deb/$p"
  version=$(dpkg-deb -f "$deb" Version)
  # The licence of the "Files: *" stanza of the machine-readable copyright
  # file; "see copyright" where the file is not in that format.
  license=$(awk '/^Files: \*/{f=1; next} f && /^License:/{sub(/^License: */, ""); print; exit} /^$/{f=0}' \
    "$OUT/deb/$p/usr/share/doc/$p/copyright" 2>/dev/null || true)
  if [ -z "$license" ]; then
    # Copyright files not in the machine-readable format, read by hand.
    case $p in
      python3-decorator) license="BSD-2-Clause (copyright file)" ;;
      python3-html5lib|python3-setuptools) license="MIT (copyright file)" ;;
      python3-jinja2) license="BSD-3-Clause (copyright file)" ;;
      *) license="see /usr/share/doc/$p/copyright" ;;
    esac
  fi
  entries+=("$OUT/deb/$p|$p|debian|$p|$version|$license")
done

printf '%s\n' "${entries[@]}" | "$PYTHON" -c '
import json, sys
out = []
for line in sys.stdin.read().splitlines():
    d, label, kind, pkg, version, lic = line.split("|")
    out.append({"dir": d, "label": label, "kind": kind, "package": pkg, "version": version, "license": lic})
json.dump(out, sys.stdout, indent=1)
print()
' > "$OUT/sources.json"
echo "wrote $OUT/sources.json (${#entries[@]} sources)" >&2
