import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { loadTestFile } from '../../../src/cli/rule-tests/load-test-file.js';
import { runTestFile } from '../../../src/cli/rule-tests/run-test-file.js';
import { clusterFromDocuments } from '../../../src/engine/cluster/cluster-documents.js';
import {
  isJsonObject,
  type JsonObject,
  type JsonPatchOperation,
} from '../../../src/engine/json.js';
import { parseManifestDocuments } from '../../../src/engine/manifest-documents.js';
import {
  admissionReview,
  decodePatch,
  responseOf,
  send,
  startHarness,
  storeOf,
  testTls,
  type Harness,
} from '../webhook/harness.js';

// Issue 35, "deterministic and replayable": one rule that reads the cluster (the owner-chain and
// allow-list recipes), asked four ways with the same cluster state: `kubemod-ts dryrun
// --cluster`, the recipe's test file (`cluster:`), `PUT /v1/dryrun` (`cluster` member) and the
// dragnet webhook (a ClusterView in its dependencies). Every answer must be the same.

const RECIPES = join(import.meta.dirname, '..', '..', '..', 'samples', 'recipes');

interface Answer {
  readonly patch: JsonPatchOperation[];
  readonly rejections: string[];
}

function documents(file: string): JsonObject[] {
  const read = parseManifestDocuments(readFileSync(file, 'utf8'), file);
  expect(read.errors).toEqual([]);
  return read.documents.filter(isJsonObject);
}

describe.each(['owner-chain-labels', 'reject-image-not-in-allow-list'])('%s', (recipe) => {
  const dir = join(RECIPES, recipe);
  const file = (name: string): string => join(dir, name);
  const resource = documents(file('resource.yaml'))[0] as JsonObject;
  const rulesYaml = readFileSync(file('modrules.yaml'), 'utf8');
  const clusterDocs = documents(file('cluster.yaml'));
  let harness: Harness | undefined;

  beforeAll(async () => {
    const store = storeOf(rulesYaml);
    harness = await startHarness({
      store: () => store,
      cluster: clusterFromDocuments(clusterDocs, 'cluster'),
    });
  });
  afterAll(async () => {
    await harness?.close();
  });

  const dryrunCli = async (): Promise<Answer> => {
    let stdout = '';
    const code = await main(
      [
        'dryrun',
        '--modrule',
        file('modrules.yaml'),
        '--resource',
        file('resource.yaml'),
        '--cluster',
        file('cluster.yaml'),
        '-o',
        'json',
      ],
      { stdout: (t) => (stdout += t), stderr: () => undefined, env: {} },
    );
    expect(code).toBe(0);
    const body = JSON.parse(stdout) as Answer & { failures: unknown[] };
    expect(body.failures).toEqual([]);
    return { patch: body.patch, rejections: body.rejections };
  };

  const dryrunApi = async (): Promise<Answer> => {
    if (harness === undefined) throw new Error('no harness');
    const answer = await send(
      harness.server.port,
      testTls().ca,
      'PUT',
      '/v1/dryrun',
      JSON.stringify({ resourceManifest: resource, modRules: rulesYaml, cluster: clusterDocs }),
    );
    expect(answer.status).toBe(200);
    const body = answer.json<Answer & { failures: unknown[] }>();
    expect(body.failures).toEqual([]);
    return { patch: body.patch, rejections: body.rejections };
  };

  const webhook = async (): Promise<Answer> => {
    if (harness === undefined) throw new Error('no harness');
    const metadata = resource.metadata as JsonObject;
    const answer = await harness.post(
      '/dragnet-webhook',
      admissionReview({
        operation: 'CREATE',
        kind: 'Pod',
        group: '',
        resource: 'pods',
        namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
        name: typeof metadata.name === 'string' ? metadata.name : '',
        object: resource,
      }),
    );
    const { response } = responseOf(answer);
    const rejections = response.allowed ? [] : [response.status?.message ?? ''];
    return { patch: response.allowed ? decodePatch(response) : [], rejections };
  };

  it('answers alike in dryrun, the dry-run API and the webhook, and its test file passes', async () => {
    const cli = await dryrunCli();
    expect(cli.patch.length + cli.rejections.length).toBeGreaterThan(0);
    expect(await dryrunApi()).toEqual(cli);
    const hook = await webhook();
    expect(hook.patch).toEqual(cli.patch);
    expect(hook.rejections.length).toBe(cli.rejections.length);
    for (const text of cli.rejections) expect(hook.rejections.join('\n')).toContain(text);
    const load = loadTestFile(file('kubemod-test.yaml'));
    if (!load.ok) throw new Error(load.errors.join('\n'));
    const result = runTestFile(load.test);
    expect(result.cases.filter((c) => c.status !== 'pass')).toEqual([]);
  });
});
