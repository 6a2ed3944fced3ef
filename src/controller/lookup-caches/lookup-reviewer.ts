import { describeError } from '../../errors/catalog.js';
import type { Logger } from '../../observability/logger.js';
import type { ResourceAttributes } from '../../authz/access-review.js';
import type { UserInfo } from '../../authz/author-record.js';
import { TokenBucket, type LimiterClock } from '../../authz/token-bucket.js';
import type { ReviewRunner } from './kube-cluster-view.js';
import type { NeededReview } from './read-plan.js';
import type { ReviewCache } from './review-cache.js';

export interface LookupReviewerOptions extends LimiterClock {
  /** One SubjectAccessReview (src/authz/access-review.ts reviewUserAccess in the operator). */
  readonly ask: (user: UserInfo, attributes: ResourceAttributes) => Promise<boolean>;
  readonly cache: ReviewCache;
  readonly logger: Logger;
  /** Reviews per second at most, all rules together (default 50, bursts of 100). */
  readonly ratePerSecond?: number;
  readonly burst?: number;
  /** Reviews in flight at most (default 16). */
  readonly concurrency?: number;
  /** Reviews waiting at most; beyond, a review is refused as overloaded (default 1,000). */
  readonly maxQueued?: number;
}

/**
 * Runs the access reviews lookups need: one at a time per id (concurrent asks for the same one
 * share it), at most `concurrency` in flight and `ratePerSecond` overall, with a bounded queue —
 * hostile rules that ask about many objects slow only themselves (their lookups stay `pending`
 * and fail), never the API server.
 */
export function createLookupReviewer(options: LookupReviewerOptions): ReviewRunner & {
  readonly inFlight: number;
} {
  const bucket = new TokenBucket({
    ratePerSecond: options.ratePerSecond ?? 50,
    burst: options.burst ?? 100,
    now: options.now,
    delay: options.delay,
  });
  const concurrency = options.concurrency ?? 16;
  const maxQueued = options.maxQueued ?? 1_000;
  const running = new Map<string, Promise<void>>();
  const waiting: (() => void)[] = [];
  let active = 0;
  const never = new AbortController().signal;

  const slot = async (): Promise<void> => {
    if (active < concurrency) {
      active++;
      return;
    }
    await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
  };
  const release = (): void => {
    active--;
    waiting.shift()?.();
  };

  const perform = async (needed: NeededReview): Promise<void> => {
    await slot();
    try {
      await bucket.take(never);
      const allowed = await options.ask(needed.user, needed.attributes);
      options.cache.set(needed.id, { kind: allowed ? 'allowed' : 'denied' });
    } catch (err) {
      const reason = describeError(err);
      options.logger.warn({ err: reason }, 'lookup access review failed');
      options.cache.set(needed.id, { kind: 'failed', reason });
    } finally {
      release();
    }
  };

  return {
    review(needed): Promise<void> {
      const current = running.get(needed.id);
      if (current !== undefined) return current;
      if (running.size >= maxQueued) {
        options.cache.set(needed.id, {
          kind: 'failed',
          reason: `too many access reviews waiting (${String(maxQueued)})`,
        });
        return Promise.resolve();
      }
      const work = perform(needed).finally(() => running.delete(needed.id));
      running.set(needed.id, work);
      return work;
    },
    get inFlight(): number {
      return running.size;
    },
  };
}
