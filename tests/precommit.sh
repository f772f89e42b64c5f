#!/usr/bin/env bash
# Proves the `lblint` pre-commit hook with the real pre-commit tool.
#
# Usage: tests/precommit.sh /absolute/path/to/lblint
#
# The throwaway repository below defines the hook as a `repo: local` hook that mirrors
# .pre-commit-hooks.yaml (same id, name, entry arguments, types_or, require_serial), but
# with `language: system` and the already built binary as entry: `language: rust` makes
# pre-commit `cargo install` the hook repository, which needs the network and a full
# build, and would test crates.io rather than this checkout.
set -euo pipefail

bin=${1:?usage: tests/precommit.sh /absolute/path/to/lblint}
root=$(cd "$(dirname "$0")/.." && pwd)
hooks="$root/.pre-commit-hooks.yaml"
case "$bin" in /*) ;; *) echo "precommit.sh: the binary path must be absolute" >&2; exit 2 ;; esac

# The hook definition we mirror must say what the local copy says.
for line in 'id: lblint' 'entry: lblint check --context' 'types_or: [yaml, json]' 'require_serial: true' 'language: rust'; do
  grep -qF -- "$line" "$hooks" || { echo "precommit.sh: $hooks lacks '$line'" >&2; exit 1; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HOME="$work/home" PRE_COMMIT_HOME="$work/cache" NO_COLOR=1
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.com \
  GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.com
mkdir -p "$HOME"
cd "$work"
git init -q repo
cd repo

cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: local
    hooks:
      - id: lblint
        name: lblint
        language: system
        entry: $bin check --context
        types_or: [yaml, json]
        require_serial: true
YAML
cat > lblint.yaml <<'YAML'
exclude:
  - vendor
YAML

expect() {  # expect STATUS DESCRIPTION [ARGS]: run the hooks (all files), check the exit status
  local want=$1 what=$2 got=0
  pre-commit run "${3:---all-files}" > "$work/out.txt" 2>&1 || got=$?
  if [ "$got" -ne "$want" ]; then
    echo "FAIL: $what: pre-commit exited $got, expected $want" >&2
    cat "$work/out.txt" >&2
    exit 1
  fi
  echo "ok: $what"
}

# Non-Kubernetes YAML and JSON only: passes, silently.
printf 'name: ci\non: [push]\n' > workflow.yaml
printf '{"compilerOptions": {}}\n' > tsconfig.json
git add -A && git commit -qm init --no-verify
expect 0 "non-Kubernetes YAML and JSON are ignored"

# A risky manifest: a TKE private-network CLB Service (TKE001 warning) fails the hook.
cp "$root/testdata/tke/private-no-caller.yaml" ledger.yaml
git add ledger.yaml && git commit -qm risky --no-verify
expect 1 "a risky manifest fails"
grep -q 'TKE001' "$work/out.txt" || { echo "FAIL: no TKE001 in the hook output" >&2; cat "$work/out.txt" >&2; exit 1; }

# Fixed: the Service no longer gets a private CLB (in-cluster clients use its name), the
# hook passes.
cat > ledger.yaml <<'YAML'
apiVersion: v1
kind: Service
metadata:
  name: ledger
  namespace: shop
spec:
  type: ClusterIP
  selector:
    app: ledger
  ports:
    - port: 80
YAML
git add ledger.yaml && git commit -qm fixed --no-verify
expect 0 "a clean manifest passes"

# A risky manifest under an excluded path: pre-commit names it explicitly, lblint still
# excludes it.
mkdir -p vendor
cp "$root/testdata/tke/private-no-caller.yaml" vendor/ledger.yaml
git add vendor && git commit -qm vendored --no-verify
expect 0 "an excluded path passed explicitly is still excluded"

# A trap that spans files (README, "pre-commit"): the load balancer was committed earlier
# (orders.yaml, a private CLB on TKE, IPVS); the staged change adds a caller of its address
# in another file. pre-commit passes only billing.yaml; --context still sees orders.yaml.
cp "$root/testdata/context/profile.yaml" tke-profile.yaml
printf 'exclude:\n  - vendor\n  - ledger.yaml\nprofile: tke-profile.yaml\n' > lblint.yaml
cp "$root/testdata/context/orders.yaml" orders.yaml
git add -A && git commit -qm orders --no-verify
cp "$root/testdata/context/notes.yaml" notes.yaml
git add notes.yaml
expect 0 "an unrelated staged file does not report the repository's other findings" --hook-stage=pre-commit
git commit -qm notes --no-verify
cp "$root/testdata/context/billing.yaml" billing.yaml
git add billing.yaml
expect 1 "a staged caller of a load balancer in another file fails" --hook-stage=pre-commit
grep -q 'TKE001' "$work/out.txt" || { echo "FAIL: no TKE001 for the staged caller" >&2; cat "$work/out.txt" >&2; exit 1; }
