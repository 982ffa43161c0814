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

# The named list: general-purpose pure-Python libraries and applications
# with much algorithmic code (graphs, symbolic maths, statistics, data
# frames, containers, parsers, text, networking, tools), for breadth. None
# is a task source or a benchmark. (plotly, 44 MB mostly of generated
# validators, is left out.)
PACKAGES=(
  mercurial-common pylint python3-arpeggio python3-astor python3-astroid python3-attr
  python3-bidict python3-boltons python3-bs4 python3-cachetools python3-celery python3-certbot
  python3-chardet python3-cherrypy3 python3-click python3-dask python3-dateutil python3-decorator
  python3-distributed python3-django python3-docutils python3-eventlet python3-flask python3-funcy
  python3-future python3-html5lib python3-hypothesis python3-intervaltree python3-ipython
  python3-isort python3-jedi python3-jinja2 python3-joblib python3-kombu python3-lark
  python3-ldap3 python3-logilab-common python3-markdown python3-more-itertools python3-mpmath
  python3-nbconvert python3-nbformat python3-networkx python3-nltk python3-openpyxl python3-pandas
  python3-paramiko python3-parsimonious python3-parso python3-pebble python3-pip python3-ply
  python3-prompt-toolkit python3-pulp python3-pyasn1 python3-pycodestyle python3-pycparser
  python3-pyflakes python3-pyglet python3-pygments python3-pygtrie python3-pyparsing
  python3-pyqtgraph python3-pyramid python3-pysnmp4 python3-rdflib python3-redis python3-requests
  python3-rope python3-scrapy python3-seaborn python3-setuptools python3-skimage python3-sklearn
  python3-sortedcontainers python3-sphinx python3-sqlalchemy python3-sqlparse python3-statsmodels
  python3-sympy python3-tabulate python3-toolz python3-traitlets python3-twisted python3-urllib3
  python3-werkzeug python3-xarray python3-yapf
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
