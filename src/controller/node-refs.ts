import type { JsonObject } from '../engine/json.js';
import { describeError } from '../errors/catalog.js';
import type { Logger } from '../observability/logger.js';
import type { NodeRefBinder, SyntheticRefLookups } from '../webhook/dependencies.js';
import type { Informer } from './informer.js';
import { isStatus, type KubeClient } from './kube-client.js';

export const INJECT_NODE_REF_ANNOTATION = 'ref.kubemod.io/inject-node-ref';
export const NODE_NAME_ANNOTATION = 'ref.kubemod.io/nodename';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The JSON patch that annotates a Pod with its node, guarded by a `test` of the opt-in
 * annotation: one request, no read-modify-write, and a Pod without the opt-in is left alone
 * (the API server refuses the patch with 422 when the test fails). Requires the Pod to have
 * annotations, which it does whenever the opt-in annotation is present.
 */
export function nodeRefPatch(nodeName: string): readonly JsonObject[] {
  return [
    {
      op: 'test',
      path: `/metadata/annotations/${escapePointer(INJECT_NODE_REF_ANNOTATION)}`,
      value: 'true',
    },
    {
      op: 'add',
      path: `/metadata/annotations/${escapePointer(NODE_NAME_ANNOTATION)}`,
      value: nodeName,
    },
  ];
}

/** `nodeRefs.bind` for the podbinding webhook. */
export function createNodeRefBinder(client: KubeClient, logger: Logger): NodeRefBinder {
  return {
    async bind(namespace, podName, nodeName): Promise<void> {
      try {
        await client.request({
          method: 'PATCH',
          path: `/api/v1/namespaces/${namespace}/pods/${podName}`,
          body: nodeRefPatch(nodeName),
          contentType: 'application/json-patch+json',
          discardResponse: true,
        });
        logger.debug(
          { pod: `${namespace}/${podName}`, node: nodeName },
          'annotated pod with its node',
        );
      } catch (err) {
        // 422: the test op failed, i.e. the pod did not opt in. 404: the pod is gone.
        if (isStatus(err, 422) || isStatus(err, 404)) return;
        logger.warn(
          { pod: `${namespace}/${podName}`, node: nodeName, err: describeError(err) },
          'could not annotate pod with its node',
        );
      }
    },
  };
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
