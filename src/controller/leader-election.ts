import type { JsonObject } from '../engine/json.js';
import { describeError } from '../errors/catalog.js';
import type { Logger } from '../observability/logger.js';
import { isStatus, type KubeClient } from '../kube/kube-client.js';

export interface LeaderElectionOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  /** Monotonic-enough clock in ms (Date.now in production; a fake in tests). */
  readonly now: () => number;
  readonly delay: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly leaseDurationMs?: number;
  /** A leader that cannot renew for this long steps down. */
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
  readonly onStartedLeading?: () => void;
  readonly onStoppedLeading?: () => void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

function microTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}

/**
 * Lease-based leader election on a `coordination.k8s.io/v1` Lease, as client-go does it: a
 * candidate takes the Lease when it is free or when its record has not changed for a lease
 * duration by the candidate's own clock (so clock skew between replicas does not matter); the
 * holder renews every retry period and steps down when it could not renew within the deadline.
 * Writes use the object's resourceVersion, so two candidates cannot both win.
 */
export class LeaderElector {
  private leading = false;
  private observedRecord = '';
  private observedAt = 0;
  private lastRenew = 0;
  private controller: AbortController | undefined;

  constructor(private readonly options: LeaderElectionOptions) {}

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (this.controller !== undefined) return;
    this.controller = new AbortController();
    void this.loop(this.controller.signal);
  }

  /** Stops campaigning; a leader releases the Lease so another replica can take over at once. */
  async stop(): Promise<void> {
    this.controller?.abort();
    if (this.leading) {
      this.setLeading(false);
      await this.release();
    }
  }

  private get path(): string {
    return `/apis/coordination.k8s.io/v1/namespaces/${this.options.namespace}/leases`;
  }

  private async loop(signal: AbortSignal): Promise<void> {
    const retry = this.options.retryPeriodMs ?? 2_000;
    const deadline = this.options.renewDeadlineMs ?? 10_000;
    while (!signal.aborted) {
      const ok = await this.tryAcquireOrRenew();
      if (this.controller?.signal.aborted !== false) return;
      const now = this.options.now();
      if (ok) {
        this.lastRenew = now;
        this.setLeading(true);
      } else if (this.leading && now - this.lastRenew >= deadline) {
        this.options.logger.warn(
          { lease: this.options.name },
          'could not renew the leader Lease in time; stepping down',
        );
        this.setLeading(false);
      }
      await this.options.delay(retry, signal);
    }
  }

  private setLeading(value: boolean): void {
    if (value === this.leading) return;
    this.leading = value;
    this.options.logger.info(
      { lease: this.options.name, identity: this.options.identity, leader: value },
      value ? 'became leader' : 'stopped leading',
    );
    if (value) this.options.onStartedLeading?.();
    else this.options.onStoppedLeading?.();
  }

  /** One election round; true when this candidate holds the Lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const { client, identity, name } = this.options;
    const now = this.options.now();
    const durationSeconds = Math.max(
      1,
      Math.round((this.options.leaseDurationMs ?? 15_000) / 1000),
    );
    const mine: LeaseSpec = {
      holderIdentity: identity,
      leaseDurationSeconds: durationSeconds,
      renewTime: microTime(now),
    };
    let lease: JsonObject;
    try {
      lease = await client.request({ method: 'GET', path: `${this.path}/${name}` });
    } catch (err) {
      if (!isStatus(err, 404)) return this.failed(err);
      try {
        await client.request({
          method: 'POST',
          path: this.path,
          body: {
            apiVersion: 'coordination.k8s.io/v1',
            kind: 'Lease',
            metadata: { name, namespace: this.options.namespace },
            spec: { ...mine, acquireTime: microTime(now), leaseTransitions: 0 },
          },
        });
        return true;
      } catch (createErr) {
        return this.failed(createErr);
      }
    }
    const spec = (lease.spec ?? {}) as LeaseSpec;
    const record = JSON.stringify([spec.holderIdentity, spec.renewTime, spec.leaseDurationSeconds]);
    if (record !== this.observedRecord) {
      this.observedRecord = record;
      this.observedAt = now;
    }
    const holder = spec.holderIdentity ?? '';
    const heldByOther = holder !== '' && holder !== identity;
    const expired = now >= this.observedAt + (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
    if (heldByOther && !expired) return false;
    const transitions = (spec.leaseTransitions ?? 0) + (holder === identity ? 0 : 1);
    const acquireTime =
      holder === identity && spec.acquireTime !== undefined ? spec.acquireTime : microTime(now);
    try {
      await client.request({
        method: 'PUT',
        path: `${this.path}/${name}`,
        body: { ...lease, spec: { ...mine, acquireTime, leaseTransitions: transitions } },
      });
      return true;
    } catch (err) {
      return this.failed(err);
    }
  }

  private failed(err: unknown): false {
    if (!isStatus(err, 409))
      this.options.logger.debug(
        { lease: this.options.name, err: describeError(err) },
        'leader election round failed',
      );
    return false;
  }

  private async release(): Promise<void> {
    const path = `${this.path}/${this.options.name}`;
    try {
      const lease = await this.options.client.request({ method: 'GET', path });
      const spec = (lease.spec ?? {}) as LeaseSpec;
      if (spec.holderIdentity !== this.options.identity) return;
      await this.options.client.request({
        method: 'PUT',
        path,
        body: { ...lease, spec: { ...spec, holderIdentity: '', leaseDurationSeconds: 1 } },
      });
    } catch (err) {
      this.options.logger.debug({ err: describeError(err) }, 'could not release the leader Lease');
    }
  }
}
