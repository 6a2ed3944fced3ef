#!/usr/bin/env bash
# Prints the directory of a Node.js release of the given major version (its bin/node and
# include/node, the headers node-gyp needs), installing it first if it is not cached. Node comes
# from the npm registry (the `node` package, whose arch package `node-<os>-<arch>` carries the
# binary and headers), the only network the CI machine has, and is cached under
# ${XDG_CACHE_HOME:-~/.cache}/kubemod-ts/node<major>/. Used by scripts/ci-node24.sh (unit tests on
# Node 24) and scripts/test-npm-package.sh (the CLI from its npm tarball on every supported Node).
#
# Usage: bash scripts/fetch-node.sh <major>      e.g. bash scripts/fetch-node.sh 22
set -euo pipefail

major="${1:?usage: fetch-node.sh <major version>}"
[[ "$major" =~ ^[0-9]+$ ]] || {
  echo "fetch-node: $major is not a major version number" >&2
  exit 2
}
prefix="${XDG_CACHE_HOME:-$HOME/.cache}/kubemod-ts/node$major"

find_dist() { # prints the directory holding bin/node and include/node, or nothing
  local dir
  for dir in "$prefix"/node_modules/node/node_modules/node-*; do
    if [ -x "$dir/bin/node" ] && [ -f "$dir/include/node/node_api.h" ]; then
      echo "$dir"
      return 0
    fi
  done
  return 0
}

dist="$(find_dist)"
if [ -z "$dist" ] || [[ "$("$dist/bin/node" --version)" != "v$major."* ]]; then
  echo "fetch-node: installing node@$major from the npm registry into $prefix" >&2
  rm -rf "$prefix"
  npm install --no-save --no-audit --no-fund --prefix "$prefix" "node@$major" >&2
  dist="$(find_dist)"
fi
if [ -z "$dist" ] || [[ "$("$dist/bin/node" --version)" != "v$major."* ]]; then
  echo "fetch-node: the node@$major package has no node-<os>-<arch>/{bin/node,include/node}" >&2
  exit 1
fi
echo "$dist"
