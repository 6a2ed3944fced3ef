// Starts a local cluster (test/cluster/control-plane.ts) that outlives this script: etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler and two Ready Nodes (no kubelet, so
// Pods are scheduled but never run).
// With --real-node, one real node instead (test/cluster/real-node-cluster.ts: containerd,
// kubelet, kube-proxy in their own namespaces; root, Linux, scripts/install-node-tools.sh), so
// Pods run and Services route.
// Usage: npm run cluster:up [-- --no-controllers | --real-node]   (stop: npm run cluster:down)
import { resolveControlPlaneBinaries } from '../test/cluster/binaries.js';
import { dirname } from 'node:path';
import { startControlPlane } from '../test/cluster/control-plane.js';
import {
  devClusterStatePath,
  isDevClusterRunning,
  readDevClusterState,
  stopDevCluster,
  writeDevClusterState,
} from '../test/cluster/dev-cluster.js';
import { startRealNodeCluster } from '../test/cluster/real-node-cluster.js';

function printUsage(kubeconfigPath: string, server: string): void {
  console.log(`kube-apiserver: ${server}`);
  console.log(`kubeconfig:     ${kubeconfigPath}`);
  console.log('');
  console.log(`  KUBECONFIG=${kubeconfigPath} kubectl get nodes,ns`);
  console.log('');
  console.log('Stop it with: npm run cluster:down');
}

function parseArgs(argv: readonly string[]): { controllers: boolean; realNode: boolean } {
  let controllers = true;
  let realNode = false;
  for (const arg of argv) {
    if (arg === '--no-controllers') controllers = false;
    else if (arg === '--real-node') realNode = true;
    else
      throw new Error(
        `unknown argument ${arg} (usage: npm run cluster:up [-- --no-controllers | --real-node])`,
      );
  }
  if (realNode && !controllers) throw new Error('--real-node needs the controllers');
  return { controllers, realNode };
}

async function main(): Promise<void> {
  const { controllers, realNode } = parseArgs(process.argv.slice(2));
  const previous = readDevClusterState();
  if (previous !== undefined) {
    if (isDevClusterRunning(previous)) {
      console.log(`A dev cluster is already running (state: ${devClusterStatePath()}).`);
      printUsage(previous.kubeconfigPath, previous.server);
      return;
    }
    await stopDevCluster(previous); // stale state: clean up leftovers
  }

  const binaries = await resolveControlPlaneBinaries();
  const cluster = realNode ? await startRealNodeCluster({ binaries, detached: true }) : undefined;
  const controlPlane =
    cluster ?? (await startControlPlane({ binaries, detached: true, controllers }));
  const node = cluster?.realNode;
  const { kubeControllerManager, kubeScheduler } = binaries;
  const statePath = writeDevClusterState({
    kubeconfigPath: controlPlane.kubeconfigPath,
    server: controlPlane.server,
    dir: controlPlane.dir,
    pids: controlPlane.pids,
    binaries: {
      etcd: binaries.etcd,
      kubeApiserver: binaries.kubeApiserver,
      ...(controllers && kubeControllerManager !== undefined ? { kubeControllerManager } : {}),
      ...(controllers && kubeScheduler !== undefined ? { kubeScheduler } : {}),
    },
    nodes: controlPlane.nodes,
    ...(node === undefined
      ? {}
      : {
          realNode: {
            dir: dirname(node.paths.dir),
            record: { addresses: node.network.addresses, createdDirs: node.network.createdDirs },
            sysctls: node.sysctls,
          },
        }),
    startedAt: new Date().toISOString(),
  });
  console.log(`Control plane ready in ${String(controlPlane.startupMs)} ms (state: ${statePath}).`);
  if (controlPlane.controllersStartupMs !== undefined) {
    console.log(
      `Controllers and scheduler ready ${String(controlPlane.controllersStartupMs)} ms later; ` +
        `nodes: ${controlPlane.nodes.join(', ')}.`,
    );
  }
  if (node !== undefined) {
    const a = node.network.addresses;
    console.log(
      `Real node ${node.name} Ready ${String(node.startupMs)} ms after containerd started ` +
        `(node IP ${a.nodeIp}, Pods ${a.podCidr}, Services ${a.serviceCidr}, routed from here; ` +
        `logs ${node.paths.dir}/*.log; images: ctr --address ${node.paths.containerdSocket} -n k8s.io).`,
    );
  }
  const logs = controllers
    ? 'etcd,kube-apiserver,kube-controller-manager,kube-scheduler'
    : 'etcd,kube-apiserver';
  console.log(`Logs: ${controlPlane.dir}/{${logs}}.log`);
  printUsage(controlPlane.kubeconfigPath, controlPlane.server);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
