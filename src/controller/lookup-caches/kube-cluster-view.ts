import type {
  AskingRule,
  ClusterView,
  LookupAnswer,
  PendingAsk,
} from '../../engine/cluster/cluster-view.js';
import type { AskResolver } from '../../engine/cluster/resolve-loop.js';
import { answerAfterReview, type NeededReview, type ReadPlanner } from './read-plan.js';
import type { ReviewCache } from './review-cache.js';

/** Performs access reviews and stores their answers in the ReviewCache (lookup-reviewer.ts). */
export interface ReviewRunner {
  /** Starts the review unless it is already running; resolves once its answer is cached. */
  review(needed: NeededReview): Promise<void>;
}

export interface KubeClusterViewOptions {
  readonly planner: ReadPlanner;
  readonly reviews: ReviewCache;
  readonly runner: ReviewRunner;
  /** External data (issue 35 item 5, another module): absent → `unavailable`. */
  readonly external?: ClusterView['external'];
}

const NO_EXTERNAL: LookupAnswer = {
  kind: 'unavailable',
  reason: 'no external-data providers are configured in this operator',
};

/**
 * The operator's ClusterView: synchronous reads of the lookup caches, each allowed by a cached
 * access review of the rule's author. A review that is not cached answers `pending` (the
 * resolver asks it); one past half its lifetime is used and refreshed in the background, so the
 * steady state makes no API request per admission.
 */
export function createKubeClusterView(options: KubeClusterViewOptions): ClusterView {
  const { planner, reviews, runner } = options;
  return {
    get(asker, key): LookupAnswer {
      const plan = planner.plan(asker, key);
      if (plan.type === 'answer') return plan.answer;
      const cached = reviews.get(plan.review.id);
      if (cached === undefined) return { kind: 'pending' };
      if (cached.aging) void runner.review(plan.review).catch(() => undefined);
      if (cached.answer.kind === 'failed')
        return {
          kind: 'unavailable',
          reason: `the access review of the rule's author failed: ${cached.answer.reason}`,
        };
      return answerAfterReview(plan.read, cached.answer.kind === 'allowed', plan.review);
    },
    external(asker: AskingRule, provider: string, key: string): LookupAnswer {
      return options.external === undefined ? NO_EXTERNAL : options.external(asker, provider, key);
    },
  };
}

/**
 * Resolves `pending` object asks by running their access reviews (deduplicated and rate-limited
 * by the runner), waiting at most `deadlineMs`; external asks go to `external` when given.
 * Reviews still running at the deadline finish in the background and serve later requests.
 */
export function createLookupResolver(options: {
  readonly planner: ReadPlanner;
  readonly runner: ReviewRunner;
  readonly external?: AskResolver;
  /** Resolves after `ms` (injected for tests). */
  readonly sleep: (ms: number) => Promise<void>;
}): AskResolver {
  return {
    async resolve(asks: readonly PendingAsk[], deadlineMs: number): Promise<void> {
      const work: Promise<void>[] = [];
      const external: PendingAsk[] = [];
      for (const ask of asks) {
        if (ask.type === 'external') {
          external.push(ask);
          continue;
        }
        const plan = options.planner.plan(ask.asker, ask.key);
        if (plan.type === 'review') work.push(options.runner.review(plan.review));
      }
      if (external.length > 0 && options.external !== undefined)
        work.push(options.external.resolve(external, deadlineMs));
      if (work.length === 0) return;
      const all = Promise.allSettled(work).then(() => undefined);
      await Promise.race([all, options.sleep(Math.max(0, deadlineMs))]);
    },
  };
}
