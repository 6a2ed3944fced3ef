import type { ReportResult, ResultKind } from './report-result.js';

/** A ConfigMap result for report tests. */
export function reportResult(
  namespace: string | undefined,
  name: string,
  outcome: ResultKind,
  policy = 'shop/rule',
): ReportResult {
  return {
    subject: { apiVersion: 'v1', kind: 'ConfigMap', namespace, name, uid: `uid-${name}` },
    reportNamespace: policy.startsWith('kubemod-system/') ? undefined : namespace,
    policy,
    rule: policy.slice(policy.indexOf('/') + 1),
    result: outcome,
    message: `${outcome} ${name}`,
    properties: { ruleType: 'Reject', enforcement: 'Enforce' },
  };
}
