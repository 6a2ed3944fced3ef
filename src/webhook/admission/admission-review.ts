import { KubemodError } from '../../errors/catalog.js';
import {
  isJsonObject,
  type JsonObject,
  type JsonPatchOperation,
  type JsonValue,
} from '../../engine/json.js';
import { readUserInfo, type UserInfo } from '../../authz/author-record.js';

export const ADMISSION_API_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;
export type AdmissionApiVersion = (typeof ADMISSION_API_VERSIONS)[number];

export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** The parts of an AdmissionRequest kubemod-ts reads (identical in v1 and v1beta1). */
export interface AdmissionRequest {
  readonly uid: string;
  readonly kind: GroupVersionKind | undefined;
  readonly resource:
    { readonly group: string; readonly version: string; readonly resource: string } | undefined;
  readonly subResource: string | undefined;
  readonly name: string | undefined;
  /** '' or absent for cluster-scoped objects. */
  readonly namespace: string | undefined;
  readonly operation: string;
  readonly object: JsonObject | undefined;
  readonly oldObject: JsonObject | undefined;
  readonly dryRun: boolean;
  /**
   * The requesting user (recorded as a ModRule's author). 'too-large' when its canonical form
   * exceeds MAX_AUTHOR_CHARS; undefined when the request carries none.
   */
  readonly userInfo: UserInfo | 'too-large' | undefined;
}

export interface ParsedAdmissionReview {
  readonly apiVersion: AdmissionApiVersion;
  readonly request: AdmissionRequest;
}

export interface AdmissionResponse {
  readonly allowed: boolean;
  readonly status?: { readonly code: number; readonly message: string };
  readonly patch?: readonly JsonPatchOperation[];
  readonly warnings?: readonly string[];
}

/**
 * Checks that `body` (parsed JSON) is an AdmissionReview v1 or v1beta1 carrying a request with a
 * uid and an operation. Throws KubemodError REQUEST_MALFORMED otherwise, naming what is wrong.
 */
export function parseAdmissionReview(body: JsonValue): ParsedAdmissionReview {
  if (!isJsonObject(body)) throw malformed('the body is not a JSON object');
  const { apiVersion, kind, request } = body;
  if (kind !== 'AdmissionReview') {
    throw malformed(`expected kind AdmissionReview, got ${describe(kind)}`);
  }
  if (!isAdmissionApiVersion(apiVersion)) {
    throw malformed(
      `unsupported AdmissionReview apiVersion ${describe(apiVersion)} (supported: ${ADMISSION_API_VERSIONS.join(', ')})`,
    );
  }
  if (!isJsonObject(request)) throw malformed('the AdmissionReview has no request');
  const uid = request.uid;
  if (typeof uid !== 'string' || uid === '') throw malformed('request.uid is missing');
  const operation = request.operation;
  if (typeof operation !== 'string' || operation === '') {
    throw malformed('request.operation is missing');
  }
  return {
    apiVersion,
    request: {
      uid,
      operation,
      kind: readGvk(request.kind),
      resource: readGvr(request.resource),
      subResource: optionalString(request.subResource),
      name: optionalString(request.name),
      namespace: optionalString(request.namespace),
      object: isJsonObject(request.object) ? request.object : undefined,
      oldObject: isJsonObject(request.oldObject) ? request.oldObject : undefined,
      dryRun: request.dryRun === true,
      userInfo: readUserInfo(request.userInfo),
    },
  };
}

/** The AdmissionReview answer, in the version the request came in. The patch is base64 JSON. */
export function serializeAdmissionReview(
  apiVersion: AdmissionApiVersion,
  uid: string,
  response: AdmissionResponse,
): JsonObject {
  const out: JsonObject = { uid, allowed: response.allowed };
  if (response.status !== undefined) {
    out.status = { code: response.status.code, message: response.status.message };
  }
  if (response.patch !== undefined && response.patch.length > 0) {
    out.patchType = 'JSONPatch';
    out.patch = Buffer.from(JSON.stringify(response.patch), 'utf8').toString('base64');
  }
  if (response.warnings !== undefined && response.warnings.length > 0) {
    out.warnings = [...response.warnings];
  }
  return { apiVersion, kind: 'AdmissionReview', response: out };
}

function isAdmissionApiVersion(value: JsonValue | undefined): value is AdmissionApiVersion {
  return typeof value === 'string' && (ADMISSION_API_VERSIONS as readonly string[]).includes(value);
}

function readGvk(value: JsonValue | undefined): GroupVersionKind | undefined {
  if (!isJsonObject(value) || typeof value.kind !== 'string') return undefined;
  return {
    group: optionalString(value.group) ?? '',
    version: optionalString(value.version) ?? '',
    kind: value.kind,
  };
}

function readGvr(value: JsonValue | undefined): AdmissionRequest['resource'] {
  if (!isJsonObject(value) || typeof value.resource !== 'string') return undefined;
  return {
    group: optionalString(value.group) ?? '',
    version: optionalString(value.version) ?? '',
    resource: value.resource,
  };
}

function optionalString(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function describe(value: JsonValue | undefined): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

function malformed(message: string): KubemodError {
  return new KubemodError('REQUEST_MALFORMED', message);
}
