import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  cniConfig,
  containerdConfig,
  kubeletConfig,
  kubeProxyConfig,
  nodePaths,
  PAUSE_IMAGE,
  registryMirrorHosts,
} from '../../cluster/node-config.js';
import { nodeAddresses } from '../../cluster/node-network.js';
import { changedSysctls, readSysctls, restoreSysctls } from '../../cluster/node-sysctls.js';
import { podCidrContains } from '../../e2e/support/real-node-inspect.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the real node configuration', () => {
  it.each([
    [0, '10.213.0.1', '10.213.0.2', '10.214.0.0/24', '10.215.0.0/24', '10.215.0.1', 'kmn0h'],
    [7, '10.213.7.1', '10.213.7.2', '10.214.7.0/24', '10.215.7.0/24', '10.215.7.1', 'kmn7h'],
  ])('gives node %i its own addresses', (index, host, node, pods, services, kubernetes, link) => {
    expect(nodeAddresses(index)).toMatchObject({
      hostIp: host,
      nodeIp: node,
      podCidr: pods,
      serviceCidr: services,
      kubernetesServiceIp: kubernetes,
      hostLink: link,
      cgroupName: `kubemod-node-${String(index)}`,
    });
  });

  it('configures containerd for this machine kind: no oom_score_adj, cgroupfs, the local pause image', () => {
    const toml = containerdConfig(nodePaths('/tmp/n'));
    expect(toml).toContain('restrict_oom_score_adj = true');
    expect(toml).toContain('SystemdCgroup = false');
    expect(toml).toContain(`sandbox_image = "${PAUSE_IMAGE}"`);
    expect(toml).toContain('address = "/tmp/n/containerd/containerd.sock"');
    expect(toml).toContain('config_path = "/tmp/n/containerd/certs.d"');
  });

  it('points the kubelet at cgroup v1 under the node cgroup and keeps its files in the node dir', () => {
    const paths = nodePaths('/tmp/n');
    const config = kubeletConfig({ addresses: nodeAddresses(3), paths, clientCaFile: '/ca' });
    expect(config).toMatchObject({
      cgroupDriver: 'cgroupfs',
      failCgroupV1: false,
      cgroupRoot: '/kubemod-node-3',
      address: '10.213.3.2',
      podLogsDir: '/tmp/n/pod-logs',
      containerRuntimeEndpoint: 'unix:///tmp/n/containerd/containerd.sock',
    });
  });

  it('leaves conntrack alone and masquerades Service traffic in kube-proxy', () => {
    const config = kubeProxyConfig(nodeAddresses(1), '/k', 'n') as {
      conntrack: Record<string, unknown>;
      iptables: Record<string, unknown>;
      clusterCIDR: string;
    };
    expect(config.conntrack).toMatchObject({ maxPerCore: 0, min: 0 });
    expect(config.iptables.masqueradeAll).toBe(true);
    expect(config.clusterCIDR).toBe('10.214.1.0/24');
  });

  it('gives Pods the node range on a bridge and mirrors one registry to loopback', () => {
    const cni = JSON.stringify(cniConfig(nodeAddresses(2), nodePaths('/tmp/n')));
    expect(cni).toContain('"subnet":"10.214.2.0/24"');
    expect(registryMirrorHosts('ghcr.io', 'http://127.0.0.1:5000')).toContain(
      'server = "http://127.0.0.1:5000"',
    );
  });

  it.each([
    ['10.214.0.0/24', '10.214.0.17', true],
    ['10.214.0.0/24', '10.214.1.17', false],
    ['10.214.0.0/24', 'not-an-ip', false],
  ])('%s contains %s: %s', (cidr, ip, expected) => {
    expect(podCidrContains(cidr, ip)).toBe(expected);
  });
});

describe('sysctl snapshots', () => {
  it('restores exactly what changed', () => {
    const root = mkdtempSync(join(tmpdir(), 'kubemod-sysctl-'));
    dirs.push(root);
    mkdirSync(join(root, 'vm'));
    writeFileSync(join(root, 'vm', 'overcommit_memory'), '0\n');
    writeFileSync(join(root, 'vm', 'panic_on_oom'), '0\n');
    const before = readSysctls(['vm/overcommit_memory', 'vm/panic_on_oom', 'vm/missing'], root);
    expect(before).toEqual({ 'vm/overcommit_memory': '0', 'vm/panic_on_oom': '0' });
    writeFileSync(join(root, 'vm', 'overcommit_memory'), '1\n');
    expect(changedSysctls(before, readSysctls(Object.keys(before), root))).toEqual([
      'vm/overcommit_memory',
    ]);
    expect(restoreSysctls(before, root)).toEqual(['vm/overcommit_memory']);
    expect(readSysctls(Object.keys(before), root)).toEqual(before);
  });
});
