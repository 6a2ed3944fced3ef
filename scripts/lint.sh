#!/usr/bin/env bash
# `npm run lint`: ESLint (zero warnings) and the layer rules, in four processes at once.
#
# Type-aware linting is bound by the TypeScript checker, which runs on one core. Split three ways,
# ESLint uses every core: src/ in one process, the tests, benchmarks and scripts in another (each
# builds the main program; only parsing is repeated, the checking is split), and the files whose
# tsconfig is their own (the page's JavaScript, tsconfig.playground.json; the browser tests,
# test/browser/tsconfig.json; the two tool configurations, linted without types) in a third. The
# sets are disjoint and together are exactly what `eslint .` lints: each later set is `.` minus the
# earlier ones, so a new folder is never left out. On two idle cores: about 40 s instead of 60 s.
set -uo pipefail
cd "$(dirname "$0")/.."

own_programs=('src/playground/**/*.js' 'test/browser/**/*.ts' 'eslint.config.js' '.dependency-cruiser.cjs')
not_own=()
for pattern in "${own_programs[@]}"; do not_own+=(--ignore-pattern "$pattern"); done

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

npx eslint --max-warnings 0 "${not_own[@]}" src >"$out/src" 2>&1 &
src=$!
npx eslint --max-warnings 0 "${not_own[@]}" --ignore-pattern 'src/**' . >"$out/rest" 2>&1 &
rest=$!
npx eslint --max-warnings 0 "${own_programs[@]}" >"$out/own" 2>&1 &
own=$!
npx tsx scripts/check-layers.ts >"$out/layers" 2>&1 &
layers=$!

status=0
for job in "src:$src" "rest:$rest" "own:$own" "layers:$layers"; do
  name="${job%%:*}"
  if ! wait "${job#*:}"; then
    status=1
    echo "lint: the ${name} part failed" >&2
  fi
  cat "$out/$name"
done
exit "$status"
