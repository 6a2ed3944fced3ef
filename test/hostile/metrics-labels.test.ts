import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASE_TIMEOUT_MS, MAX_METRICS_BYTES } from './support/bounds.js';
import { manifestJson } from './support/generators.js';
import { measure } from './support/measure.js';
import {
  expectBounded,
  expectPromptAnswer,
  hostileRequest,
  PATHS,
  reviewJson,
  startHostileServer,
  type HostileServer,
} from './support/server.js';

// Issue #12, class 3: no string the client controls (here `request.operation`) may become a
// Prometheus label value unbounded.

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

const MARKER = 'hostileop';

async function metricsPage(): Promise<string> {
  const answer = await server.scrape();
  expect(answer.status).toBe(200);
  return answer.text;
}

describe('request.operation as a metrics label', () => {
  it(
    '1 MB operations on every admission path leave /metrics small and free of them',
    async () => {
      const huge = MARKER + 'X'.repeat(1024 * 1024);
      const object = manifestJson('{}');
      for (const path of [
        PATHS.dragnet,
        PATHS.validate,
        '/mutate-api-kubemod-io-v1beta1-modrule',
        '/podbinding-webhook',
      ]) {
        for (let i = 0; i < 3; i++) {
          const measured = await hostileRequest(
            server,
            'POST',
            path,
            reviewJson(object, { operation: `${huge}${String(i)}` }),
          );
          expectBounded(measured);
          expect(measured.value.status).toBeLessThan(500);
        }
      }
      const page = await metricsPage();
      expect(page.length).toBeLessThan(MAX_METRICS_BYTES);
      expect(page).not.toContain(MARKER);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'thousands of distinct random operations keep /metrics bounded',
    async () => {
      const operations = fc.sample(
        fc.oneof(
          fc.string({ minLength: 1, maxLength: 40 }),
          fc.constantFrom('CREATE', 'create', 'Update', 'DELETE ', 'CONNECT', ''),
        ),
        { numRuns: 300, seed: 12 },
      );
      const object = manifestJson('{}');
      const measured = await measure(async () => {
        for (let i = 0; i < operations.length; i += 50) {
          const batch = operations.slice(i, i + 50);
          const answers = await Promise.all(
            batch.map((operation, j) =>
              server.send(
                'POST',
                PATHS.dragnet,
                reviewJson(object, { operation: `${MARKER}${operation}${String(i + j)}` }),
              ),
            ),
          );
          for (const answer of answers) expect(answer.status).toBeLessThan(500);
        }
      });
      expect(measured.blockedMs).toBeLessThan(500);
      await expectPromptAnswer(server);
      const page = await metricsPage();
      expect(page.length).toBeLessThan(MAX_METRICS_BYTES);
      expect(page).not.toContain(MARKER);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'other request strings (kind, resource, namespace, uid) never become labels either',
    async () => {
      const review = JSON.parse(reviewJson(manifestJson('{}'))) as {
        request: Record<string, unknown>;
      };
      const long = `${MARKER}${'Y'.repeat(100_000)}`;
      review.request.uid = long;
      review.request.namespace = long;
      review.request.kind = { group: long, version: long, kind: long };
      review.request.resource = { group: long, version: long, resource: long };
      review.request.subResource = long;
      review.request.userInfo = { username: long, groups: [long] };
      const measured = await hostileRequest(server, 'POST', PATHS.dragnet, JSON.stringify(review));
      expectBounded(measured);
      expect(measured.value.status).toBeLessThan(500);
      const page = await metricsPage();
      expect(page.length).toBeLessThan(MAX_METRICS_BYTES);
      expect(page).not.toContain(MARKER);
    },
    CASE_TIMEOUT_MS,
  );
});
