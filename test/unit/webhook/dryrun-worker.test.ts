import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { SyntheticRefs } from '../../../src/engine/evaluate.js';
import type { JsonObject } from '../../../src/engine/json.js';
import { parseJsonBody } from '../../../src/webhook/http/json-body.js';
import { KubemodError } from '../../../src/errors/catalog.js';
import { createLogger } from '../../../src/observability/logger.js';
import { handleDryRun, type DryRunFailure } from '../../../src/webhook/dryrun/dryrun-handler.js';
import type { DryRunRunnerFactory } from '../../../src/webhook/dryrun/dryrun-runner.js';
import {
  createWorkerDryRunRunner,
  MAX_REF_JSON_CHARS,
  type WorkerDryRunRunner,
  type WorkerEntry,
} from '../../../src/webhook/dryrun/dryrun-worker-runner.js';
import { httpStatusOf } from '../../../src/webhook/http/errors.js';
import { DEFAULT_WEBHOOK_LIMITS, type WebhookLimits } from '../../../src/webhook/server.js';
import {
  admissionReview,
  decodePatch,
  responseOf,
  send,
  startHarness,
  storeOf,
  testTls,
  type Harness,
  type HttpAnswer,
} from './harness.js';

// PUT /v1/dryrun runs in a worker thread (issue #12): the same answers as handleDryRun, an event
// loop free for admission requests while a dry run works, a deadline, a bounded queue, a heap cap.

/** Time backstops that a loaded machine cannot hit (the work units keep their defaults). */
const NO_CLOCK_LIMITS = { ruleMillis: 600_000, namespaceMillis: 600_000, requestMillis: 600_000 };

/** Budgets high enough that only the worker's deadline can stop a slow dry run. */
const NO_BUDGET_LIMITS = {
  ruleUnits: 1e15,
  renderUnits: 1e15,
  namespaceUnits: 1e15,
  requestUnits: 1e15,
  ruleMillis: 600_000,
  namespaceMillis: 600_000,
  requestMillis: 600_000,
};

const PROBE_RULE = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: probe, namespace: probe }
spec:
  type: Patch
  match:
    - select: '$.metadata.name'
      matchValue: probe
  patch:
    - op: add
      path: /metadata/labels/probe
      value: answered
`;

/** A dry run that legitimately takes a while: `rounds` SHA-256 sums of 100 KB each (~0.25 ms). */
function slowDryRun(rounds: number): string {
  return JSON.stringify({
    resourceManifest: {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'slow', namespace: 'team' },
    },
    modRules: [
      {
        apiVersion: 'api.kubemod.io/v1beta1',
        kind: 'ModRule',
        metadata: { name: 'slow' },
        spec: {
          type: 'Patch',
          match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
          patch: [
            {
              op: 'add',
              path: '/data',
              value: `{{ $s := repeat 100000 "x" }}{{ range until ${String(rounds)} }}{{ $_ := sha256sum $s }}{{ end }}{ "done": "yes" }`,
            },
          ],
        },
      },
    ],
  });
}

const QUICK_DRYRUN = JSON.stringify({
  resourceManifest: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'quick' } },
  modRules: [
    {
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: { name: 'label' },
      spec: {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
        patch: [{ op: 'add', path: '/metadata/labels', value: '{"quick": "yes"}' }],
      },
    },
  ],
});

const PROBE_REVIEW = admissionReview({
  operation: 'CREATE',
  kind: 'ConfigMap',
  resource: 'configmaps',
  namespace: 'probe',
  name: 'probe',
  object: {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'probe', namespace: 'probe', labels: {} },
  },
});

interface WorkerHarness extends Harness {
  readonly runner: () => WorkerDryRunRunner;
  dryrun(body: string, query?: string): Promise<HttpAnswer>;
}

/** The real HTTPS server with the worker runner (captured so tests can look at its threads). */
async function startWorkerHarness(
  limits: Partial<WebhookLimits> = {},
  refs: {
    namespace(name: string): JsonObject | undefined;
    node(name: string): JsonObject | undefined;
  } = {
    namespace: () => undefined,
    node: () => undefined,
  },
): Promise<WorkerHarness> {
  let made: WorkerDryRunRunner | undefined;
  const factory: DryRunRunnerFactory = (deps) => {
    made = createWorkerDryRunRunner(deps);
    return made;
  };
  const store = storeOf(PROBE_RULE);
  const harness = await startHarness({
    store: () => store,
    refs,
    // As `serve --refs` does: dry runs may look these up (the operator lends them none).
    dryRunRefs: refs,
    dryRunRunner: factory,
    limits: { ...DEFAULT_WEBHOOK_LIMITS, ...limits },
  });
  return {
    ...harness,
    runner: () => {
      if (made === undefined) throw new Error('the server made no dry-run runner');
      return made;
    },
    dryrun: (body, query = '') =>
      send(harness.server.port, testTls().ca, 'PUT', `/v1/dryrun${query}`, body),
  };
}

async function expectProbeAnswered(harness: Harness): Promise<void> {
  const answer = await harness.post('/dragnet-webhook', PROBE_REVIEW);
  expect(answer.status).toBe(200);
  expect(decodePatch(responseOf(answer).response)).toEqual([
    { op: 'add', path: '/metadata/labels/probe', value: 'answered' },
  ]);
}

const fixtures = join(import.meta.dirname, '..', '..', 'fixtures', 'eval');
const readYaml = (dir: string, file: string): unknown => {
  try {
    return load(readFileSync(join(fixtures, dir, file), 'utf8'));
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') return undefined;
    throw err;
  }
};

describe('PUT /v1/dryrun through the worker thread answers as handleDryRun does', () => {
  let harness: WorkerHarness;
  let refs: SyntheticRefs = {};
  /** Lookups like an informer cache: every name finds the case's manifests (bookkeeping kept). */
  const lookups = {
    namespace: (): JsonObject | undefined => withBookkeeping(refs.namespace),
    node: (): JsonObject | undefined => withBookkeeping(refs.node),
  };
  const deps = {
    clusterNamespace: 'kubemod-system',
    refs: lookups,
    limits: { template: {}, work: NO_CLOCK_LIMITS },
  };
  beforeAll(async () => {
    harness = await startWorkerHarness({ work: NO_CLOCK_LIMITS }, lookups);
  }, 60_000);
  afterAll(async () => {
    await harness.close();
  });

  /** The HTTP answer of handleDryRun called directly: the status and the body text. */
  function direct(body: string, explain: boolean): { status: number; text: string } {
    try {
      const answer = handleDryRun(parseJsonBody(Buffer.from(body)), deps, { explain });
      return { status: 200, text: JSON.stringify(answer) };
    } catch (err) {
      if (!(err instanceof KubemodError)) throw err;
      return {
        status: httpStatusOf(err),
        text: JSON.stringify({ error: err.message, code: err.code }),
      };
    }
  }

  async function expectSame(body: string): Promise<void> {
    for (const explain of [false, true]) {
      const answer = await harness.dryrun(body, explain ? '?explain=true' : '');
      const expected = direct(body, explain);
      expect({ status: answer.status, text: answer.text }).toEqual(expected);
    }
  }

  const cases = readdirSync(fixtures).sort();
  it.each(cases)('test/fixtures/eval/%s (rules as objects and as YAML text)', async (dir) => {
    const request = (readYaml(dir, 'request.yaml') ?? {}) as {
      operation?: string;
      namespace?: string;
      syntheticRefs?: SyntheticRefs;
    };
    refs = request.syntheticRefs ?? {};
    const rulesText = readFileSync(join(fixtures, dir, 'modrules.yaml'), 'utf8');
    const rules = rulesText
      .split(/^---$/m)
      .map((text) => load(text))
      .filter((rule) => rule !== null && rule !== undefined);
    const base = {
      resourceManifest: readYaml(dir, 'resource.yaml'),
      ...(request.namespace === undefined ? {} : { namespace: request.namespace }),
      ...(request.operation === undefined ? {} : { operation: request.operation }),
    };
    await expectSame(JSON.stringify({ ...base, modRules: rules }));
    await expectSame(JSON.stringify({ ...base, modRules: rulesText }));
  });

  it('samples/dryrun-request.json, YAML text, invalid rules and bodies', async () => {
    refs = {};
    const sample = readFileSync(
      join(import.meta.dirname, '..', '..', '..', 'samples', 'dryrun-request.json'),
      'utf8',
    );
    await expectSame(sample);
    await expectSame(
      JSON.stringify({
        resourceManifest:
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  on: yes\n',
        modRules:
          'apiVersion: api.kubemod.io/v1beta1\nkind: ModRule\nmetadata:\n  name: r\nspec:\n  type: Patch\n  match:\n    - select: $.kind\n  patch:\n    - op: add\n      path: /data/x\n      value: "1"\n',
      }),
    );
    await expectSame(
      JSON.stringify({
        resourceManifest: { kind: 'ConfigMap', metadata: { name: 'a' } },
        modRules: [{ kind: 'ModRule', metadata: { name: 'bad' }, spec: { type: 'Nope' } }],
      }),
    );
    await expectSame(JSON.stringify({ resourceManifest: 'a: [', modRules: [] }));
    await expectSame('{"resourceManifest": ');
    await expectSame(JSON.stringify([1, 2]));
  });

  it('hands the worker the Namespace and Node manifests it names, without bookkeeping', async () => {
    refs = {
      namespace: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'team', labels: { tier: 'gold' } },
      },
      node: { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { zone: 'z1' } } },
    };
    const body = JSON.stringify({
      resourceManifest: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: 'p',
          namespace: 'team',
          annotations: { 'ref.kubemod.io/nodename': 'n1' },
        },
      },
      modRules: [
        {
          apiVersion: 'api.kubemod.io/v1beta1',
          kind: 'ModRule',
          metadata: { name: 'refs' },
          spec: {
            type: 'Patch',
            match: [{ select: '$.kind', matchValue: 'Pod' }],
            patch: [
              {
                op: 'add',
                path: '/metadata/labels',
                value:
                  '{"tier": "{{ .Target.syntheticRefs.namespace.metadata.labels.tier }}", "zone": "{{ .Target.syntheticRefs.node.metadata.labels.zone }}", "fields": "{{ .Target.syntheticRefs.namespace.metadata.managedFields }}"}',
              },
            ],
          },
        },
      ],
    });
    await expectSame(body);
    const answer = (await harness.dryrun(body)).json<{ patch: unknown }>();
    expect(answer.patch).toEqual([
      {
        op: 'add',
        path: '/metadata/labels',
        value: { tier: 'gold', zone: 'z1', fields: '<no value>' },
      },
    ]);
  });
});

function withBookkeeping(manifest: JsonObject | undefined): JsonObject | undefined {
  if (manifest === undefined) return undefined;
  const metadata = (manifest.metadata ?? {}) as JsonObject;
  return {
    ...manifest,
    metadata: { ...metadata, managedFields: [{ manager: 'kubectl', operation: 'Update' }] },
  };
}

describe('the dry-run worker thread', () => {
  let harness: WorkerHarness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('leaves the event loop to admission requests while a slow dry run works', async () => {
    harness = await startWorkerHarness({ work: NO_BUDGET_LIMITS, dryRun: { deadlineMs: 120_000 } });
    const h = harness;
    expect((await h.dryrun(QUICK_DRYRUN)).status).toBe(200); // the thread is up
    let dryrunDone = false;
    const slow = h.dryrun(slowDryRun(12_000)).finally(() => {
      dryrunDone = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < 5; i++) {
      await expectProbeAnswered(h);
      expect(dryrunDone, 'the admission request waited for the dry run').toBe(false);
    }
    const answer = await slow;
    expect(answer.status, answer.text.slice(0, 300)).toBe(200);
    expect(answer.json<{ patch: unknown }>().patch).toEqual([
      { op: 'add', path: '/data', value: { done: 'yes' } },
    ]);
  }, 120_000);

  it('stops a dry run over its deadline with WORK_LIMIT, then serves the next one', async () => {
    harness = await startWorkerHarness({ work: NO_BUDGET_LIMITS, dryRun: { deadlineMs: 500 } });
    const h = harness;
    expect((await h.dryrun(QUICK_DRYRUN)).status).toBe(200);
    const killed = await h.dryrun(slowDryRun(40_000));
    expect(killed.status).toBe(400);
    expect(killed.json()).toEqual({
      code: 'KM5002',
      error:
        'the dry run did not finish within its deadline of 500 ms; its worker thread was stopped',
    });
    expect(h.logs).toContainEqual(
      expect.objectContaining({
        msg: 'dry-run worker stopped',
        reason: 'deadline',
        deadlineMs: 500,
      }),
    );
    const next = await h.dryrun(QUICK_DRYRUN);
    expect(next.status, next.text).toBe(200);
    expect(next.json<{ patch: unknown }>().patch).toEqual([
      { op: 'add', path: '/metadata/labels', value: { quick: 'yes' } },
    ]);
    const metrics = await h.metrics.render();
    expect(metrics).toMatch(
      /kubemod_webhook_requests_total\{[^}]*webhook="dryrun"[^}]*result="malformed"[^}]*\} 1/,
    );
  }, 120_000);

  it('answers 503 SERVER_BUSY at once when the queue is full', async () => {
    harness = await startWorkerHarness({
      work: NO_BUDGET_LIMITS,
      dryRun: { deadlineMs: 120_000, queueLength: 1 },
    });
    const h = harness;
    expect((await h.dryrun(QUICK_DRYRUN)).status).toBe(200);
    const order: string[] = [];
    const slow = h.dryrun(slowDryRun(12_000)).finally(() => order.push('slow'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const queued = h.dryrun(QUICK_DRYRUN).finally(() => order.push('queued'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await h.dryrun(QUICK_DRYRUN);
    order.push('refused');
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json()).toEqual({
      code: 'KM6005',
      error: '1 dry runs are already waiting for the dry-run worker (at most 1); retry later',
    });
    expect((await slow).status).toBe(200);
    expect((await queued).status).toBe(200);
    expect(order).toEqual(['refused', 'slow', 'queued']);
  }, 120_000);

  it('stops a rule whose template fills the heap before V8 does, and keeps the thread', async () => {
    harness = await startWorkerHarness({
      work: NO_BUDGET_LIMITS,
      template: { maxListLength: 1e10, maxIterations: 1e10, maxOutputBytes: 1e10 },
      dryRun: { heapMb: 64, deadlineMs: 120_000 },
    });
    const h = harness;
    expect((await h.dryrun(QUICK_DRYRUN)).status).toBe(200);
    // With no template or work budget, a dict that keeps 100 KB strings wants gigabytes. The
    // meter's heap ceiling (85 % of the thread's 64 MB) stops it long before V8's own limit,
    // whose handling on Node 24 can abort the whole process instead of only the thread.
    const hog = JSON.parse(slowDryRun(1)) as {
      modRules: [{ spec: { patch: [{ value: string }] } }];
    };
    hog.modRules[0].spec.patch[0].value =
      '{{ $d := dict }}{{ range $i := until 100000 }}{{ $_ := set $d (toString $i) (repeat 100000 "a") }}{{ end }}{{ len $d }}';
    const stopped = await h.dryrun(JSON.stringify(hog));
    expect(stopped.status, stopped.text.slice(0, 300)).toBe(200);
    const answer = stopped.json<{ patch: unknown[]; failures: DryRunFailure[] }>();
    expect(answer.patch).toEqual([]);
    expect(answer.failures).toHaveLength(1);
    expect(answer.failures[0]?.rule).toBe('team/slow');
    expect(answer.failures[0]?.code).toBe('KM5002');
    expect(answer.failures[0]?.message).toContain('the heap in use passed its 54 MB ceiling');
    expect(h.runner().threads()).toBe(1); // the same thread answers on
    expect((await h.dryrun(QUICK_DRYRUN)).status).toBe(200);
    expect(h.runner().threads()).toBe(1);
    await expectProbeAnswered(h);
  }, 120_000);

  it('stops its thread when the server closes', async () => {
    harness = await startWorkerHarness();
    const h = harness;
    expect(h.runner().threads()).toBe(0); // nothing started before the first dry run
    expect((await h.dryrun(QUICK_DRYRUN)).status).toBe(200);
    expect(h.runner().threads()).toBe(1);
    await h.close();
    harness = undefined;
    expect(h.runner().threads()).toBe(0);
  }, 60_000);
});

describe('createWorkerDryRunRunner, without the server', () => {
  const logs: string[] = [];
  const baseDeps = {
    clusterNamespace: 'kubemod-system',
    logger: createLogger({
      level: 'error',
      destination: { write: (line: string) => logs.push(line) },
    }),
    limits: { template: {}, work: NO_CLOCK_LIMITS },
  };

  it('copies a pooled Buffer and transfers one that owns its memory', async () => {
    const runner = createWorkerDryRunRunner({
      ...baseDeps,
      refs: { namespace: () => undefined, node: () => undefined },
    });
    try {
      const pooled = Buffer.from(QUICK_DRYRUN); // small: a slice of Node's shared pool
      expect(pooled.byteLength).toBeLessThan(pooled.buffer.byteLength);
      expect((await runner.run(pooled, {})).ok).toBe(true);
      expect(pooled.toString()).toBe(QUICK_DRYRUN); // the pool was not detached
      const owned = Buffer.alloc(QUICK_DRYRUN.length, QUICK_DRYRUN); // Buffer.alloc never pools
      expect(owned.byteLength).toBe(owned.buffer.byteLength);
      const outcome = await runner.run(owned, {});
      expect(outcome).toMatchObject({ ok: true, operation: 'CREATE', result: 'patched' });
      expect(owned.byteLength).toBe(0); // moved to the worker, not copied
    } finally {
      await runner.close();
    }
  }, 60_000);

  /**
   * A thread standing in for the dry-run worker: it answers every dry run with an empty patch,
   * except a body `crash` (it exits) and a body `hog` (it fills its heap with memory no work
   * meter sees, so only V8's limit stops it).
   */
  const STAND_IN: WorkerEntry = {
    eval: true,
    script: `
      const { parentPort } = require('node:worker_threads');
      parentPort.on('message', (m) => {
        if (m.type !== 'run') return;
        const text = Buffer.from(m.body).toString();
        if (text === 'crash') process.exit(3);
        if (text === 'hog') {
          const kept = [];
          for (;;) kept.push(new Array(10000).fill(kept.length));
        }
        parentPort.postMessage({ type: 'done', id: m.id, outcome: {
          ok: true, json: '{}', operation: 'CREATE', result: 'allowed' } });
      });
      parentPort.postMessage({ type: 'ready' });`,
  };

  it('fails only the dry run whose thread crashed, and starts a new thread', async () => {
    const runner = createWorkerDryRunRunner(
      { ...baseDeps, refs: { namespace: () => undefined, node: () => undefined } },
      STAND_IN,
    );
    try {
      expect((await runner.run(Buffer.from('quick'), {})).ok).toBe(true);
      const [crashed, queued] = await Promise.all([
        runner.run(Buffer.from('crash'), {}),
        runner.run(Buffer.from('quick'), {}),
      ]);
      expect(crashed).toEqual({
        ok: false,
        error: {
          kind: 'WORKER_FAILED',
          message:
            'the dry-run worker thread stopped before answering; it is replaced for the next dry run',
        },
      });
      expect(queued.ok).toBe(true); // answered by the new thread
      expect(runner.threads()).toBe(1);
    } finally {
      await runner.close();
    }
  }, 60_000);

  // V8's heap limit is the backstop for memory the work meters do not see. Node 20 stops only
  // the thread that reached it; Node 24 sometimes aborts the whole process ("FATAL ERROR: Reached
  // heap limit"), which is why dry runs also have a heap ceiling in their meters (see the test of
  // the template that fills the heap). So this runs on Node 20 only, and is reported skipped on
  // newer versions.
  it.skipIf(Number(process.versions.node.split('.')[0]) >= 24)(
    'fails only the dry run whose thread reached its V8 heap limit, and starts a new thread',
    async () => {
      const runner = createWorkerDryRunRunner(
        {
          ...baseDeps,
          refs: { namespace: () => undefined, node: () => undefined },
          limits: { ...baseDeps.limits, dryRun: { heapMb: 32 } },
        },
        STAND_IN,
      );
      try {
        expect(await runner.run(Buffer.from('hog'), {})).toEqual({
          ok: false,
          error: {
            kind: 'WORK_LIMIT',
            message:
              'the dry run needed more memory than a dry run may use (32 MB); its worker thread was stopped',
          },
        });
        expect((await runner.run(Buffer.from('quick'), {})).ok).toBe(true);
        expect(runner.threads()).toBe(1);
      } finally {
        await runner.close();
      }
    },
    60_000,
  );

  it('fails a dry run whose syntheticRefs manifest is over the bound, and serves the next', async () => {
    const huge: JsonObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team', annotations: { big: 'x'.repeat(MAX_REF_JSON_CHARS) } },
    };
    const runner = createWorkerDryRunRunner({
      ...baseDeps,
      refs: { namespace: (name) => (name === 'team' ? huge : undefined), node: () => undefined },
    });
    try {
      const inTeam = await runner.run(Buffer.from(slowDryRun(1)), {});
      expect(inTeam).toEqual({
        ok: false,
        error: expect.objectContaining({
          message: `a Namespace manifest used as syntheticRefs is ${String(JSON.stringify(huge).length)} characters of JSON, more than ${String(MAX_REF_JSON_CHARS)}`,
        }) as unknown,
      });
      expect((await runner.run(Buffer.from(QUICK_DRYRUN), {})).ok).toBe(true);
      expect(runner.threads()).toBe(1);
    } finally {
      await runner.close();
    }
    expect(runner.threads()).toBe(0);
    expect(await runner.run(Buffer.from(QUICK_DRYRUN), {})).toEqual({
      ok: false,
      error: { kind: 'SERVER_BUSY', message: 'the server is shutting down' },
    });
  }, 60_000);
});
