import { isJsonObject, type JsonObject } from '../engine/json.js';
import { describeError } from '../errors/catalog.js';
import type { Logger } from '../observability/logger.js';
import type { NodeRefBinder, SyntheticRefLookups } from '../webhook/dependencies.js';
import type { Informer } from '../kube/informer.js';
import { isStatus, type KubeClient } from '../kube/kube-client.js';

export const INJECT_NODE_REF_ANNOTATION = 'ref.kubemod.io/inject-node-ref';
export const NODE_NAME_ANNOTATION = 'ref.kubemod.io/nodename';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The JSON patch that annotates a Pod with its node, guarded by `test`s of the opt-in annotation
 * and of the node the Pod is bound to: one request, no read-modify-write, and a Pod that did not
 * opt in, or is not bound to that node, is left alone (the API server refuses the patch with 422
 * when a test fails). Requires the Pod to have annotations, which it does whenever the opt-in
 * annotation is present.
 */
export function nodeRefPatch(nodeName: string): readonly JsonObject[] {
  return [
    {
      op: 'test',
      path: `/metadata/annotations/${escapePointer(INJECT_NODE_REF_ANNOTATION)}`,
      value: 'true',
    },
    { op: 'test', path: '/spec/nodeName', value: nodeName },
    {
      op: 'add',
      path: `/metadata/annotations/${escapePointer(NODE_NAME_ANNOTATION)}`,
      value: nodeName,
    },
  ];
}

/** How long a binding is awaited, and how many run at once (see createNodeRefBinder). */
export interface NodeRefTiming {
  /** Waits before each look at the Pod, in ms: the first is usually 0. */
  readonly delaysMs: readonly number[];
  readonly sleep: (ms: number) => Promise<void>;
  /** Bindings being checked at once; more are dropped with a warning. */
  readonly maxInFlight: number;
}

/**
 * About 6 s in all: kube-scheduler's binding is persisted milliseconds after the webhook answers,
 * so the second look nearly always finds it; a binding another webhook refuses is never found.
 */
export const DEFAULT_NODE_REF_TIMING: NodeRefTiming = Object.freeze({
  delaysMs: Object.freeze([0, 100, 200, 400, 800, 1600, 3200]),
  sleep: (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)),
  maxInFlight: 256,
});

/**
 * `nodeRefs.bind` for the podbinding webhook. The review it is called for proves nothing: the
 * webhook port does not authenticate its caller, and the API server calls it before the binding is
 * stored (and another webhook may still refuse it). So the binder asks the API server: it reads
 * the Pod until its `spec.nodeName` is set (DEFAULT_NODE_REF_TIMING), annotates it only when that
 * is the node the review names (the patch tests it again), and otherwise logs a warning and
 * writes nothing. A Pod that did not opt in costs one GET, as it cost one PATCH before.
 */
export function createNodeRefBinder(
  client: KubeClient,
  logger: Logger,
  timing: NodeRefTiming = DEFAULT_NODE_REF_TIMING,
): NodeRefBinder {
  let inFlight = 0;
  return {
    async bind(namespace, podName, nodeName): Promise<void> {
      const pod = `${namespace}/${podName}`;
      if (inFlight >= timing.maxInFlight) {
        logger.warn(
          { pod, node: nodeName, inFlight },
          'too many pod bindings being checked; node reference not recorded',
        );
        return;
      }
      inFlight += 1;
      try {
        await bindChecked(client, logger, timing, { namespace, podName, nodeName });
      } catch (err) {
        logger.warn(
          { pod, node: nodeName, err: describeError(err) },
          'could not annotate pod with its node',
        );
      } finally {
        inFlight -= 1;
      }
    },
  };
}

async function bindChecked(
  client: KubeClient,
  logger: Logger,
  timing: NodeRefTiming,
  target: { namespace: string; podName: string; nodeName: string },
): Promise<void> {
  const { namespace, podName, nodeName } = target;
  const path = `/api/v1/namespaces/${encodeURIComponent(namespace)}/pods/${encodeURIComponent(podName)}`;
  const pod = `${namespace}/${podName}`;
  for (const delay of timing.delaysMs) {
    if (delay > 0) await timing.sleep(delay);
    let live: JsonObject;
    try {
      live = await client.request({ method: 'GET', path });
    } catch (err) {
      if (isStatus(err, 404)) return; // the pod is gone
      throw err;
    }
    if (annotation(live, INJECT_NODE_REF_ANNOTATION) !== 'true') return; // did not opt in
    const bound = boundNode(live);
    if (bound === undefined) continue; // the binding is not stored (yet)
    if (bound !== nodeName) {
      logger.warn(
        { pod, node: nodeName, boundTo: bound },
        `binding review names node ${nodeName} but pod ${pod} is bound to ${bound}; not annotated (a review not sent by the API server?)`,
      );
      return;
    }
    if (annotation(live, NODE_NAME_ANNOTATION) === nodeName) return;
    try {
      await client.request({
        method: 'PATCH',
        path,
        body: nodeRefPatch(nodeName),
        contentType: 'application/json-patch+json',
        discardResponse: true,
      });
    } catch (err) {
      // 422: a test failed (the opt-in was removed meanwhile). 404: the pod is gone.
      if (isStatus(err, 422) || isStatus(err, 404)) return;
      throw err;
    }
    logger.debug({ pod, node: nodeName }, 'annotated pod with its node');
    return;
  }
  logger.warn(
    { pod, node: nodeName },
    `binding review names node ${nodeName} but pod ${pod} is not bound; not annotated (a review not sent by the API server, or a binding refused after it)`,
  );
}

function annotation(obj: JsonObject, key: string): string | undefined {
  const metadata = obj.metadata;
  if (!isJsonObject(metadata) || !isJsonObject(metadata.annotations)) return undefined;
  const value = metadata.annotations[key];
  return typeof value === 'string' ? value : undefined;
}

function boundNode(obj: JsonObject): string | undefined {
  const spec = obj.spec;
  if (!isJsonObject(spec)) return undefined;
  return typeof spec.nodeName === 'string' && spec.nodeName !== '' ? spec.nodeName : undefined;
}

/** A namespace manifest without managedFields and kubectl's last-applied-configuration. */
export function stripNamespace(obj: JsonObject): JsonObject {
  const metadata = obj.metadata;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) return obj;
  const rest = { ...metadata };
  delete rest.managedFields;
  const annotations = rest.annotations;
  if (
    typeof annotations === 'object' &&
    annotations !== null &&
    !Array.isArray(annotations) &&
    LAST_APPLIED in annotations
  ) {
    rest.annotations = Object.fromEntries(
      Object.entries(annotations).filter(([key]) => key !== LAST_APPLIED),
    );
  }
  return { ...obj, metadata: rest };
}

/** syntheticRefs lookups served from the Namespace and Node informer caches (no API call). */
export function informerRefs(namespaces: Informer, nodes: Informer): SyntheticRefLookups {
  const stripped = new WeakMap<JsonObject, JsonObject>();
  return {
    namespace(name): JsonObject | undefined {
      const obj = namespaces.get(name);
      if (obj === undefined) return undefined;
      let clean = stripped.get(obj);
      if (clean === undefined) {
        clean = stripNamespace(obj);
        stripped.set(obj, clean);
      }
      return clean;
    },
    node: (name) => nodes.get(name),
  };
}
