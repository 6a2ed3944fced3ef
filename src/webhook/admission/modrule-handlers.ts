import { DEFAULT_ADMISSION_OPERATIONS } from '../../api/index.js';
import { validateModRule } from '../../engine/validate-modrule.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../engine/json.js';
import { createJsonPatch } from '../../engine/patch/index.js';
import { checkModRule, describeInvalidModRule } from '../../rules/compile-modrule.js';
import { AUTHOR_ANNOTATION, authorAnnotationOf } from '../../authz/author-record.js';
import { AUTHOR_MAC_ANNOTATION } from '../../authz/author-signature.js';
import { authorAnnotationsFor, type AuthorAnnotations } from '../../authz/author-update.js';
import type { AdmissionRequest } from './admission-review.js';
import type { WebhookDependencies } from '../dependencies.js';
import type { HandlerOutcome } from './dragnet-handler.js';
import { literalLookupErrors } from './literal-lookup-review.js';
import type { ModRuleSpec } from '../../api/modrule-types.js';

/**
 * Validating webhook for ModRules: API validation plus compilation, so bad selects, regexes,
 * templates and patch paths are refused with every field error. DELETE is always allowed.
 */
export async function handleValidateModRule(
  request: AdmissionRequest,
  deps: WebhookDependencies,
): Promise<HandlerOutcome> {
  if (request.operation !== 'CREATE' && request.operation !== 'UPDATE') {
    return { response: { allowed: true }, result: 'skipped' };
  }
  const object = request.object;
  const defaultNamespace = request.namespace ?? 'default';
  const check = checkModRule(object ?? null, {
    clusterNamespace: deps.clusterNamespace,
    defaultNamespace,
  });
  if (!check.ok) {
    const message = describeInvalidModRule(check.key, check.errors);
    deps.logger.info(
      { uid: request.uid, modRule: check.key, errors: check.errors },
      'invalid ModRule refused',
    );
    return { response: { allowed: false, status: { code: 403, message } }, result: 'rejected' };
  }
  // Defence in depth: the mutating webhook wrote the requester as the author (or kept the
  // previous record). A different value here means something after it (another mutating
  // webhook, a configuration without mmodrule.kubemod.io) let a forged author through: refuse
  // rather than trust it. The MAC is not compared: a forged one does not verify when read.
  const expected = authorFor(
    request,
    deps,
    object === undefined ? undefined : withDefaults(object),
  );
  const actual = object === undefined ? undefined : authorAnnotationOf(object);
  if (actual === expected.record)
    // A record kept from an earlier write: its lookups were reviewed then, for that author.
    return expected.kept
      ? { response: { allowed: true }, result: 'allowed' }
      : reviewLiteralLookups(request, check.modRule, check.rule.key, deps);
  const what = expected.kept
    ? 'the previous author record (an update that changes neither the spec nor a behaviour annotation keeps it)'
    : expected.record === undefined
      ? 'absent'
      : "the requesting user's identity";
  const message = `ModRule ${check.rule.key} is invalid: metadata.annotations[${AUTHOR_ANNOTATION}]: must be ${what}, as the mutating webhook mmodrule.kubemod.io writes it (is that webhook installed, and does another mutating webhook change the annotation?)`;
  deps.logger.warn(
    { uid: request.uid, modRule: check.rule.key, user: userOf(request) },
    'ModRule with a forged author refused',
  );
  return { response: { allowed: false, status: { code: 403, message } }, result: 'rejected' };
}

/**
 * The last check: the requesting user may `get` every object the rule's lookups name literally
 * (docs/lookups-operator.md); the operator asks the API server, a standalone webhook has no check.
 */
async function reviewLiteralLookups(
  request: AdmissionRequest,
  rule: { readonly spec: ModRuleSpec },
  key: string,
  deps: WebhookDependencies,
): Promise<HandlerOutcome> {
  const user = request.userInfo;
  if (deps.lookupAdmission === undefined || user === undefined || user === 'too-large')
    return { response: { allowed: true }, result: 'allowed' };
  const errors = await literalLookupErrors(rule, user, deps.lookupAdmission);
  if (errors.length === 0) return { response: { allowed: true }, result: 'allowed' };
  deps.logger.info(
    { uid: request.uid, modRule: key, errors },
    'ModRule naming what its author may not read refused',
  );
  return {
    response: {
      allowed: false,
      status: { code: 403, message: describeInvalidModRule(key, errors) },
    },
    result: 'rejected',
  };
}

/** The author annotations a ModRule written by this request must carry (`object` with defaults). */
function authorFor(
  request: AdmissionRequest,
  deps: Pick<WebhookDependencies, 'authorSigner'>,
  object: JsonObject | undefined,
): AuthorAnnotations {
  const old = request.oldObject;
  return authorAnnotationsFor(
    {
      operation: request.operation,
      userInfo: request.userInfo,
      namespace: request.namespace ?? '',
      // The request's name: '' under generateName, in both webhooks (the MAC needs the name).
      name: request.name ?? '',
      object: object ?? {},
      oldObject: old === undefined ? undefined : defaultedIfValid(old),
    },
    deps.authorSigner,
  );
}

function defaultedIfValid(object: JsonObject): JsonObject {
  return validateModRule(object).ok ? withDefaults(object) : object;
}

function userOf(request: AdmissionRequest): string | undefined {
  const user = request.userInfo;
  return user === undefined || user === 'too-large' ? undefined : user.username;
}

/**
 * Defaulting webhook for ModRules: a JSONPatch filling executionTier (0), admissionOperations
 * (CREATE, UPDATE) and match[].matchFor (Any) on valid rules, and on every rule writing its
 * author (annotations api.kubemod.io/author and author-mac), replacing whatever the request
 * carried: the previous record when an UPDATE changes neither the spec nor a behaviour
 * annotation, the requesting user (signed) otherwise; without a recordable user the annotations
 * are removed ("author unknown"). Invalid ModRules are otherwise left to the validating webhook,
 * which refuses them.
 */
export function handleDefaultModRule(
  request: AdmissionRequest,
  deps: Pick<WebhookDependencies, 'authorSigner'>,
): HandlerOutcome {
  const object = request.object;
  if ((request.operation !== 'CREATE' && request.operation !== 'UPDATE') || object === undefined) {
    return { response: { allowed: true }, result: 'skipped' };
  }
  const defaulted = validateModRule(object).ok ? withDefaults(object) : structuredClone(object);
  const author = authorFor(request, deps, defaulted);
  withAnnotation(defaulted, AUTHOR_ANNOTATION, author.record);
  withAnnotation(defaulted, AUTHOR_MAC_ANNOTATION, author.mac);
  const patch = createJsonPatch(object, defaulted, { ignoredPaths: [] });
  const warnings =
    request.userInfo === 'too-large' && !author.kept
      ? {
          warnings: [
            "the author of this ModRule was not recorded (the user's identity is over 16 KiB): apply-to-existing and the periodic audit's count will not run for it",
          ],
        }
      : {};
  if (patch.length === 0) return { response: { allowed: true, ...warnings }, result: 'allowed' };
  return { response: { allowed: true, patch, ...warnings }, result: 'patched' };
}

/** Sets (or, for undefined, removes) an annotation of a ModRule manifest in place. */
function withAnnotation(object: JsonObject, key: string, value: string | undefined): void {
  if (!isJsonObject(object.metadata)) {
    if (value === undefined) return;
    object.metadata = {};
  }
  const metadata = object.metadata;
  if (!isJsonObject(metadata.annotations)) {
    if (value === undefined) return;
    metadata.annotations = {};
  }
  const annotations = metadata.annotations;
  if (value === undefined) Reflect.deleteProperty(annotations, key);
  else annotations[key] = value;
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
