#!/usr/bin/env bash
# Seed the fuzz corpora from the repository's own files: manifests (testdata/, examples/) for
# `lint`; cluster profiles and config files for `settings`.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/lint corpus/settings corpus/split corpus/fast
name() { echo "seed-$(echo "$1" | sed 's|^\.\./||; s|/|_|g')"; }
find ../testdata ../examples -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -size -64k |
  sort | while IFS= read -r f; do cp "$f" "corpus/lint/$(name "$f")"; cp "$f" "corpus/split/$(name "$f")"; cp "$f" "corpus/fast/$(name "$f")"; done
{
  grep -rlE '^kind: ClusterProfile' ../testdata ../examples
  find ../testdata ../examples -type f \( -name 'lblint.yaml' -o -path '*/config/*.yaml' \)
} | sort -u | while IFS= read -r f; do cp "$f" "corpus/settings/$(name "$f")"; done
echo "seeded $(ls corpus/lint | wc -l) files into fuzz/corpus/lint, split and fast, $(ls corpus/settings | wc -l) into fuzz/corpus/settings"
