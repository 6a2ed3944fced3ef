import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_WEBHOOK_LIMITS } from '../../src/webhook/dependencies.js';
import {
  admissionReview,
  responseOf,
  send,
  startHarness,
  storeOf,
  testTls,
  type Harness,
  type HttpAnswer,
} from '../unit/webhook/harness.js';
import { CASE_TIMEOUT_MS } from './support/bounds.js';
import { PATHS } from './support/server.js';

// Issue 37, finding 6: a tenant floods the webhook with requests whose rules work for long. The
// evaluations are sliced; before the fix every waiting evaluation took a slice per turn of the
// event loop, so another namespace's request waited for the whole flood at each of its slices,
// and a request was answered however late it was (the API server, past its timeout, then applies
// the webhook's failurePolicy Ignore, and a cluster-wide Fail rule is bypassed). Time here is an
// injected virtual clock and turns of the loop are counted: nothing depends on the machine's speed.

const CLUSTER_STAMPS = 10;
const TENANT_RULES = 60;
const FLOOD = 40;
/** What the API server waits for an answer (the bundle's timeoutSeconds: 10). */
const API_TIMEOUT_MS = 10_000;

function rules(): string {
  const docs: string[] = [
    `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata:
  name: no-privileged
  namespace: kubemod-system
  annotations: { api.kubemod.io/failure-policy: Fail }
spec:
  type: Reject
  targetNamespaceRegex: '.*'
  match:
    - select: '$.kind'
      matchValue: Pod
    - select: '$.spec.containers[*].securityContext.privileged'
      matchValue: 'true'`,
  ];
  for (let i = 0; i < CLUSTER_STAMPS; i++) {
    docs.push(patchRule(`stamp-${String(i).padStart(2, '0')}`, 'kubemod-system', `s${String(i)}`));
  }
  for (let i = 0; i < TENANT_RULES; i++) {
    docs.push(patchRule(`busy-${String(i).padStart(2, '0')}`, 'tenant', `t${String(i)}`));
  }
  return docs.join('\n---');
}

function patchRule(name: string, namespace: string, label: string): string {
  const scope = namespace === 'kubemod-system' ? "\n  targetNamespaceRegex: '.*'" : '';
  return `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: ${name}, namespace: ${namespace} }
spec:
  type: Patch${scope}
  match:
    - select: '$.kind'
      matchValue: Pod
  patch:
    - op: add
      path: /metadata/labels/${label}
      value: '{{ $.Target.metadata.name }}'`;
}

function podReview(namespace: string, name: string, privileged: boolean): string {
  return JSON.stringify(
    admissionReview({
      uid: `${namespace}-${name}`,
      operation: 'CREATE',
      kind: 'Pod',
      resource: 'pods',
      namespace,
      name,
      object: {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace },
        spec: { containers: [{ name: 'c', image: 'busybox', securityContext: { privileged } }] },
      },
    }),
  );
}

/** A webhook on port 0 whose clock and turns of the event loop the test controls and counts. */
interface FloodBed {
  readonly harness: Harness;
  /** Virtual milliseconds. */
  now(): number;
  /** Turns taken so far (calls of the injected yieldToLoop). */
  turns(): number;
  /** Resolves once `count` turns have been taken. */
  afterTurns(count: number): Promise<void>;
  post(body: string, query?: string): Promise<HttpAnswer>;
}

/**
 * Every look at the clock is 1 ms later (so with sliceMs 1 an evaluation yields after each rule),
 * and every turn of the loop `turnMs` more (a loaded machine).
 */
async function floodBed(turnMs: number, deadlineMs: number): Promise<FloodBed> {
  const store = storeOf(rules());
  let now = 0;
  let turns = 0;
  const waiting: { at: number; resolve: () => void }[] = [];
  const harness = await startHarness({
    store: () => store,
    clock: () => (now += 1),
    yieldToLoop: () => {
      turns += 1;
      now += turnMs;
      for (const w of waiting.filter((x) => x.at <= turns)) w.resolve();
      return new Promise((resolve) => setImmediate(resolve));
    },
    limits: {
      ...DEFAULT_WEBHOOK_LIMITS,
      deadlineMs,
      // Virtual time must not fail rules: this is about waiting, not about rules' budgets.
      work: { ruleMillis: 1e12, namespaceMillis: 1e12, requestMillis: 1e12 },
      sliceMs: 1,
    },
  });
  const { ca } = testTls();
  return {
    harness,
    now: () => now,
    turns: () => turns,
    afterTurns: (count) =>
      new Promise((resolve) => {
        waiting.push({ at: count, resolve });
      }),
    post: (body, query = '') =>
      send(harness.server.port, ca, 'POST', `${PATHS.dragnet}${query}`, body),
  };
}

let bed: FloodBed | undefined;
afterEach(async () => {
  await bed?.harness.close();
  bed = undefined;
});

describe("a tenant's flood of slow requests (issue 37, finding 6)", () => {
  it(
    "does not delay another namespace's request beyond a bound: namespaces take turns",
    async () => {
      bed = await floodBed(0, 1e12);
      const current = bed;
      let floodAnswered = 0;
      const flood = Array.from({ length: FLOOD }, (_, i) =>
        current.post(podReview('tenant', `flood-${String(i)}`, false)).then((answer) => {
          floodAnswered += 1;
          return answer;
        }),
      );
      await current.afterTurns(300);
      const sentAt = current.turns();
      const probe = await current.post(podReview('prod', 'probe', true));
      const probeTurns = current.turns() - sentAt;
      const floodDoneAtProbe = floodAnswered;
      const answers = await Promise.all(flood);

      // The probe's evaluation is 21 slices (each Patch rule is matched, then applied, and the
      // Reject rule matched, a slice each); alternating with one other namespace it needs about
      // twice that many turns. Before the fix, each of its slices waited for a slice of every
      // flood request: 1,421 turns in the run that confirmed this test failed.
      const probeSlices = 2 * CLUSTER_STAMPS + 1;
      expect(probeTurns).toBeLessThanOrEqual(3 * probeSlices + 10);
      expect(floodDoneAtProbe).toBeLessThan(FLOOD);
      const response = responseOf(probe).response;
      expect(response.allowed).toBe(false);
      expect(response.status?.message).toBe(
        'operation rejected by the following ModRule(s): kubemod-system/no-privileged',
      );
      // The flood itself is still evaluated in full: fairness delays it, never changes it.
      for (const answer of answers) {
        const flooded = responseOf(answer).response;
        expect(flooded.allowed).toBe(true);
        expect(flooded.warnings).toBeUndefined();
        expect(flooded.patch).toBeDefined();
      }
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'refuses a request past its deadline where a Fail rule applies, before the API server gives up',
    async () => {
      // Each turn of the loop takes 25 virtual ms: the tenant's own privileged Pod, queued behind
      // its flood, cannot be evaluated within the 8 s deadline. (The client shares the loop: its
      // TLS handshake and the answer's way back take turns too, and count.)
      bed = await floodBed(25, DEFAULT_WEBHOOK_LIMITS.deadlineMs);
      const current = bed;
      const flood = Array.from({ length: FLOOD }, (_, i) =>
        current.post(podReview('tenant', `flood-${String(i)}`, false)),
      );
      await current.afterTurns(20);
      const sentAt = current.now();
      const probe = await current.post(podReview('tenant', 'sneaky', true));
      const answeredAfter = current.now() - sentAt;
      await Promise.all(flood);

      const response = responseOf(probe).response;
      // What the API server makes of it: an answer later than its timeout is not seen, and the
      // webhook's failurePolicy (Ignore) admits the privileged Pod.
      const seenByApiServer = answeredAfter < API_TIMEOUT_MS;
      expect({ seenByApiServer, allowed: response.allowed }).toEqual({
        seenByApiServer: true,
        allowed: false,
      });
      expect(response.status?.message).toMatch(
        /^operation rejected by the following ModRule\(s\): kubemod-system\/no-privileged: "could not be evaluated \(failure policy Fail\): .*deadline/,
      );
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'keeps within a shorter timeout the API server states in the URL (timeoutSeconds: 3)',
    async () => {
      // 10 virtual ms a turn: the client's handshake and the answer's way back take about 30
      // turns of this loop, which the 20% of 3 s the webhook keeps for them must cover.
      bed = await floodBed(10, DEFAULT_WEBHOOK_LIMITS.deadlineMs);
      const current = bed;
      const flood = Array.from({ length: FLOOD }, (_, i) =>
        current.post(podReview('tenant', `flood-${String(i)}`, false)),
      );
      await current.afterTurns(20);
      const sentAt = current.now();
      // The API server calls `<path>?timeout=3s` when the webhook's timeoutSeconds is 3.
      const probe = await current.post(podReview('tenant', 'sneaky', true), '?timeout=3s');
      const answeredAfter = current.now() - sentAt;
      await Promise.all(flood);

      const response = responseOf(probe).response;
      expect({ seenByApiServer: answeredAfter < 3000, allowed: response.allowed }).toEqual({
        seenByApiServer: true,
        allowed: false,
      });
      expect(response.status?.message).toMatch(/could not be evaluated \(failure policy Fail\)/);
    },
    CASE_TIMEOUT_MS,
  );
});
