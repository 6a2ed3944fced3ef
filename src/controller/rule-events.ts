import { randomBytes } from 'node:crypto';
import { MODRULE_API_VERSION, MODRULE_KIND } from '../api/index.js';
import type { RuleFailure } from '../engine/evaluate.js';
import { describeError } from '../errors/catalog.js';
import type { Logger } from '../observability/logger.js';
import type { RuleFailureContext } from '../webhook/dependencies.js';
import type { KubeClient } from '../kube/kube-client.js';

export interface RuleEventRecorderOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  /** Wall clock, ms since epoch. */
  readonly now: () => number;
  /** At most one Event per rule per interval (default one minute). */
  readonly intervalMs?: number;
  /** Looks up the rule's uid so the Event is attached to this incarnation of the ModRule. */
  readonly uidOf?: (namespace: string, name: string) => string | undefined;
  readonly component?: string;
}

function eventTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Turns rule failures at admission time into Kubernetes Warning Events on the ModRule (so
 * `kubectl describe modrule` shows why it did not fire), at most one per rule per interval.
 * Fire-and-forget: never blocks or fails an admission.
 */
export class RuleEventRecorder {
  private readonly lastSent = new Map<string, number>();

  constructor(private readonly options: RuleEventRecorderOptions) {}

  /** Returns true when an Event was sent (false when rate-limited). */
  record(failure: RuleFailure, context: RuleFailureContext): boolean {
    const now = this.options.now();
    const interval = this.options.intervalMs ?? 60_000;
    const last = this.lastSent.get(failure.rule);
    if (last !== undefined && now - last < interval) return false;
    this.lastSent.set(failure.rule, now);
    if (this.lastSent.size > 10_000) this.prune(now, interval);
    void this.send(failure, context, now);
    return true;
  }

  private prune(now: number, interval: number): void {
    for (const [rule, at] of this.lastSent) if (now - at >= interval) this.lastSent.delete(rule);
  }

  private async send(
    failure: RuleFailure,
    context: RuleFailureContext,
    now: number,
  ): Promise<void> {
    const target = [context.kind, context.namespace, context.name]
      .filter((p) => p !== undefined && p !== '')
      .join(' ');
    const where = failure.field === undefined ? '' : ` at ${failure.field}`;
    const refused =
      failure.failurePolicy === 'Fail' ? ' (failure policy Fail: request refused)' : '';
    const message =
      `${context.operation} ${target}: rule failed${where} [${failure.code}]${refused}: ${failure.message}`.slice(
        0,
        1024,
      );
    const uid = this.options.uidOf?.(failure.namespace, failure.name);
    const time = eventTime(now);
    const event = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        name: `${failure.name}.${randomBytes(8).toString('hex')}`,
        namespace: failure.namespace,
      },
      involvedObject: {
        apiVersion: MODRULE_API_VERSION,
        kind: MODRULE_KIND,
        name: failure.name,
        namespace: failure.namespace,
        ...(uid === undefined ? {} : { uid }),
      },
      reason: 'RuleFailed',
      message,
      type: 'Warning',
      source: { component: this.options.component ?? 'kubemod-ts' },
      reportingComponent: this.options.component ?? 'kubemod-ts',
      firstTimestamp: time,
      lastTimestamp: time,
      count: 1,
    };
    try {
      await this.options.client.request({
        method: 'POST',
        path: `/api/v1/namespaces/${failure.namespace}/events`,
        body: event,
        discardResponse: true,
      });
    } catch (err) {
      this.options.logger.warn(
        { rule: failure.rule, err: describeError(err) },
        'could not record an Event for a failed ModRule',
      );
    }
  }
}
