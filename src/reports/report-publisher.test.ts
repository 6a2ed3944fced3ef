import { describe, expect, it } from 'vitest';
import { KubeApiError, type KubeClient, type KubeRequest } from '../kube/kube-client.js';
import type { JsonObject } from '../engine/json.js';
import { createLogger } from '../observability/logger.js';
import { NOT_GRANTED, publishReports } from './report-publisher.js';

// Without config/optional/policy-reports-rbac.yaml (the default install) the operator may see
// that the cluster serves a report API (discovery is open to everyone) but may not list or
// write reports: the periodic audit then says which file grants it, and throws nothing.

/** Serves OpenReports' discovery document; answers `status` to every report request. */
function client(status: number | undefined): KubeClient & { readonly paths: string[] } {
  const paths: string[] = [];
  return {
    paths,
    request(req: KubeRequest): Promise<JsonObject> {
      paths.push(`${req.method} ${req.path}`);
      if (req.path === '/apis/openreports.io/v1alpha1') {
        return Promise.resolve({ resources: [{ name: 'reports' }, { name: 'clusterreports' }] });
      }
      if (req.path.startsWith('/apis/wgpolicyk8s.io/')) {
        return Promise.reject(new KubeApiError(404, 'not found'));
      }
      if (status !== undefined) return Promise.reject(new KubeApiError(status, 'refused'));
      return Promise.resolve({ items: [], metadata: {} });
    },
    list: () => Promise.reject(new Error('not used')),
    watch: () => {
      throw new Error('not used');
    },
  };
}

async function publish(status: number | undefined): Promise<{ lines: string[]; result: unknown }> {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', destination: { write: (l) => lines.push(l) } });
  const result = await publishReports(
    { results: [], dropped: 0 },
    { client: client(status), logger },
  );
  return { lines, result };
}

describe('publishReports without the report RBAC', () => {
  it('logs which file grants the permission when the API server answers 403', async () => {
    const { lines, result } = await publish(403);
    expect(result).toBeUndefined();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(NOT_GRANTED);
    expect(lines[0]).toContain('config/optional/policy-reports-rbac.yaml');
  });

  it('logs the generic retry line for other failures', async () => {
    const { lines } = await publish(500);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('retrying after the next audit');
    expect(lines[0]).not.toContain('policy-reports-rbac.yaml');
  });

  it('writes (here: nothing to write) when allowed', async () => {
    const { lines, result } = await publish(undefined);
    expect(result).toMatchObject({ created: 0, deleted: 0, failed: [] });
    expect(lines.join('')).toContain('policy reports written');
  });
});
