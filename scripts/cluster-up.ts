// Starts a local etcd + kube-apiserver (test/cluster/control-plane.ts) that outlives this script.
// Usage: npm run cluster:up   (stop it with npm run cluster:down)
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
  console.log(`  KUBECONFIG=${kubeconfigPath} kubectl get ns`);
  console.log('');
  console.log('Stop it with: npm run cluster:down');
}

async function main(): Promise<void> {
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
  const controlPlane = await startControlPlane({ binaries, detached: true });
  const statePath = writeDevClusterState({
    kubeconfigPath: controlPlane.kubeconfigPath,
    server: controlPlane.server,
    dir: controlPlane.dir,
    pids: controlPlane.pids,
    binaries: { etcd: binaries.etcd, kubeApiserver: binaries.kubeApiserver },
    startedAt: new Date().toISOString(),
  });
  console.log(`Control plane ready in ${String(controlPlane.startupMs)} ms (state: ${statePath}).`);
  console.log(`Logs: ${controlPlane.dir}/{etcd,kube-apiserver}.log`);
  printUsage(controlPlane.kubeconfigPath, controlPlane.server);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
