import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ControlPlanePki } from './pki.js';
import { logTail, type ManagedProcess } from './processes.js';

// kube-apiserver's command line and readiness wait, for control-plane.ts.

/** The API server's address, certificate and ranges when a real node must reach it. */
export interface ApiserverNetwork {
  /** Listen and advertise here instead of 127.0.0.1 (the host end of the node's veth). */
  readonly bindAddress: string;
  /** Added to the serving certificate (the `kubernetes` Service's ClusterIP). */
  readonly extraServingIps: readonly string[];
  /** Instead of 10.0.0.0/24. */
  readonly serviceClusterIpRange: string;
}

export function kubeApiserverArgs(
  dir: string,
  port: number,
  etcdUrl: string,
  pki: ControlPlanePki,
  controllers: boolean,
  network: ApiserverNetwork | undefined,
): string[] {
  const host = network?.bindAddress ?? '127.0.0.1';
  return [
    `--advertise-address=${host}`,
    `--bind-address=${host}`,
    // kube-apiserver 1.37 refuses a loopback advertise address with an endpoint reconciler; the
    // loopback harness has no Pods that need the `kubernetes` Service's endpoints.
    ...(network === undefined ? ['--endpoint-reconciler-type=none'] : []),
    `--secure-port=${String(port)}`,
    `--etcd-servers=${etcdUrl}`,
    `--cert-dir=${join(dir, 'apiserver-certs')}`,
    `--tls-cert-file=${pki.servingCertFile}`,
    `--tls-private-key-file=${pki.servingKeyFile}`,
    `--client-ca-file=${pki.clientCaFile}`,
    `--service-account-key-file=${pki.serviceAccountPublicKeyFile}`,
    `--service-account-signing-key-file=${pki.serviceAccountPrivateKeyFile}`,
    `--service-account-issuer=https://127.0.0.1:${String(port)}`,
    // The Node authorizer lets a real kubelet (system:node:<name>) read what its Pods need.
    `--authorization-mode=${network === undefined ? 'RBAC' : 'Node,RBAC'}`,
    // Without a controller-manager nothing creates the default ServiceAccounts, which the
    // ServiceAccount admission plugin requires of every Pod.
    ...(controllers ? [] : ['--disable-admission-plugins=ServiceAccount']),
    `--service-cluster-ip-range=${network?.serviceClusterIpRange ?? '10.0.0.0/24'}`,
    '--allow-privileged=true',
  ];
}

export async function waitForReady(
  server: string,
  pki: ControlPlanePki,
  processes: readonly ManagedProcess[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastStatus: string;
  for (;;) {
    const dead = processes.find((proc) => proc.hasExited());
    if (dead !== undefined) {
      throw new Error(`${dead.name} exited during startup:\n${logTail(dead.logPath)}`);
    }
    lastStatus = await probeReadyz(server, pki);
    if (lastStatus === '200') {
      return;
    }
    if (Date.now() > deadline) {
      const logs = processes.map((proc) => `--- ${proc.name}:\n${logTail(proc.logPath)}`);
      throw new Error(
        `kube-apiserver not ready after ${String(timeoutMs)} ms (last /readyz: ${lastStatus})\n` +
          logs.join('\n'),
      );
    }
    await sleep(200);
  }
}

/** GET /readyz with the admin client certificate; resolves the status code or error text. */
function probeReadyz(server: string, pki: ControlPlanePki): Promise<string> {
  return new Promise<string>((resolve) => {
    const request = httpsGet(
      `${server}/readyz`,
      { ca: pki.servingCaPem, cert: pki.admin.certPem, key: pki.admin.keyPem, timeout: 5_000 },
      (response) => {
        response.resume();
        resolve(String(response.statusCode));
      },
    );
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error) => {
      resolve(error.message);
    });
  });
}
