import type { JsonObject } from '../engine/json.js';
import { isJsonObject } from '../engine/json.js';
import { describeError } from '../errors/catalog.js';
import type { KubeClient } from '../kube/kube-client.js';
import type { UserInfo } from './author-record.js';

/**
 * Access reviews asked of the API server for lookups: SubjectAccessReview for a recorded user (a
 * rule's author, or the user of a request), SelfSubjectAccessReview for the operator itself, with
 * the identity (user, uid, groups, extra) of the recorded user. Shared by lookups and by the
 * apply-to-existing gate (apply-gate-kube.ts), which puts its rate limit and cache in front.
 */
export interface ResourceAttributes {
  readonly verb: string;
  /** '' for the core group. */
  readonly group: string;
  readonly resource: string;
  /** '' for cluster-scoped objects and for all namespaces. */
  readonly namespace: string;
  readonly name?: string;
}

/** A review that could not be asked (the API server unreachable or refusing the review itself). */
export class AccessReviewFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccessReviewFailed';
  }
}

const REVIEWS = '/apis/authorization.k8s.io/v1';

function allowedOf(review: JsonObject): boolean {
  const status = review.status;
  return isJsonObject(status) && status.allowed === true && status.denied !== true;
}

/** The `spec` identity fields of a SubjectAccessReview for a user. */
export function subjectOf(user: UserInfo): JsonObject {
  return {
    user: user.username,
    ...(user.uid === undefined ? {} : { uid: user.uid }),
    groups: [...user.groups],
    extra: Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]])),
  };
}

/** Asks one review of the API server: whether it is allowed. Throws AccessReviewFailed. */
export async function askAccessReview(
  client: KubeClient,
  kind: 'SubjectAccessReview' | 'SelfSubjectAccessReview',
  spec: JsonObject,
  attributes: ResourceAttributes,
): Promise<boolean> {
  try {
    const answer = await client.request({
      method: 'POST',
      path: `${REVIEWS}/${kind === 'SubjectAccessReview' ? 'subjectaccessreviews' : 'selfsubjectaccessreviews'}`,
      body: {
        apiVersion: 'authorization.k8s.io/v1',
        kind,
        spec: { ...spec, resourceAttributes: { ...attributes } },
      },
    });
    return allowedOf(answer);
  } catch (err) {
    throw new AccessReviewFailed(
      `${kind} for ${attributes.verb} on ${attributes.resource} failed: ${describeError(err)}`,
    );
  }
}

/** Whether `user` may do `attributes` (SubjectAccessReview). Throws AccessReviewFailed. */
export function reviewUserAccess(
  client: KubeClient,
  user: UserInfo,
  attributes: ResourceAttributes,
): Promise<boolean> {
  return askAccessReview(client, 'SubjectAccessReview', subjectOf(user), attributes);
}

/** Whether the operator itself may do `attributes` (SelfSubjectAccessReview). Throws AccessReviewFailed. */
export function reviewOwnAccess(
  client: KubeClient,
  attributes: ResourceAttributes,
): Promise<boolean> {
  return askAccessReview(client, 'SelfSubjectAccessReview', {}, attributes);
}
