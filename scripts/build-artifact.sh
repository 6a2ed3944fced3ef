#!/usr/bin/env bash
# Builds, without Docker, the /app tree the Dockerfile's final stage contains: package.json,
# package-lock.json, production node_modules (re2 compiled for the running Node) dist/src and the built playground page (dist/playground).
# Run it with the Node the image uses to get the same native addon; test/e2e/artifact.e2e.test.ts
# runs it with the current Node.
#
# Usage: bash scripts/build-artifact.sh <outdir>     (outdir must be absent or empty)
#
# BUILD_ARTIFACT_MODULES_CACHE=<dir> keeps the pruned production node_modules there, keyed by the
# Node version, target architecture (npm_config_arch) and package-lock.json, and reuses them
# instead of running npm ci (and compiling re2) again; scripts/image/build-image.sh sets it.
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
# Only dist/src and dist/playground: other outputs under dist/ (dist/image, the bench build) stay.
(cd "$repo" && rm -rf dist/src dist/playground && npm run build >&2)

cp "$repo/package.json" "$repo/package-lock.json" "$out/"
modules_cache=""
if [ -n "${BUILD_ARTIFACT_MODULES_CACHE:-}" ]; then
  key="$(node --version)-${npm_config_arch:-$(node -p process.arch)}-$(sha256sum "$repo/package-lock.json" | cut -c1-16)"
  modules_cache="$BUILD_ARTIFACT_MODULES_CACHE/$key"
fi
if [ -n "$modules_cache" ] && [ -d "$modules_cache/node_modules" ]; then
  log "production dependencies from $modules_cache"
  cp -a "$modules_cache/node_modules" "$out/node_modules"
else
  log "installing production dependencies into $out"
  # No install scripts run: re2, the only package that has one, is compiled explicitly.
  (cd "$out" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund >&2)
  bash "$repo/scripts/release/build-re2.sh" "$out/node_modules"
  bash "$repo/scripts/prune-native-build.sh" "$out/node_modules"
  if [ -n "$modules_cache" ]; then
    rm -rf "$BUILD_ARTIFACT_MODULES_CACHE" && mkdir -p "$modules_cache"
    cp -a "$out/node_modules" "$modules_cache/node_modules"
  fi
fi

mkdir -p "$out/dist"
cp -R "$repo/dist/src" "$out/dist/src"
cp -R "$repo/dist/playground" "$out/dist/playground"
log "done: $(du -sh "$out" | cut -f1) in $out"
