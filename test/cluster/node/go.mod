// Module of the harness node's pause program (./pause), built by scripts/build-node.sh. Standard
// library only; the node's kubelet and kube-proxy come from test/cluster/kubernetes/<version>/.
module github.com/kubemod-ts/kubemod-ts/test/cluster/node

go 1.24.0
