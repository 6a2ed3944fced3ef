import type { TestProject } from 'vitest/node';
import { startControlPlane } from '../cluster/control-plane.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of the kubeconfig the e2e tests talk to. */
    kubeconfig: string;
    /**
     * True when the cluster is the local etcd + kube-apiserver harness, which can reach webhook
     * servers the tests start on 127.0.0.1; false for an external `$KUBECONFIG` cluster.
     */
    localControlPlane: boolean;
  }
}

/**
 * vitest globalSetup for the `e2e` project: uses the cluster in `$KUBECONFIG` if set, otherwise
 * starts a throwaway control plane (test/cluster/control-plane.ts) and stops it afterwards.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const external = process.env.KUBECONFIG;
  if (external !== undefined && external !== '') {
    console.log(`[e2e] using the cluster from KUBECONFIG=${external}`);
    project.provide('kubeconfig', external);
    project.provide('localControlPlane', false);
    return () => Promise.resolve();
  }
  const controlPlane = await startControlPlane();
  console.log(
    `[e2e] control plane ready at ${controlPlane.server} in ${String(controlPlane.startupMs)} ms ` +
      `(kubeconfig ${controlPlane.kubeconfigPath})`,
  );
  project.provide('kubeconfig', controlPlane.kubeconfigPath);
  project.provide('localControlPlane', true);
  return () => controlPlane.stop();
}
