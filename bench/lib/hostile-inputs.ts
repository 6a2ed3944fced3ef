/**
 * The hostile requests of `npm run bench:hostile`, one kind per class of issue 12. Bodies are
 * built once (in memory) before the load starts, so the client spends no CPU building them while
 * the normal traffic is measured; kinds that need a different body per request vary a prefix.
 */
import { gzipSync } from 'node:zlib';
import { HOSTILE_NAMESPACE } from './hostile-rules.js';

export interface HostileRequest {
  readonly method: 'POST' | 'PUT';
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

export interface HostileKind {
  readonly name: string;
  readonly description: string;
  /** Statuses that count as a correct answer. */
  readonly expect: readonly number[];
  /**
   * The server may refuse this body before it has all been sent, cutting the connection (EPIPE or
   * ECONNRESET on the client before it reads the 400): a correct answer too.
   */
  readonly mayReset?: boolean;
  /** The request number `seq` of this kind. */
  build(seq: number): HostileRequest;
  /** A problem with a correct-status answer (its body, at most 64 KB read), or undefined. */
  check?(status: number, body: string): string | undefined;
}

const DRAGNET = '/dragnet-webhook';
const DRYRUN = '/v1/dryrun';
const JSON_TYPE = { 'content-type': 'application/json' };

/** Depth of the deep Pods: beyond the JSON depth Kubernetes accepts, and just below it. */
const DEEP = 40_000;
const DEEP_BELOW_JSON_LIMIT = 9000;
/** Depth of the dryrun object, and the items of its changed array (issue 12, class 1). */
const DRYRUN_DEEP = 1500;
const DRYRUN_ITEMS = 20_000;
const OPERATION_BYTES = 1024 * 1024;
/** The gzip bomb: copies of a gzipped 16 MB of zeros (gzip members concatenate), 1 GB inflated. */
const BOMB_CHUNK_BYTES = 16 * 1024 * 1024;
const BOMB_COPIES = 64;

/** `{"a":{"a":…{"image":"evil:1"}…}}` nested `depth` deep, as JSON text. */
function nestedJson(depth: number, leaf: string): string {
  return `${'{"a":'.repeat(depth)}${leaf}${'}'.repeat(depth)}`;
}

function review(uid: string, operation: string, kind: string, objectJson: string): string {
  const resource = `${kind.toLowerCase()}s`;
  return (
    `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":${JSON.stringify(uid)},` +
    `"kind":{"group":"","version":"v1","kind":"${kind}"},"resource":{"group":"","version":"v1","resource":"${resource}"},` +
    `"namespace":"${HOSTILE_NAMESPACE}","operation":${JSON.stringify(operation)},` +
    `"userInfo":{"username":"hostile-tenant"},"object":${objectJson},"oldObject":null,"dryRun":false}}`
  );
}

function pod(name: string, specJson: string): string {
  return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"${name}","namespace":"${HOSTILE_NAMESPACE}"},"spec":${specJson}}`;
}

function configMap(name: string, dataJson: string): string {
  return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","namespace":"${HOSTILE_NAMESPACE}"},"data":${dataJson}}`;
}

function post(body: string | Buffer, headers: Record<string, string> = JSON_TYPE): HostileRequest {
  return { method: 'POST', path: DRAGNET, headers, body: Buffer.from(body) };
}

function put(body: string): HostileRequest {
  return { method: 'PUT', path: DRYRUN, headers: JSON_TYPE, body: Buffer.from(body) };
}

/** The JSON Patch of an AdmissionReview answer, decoded; undefined when there is none. */
function answerPatch(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { response?: { patch?: unknown } };
    const patch = parsed.response?.patch;
    return typeof patch === 'string' ? Buffer.from(patch, 'base64').toString('utf8') : undefined;
  } catch {
    return undefined;
  }
}

function dryRunBody(resource: string, rule: Record<string, unknown>): string {
  const modRule = {
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name: 'dryrun-rule', namespace: HOSTILE_NAMESPACE },
    spec: rule,
  };
  return `{"resourceManifest":${resource},"modRules":[${JSON.stringify(modRule)}]}`;
}

function deepPodKind(depth: number): HostileKind {
  const body = post(
    review('deep', 'CREATE', 'Pod', pod('deep', nestedJson(depth, '{"image":"evil:1"}'))),
  );
  return {
    name: `Pod nested ${depth.toLocaleString('en-US')} deep`,
    description: `POST ${DRAGNET}: a Pod whose spec nests ${depth.toLocaleString('en-US')} objects (rule h-descent runs \`$..image\`)`,
    expect: [200, 400],
    build: () => body,
  };
}

function triggerKind(suffix: string): HostileKind {
  const body = post(
    review(`trigger-${suffix}`, 'CREATE', 'ConfigMap', configMap(`trigger-${suffix}`, '{}')),
  );
  return {
    name: `template ${suffix}`,
    description: `POST ${DRAGNET}: ConfigMap trigger-${suffix}, runs hostile rule h-${suffix}`,
    expect: [200],
    build: () => body,
  };
}

/** Every hostile request kind, for a server whose body limit is `bodyLimitBytes`. */
export function hostileKinds(
  bodyLimitBytes: number,
  templateSuffixes: readonly string[],
): HostileKind[] {
  const nestedResource = pod('dryrun-deep', nestedJson(DRYRUN_DEEP, '{"x":"y"}'));
  const items = Array.from({ length: DRYRUN_ITEMS }, (_, i) => `item-${String(i)}`);
  const arrayResource = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"list","namespace":"${HOSTILE_NAMESPACE}"},"spec":{"items":${JSON.stringify(items)}}}`;
  const replacement = JSON.stringify(items.map((item) => `new-${item}`));
  const matchAll = [{ select: '$.kind' }];
  const deepDryRun = put(
    dryRunBody(nestedResource, {
      type: 'Patch',
      match: matchAll,
      patch: [{ op: 'add', path: '/metadata/annotations/touched', value: 'seen' }],
    }),
  );
  const arrayDryRun = put(
    dryRunBody(arrayResource, {
      type: 'Patch',
      match: matchAll,
      patch: [{ op: 'replace', path: '/spec/items', value: replacement }],
    }),
  );
  const operationPad = 'O'.repeat(OPERATION_BYTES);
  const validReview = review('gz', 'CREATE', 'ConfigMap', configMap('gz', '{"a":"b"}'));
  const gzipped = gzipSync(Buffer.from(validReview));
  const corrupt = Buffer.from(gzipped);
  for (let i = 10; i < corrupt.length - 8; i += 7) corrupt[i] = (corrupt[i] ?? 0) ^ 0x5a;
  const bombChunk = gzipSync(Buffer.alloc(BOMB_CHUNK_BYTES), { level: 9 });
  const bomb = Buffer.concat(Array.from({ length: BOMB_COPIES }, () => bombChunk));
  const tooLarge = review(
    'big',
    'CREATE',
    'ConfigMap',
    configMap('big', `{"a":"${'x'.repeat(bodyLimitBytes + 1024)}"}`),
  );
  return [
    deepPodKind(DEEP),
    deepPodKind(DEEP_BELOW_JSON_LIMIT),
    {
      name: `dryrun ${DRYRUN_DEEP.toLocaleString('en-US')} deep`,
      description: `PUT ${DRYRUN}: an object nested ${DRYRUN_DEEP.toLocaleString('en-US')} deep, a rule adds an annotation (YAML diff)`,
      expect: [200, 400, 422],
      build: () => deepDryRun,
    },
    {
      name: `dryrun ${DRYRUN_ITEMS.toLocaleString('en-US')} changed items`,
      description: `PUT ${DRYRUN}: a rule replaces an array of ${DRYRUN_ITEMS.toLocaleString('en-US')} items by different ones (YAML diff)`,
      expect: [200, 400, 422],
      build: () => arrayDryRun,
    },
    {
      name: '1 MB operation',
      description: `POST ${DRAGNET}: request.operation is a different 1 MB string every time`,
      expect: [200, 400],
      build: (seq) =>
        post(review('op', `${String(seq)}-${operationPad}`, 'ConfigMap', configMap('op', '{}'))),
    },
    {
      name: 'corrupt gzip',
      description: `POST ${DRAGNET}: Content-Encoding gzip, bytes of the stream flipped`,
      expect: [400],
      build: () => post(corrupt, { ...JSON_TYPE, 'content-encoding': 'gzip' }),
    },
    {
      name: 'corrupt deflate',
      description: `POST ${DRAGNET}: Content-Encoding deflate, not a deflate stream`,
      expect: [400],
      build: () => post(validReview.slice(0, 200), { ...JSON_TYPE, 'content-encoding': 'deflate' }),
    },
    {
      name: 'gzip bomb',
      description: `POST ${DRAGNET}: ${String(Math.round(bomb.length / 1024))} KB of gzip inflating to ${String((BOMB_CHUNK_BYTES * BOMB_COPIES) / 2 ** 30)} GB of zeros`,
      expect: [400, 413],
      mayReset: true,
      build: () => post(bomb, { ...JSON_TYPE, 'content-encoding': 'gzip' }),
    },
    {
      name: 'over the body limit',
      description: `POST ${DRAGNET}: ${String(Math.round(tooLarge.length / 1024))} KB body (limit ${String(Math.round(bodyLimitBytes / 1024))} KB)`,
      // The project answers every bad input 400 (REQUEST_TOO_LARGE included); 413 is fine too.
      expect: [400, 413],
      mayReset: true,
      build: () => post(tooLarge),
    },
    {
      name: 'malformed JSON',
      description: `POST ${DRAGNET}: an AdmissionReview cut in the middle`,
      expect: [400],
      build: () => post(validReview.slice(0, Math.floor(validReview.length / 2))),
    },
    {
      name: '__proto__ data key',
      description: `POST ${DRAGNET}: ConfigMap proto with data key \`__proto__\` (rule h-proto adds an annotation)`,
      expect: [200],
      build: () =>
        post(
          review('proto', 'CREATE', 'ConfigMap', configMap('proto', '{"__proto__":"x","a":"b"}')),
        ),
      check: (_status, body) => {
        const patch = answerPatch(body);
        if (patch === undefined) return 'no patch in the answer (h-proto did not apply)';
        if (patch.includes('__proto__')) return `patch touches __proto__: ${patch.slice(0, 200)}`;
        return patch.includes('h-proto')
          ? undefined
          : `patch without h-proto: ${patch.slice(0, 200)}`;
      },
    },
    ...templateSuffixes.map(triggerKind),
  ];
}
