import { describeError } from '../../errors/catalog.js';
import { isJsonObject } from '../../engine/json.js';
import type { AdmissionRequest } from './admission-review.js';
import type { WebhookDependencies } from '../dependencies.js';
import type { HandlerOutcome } from './dragnet-handler.js';

/**
 * The `pods/binding` webhook. When a Pod is bound to a node, hands (namespace, pod, node) to the
 * injected NodeRefBinder, which annotates the Pod with ref.kubemod.io/nodename if it asked for it
 * and the API server confirms the binding (the webhook port does not authenticate its caller: a
 * review may be forged). The binder runs after the answer (never on the request path); the
 * request is always allowed.
 */
export function handlePodBinding(
  request: AdmissionRequest,
  deps: WebhookDependencies,
  track: (work: Promise<void>) => void,
): HandlerOutcome {
  const binding = request.object;
  const isBinding =
    request.operation === 'CREATE' &&
    (request.subResource === 'binding' || binding?.kind === 'Binding') &&
    binding !== undefined;
  // A dry-run binding must have no side effects (the webhook declares sideEffects: NoneOnDryRun).
  if (!isBinding || request.dryRun) return { response: { allowed: true }, result: 'skipped' };
  const target = binding.target;
  const nodeName =
    isJsonObject(target) && typeof target.name === 'string' ? target.name : undefined;
  const metadata = binding.metadata;
  const podName =
    request.name ??
    (isJsonObject(metadata) && typeof metadata.name === 'string' ? metadata.name : undefined);
  const namespace = request.namespace;
  if (nodeName === undefined || podName === undefined || namespace === undefined) {
    deps.logger.debug(
      { uid: request.uid },
      'pod binding without pod, namespace or node name; ignored',
    );
    return { response: { allowed: true }, result: 'skipped' };
  }
  const binder = deps.nodeRefs;
  if (binder === undefined) return { response: { allowed: true }, result: 'allowed' };
  const work = Promise.resolve()
    .then(() => binder.bind(namespace, podName, nodeName))
    .then(
      () => {
        deps.logger.debug(
          { uid: request.uid, pod: `${namespace}/${podName}`, node: nodeName },
          'pod node reference handled',
        );
      },
      (err: unknown) => {
        deps.logger.error(
          { uid: request.uid, pod: `${namespace}/${podName}`, node: nodeName, err },
          `cannot record the node of pod ${namespace}/${podName}: ${describeError(err)}`,
        );
      },
    );
  track(work);
  return { response: { allowed: true }, result: 'allowed' };
}
