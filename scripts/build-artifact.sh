#!/usr/bin/env bash
# Builds, without Docker, the /app tree the Dockerfile's final stage contains: package.json,
# package-lock.json, production node_modules (re2 compiled for the running Node) and dist/src.
# Run it with the Node the image uses to get the same native addon; test/e2e/artifact.e2e.test.ts
# runs it with the current Node.
#
# Usage: bash scripts/build-artifact.sh <outdir>     (outdir must be absent or empty)
set -euo pipefail

if [ $# -ne 1 ]; then
  echo "usage: $0 <outdir>" >&2
  exit 2
fi
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$1"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
if [ -n "$(ls -A "$out")" ]; then
  echo "build-artifact: $out is not empty" >&2
  exit 1
fi

log() { echo "build-artifact: $*" >&2; }

# node-gyp must find the running Node's headers locally instead of downloading them.
if [ -z "${npm_config_nodedir:-}" ]; then
  node_prefix="$(dirname "$(dirname "$(command -v node)")")"
  if [ -d "$node_prefix/include/node" ]; then export npm_config_nodedir="$node_prefix"; fi
fi
export DEVELOPMENT_SKIP_GETTING_ASSET=1

log "compiling TypeScript (npm run build)"
(cd "$repo" && rm -rf dist && npm run build >&2)

log "installing production dependencies into $out"
cp "$repo/package.json" "$repo/package-lock.json" "$out/"
(cd "$out" && npm ci --omit=dev --no-audit --no-fund >&2)
bash "$repo/scripts/prune-native-build.sh" "$out/node_modules"

mkdir -p "$out/dist"
cp -R "$repo/dist/src" "$out/dist/src"
log "done: $(du -sh "$out" | cut -f1) in $out"
