import type { Logger } from '../../observability/logger.js';
import type { DryRunDependencies, DryRunOptions } from './dryrun-handler.js';
import { runDryRunJob, type DryRunJobResult } from './dryrun-job.js';
import type { SyntheticRefLookups } from '../../engine/evaluate.js';
import { lookupSyntheticRefs } from '../admission/synthetic-refs.js';
import type { HelperThreadPriority } from '../http/thread-priority.js';
import type { WebhookLimits } from '../webhook-limits.js';

/** Runs `PUT /v1/dryrun` requests somewhere (a worker thread, or in process for tests). */
export interface DryRunRunner {
  /**
   * Runs one dry run on the raw body bytes. Never rejects: failures (bad input, a deadline, a
   * full queue, a crashed worker) come back as the catalogued error to answer with. The runner
   * may take the body's memory (its ArrayBuffer is transferred): do not read it afterwards.
   */
  run(body: Buffer, options: DryRunOptions): Promise<DryRunJobResult>;
  /** Stops the runner (its worker thread); later runs are refused. */
  close(): Promise<void>;
}

/** What a runner is made from: the webhook's dependencies a dry run reads. */
export interface DryRunRunnerDependencies extends DryRunDependencies {
  readonly refs: SyntheticRefLookups;
  readonly logger: Logger;
  readonly limits: Pick<WebhookLimits, 'template' | 'work' | 'dryRun'>;
  /** Lowered again right after a worker thread starts, so that it never competes at full priority. */
  readonly helperThreads?: HelperThreadPriority;
}

export type DryRunRunnerFactory = (deps: DryRunRunnerDependencies) => DryRunRunner;

/**
 * Runs dry runs on the calling thread (it blocks the event loop while one runs). For tests and
 * tools; the webhook server uses a worker thread (createWorkerDryRunRunner). Honours an injected
 * clock, which cannot cross into a worker.
 */
export const inProcessDryRunRunner: DryRunRunnerFactory = (deps) => {
  let closed = false;
  return {
    run(body, options): Promise<DryRunJobResult> {
      if (closed) {
        return Promise.resolve({
          ok: false,
          error: { kind: 'SERVER_BUSY', message: 'the server is shutting down' },
        });
      }
      return runDryRunJob(body, options, deps, (names) => lookupSyntheticRefs(names, deps.refs));
    },
    close(): Promise<void> {
      closed = true;
      return Promise.resolve();
    },
  };
};
