import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_WEBHOOK_LIMITS } from '../../src/webhook/dependencies.js';
import { admissionReview, startHarness, storeOf, testTls } from '../unit/webhook/harness.js';
import type { Harness } from '../unit/webhook/harness.js';
import { CASE_TIMEOUT_MS } from './support/bounds.js';
import { sendRequest, type Answer, type Target } from './support/http.js';
import { admissionAnswer, patchOf, PATHS } from './support/server.js';

// Issue #12: a request whose rules work for long (each rule within its allowance, many rules)
// must not hold the webhook while it is evaluated. The evaluation yields between rules once a
// slice is used up, and requests that arrive meanwhile are answered in between.

const HEAVY_RULES = 60;

/** Tenant rules that each render a 6,000-character label value (legitimate, but not cheap). */
function heavyRules(): string {
  const rules: string[] = [];
  for (let i = 0; i < HEAVY_RULES; i++) {
    rules.push(`
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: heavy-${String(i).padStart(2, '0')}, namespace: busy }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  patch:
    - op: add
      path: /data/k${String(i)}
      value: '{{ range until 300 }}{{ $.Target.metadata.name }}-{{ end }}'`);
  }
  rules.push(`
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: probe, namespace: quiet }
spec:
  type: Patch
  match:
    - select: '$.metadata.name'
      matchValue: probe
  patch:
    - op: add
      path: /metadata/labels/probe
      value: answered`);
  return rules.join('\n---');
}

function configMapReview(namespace: string, name: string): string {
  return JSON.stringify(
    admissionReview({
      operation: 'CREATE',
      kind: 'ConfigMap',
      resource: 'configmaps',
      namespace,
      name,
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data: {} },
    }),
  );
}

let harness: Harness;
let target: Target;
let yields = 0;
let onFirstYield: (() => void) | undefined;

beforeAll(async () => {
  const store = storeOf(heavyRules());
  harness = await startHarness({
    store: () => store,
    // The time backstops are off so that the heavy request applies all its rules on a loaded
    // machine too: this case is about when the evaluation yields, not about its limits.
    limits: {
      ...DEFAULT_WEBHOOK_LIMITS,
      work: { ruleMillis: 1e9, namespaceMillis: 1e9, requestMillis: 1e9, namespaceUnits: 1e9 },
      sliceMs: 1,
    },
    yieldToLoop: () => {
      yields += 1;
      const first = onFirstYield;
      onFirstYield = undefined;
      first?.();
      return new Promise((resolve) => setImmediate(resolve));
    },
  });
  target = { port: harness.server.port, ca: testTls().ca };
});
afterAll(async () => {
  await harness.close();
});

describe('a request with many expensive rules is evaluated in slices', () => {
  it(
    'answers a request that arrives while it is evaluated first, and still applies every rule',
    async () => {
      const order: string[] = [];
      let probe: Promise<Answer> | undefined;
      const probeSent = new Promise<void>((resolve) => {
        // Sent once the heavy request has yielded for the first time: it is then mid-evaluation.
        onFirstYield = () => {
          probe = sendRequest(target, 'POST', PATHS.dragnet, configMapReview('quiet', 'probe'));
          void probe.then(() => order.push('probe'));
          resolve();
        };
      });
      const heavy = sendRequest(target, 'POST', PATHS.dragnet, configMapReview('busy', 'heavy'));
      void heavy.then(() => order.push('heavy'));
      await probeSent;
      const [heavyAnswer, probeAnswer] = await Promise.all([heavy, probe]);

      expect(order).toEqual(['probe', 'heavy']);
      expect(yields).toBeGreaterThan(5);
      expect(probeAnswer?.status).toBe(200);
      expect(patchOf(admissionAnswer(probeAnswer as Answer))).toEqual([
        { op: 'add', path: '/metadata/labels', value: { probe: 'answered' } },
      ]);
      expect(heavyAnswer.status).toBe(200);
      const heavyResponse = admissionAnswer(heavyAnswer);
      expect(heavyResponse.warnings).toBeUndefined();
      const paths = patchOf(heavyResponse).map((op) => op.path);
      expect(paths).toHaveLength(HEAVY_RULES);
      expect(paths[0]).toBe('/data/k0');
    },
    CASE_TIMEOUT_MS,
  );
});
