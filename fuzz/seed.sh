#!/usr/bin/env bash
# Seed the fuzz corpus from the repository's own manifests (testdata/, examples/, rules/ examples).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/lint
find ../testdata ../examples -type f \( -name '*.yaml' -o -name '*.yml' -o -name '*.json' \) -size -64k |
  sort | while IFS= read -r f; do
    cp "$f" "corpus/lint/seed-$(echo "$f" | sed 's|^\.\./||; s|/|_|g')"
  done
echo "seeded $(ls corpus/lint | wc -l) files into fuzz/corpus/lint"
