import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonPatchOperation } from '../../engine/json.js';
import { KubemodError } from '../../errors/catalog.js';
import { createMetrics } from '../../observability/metrics.js';
import { answerAdmission, type AdmissionRoute } from './admission-listener.js';
import { SLICED_PARSE_BYTES, SLICED_PARSE_DEPTH } from '../http/json-body.js';

const REVIEW = Buffer.from(
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u1', operation: 'CREATE', object: { kind: 'ConfigMap' } },
  }),
);

/** Slicing that never yields (the clock stands still). */
const STILL = { sliceMs: 2, clock: () => 0, yieldToLoop: () => Promise.resolve() };

/** An AdmissionReview of a ConfigMap holding `bytes` bytes of data, as a Buffer. */
function largeReview(bytes: number): Buffer {
  const data = Object.fromEntries(
    Array.from({ length: Math.ceil(bytes / 100) }, (_, i) => [`k${String(i)}`, 'v'.repeat(90)]),
  );
  return Buffer.from(
    JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'big', operation: 'CREATE', object: { kind: 'ConfigMap', data } },
    }),
  );
}

describe('answerAdmission', () => {
  it('parses a large body in slices, yielding to the event loop, to the same request', async () => {
    const body = largeReview(2 * SLICED_PARSE_BYTES);
    const seen: unknown[] = [];
    const route: AdmissionRoute = {
      webhook: 'dragnet',
      handle: (request) => {
        seen.push(request.object);
        return { response: { allowed: true }, result: 'allowed' };
      },
    };
    let now = 0;
    let turns = 0;
    const slicing = {
      sliceMs: 1,
      // Each look at the clock is a millisecond later: the parse yields after every slice.
      clock: () => (now += 1),
      yieldToLoop: () => {
        turns += 1;
        return Promise.resolve();
      },
    };
    const metrics = createMetrics();
    await answerAdmission(route, body, 0, { clock: () => 0, metrics, slicing });
    expect(turns).toBeGreaterThan(5);
    const expected = (JSON.parse(body.toString('utf8')) as { request: { object: unknown } }).request
      .object;
    expect(seen).toEqual([expected]);

    // A small body is parsed at once by JSON.parse, which never looks at the slicing clock…
    let looks = 0;
    const counting = { ...STILL, clock: () => ((looks += 1), 0) };
    await answerAdmission(route, REVIEW, 0, { clock: () => 0, metrics, slicing: counting });
    expect(looks).toBe(0);

    // …even when it nests deep, up to exactly SLICED_PARSE_DEPTH (three levels are the review's own)…
    const nestedBody = (depth: number): Buffer =>
      Buffer.from(
        `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"d","operation":"CREATE","object":{"kind":"ConfigMap","data":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}}}`,
      );
    await answerAdmission(route, nestedBody(SLICED_PARSE_DEPTH - 3), 0, {
      clock: () => 0,
      metrics,
      slicing: counting,
    });
    expect(looks).toBe(0);

    // …unless it nests deeper than SLICED_PARSE_DEPTH (JSON.parse slows down with depth).
    const deepBody = nestedBody(SLICED_PARSE_DEPTH + 50);
    expect(deepBody.length).toBeLessThan(SLICED_PARSE_BYTES);
    seen.length = 0;
    await answerAdmission(route, deepBody, 0, { clock: () => 0, metrics, slicing: counting });
    expect(looks).toBeGreaterThan(0);
    expect(seen).toEqual([
      (JSON.parse(deepBody.toString('utf8')) as { request: { object: unknown } }).request.object,
    ]);
  });

  it('refuses a large malformed body with REQUEST_MALFORMED naming the byte', async () => {
    const body = largeReview(2 * SLICED_PARSE_BYTES);
    const cut = body.subarray(0, body.length - 10);
    const route: AdmissionRoute = {
      webhook: 'dragnet',
      handle: () => ({ response: { allowed: true }, result: 'allowed' }),
    };
    const failure = await answerAdmission(route, cut, 0, {
      clock: () => 0,
      metrics: createMetrics(),
      slicing: STILL,
    }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(KubemodError);
    expect((failure as KubemodError).kind).toBe('REQUEST_MALFORMED');
    expect((failure as KubemodError).message).toMatch(
      /^request body is not valid JSON: .* at byte \d+$/,
    );
  });

  it('allows unchanged with a warning when the patch cannot be written', async () => {
    const deep: JsonObject = {};
    let node = deep;
    for (let i = 0; i < 100_000; i++) {
      const next: JsonObject = {};
      node.a = next;
      node = next;
    }
    const patch: JsonPatchOperation[] = [{ op: 'add', path: '/x', value: deep }];
    const route: AdmissionRoute = {
      webhook: 'dragnet',
      handle: () => ({ response: { allowed: true, patch }, result: 'patched' }),
    };
    const metrics = createMetrics();
    const answer = (await answerAdmission(route, REVIEW, 0, {
      clock: () => 0,
      metrics,
      slicing: STILL,
    })) as {
      response: { allowed: boolean; patch?: string; warnings?: string[] };
    };
    expect(answer.response.allowed).toBe(true);
    expect(answer.response.patch).toBeUndefined();
    expect(answer.response.warnings).toEqual([
      expect.stringMatching(/^kubemod-ts: ModRules not applied, the patch cannot be written: /),
    ]);
    expect(await metrics.render()).toContain(
      'kubemod_webhook_requests_total{webhook="dragnet",operation="CREATE",result="error"} 1',
    );
  });
});
