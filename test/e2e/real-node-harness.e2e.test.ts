import { get as httpsGet } from 'node:https';
import { describe, expect, it } from 'vitest';
import { apiCall } from '../cluster/api-client.js';
import { nodePids } from '../cluster/node-cgroups.js';
import { readSysctls } from '../cluster/node-sysctls.js';
import { startRealNodeCluster, type RealNodeCluster } from '../cluster/real-node-cluster.js';
import { waitFor } from './support/kubectl.js';
import { alive, hostSnapshot, namespaceOf, processesIn } from './support/host-snapshot.js';

// The harness's own real node, started and stopped inside this test (beside the project's shared
// one, on the next free index): Pods run, a Service's ClusterIP answers from the host through
// kube-proxy, and after stop() the host is as it was — no process, network or mount namespace,
// link, route, mount, cgroup, iptables rule or changed sysctl left.

/** GET /version through a ClusterIP: resolves the HTTP status, or the error text. */
function getThrough(url: string, caPem: string): Promise<string> {
  return new Promise((resolve) => {
    const request = httpsGet(url, { ca: caPem, timeout: 3_000 }, (response) => {
      response.resume();
      resolve(String(response.statusCode));
    });
    request.on('timeout', () => request.destroy(new Error('timeout')));
    request.on('error', (error) => {
      resolve(error.message);
    });
  });
}

describe('the real node harness', () => {
  it('runs Pods, routes Services, and leaves the host as it found it', async () => {
    const before = hostSnapshot();
    const cluster: RealNodeCluster = await startRealNodeCluster();
    const seen: number[] = [];
    let netns: string | undefined;
    let mntns: string | undefined;
    try {
      const node = cluster.realNode;
      const api = {
        server: cluster.server,
        caPem: cluster.caPem,
        certPem: cluster.pki.admin.certPem,
        keyPem: cluster.pki.admin.keyPem,
      };
      netns = namespaceOf(node.network.holder.pid, 'net');
      mntns = namespaceOf(node.network.holder.pid, 'mnt');
      expect(netns).not.toBe(namespaceOf(process.pid, 'net'));

      await apiCall(api, 'POST', '/api/v1/namespaces/default/pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'sleeper' },
        spec: {
          terminationGracePeriodSeconds: 1,
          containers: [
            { name: 'main', image: 'localhost/kubemod-ts/pause:harness', imagePullPolicy: 'Never' },
          ],
        },
      });
      const pod = await waitFor(
        'the Pod Running',
        async () => {
          const p = (await apiCall(api, 'GET', '/api/v1/namespaces/default/pods/sleeper')) as {
            status?: { phase?: string; podIP?: string };
          };
          return p.status?.phase === 'Running' ? p : undefined;
        },
        90_000,
      );
      expect(pod.status?.podIP).toMatch(/^10\.214\./);

      // The `kubernetes` Service's ClusterIP, from the host: routed into the node, DNATed by
      // kube-proxy to the API server's address on the host end of the veth.
      const { kubernetesServiceIp } = node.network.addresses;
      const status = await waitFor(
        'the kubernetes ClusterIP to answer',
        async () => {
          const s = await getThrough(`https://${kubernetesServiceIp}/version`, cluster.caPem);
          return /^\d+$/.test(s) ? s : undefined;
        },
        30_000,
      );
      // Anonymous requests are refused, which proves the API server itself answered.
      expect(['200', '401', '403']).toContain(status);

      // containerd, its shims, the Pod's processes, the kubelet, kube-proxy and the holder.
      seen.push(...nodePids(node.network.addresses.cgroupName), node.network.holder.pid);
      expect(seen.length).toBeGreaterThan(4);
      // The kubelet really writes its kernel tunables (so restoring them matters).
      expect(readSysctls(['vm/overcommit_memory'])).toEqual({ 'vm/overcommit_memory': '1' });
    } finally {
      await cluster.stop();
    }
    const after = hostSnapshot();
    expect(alive(seen)).toEqual([]);
    if (netns !== undefined) expect(processesIn(netns, 'net')).toEqual([]);
    if (mntns !== undefined) expect(processesIn(mntns, 'mnt')).toEqual([]);
    expect(after.links).toEqual(before.links);
    expect(after.routes).toEqual(before.routes);
    expect(after.mounts).toEqual(before.mounts);
    expect(after.netns).toEqual(before.netns);
    expect(after.cgroups).toEqual(before.cgroups);
    expect(after.privateDirs).toEqual(before.privateDirs);
    expect(after.iptables).toEqual(before.iptables);
    expect(after.sysctls).toEqual(before.sysctls);
    expect(Object.keys(before.sysctls).length).toBeGreaterThan(3);
  });
});
