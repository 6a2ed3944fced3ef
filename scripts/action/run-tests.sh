#!/usr/bin/env bash
# Runs `kubemod-ts test --output github` for the GitHub Action (action.yml): the text report in
# the log and a ::error workflow command per failing case, which GitHub shows at the case's file
# and line. Exit status: the CLI's (0 all passed, 1 a case failed, 2 an invalid test file or no
# case selected).
#
# Environment (the action's inputs):
#   KUBEMOD_TS       the command that runs the CLI (set by install-cli.sh), split on spaces
#   INPUT_PATHS      test files or directories, one per line (default .)
#   INPUT_CASES      --case patterns, one per line
#   INPUT_FAIL_ONLY  true or false
#   INPUT_JUNIT      a path: also write the JUnit XML report there
set -euo pipefail

read -r -a cli <<< "${KUBEMOD_TS:?KUBEMOD_TS is not set (install-cli.sh sets it)}"

paths=()
while IFS= read -r path; do
  path="${path%$'\r'}"
  if [ -n "$path" ]; then paths+=("$path"); fi
done <<< "${INPUT_PATHS:-.}"
if [ "${#paths[@]}" -eq 0 ]; then paths=(.); fi

args=()
while IFS= read -r pattern; do
  pattern="${pattern%$'\r'}"
  if [ -n "$pattern" ]; then args+=(--case "$pattern"); fi
done <<< "${INPUT_CASES:-}"

case "${INPUT_FAIL_ONLY:-false}" in
  true) args+=(--fail-only) ;;
  false | '') ;;
  *)
    echo "::error title=kubemod-ts action::fail-only must be true or false"
    exit 2
    ;;
esac

status=0
"${cli[@]}" test "${paths[@]}" "${args[@]}" --output github || status=$?
if [ -n "${INPUT_JUNIT:-}" ]; then
  # The same run as JUnit XML, for reporters; its exit status is the first run's.
  "${cli[@]}" test "${paths[@]}" "${args[@]}" --output junit > "$INPUT_JUNIT" 2> /dev/null || true
fi
exit "$status"
