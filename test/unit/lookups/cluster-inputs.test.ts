import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { clusterFromDocuments } from '../../../src/engine/cluster/cluster-documents.js';
import type { JsonValue } from '../../../src/engine/json.js';
import { readDryRunRequest } from '../../../src/webhook/dryrun/dryrun-request.js';

// Cluster state given offline is checked like any input: an error names where (file and
// document, or field) and why.

const dir = mkdtempSync(join(tmpdir(), 'cluster-inputs-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('cluster state inputs', () => {
  it.each<[string, JsonValue[], string]>([
    ['a scalar', ['x'], 'c[0]: a cluster object must be a map'],
    [
      'no name',
      [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }],
      'c[0]: a cluster object needs apiVersion, kind and metadata.name',
    ],
    [
      'answers without provider',
      [{ kind: 'ExternalDataAnswers', answers: [] }],
      'c[0].provider: ExternalDataAnswers needs a provider name',
    ],
    [
      'answers not a list',
      [{ kind: 'ExternalDataAnswers', provider: 'p', answers: {} }],
      'c[0].answers: must be a list',
    ],
    [
      'an answer without key',
      [{ kind: 'ExternalDataAnswers', provider: 'p', answers: [{ value: 1 }] }],
      'c[0].answers[0].key: each answer needs a string key',
    ],
    [
      'an answer without value or error',
      [{ kind: 'ExternalDataAnswers', provider: 'p', answers: [{ key: 'k' }] }],
      'c[0].answers[0]: an answer needs a value or an error',
    ],
  ])('refuses %s', (_what, documents, message) => {
    expect(() => clusterFromDocuments(documents, 'c')).toThrow(message);
  });

  it('dryrun --cluster names the file and document of a bad manifest', async () => {
    const file = join(dir, 'cluster.yaml');
    writeFileSync(
      file,
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\nkind: ConfigMap\n',
    );
    const resource = join(dir, 'pod.yaml');
    writeFileSync(resource, 'apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: a}\n');
    const rules = join(dir, 'rules.yaml');
    writeFileSync(
      rules,
      'apiVersion: api.kubemod.io/v1beta1\nkind: ModRule\nmetadata: {name: r}\nspec: {type: Patch, match: [{select: "$.kind"}], patch: [{op: add, path: /metadata/labels/x, value: y}]}\n',
    );
    let stderr = '';
    const code = await main(
      ['dryrun', '--modrule', rules, '--resource', resource, '--cluster', file],
      {
        stdout: () => undefined,
        stderr: (t) => (stderr += t),
        env: {},
      },
    );
    expect(code).toBe(1);
    expect(stderr).toContain(
      `${file}[1]: a cluster object needs apiVersion, kind and metadata.name`,
    );
  });

  it('the dry-run API reads cluster as a list or YAML text, and refuses anything else', () => {
    const base = {
      resourceManifest: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } },
      modRules: [],
    };
    expect(
      readDryRunRequest({
        ...base,
        cluster:
          'kind: ConfigMap\napiVersion: v1\nmetadata: {name: a}\n---\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: b}\n',
      }).cluster,
    ).toHaveLength(2);
    expect(readDryRunRequest({ ...base, cluster: [] }).cluster).toEqual([]);
    expect(() => readDryRunRequest({ ...base, cluster: 3 })).toThrow(
      'cluster must be a list of manifests',
    );
    expect(() =>
      readDryRunRequest({ ...base, cluster: Array.from({ length: 1001 }, () => ({})) }),
    ).toThrow('a dry run takes at most 1000');
  });
});
