#!/usr/bin/env bash
# Installs the Debian packages the harness's real node (test/cluster/real-node.ts) runs, when
# missing: containerd (1.6, with containerd-shim-runc-v2 and ctr), runc, the CNI plugins
# (bridge, host-local, loopback, portmap in /usr/lib/cni), iptables and conntrack for kube-proxy,
# and umoci for the pause image (scripts/build-node.sh). kubelet and kube-proxy are built from Go
# modules by scripts/build-node.sh instead. Quiet and idempotent; root or sudo (the same
# apt-get path as scripts/image/install-tools.sh, which it calls).
#
# Usage: bash scripts/install-node-tools.sh
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/image/install-tools.sh" \
  containerd runc containernetworking-plugins iptables conntrack umoci util-linux
