/**
 * One read of the cluster the rule made (lookup, controllerOwner/ownerChain, external,
 * externalOr; docs/lookups.md), in the order made, and what it answered. status: info when it
 * answered (found or absent), failed when it was refused, unavailable or still pending.
 */
export interface LookupNode {
  readonly kind: 'lookup';
  readonly status: 'info' | 'failed';
  readonly label: string;
  readonly function: 'lookup' | 'external';
  /** `v1/ConfigMap shop/settings`, or `<provider> <key>`. */
  readonly target: string;
  readonly answer: 'found' | 'absent' | 'refused' | 'unavailable' | 'pending';
  /** Why the read was refused or had no answer; null otherwise. */
  readonly reason: string | null;
  /** Answered from the request's memo (the same read made before by the same rule). */
  readonly memoised: boolean;
  readonly children: readonly never[];
}
