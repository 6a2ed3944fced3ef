#!/usr/bin/env bash
# The CLI as users install it: packs the repository (`npm pack`, whose prepack builds dist/), then
# for each supported Node major (package.json "engines"; Node from the npm registry through
# scripts/fetch-node.sh) installs the tarball into an empty directory outside the repository,
# with a fresh HOME and npm cache so nothing comes from this machine's caches or config, copies
# samples/recipes there and runs `npx kubemod-ts test recipes`, which must pass.
#
# The native re2 addon is an optional dependency: its install script downloads a prebuilt binary
# from GitHub or builds one with node-gyp, and where neither works (here: no GitHub, no Node
# headers in the fresh HOME) npm leaves it out. The CLI must then print its one-line notice and
# run on re2js; when the addon did install, it must print none. Either way the recipes pass.
#
# Usage: bash scripts/test-npm-package.sh [major …]     (default: 22 24)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
majors=("$@")
[ "${#majors[@]}" -gt 0 ] || majors=(22 24)
log() { echo "test-npm-package: $*" >&2; }
die() {
  log "FAIL: $*"
  exit 1
}

work="$(mktemp -d "${TMPDIR:-/tmp}/kubemod-ts-npm-package.XXXXXX")"
trap 'rm -rf "$work"' EXIT

log "npm pack (prepack: npm run build) with node $(node --version)"
(cd "$repo" && npm pack --silent --pack-destination "$work" > "$work/pack.out")
tarball="$work/$(tail -n 1 "$work/pack.out")"
[ -f "$tarball" ] || die "npm pack wrote no $tarball"

# What ships: the compiled CLI, the built playground page and the JSON Schemas; no tests, no
# TypeScript sources, no source maps, no browser sources compiled for Node.
listing="$(tar -tzf "$tarball")"
for want in package/dist/src/cli/main.js package/dist/playground/index.html \
  package/schemas/modrule-api-v1beta1.json package/schemas/kubemod-test.json package/README.md; do
  grep -qx "$want" <<< "$listing" || die "the tarball has no $want"
done
if grep -E '\.(test|test-support)\.js$|\.ts$|\.map$|^package/dist/src/playground/' <<< "$listing"; then
  die "the tarball ships the files above, which users do not need"
fi
log "tarball $(basename "$tarball"): $(wc -l <<< "$listing") files, $(du -k "$tarball" | cut -f1) KiB"

# npm settings from the environment (npm run exports npm_config_*; .ci/run sets nodedir) would
# make the install unlike a user's; the network settings (proxy, CA) stay.
clean_env=()
while IFS='=' read -r name _; do
  case "$name" in npm_config_* | NPM_CONFIG_* | npm_package_* | npm_lifecycle_*) clean_env+=(-u "$name") ;; esac
done < <(env)

for major in "${majors[@]}"; do
  node_dist="$(bash "$repo/scripts/fetch-node.sh" "$major")"
  dir="$work/node$major"
  mkdir -p "$dir/home" "$dir/app"
  cp -R "$repo/samples/recipes" "$dir/app/recipes"
  printf '{ "name": "try-kubemod-ts", "private": true }\n' > "$dir/app/package.json"
  run() { # run <command…> in the clean directory with Node $major, a fresh HOME and npm cache
    (cd "$dir/app" && env "${clean_env[@]}" PATH="$node_dist/bin:$PATH" HOME="$dir/home" \
      npm_config_cache="$dir/home/.npm" npm_config_update_notifier=false "$@")
  }
  log "node $(run node --version): npm install $(basename "$tarball") into an empty directory"
  started=$SECONDS
  run npm install --no-audit --no-fund "$tarball" > "$dir/install.log" 2>&1 \
    || die "npm install failed on node $major: $(tail -n 20 "$dir/install.log")"
  log "installed in $((SECONDS - started)) s"
  if run node -e "require('re2')" 2> /dev/null; then native=yes; else native=no; fi

  run npx --no-install kubemod-ts test recipes > "$dir/test.out" 2> "$dir/test.err" \
    || die "kubemod-ts test recipes failed on node $major: $(cat "$dir/test.out" "$dir/test.err")"
  summary="$(tail -n 1 "$dir/test.out")"
  [[ "$summary" =~ ^[0-9]+\ cases\ in\ [0-9]+\ files:\ ([0-9]+)\ passed$ ]] \
    || die "unexpected summary on node $major: $summary"
  notice="$(grep -c '^kubemod-ts: notice: the native re2 addon is not available' "$dir/test.err" || true)"
  if [ "$native" = yes ] && [ "$notice" != 0 ]; then
    die "re2 loads on node $major but the CLI printed the fallback notice"
  fi
  if [ "$native" = no ] && [ "$notice" != 1 ]; then
    die "re2 is not installed on node $major and the CLI did not print its notice once: $(cat "$dir/test.err")"
  fi
  [ "$(grep -vc '^kubemod-ts: notice:' "$dir/test.err" || true)" = 0 ] \
    || die "unexpected stderr on node $major: $(cat "$dir/test.err")"
  run test -f node_modules/kubemod-ts/schemas/modrule-api-v1beta1.json \
    || die "the installed package has no schemas/modrule-api-v1beta1.json"
  log "node $major: $summary (native re2: $native)"
done
log "OK: the packed CLI installs and passes the recipes on node ${majors[*]}"
