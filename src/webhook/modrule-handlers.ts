import { DEFAULT_ADMISSION_OPERATIONS, validateModRule } from '../api/index.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../engine/json.js';
import { createJsonPatch } from '../engine/patch/index.js';
import { checkModRule, describeInvalidModRule } from '../rules/compile-modrule.js';
import type { AdmissionRequest } from './admission-review.js';
import type { WebhookDependencies } from './dependencies.js';
import type { HandlerOutcome } from './dragnet-handler.js';

/**
 * Validating webhook for ModRules: API validation plus compilation, so bad selects, regexes,
 * templates and patch paths are refused with every field error. DELETE is always allowed.
 */
export function handleValidateModRule(
  request: AdmissionRequest,
  deps: WebhookDependencies,
): HandlerOutcome {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') {
    return { response: { allowed: true }, result: 'skipped' };
  }
  const object = request.object;
  const defaultNamespace = request.namespace ?? 'default';
  const check = checkModRule(object ?? null, {
    clusterNamespace: deps.clusterNamespace,
    defaultNamespace,
  });
  if (check.ok) return { response: { allowed: true }, result: 'allowed' };
  const message = describeInvalidModRule(check.key, check.errors);
  deps.logger.info(
    { uid: request.uid, modRule: check.key, errors: check.errors },
    'invalid ModRule refused',
  );
  return { response: { allowed: false, status: { code: 403, message } }, result: 'rejected' };
}

/**
 * Defaulting webhook for ModRules: a JSONPatch filling executionTier (0), admissionOperations
 * (CREATE, UPDATE) and match[].matchFor (Any). Invalid ModRules get no patch (the validating
 * webhook refuses them with the reasons).
 */
export function handleDefaultModRule(request: AdmissionRequest): HandlerOutcome {
  const object = request.object;
  if ((request.operation !== 'CREATE' && request.operation !== 'UPDATE') || object === undefined) {
    return { response: { allowed: true }, result: 'skipped' };
  }
  if (!validateModRule(object).ok) return { response: { allowed: true }, result: 'allowed' };
  const defaulted = withDefaults(object);
  const patch = createJsonPatch(object, defaulted, { ignoredPaths: [] });
  if (patch.length === 0) return { response: { allowed: true }, result: 'allowed' };
  return { response: { allowed: true, patch }, result: 'patched' };
}

/** A copy of a (valid) ModRule manifest with KubeMod's defaults filled in; other fields untouched. */
export function withDefaults(object: JsonObject): JsonObject {
  const copy = structuredClone(object);
  const spec = copy.spec;
  if (!isJsonObject(spec)) return copy;
  if (spec.executionTier === undefined || spec.executionTier === null) spec.executionTier = 0;
  const operations = spec.admissionOperations;
  if (!Array.isArray(operations) || operations.length === 0) {
    spec.admissionOperations = [...DEFAULT_ADMISSION_OPERATIONS];
  }
  const match: JsonValue | undefined = spec.match;
  if (Array.isArray(match)) {
    for (const item of match) {
      if (isJsonObject(item) && (item.matchFor === undefined || item.matchFor === null))
        item.matchFor = 'Any';
    }
  }
  return copy;
}
