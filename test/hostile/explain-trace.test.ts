import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ExplainDocument } from '../../src/engine/explain/index.js';
import type { JsonObject } from '../../src/engine/json.js';
import { CASE_TIMEOUT_MS } from './support/bounds.js';
import {
  deepMixedJson,
  manifestJson,
  wideArrayJson,
  wideObjectJson,
} from './support/generators.js';
import {
  dryrunJson,
  expectBounded,
  hostileRequest,
  modRule,
  PATHS,
  startHostileServer,
  type HostileServer,
} from './support/server.js';

// Issue #13 (explain): `PUT /v1/dryrun?explain=true` records a trace of every rule. Whatever the
// object and the rules hold, the trace stays bounded (values cut, lists and nodes capped, a size
// limit) and explaining costs no more than a bounded amount of time on top of the evaluation.

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
});

interface Explained {
  patch: unknown[];
  rejections: string[];
  failures: unknown[];
  explain: ExplainDocument;
}

/** Largest explain answer accepted: the 1 MiB detail limit plus the nodes of 100 rules. */
const MAX_EXPLAIN_CHARS = 3 * 1024 * 1024;

async function explainRun(body: string): Promise<Explained> {
  const measured = await hostileRequest(server, 'PUT', `${PATHS.dryrun}?explain=true`, body);
  expect(measured.value.status, measured.value.text.slice(0, 300)).toBe(200);
  expectBounded(measured);
  const answer = JSON.parse(measured.value.text) as Explained;
  expect(answer.explain.explainVersion).toBe(1);
  expect(JSON.stringify(answer.explain).length).toBeLessThan(MAX_EXPLAIN_CHARS);
  return answer;
}

/** The most rules a dry run takes, each selecting everything under spec and patching every item. */
function greedyRules(count: number): JsonObject[] {
  return Array.from({ length: count }, (_, i) =>
    modRule(`greedy-${String(i).padStart(3, '0')}`, {
      type: 'Patch',
      match: [{ select: '$.spec..*' }, { select: '$.spec.items[*]', matchRegex: '^v' }],
      patch: [
        {
          op: 'replace',
          select: '$.spec.items[*]',
          path: '/spec/items/#0',
          value: '"{{ .SelectedItem }}-{{ .Target.metadata.name }}"',
        },
      ],
    }),
  );
}

describe('PUT /v1/dryrun?explain=true under hostile input', () => {
  it(
    '100 greedy rules on 5,000 items: bounded trace and answer, no stall',
    async () => {
      const spec = `{"items":${wideArrayJson(5_000, `"v${'x'.repeat(300)}"`)}}`;
      const answer = await explainRun(dryrunJson(manifestJson(spec), greedyRules(100)));
      expect(answer.explain.truncated).toBe(true);
      expect(answer.explain.summary.rules).toBe(100);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'a map of 150,000 keys printed by 100 rules: bounded (a key budget, no full sorts)',
    async () => {
      const rules = Array.from({ length: 100 }, (_, i) =>
        modRule(`map-${String(i)}`, {
          type: 'Patch',
          match: [{ select: '$.spec.map' }],
          patch: [{ op: 'add', path: `/metadata/labels/seen${String(i)}`, value: 'yes' }],
        }),
      );
      const spec = `{"map":${wideObjectJson(150_000)}}`;
      const answer = await explainRun(dryrunJson(manifestJson(spec), rules));
      expect(answer.explain.summary.rules).toBe(100);
    },
    CASE_TIMEOUT_MS,
  );

  it(
    'values nested 9,000 deep: printed up to the value length only',
    async () => {
      const rule = modRule('deep', {
        type: 'Patch',
        match: [{ select: '$.spec' }],
        patch: [{ op: 'add', path: '/metadata/labels/deep', value: 'yes' }],
      });
      const answer = await explainRun(dryrunJson(manifestJson(deepMixedJson(9000)), [rule]));
      const [ruleNode] = answer.explain.children;
      expect(JSON.stringify(ruleNode).length).toBeLessThan(20_000);
    },
    CASE_TIMEOUT_MS,
  );
});
