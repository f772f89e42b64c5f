#!/usr/bin/env bash
# Builds the PyPI wheel (pyproject.toml: maturin, bin bindings) and proves that the
# `lblint` it installs runs with no Rust toolchain: from a fresh virtualenv, with cargo
# off PATH. Then, when pre-commit is installed, runs a `language: python` pre-commit hook
# that installs that wheel (the README's toolchain-free hook) on a risky manifest.
#
# Usage: dist/check-wheel.sh [WORKDIR]          (default WORKDIR: target/check-wheel)
#   PROFILE=release dist/check-wheel.sh         cheaper build; default: pyproject's `dist`
#
# Needs the network (maturin from PyPI, crates for `cargo metadata`), so it is not part
# of `cargo test` or .ci/run. Exits non-zero on the first failed check.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$root/target/check-wheel}
mkdir -p "$work"; work=$(cd "$work" && pwd)
profile=${PROFILE:-dist}
cd "$root"

step() { printf '\n== %s\n' "$*"; }
fail() { echo "check-wheel: FAIL: $*" >&2; exit 1; }

step "maturin (PyPI, into $work/build-venv)"
[ -x "$work/build-venv/bin/python" ] || python3 -m venv "$work/build-venv"
"$work/build-venv/bin/python" -m pip install --quiet 'maturin>=1,<2'
"$work/build-venv/bin/maturin" --version

step "maturin build --profile $profile"
rm -rf "$work/wheels"
"$work/build-venv/bin/maturin" build --profile "$profile" --out "$work/wheels"
wheels=("$work"/wheels/lblint-*.whl)
[ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] || fail "expected one wheel in $work/wheels"
wheel=${wheels[0]}
ls -l "$wheel"

step "fresh virtualenv, pip install --no-index $(basename "$wheel")"
rm -rf "$work/venv"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --no-index "$wheel"
# Only the venv and the system directories: no cargo, no ~/.cargo/bin.
clean_path="$work/venv/bin:/usr/bin:/bin"
run() { env PATH="$clean_path" "$@"; }
found() { run sh -c 'command -v "$1"' sh "$1"; }
[ "$(found lblint)" = "$work/venv/bin/lblint" ] || fail "lblint is not the venv's"
if found cargo >/dev/null; then fail "cargo is still on the clean PATH"; fi

step "lblint --version"
version=$(run lblint --version)
echo "$version"
want=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -1)
[ "$version" = "lblint $want" ] || fail "expected 'lblint $want'"

step "lblint check examples/manifests --profile examples/profiles/tke-ipvs.yaml"
status=0
run lblint check examples/manifests --profile examples/profiles/tke-ipvs.yaml --format compact \
  > "$work/check.txt" 2>&1 || status=$?
cat "$work/check.txt"
[ "$status" -eq 1 ] || fail "exit status $status, expected 1"
# README: a TKE001 error, a TKE001 warning and a K8S001 note.
for want in 'shop-api.yaml:9:5: error[TKE001]' 'reports.yaml:8:5: warning[TKE001]' \
  'shop-api.yaml:63:50: note[K8S001]'; do
  grep -qF "$want" "$work/check.txt" || fail "no '$want' in the report"
done
[ "$(wc -l < "$work/check.txt")" -eq 3 ] || fail "expected exactly three findings"
echo "exit 1, the three documented findings"

if ! command -v pre-commit >/dev/null; then
  step "pre-commit hook (language: python): skipped, pre-commit is not on PATH"
  echo "check-wheel: ok"
  exit 0
fi

step "pre-commit, a language: python hook installing the wheel, cargo off PATH"
hook=$work/hook
rm -rf "$hook"; mkdir -p "$hook/home"
(
  export HOME="$hook/home" PRE_COMMIT_HOME="$hook/cache" NO_COLOR=1 GIT_CONFIG_NOSYSTEM=1 \
    GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com GIT_COMMITTER_NAME=t \
    GIT_COMMITTER_EMAIL=t@example.com
  precommit=$(command -v pre-commit)
  git init -q "$hook/repo"
  cd "$hook/repo"
  cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: local
    hooks:
      - id: lblint
        name: lblint
        language: python
        additional_dependencies: ["$wheel"]
        entry: lblint check --context
        types_or: [yaml, json]
        require_serial: true
YAML
  cp "$root/testdata/tke/private-no-caller.yaml" ledger.yaml
  git add -A && git commit -qm risky --no-verify
  status=0
  env PATH="$(dirname "$precommit"):$clean_path" "$precommit" run --all-files \
    > "$hook/out.txt" 2>&1 || status=$?
  cat "$hook/out.txt"
  [ "$status" -eq 1 ] || fail "pre-commit exited $status, expected 1"
  grep -q 'TKE001' "$hook/out.txt" || fail "no TKE001 in the hook output"
  echo "the hook ran the wheel's lblint: exit 1 with TKE001"
)
echo
echo "check-wheel: ok"
