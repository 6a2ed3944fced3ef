import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BUNDLE_FILE, parseDocuments, type BundleObject } from '../../scripts/bundle-sources.js';

// The operator's NetworkPolicy (issue 37): the webhook port stays open to the API server (which
// no pod selector can name), /metrics only to the `monitoring` namespace.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const objects = parseDocuments(readFileSync(`${repoRoot}/${BUNDLE_FILE}`, 'utf8'), BUNDLE_FILE);

interface Rule {
  ports?: { port: string | number; protocol?: string }[];
  from?: unknown[];
}
interface Policy {
  spec: {
    podSelector: { matchLabels: Record<string, string> };
    policyTypes: string[];
    ingress: Rule[];
  };
}
interface Deployment {
  spec: {
    template: {
      metadata: { labels: Record<string, string> };
      spec: { containers: { name: string; ports: { name: string; containerPort: number }[] }[] };
    };
  };
}

function find(kind: string, name: string): BundleObject {
  const found = objects.find((o) => o.kind === kind && o.metadata?.name === name);
  if (found === undefined) throw new Error(`${kind} ${name} is not in ${BUNDLE_FILE}`);
  return found;
}

describe('the operator NetworkPolicy in the bundle', () => {
  const policy = find('NetworkPolicy', 'kubemod-operator') as unknown as Policy;
  const deployment = find('Deployment', 'kubemod-operator') as unknown as Deployment;
  const podLabels = deployment.spec.template.metadata.labels;
  const ports = deployment.spec.template.spec.containers.flatMap((c) => c.ports);

  it('selects the operator pods and governs ingress only', () => {
    for (const [key, value] of Object.entries(policy.spec.podSelector.matchLabels))
      expect(podLabels[key], key).toBe(value);
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
  });

  it('admits anyone on the webhook port and only the monitoring namespace on metrics', () => {
    const rulesFor = (port: string): Rule[] =>
      policy.spec.ingress.filter((r) => r.ports?.some((p) => p.port === port) === true);
    expect(ports.map((p) => p.name).sort()).toEqual(['metrics', 'webhook']);
    const webhook = rulesFor('webhook');
    expect(webhook).toHaveLength(1);
    expect(webhook[0]?.from).toBeUndefined();
    const metrics = rulesFor('metrics');
    expect(metrics).toEqual([
      {
        ports: [{ port: 'metrics', protocol: 'TCP' }],
        from: [
          { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } },
        ],
      },
    ]);
    // No rule opens every port (a rule without `ports`).
    expect(policy.spec.ingress.every((r) => r.ports !== undefined)).toBe(true);
  });
});
