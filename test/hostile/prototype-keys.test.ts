import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CASE_TIMEOUT_MS } from './support/bounds.js';
import {
  admissionAnswer,
  dryrunJson,
  expectBounded,
  hostileRequest,
  modRule,
  PATHS,
  patchOf,
  reviewJson,
  startHostileServer,
  type HostileServer,
} from './support/server.js';

// Issue #12, class 7: `__proto__`, `constructor` and `prototype` are legal keys (ConfigMap data,
// labels, annotations, CRD fields). They must survive the engine's copies: an unrelated rule's
// patch is exactly its own operation, and no rule can pollute Object.prototype.

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer();
});
afterAll(async () => {
  await server.close();
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

const LABEL_RULE = `
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: add-label, namespace: team }
spec:
  type: Patch
  match:
    - select: '$.kind'
      matchValue: ConfigMap
  patch:
    - op: add
      path: /metadata/labels/touched
      value: '"yes"'
`;

const LABEL_OP = { op: 'add', path: '/metadata/labels/touched', value: 'yes' };

/** Manifests as JSON text: a JS object literal with a `__proto__` key would set the prototype. */
const OBJECTS: [string, string][] = [
  [
    'a __proto__ key in ConfigMap data',
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p","namespace":"team","labels":{"a":"b"}},"data":{"__proto__":"x","a":"b"}}',
  ],
  [
    '__proto__, constructor and prototype keys everywhere',
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p","namespace":"team","labels":{"__proto__":"l","constructor":"c"},"annotations":{"prototype":"p","__proto__":"a"}},"data":{"__proto__":"x","constructor":"y","toString":"z","hasOwnProperty":"h","valueOf":"v"}}',
  ],
  [
    'a __proto__ object holding polluting keys',
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p","namespace":"team","labels":{"a":"b"}},"spec":{"__proto__":{"polluted":"yes","kind":"Secret"},"constructor":{"prototype":{"polluted":"yes"}}}}',
  ],
  [
    'a __proto__ key in a list item',
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p","namespace":"team","labels":{"a":"b"}},"spec":{"items":[{"__proto__":"x"},{"__proto__":{"__proto__":"y"}}]}}',
  ],
];

describe('prototype-named keys through the dragnet webhook', () => {
  it.each(OBJECTS)(
    '%s: the patch is exactly the label op',
    async (_name, object) => {
      server.useRules(LABEL_RULE);
      const measured = await hostileRequest(server, 'POST', PATHS.dragnet, reviewJson(object));
      expect(measured.value.status, measured.value.text.slice(0, 300)).toBe(200);
      expectBounded(measured);
      expect(patchOf(admissionAnswer(measured.value))).toEqual([LABEL_OP]);
      expect(server.failures).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
    CASE_TIMEOUT_MS,
  );
});

describe('prototype-named keys through /v1/dryrun', () => {
  it.each(OBJECTS)(
    '%s: exactly the label op and a diff of one line',
    async (_name, object) => {
      const rule = modRule('add-label', {
        type: 'Patch',
        match: [{ select: '$.kind', matchValue: 'ConfigMap' }],
        patch: [{ op: 'add', path: '/metadata/labels/touched', value: '"yes"' }],
      });
      const measured = await hostileRequest(
        server,
        'PUT',
        PATHS.dryrun,
        dryrunJson(object, [rule]),
      );
      expect(measured.value.status, measured.value.text.slice(0, 300)).toBe(200);
      const answer = JSON.parse(measured.value.text) as { patch: unknown[]; diff: string };
      expect(answer.patch).toEqual([LABEL_OP]);
      const changed = answer.diff.split('\n').filter((line) => /^[+-](?![+-]{2})/.test(line));
      expect(changed).toHaveLength(1);
      expect(changed[0]).toMatch(/^\+\s+touched: /);
    },
    CASE_TIMEOUT_MS,
  );
});

describe('rules that write prototype-named keys', () => {
  it(
    'add /data/__proto__ and /metadata/labels/constructor are plain keys; nothing is polluted',
    async () => {
      server.useRules(`
apiVersion: api.kubemod.io/v1beta1
kind: ModRule
metadata: { name: write-proto, namespace: team }
spec:
  type: Patch
  match:
    - select: '$.kind'
  patch:
    - op: add
      path: /data/__proto__
      value: '{"polluted": "yes"}'
    - op: add
      path: /metadata/labels/constructor
      value: '"c"'
`);
      const object =
        '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"p","namespace":"team","labels":{"a":"b"}},"data":{"a":"b"}}';
      const measured = await hostileRequest(server, 'POST', PATHS.dragnet, reviewJson(object));
      expect(measured.value.status).toBe(200);
      const patch = patchOf(admissionAnswer(measured.value));
      expect(patch).toContainEqual({ op: 'add', path: '/metadata/labels/constructor', value: 'c' });
      expect(patch).toContainEqual({
        op: 'add',
        path: '/data/__proto__',
        value: { polluted: 'yes' },
      });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
    CASE_TIMEOUT_MS,
  );
});
