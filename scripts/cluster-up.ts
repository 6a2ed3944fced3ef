// Starts a local cluster (test/cluster/control-plane.ts) that outlives this script: etcd,
// kube-apiserver, kube-controller-manager, kube-scheduler and two Ready Nodes (no kubelet, so
// Pods are scheduled but never run).
// Usage: npm run cluster:up [-- --no-controllers]   (stop it with npm run cluster:down)
import { resolveControlPlaneBinaries } from '../test/cluster/binaries.js';
import { startControlPlane } from '../test/cluster/control-plane.js';
import {
  devClusterStatePath,
  isDevClusterRunning,
  readDevClusterState,
  stopDevCluster,
  writeDevClusterState,
} from '../test/cluster/dev-cluster.js';

function printUsage(kubeconfigPath: string, server: string): void {
  console.log(`kube-apiserver: ${server}`);
  console.log(`kubeconfig:     ${kubeconfigPath}`);
  console.log('');
  console.log(`  KUBECONFIG=${kubeconfigPath} kubectl get nodes,ns`);
  console.log('');
  console.log('Stop it with: npm run cluster:down');
}

function parseArgs(argv: readonly string[]): { controllers: boolean } {
  let controllers = true;
  for (const arg of argv) {
    if (arg === '--no-controllers') controllers = false;
    else
      throw new Error(`unknown argument ${arg} (usage: npm run cluster:up [-- --no-controllers])`);
  }
  return { controllers };
}

async function main(): Promise<void> {
  const { controllers } = parseArgs(process.argv.slice(2));
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
  const controlPlane = await startControlPlane({ binaries, detached: true, controllers });
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
    startedAt: new Date().toISOString(),
  });
  console.log(`Control plane ready in ${String(controlPlane.startupMs)} ms (state: ${statePath}).`);
  if (controlPlane.controllersStartupMs !== undefined) {
    console.log(
      `Controllers and scheduler ready ${String(controlPlane.controllersStartupMs)} ms later; ` +
        `nodes: ${controlPlane.nodes.join(', ')}.`,
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
