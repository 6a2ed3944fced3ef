# Sourced by the scripts that build Go programs (build-control-plane.sh, build-loadgen.sh):
# require_go puts a Go toolchain on PATH — the one already there, else /usr/local/go/bin, where
# this project's machines have it — or fails with a message naming the caller.
#   require_go <caller> <minimum version, for the message>
require_go() {
  if command -v go > /dev/null 2>&1; then return 0; fi
  if [ -x /usr/local/go/bin/go ]; then
    export PATH="$PATH:/usr/local/go/bin"
    return 0
  fi
  echo "$1: Go toolchain not found (need go >= $2 on PATH or in /usr/local/go/bin)" >&2
  return 1
}
