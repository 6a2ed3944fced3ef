import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../src/engine/json.js';
import { send, startHarness, testTls, type Harness } from './harness.js';
import { runServeInProcess } from './serve-in-process.js';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const RESOURCE: JsonObject = {
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'settings', namespace: 'team-a' },
  data: { mode: 'fast' },
};

function put(
  body: string,
): Promise<ReturnType<Harness['post']> extends Promise<infer T> ? T : never> {
  if (harness === undefined) throw new Error('no harness');
  return send(harness.server.port, testTls().ca, 'PUT', '/v1/dryrun', body);
}

describe('PUT /v1/dryrun', () => {
  it('is not served when the dependencies turn it off (the operator does unless asked)', async () => {
    harness = await startHarness({ dryRun: false });
    const answer = await put(JSON.stringify({ resourceManifest: { kind: 'Pod' }, modRules: [] }));
    expect(answer.status).toBe(404);
  });

  it('returns the patch, the YAML diff and the rejections; rules without namespace go to the resource namespace', async () => {
    harness = await startHarness();
    const modRules = [
      {
        apiVersion: 'api.kubemod.io/v1beta1',
        kind: 'ModRule',
        metadata: { name: 'add-owner' },
        spec: {
          type: 'Patch',
          match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
          patch: [{ op: 'add', path: '/data/owner', value: '"{{ .Namespace }}"' }],
        },
      },
      {
        apiVersion: 'api.kubemod.io/v1beta1',
        kind: 'ModRule',
        metadata: { name: 'no-fast' },
        spec: {
          type: 'Reject',
          match: [{ select: '$.data.mode', matchValue: 'fast' }],
          rejectMessage: 'fast mode is off limits',
        },
      },
      {
        apiVersion: 'api.kubemod.io/v1beta1',
        kind: 'ModRule',
        metadata: { name: 'elsewhere', namespace: 'team-b' },
        spec: {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [{ op: 'add', path: '/data/wrong', value: 'x' }],
        },
      },
    ];
    const answer = await put(JSON.stringify({ resourceManifest: RESOURCE, modRules }));
    expect(answer.status).toBe(200);
    const body = answer.json<{
      patch: unknown;
      diff: string;
      rejections: string[];
      failures: unknown[];
    }>();
    expect(body.patch).toEqual([{ op: 'add', path: '/data/owner', value: 'team-a' }]);
    expect(body.rejections).toEqual(['team-a/no-fast: "fast mode is off limits"']);
    expect(body.diff).toContain('--- ConfigMap/settings\tbefore');
    expect(body.diff).toContain('+  owner: team-a');
    expect(Object.keys(body).sort()).toEqual([
      'audited',
      'diff',
      'failures',
      'patch',
      'rejections',
      'warnings',
    ]);
    expect(body.failures).toEqual([]);
  });

  it('answers 400 with {"error"} listing each invalid ModRule with its field errors', async () => {
    harness = await startHarness();
    const modRules = [
      {
        apiVersion: 'api.kubemod.io/v1beta1',
        kind: 'ModRule',
        metadata: { name: 'ok' },
        spec: {
          type: 'Patch',
          match: [{ select: '$.kind' }],
          patch: [{ op: 'remove', path: '/data/mode' }],
        },
      },
      {
        apiVersion: 'api.kubemod.io/v1beta1',
        kind: 'ModRule',
        metadata: { name: 'bad' },
        spec: {
          type: 'Patch',
          match: [{ select: '$.[' }],
          patch: [{ op: 'add', path: 'no-slash', value: 'x' }],
        },
      },
    ];
    const answer = await put(JSON.stringify({ resourceManifest: RESOURCE, modRules }));
    expect(answer.status).toBe(400);
    const { error } = answer.json<{ error: string }>();
    expect(error).not.toContain('modRules[0]');
    expect(error).toMatch(
      /^modRules\[1\]: ModRule team-a\/bad is invalid: spec\.match\[0\]\.select: .+; spec\.patch\[0\]\.path: /,
    );
    expect((await put('{"modRules": []}')).json()).toMatchObject({
      error: 'resourceManifest must be an object (the Kubernetes manifest to evaluate)',
    });
    expect((await put('not json')).status).toBe(400);
  });
});

describe('kubemod-ts serve with samples/', () => {
  it('serves samples/dryrun-request.json like `curl -k -X PUT …/v1/dryrun -d @samples/dryrun-request.json`', async () => {
    const serve = await runServeInProcess('samples/modrules');
    const started = serve.server;
    try {
      const body = await readFile('samples/dryrun-request.json');
      // curl -d sends application/x-www-form-urlencoded; the API reads JSON whatever the type.
      const answer = await send(started.port, '', 'PUT', '/v1/dryrun', body, {
        'content-type': 'application/x-www-form-urlencoded',
      }).catch(() => undefined);
      expect(answer).toBeUndefined(); // self-signed: refused without -k / a CA...
      const insecure = await sendInsecure(started.port, body);
      expect(insecure.status).toBe(200);
      const result = JSON.parse(insecure.text) as {
        patch: { path: string }[];
        diff: string;
        rejections: string[];
      };
      expect(result.rejections).toEqual([]);
      expect(result.patch.map((op) => op.path).sort()).toEqual([
        '/metadata/labels/owner',
        '/spec/template/metadata/annotations',
        '/spec/template/spec/containers/1',
        '/spec/template/spec/securityContext',
      ]);
      expect(result.diff).toContain('+        - image: fluent/fluent-bit:3.0');
      expect(result.diff).toContain('+    owner: storefront');
      expect(result.diff).toContain('+        samples.kubemod.io/deployment: default/web');
      expect(result.diff).toContain('+        runAsNonRoot: true');
      expect(serve.output()).toContain('"msg":"ModRules loaded"');
    } finally {
      serve.stop();
    }
  });

  it('keeps samples/dryrun-request.json in sync with samples/modrules and samples/resources', async () => {
    const { loadAll } = await import('js-yaml');
    const { readdir } = await import('node:fs/promises');
    const files = (await readdir('samples/modrules')).sort();
    const rules = await Promise.all(
      files.map(async (f) => loadAll(await readFile(`samples/modrules/${f}`, 'utf8'))[0]),
    );
    const request = JSON.parse(await readFile('samples/dryrun-request.json', 'utf8')) as {
      modRules: unknown[];
      resourceManifest: unknown;
    };
    expect(request.modRules).toEqual(rules);
    expect(request.resourceManifest).toEqual(
      loadAll(await readFile('samples/resources/deployment.yaml', 'utf8'))[0],
    );
  });
});

async function sendInsecure(port: number, body: Buffer): Promise<{ status: number; text: string }> {
  const { request } = await import('node:https');
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/dryrun',
        method: 'PUT',
        rejectUnauthorized: false,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
