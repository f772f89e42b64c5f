#!/usr/bin/env bash
# bench/render.sh — what `check --render` costs over the kustomize calls themselves
# (issue 32: at most +10%). Builds WORKDIR/render: one base (testdata/render/kustomize/base)
# and $OVERLAYS overlays (namePrefix, namespace, a configMapGenerator each), then times
#   kustomize: `kubectl kustomize` of every overlay, $JOBS at a time (xargs -P)
#   lblint:    `lblint check --render --threads $JOBS` of the tree
# best of $RUNS (default 3). Usage: bash bench/render.sh [WORKDIR] (default target/bench).
# LBLINT names the binary (default target/release/lblint, else target/debug/lblint);
# kubectl comes from .ci/venv/bin first, then PATH.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$ROOT/target/bench}/render
OVERLAYS=${OVERLAYS:-50}
JOBS=${JOBS:-$(nproc)}
RUNS=${RUNS:-3}
export PATH="$ROOT/.ci/venv/bin:$PATH"
LBLINT=${LBLINT:-$ROOT/target/release/lblint}
# A release binary built before --render existed does not count.
"$LBLINT" check --help 2>/dev/null | grep -q -- --render || LBLINT=$ROOT/target/debug/lblint
LBLINT=$(realpath "$LBLINT")
rm -rf "$WORK"; mkdir -p "$WORK/overlays"
cp -r "$ROOT/testdata/render/kustomize/base" "$WORK/base"
for i in $(seq 1 "$OVERLAYS"); do
  mkdir -p "$WORK/overlays/o$i"
  printf 'resources: [../../base]\nnamePrefix: o%s-\nnamespace: ns%s\nconfigMapGenerator:\n  - name: report-settings\n    literals: [ORDERS_URL=http://10.20.30.%s/]\n' "$i" "$i" "$i" \
    > "$WORK/overlays/o$i/kustomization.yaml"
done
best() { # best wall seconds of $RUNS runs of "$@"
  local b=""
  for _ in $(seq 1 "$RUNS"); do
    local s e; s=$(date +%s.%N); "$@" >/dev/null 2>&1 || true; e=$(date +%s.%N)
    b=$(echo "$s $e ${b:-999}" | awk '{t=$2-$1; print (t<$3)?t:$3}')
  done
  echo "$b"
}
cd "$WORK"
k=$(best sh -c "ls -d overlays/* | xargs -P $JOBS -n 1 kubectl kustomize")
l=$(best "$LBLINT" check --render --threads "$JOBS" --no-config .)
echo "kubectl: $(kubectl version --client | head -1); lblint: $LBLINT; $OVERLAYS overlays, $JOBS at a time"
echo "$k $l" | awk '{printf "kustomize calls alone: %.3f s\nlblint --render:       %.3f s (%+.1f%%)\n", $1, $2, ($2/$1-1)*100}'
