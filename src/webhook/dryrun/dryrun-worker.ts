import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import type { SyntheticRefs } from '../../engine/evaluate.js';
import type { JsonObject } from '../../engine/json.js';
import type { DryRunDependencies } from './dryrun-handler.js';
import { runDryRunJob, type DryRunJobResult } from './dryrun-job.js';
import { heapCeiling } from '../http/heap-ceiling.js';
import type { SyntheticRefNames } from '../admission/synthetic-refs.js';

/**
 * The dry-run worker thread's entry (started by createWorkerDryRunRunner). It runs one dry run at
 * a time, whole: body parse, rule compilation, evaluation, explain, diff and serialization. The
 * protocol, all messages carrying the job's id:
 *
 *   worker → main  { type: 'ready' }                      once its modules are loaded
 *   main → worker  { type: 'run', id, body, explain }      body: the raw bytes (transferred)
 *   worker → main  { type: 'refs', id, names }             the Namespace/Node names it needs
 *   main → worker  { type: 'refs', id, refs }              their manifests as JSON text
 *   worker → main  { type: 'done', id, outcome }           the answer's JSON text, or the error
 */

/** Marks the workerData of a dry-run worker (so no other thread ever starts serving). */
export const DRYRUN_WORKER_MARK = 'kubemod-ts dryrun worker';

/**
 * Data the worker is started with: the limits and cluster namespace of the webhook, and the
 * thread's old-generation heap limit in MB (its work meters stop a dry run below it).
 */
export type DryRunWorkerData = Pick<DryRunDependencies, 'clusterNamespace' | 'limits'> & {
  readonly mark: typeof DRYRUN_WORKER_MARK;
  readonly heapMb: number;
};

export type WorkerToMain =
  | { readonly type: 'ready' }
  | { readonly type: 'refs'; readonly id: number; readonly names: SyntheticRefNames }
  | { readonly type: 'done'; readonly id: number; readonly outcome: DryRunJobResult };

export type MainToWorker =
  | {
      readonly type: 'run';
      readonly id: number;
      readonly body: Uint8Array;
      readonly explain: boolean;
    }
  | { readonly type: 'refs'; readonly id: number; readonly refs: SerializedRefs };

/** Manifests as JSON text (a string crosses threads as one copy, an object graph node by node). */
export interface SerializedRefs {
  readonly namespace?: string;
  readonly node?: string;
}

/** Serves dry runs on `port` until the thread is terminated. */
export function serveDryRuns(port: MessagePort, data: DryRunWorkerData): void {
  const deps: DryRunDependencies = {
    clusterNamespace: data.clusterNamespace,
    limits: {
      template: data.limits.template,
      work: { ...data.limits.work, heap: heapCeiling(data.heapMb) },
    },
  };
  let awaitingRefs: { id: number; resolve: (refs: SyntheticRefs) => void } | undefined;
  const post = (message: WorkerToMain): void => {
    port.postMessage(message);
  };
  port.on('message', (message: MainToWorker) => {
    if (message.type === 'refs') {
      if (awaitingRefs?.id !== message.id) return;
      const { resolve } = awaitingRefs;
      awaitingRefs = undefined;
      resolve(parseRefs(message.refs));
      return;
    }
    const { id } = message;
    const fetchRefs = (names: SyntheticRefNames): Promise<SyntheticRefs> =>
      new Promise((resolve) => {
        awaitingRefs = { id, resolve };
        post({ type: 'refs', id, names });
      });
    void runDryRunJob(message.body, { explain: message.explain }, deps, fetchRefs).then(
      (outcome) => {
        post({ type: 'done', id, outcome });
      },
    );
  });
  post({ type: 'ready' });
}

function parseRefs(refs: SerializedRefs): SyntheticRefs {
  return {
    ...(refs.namespace === undefined
      ? {}
      : { namespace: JSON.parse(refs.namespace) as JsonObject }),
    ...(refs.node === undefined ? {} : { node: JSON.parse(refs.node) as JsonObject }),
  };
}

function isWorkerData(data: unknown): data is DryRunWorkerData {
  return (
    typeof data === 'object' && data !== null && 'mark' in data && data.mark === DRYRUN_WORKER_MARK
  );
}

// The thread's entry point: serves only in a thread started as a dry-run worker.
if (parentPort !== null && isWorkerData(workerData)) serveDryRuns(parentPort, workerData);
