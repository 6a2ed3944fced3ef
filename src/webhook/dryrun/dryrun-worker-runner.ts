import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { JsonObject } from '../../engine/json.js';
import { DEFAULT_DRYRUN_WORKER_LIMITS, type DryRunWorkerLimits } from '../webhook-limits.js';
import type { DryRunOptions } from './dryrun-handler.js';
import { serializeError, type DryRunJobResult, type SerializedError } from './dryrun-job.js';
import type { DryRunRunner, DryRunRunnerDependencies } from './dryrun-runner.js';
import {
  DRYRUN_WORKER_MARK,
  type DryRunWorkerData,
  type MainToWorker,
  type SerializedRefs,
  type WorkerToMain,
} from './dryrun-worker.js';
import type { SyntheticRefNames } from '../admission/synthetic-refs.js';
import { stripBookkeeping } from '../admission/synthetic-refs.js';

/**
 * Largest Namespace or Node manifest handed to the worker, in JSON characters: far above what the
 * API server stores (etcd takes objects up to 1.5 MiB), so it never changes which refs a dry run
 * sees; it only keeps a broken refs file from being copied over and over.
 */
export const MAX_REF_JSON_CHARS = 4 * 1024 * 1024;

interface Job {
  readonly body: Buffer;
  readonly explain: boolean;
  readonly resolve: (outcome: DryRunJobResult) => void;
}

interface Running {
  readonly id: number;
  readonly job: Job;
  readonly startedAt: number;
  readonly timer: NodeJS.Timeout;
}

interface Thread {
  readonly worker: Worker;
  ready: boolean;
  /** Gives up on a thread that does not come up (a dist or loader problem, not a request's). */
  readonly startTimer: NodeJS.Timeout;
}

/** How long a new worker thread may take to load its modules and say it is ready. */
export const WORKER_START_TIMEOUT_MS = 30_000;

/**
 * Runs dry runs in one worker thread, off the event loop that answers admission requests. The
 * thread starts on the first dry run and takes one at a time; up to `queueLength` more wait, the
 * rest are answered SERVER_BUSY at once. A dry run not done within `deadlineMs` is answered
 * WORK_LIMIT and its thread is terminated; a thread that dies (out of its `heapMb` heap, a crash)
 * fails only the dry run it was running. The next dry run starts a new thread.
 */
export interface WorkerDryRunRunner extends DryRunRunner {
  /** Worker threads started and not yet exited (0 before the first dry run and after close). */
  threads(): number;
}

/** The script a worker thread runs: a file, or (eval) JavaScript source. */
export interface WorkerEntry {
  readonly script: string | URL;
  readonly eval: boolean;
}

/**
 * @param entry the thread's script; the dry-run worker (dryrun-worker.ts) unless a test stands in
 *   a thread that crashes or runs out of heap on purpose.
 */
export const createWorkerDryRunRunner = (
  deps: DryRunRunnerDependencies,
  entry?: WorkerEntry,
): WorkerDryRunRunner => {
  const limits: DryRunWorkerLimits = { ...DEFAULT_DRYRUN_WORKER_LIMITS, ...deps.limits.dryRun };
  const { logger } = deps;
  const queue: Job[] = [];
  const refJson = new WeakMap<JsonObject, string>();
  const live = new Set<Worker>();
  let thread: Thread | undefined;
  let running: Running | undefined;
  let nextId = 1;
  let closed = false;

  const finish = (outcome: DryRunJobResult): void => {
    if (running === undefined) return;
    clearTimeout(running.timer);
    const { job } = running;
    running = undefined;
    job.resolve(outcome);
  };

  /** Forgets the thread (its exit is expected from now on) and terminates it. */
  const stopThread = (): Promise<unknown> => {
    const current = thread;
    thread = undefined;
    if (current === undefined) return Promise.resolve();
    clearTimeout(current.startTimer);
    current.worker.removeAllListeners('message');
    return current.worker.terminate().then(() => live.delete(current.worker));
  };

  /** The thread died on its own: fail what it was doing, then carry on with a new one. */
  const threadDied = (current: Thread, err: unknown): void => {
    clearTimeout(current.startTimer);
    if (thread !== current) return;
    thread = undefined;
    const outOfMemory = isCode(err, 'ERR_WORKER_OUT_OF_MEMORY');
    logger.error(
      { err, reason: outOfMemory ? 'memory' : 'crash', ready: current.ready },
      'dry-run worker stopped',
    );
    const error: SerializedError = outOfMemory
      ? {
          kind: 'WORK_LIMIT',
          message: `the dry run needed more memory than a dry run may use (${String(limits.heapMb)} MB); its worker thread was stopped`,
        }
      : {
          kind: 'WORKER_FAILED',
          message: current.ready
            ? 'the dry-run worker thread stopped before answering; it is replaced for the next dry run'
            : 'the dry-run worker thread cannot be started',
        };
    if (running !== undefined) finish({ ok: false, error });
    else if (!current.ready) {
      // It never came up: the waiting dry runs would only start it again and again.
      for (const job of queue.splice(0)) job.resolve({ ok: false, error });
    }
    pump();
  };

  const startThread = (): Thread => {
    const data: DryRunWorkerData = {
      mark: DRYRUN_WORKER_MARK,
      clusterNamespace: deps.clusterNamespace,
      limits: { template: deps.limits.template, work: deps.limits.work },
      heapMb: limits.heapMb,
    };
    const { script, eval: isSource } = entry ?? workerEntry();
    const worker = new Worker(script, {
      eval: isSource,
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: limits.heapMb },
      stdout: false,
      stderr: false,
    });
    // The thread exists once the constructor returns: lowered before it loads its modules.
    deps.helperThreads?.lower();
    // An idle worker never keeps the process alive; the HTTP server does while one is busy.
    worker.unref();
    live.add(worker);
    const current: Thread = {
      worker,
      ready: false,
      startTimer: setTimeout(() => {
        threadDied(current, new Error(`not ready within ${String(WORKER_START_TIMEOUT_MS)} ms`));
        void worker.terminate();
      }, WORKER_START_TIMEOUT_MS),
    };
    current.startTimer.unref();
    worker.on('message', (message: WorkerToMain) => {
      onMessage(current, message);
    });
    worker.on('error', (err) => {
      threadDied(current, err);
    });
    worker.on('exit', (code) => {
      live.delete(worker);
      threadDied(current, new Error(`the worker thread exited with code ${String(code)}`));
    });
    return current;
  };

  const onMessage = (current: Thread, message: WorkerToMain): void => {
    if (thread !== current) return;
    if (message.type === 'ready') {
      clearTimeout(current.startTimer);
      current.ready = true;
      pump();
      return;
    }
    if (running?.id !== message.id) return;
    if (message.type === 'refs') {
      let refs: SerializedRefs;
      try {
        refs = serializedRefs(message.names);
      } catch (err) {
        // A manifest over the bound fails this dry run (the worker forgets it with the next one).
        finish({ ok: false, error: serializeError(err) });
        pump();
        return;
      }
      const answer: MainToWorker = { type: 'refs', id: message.id, refs };
      current.worker.postMessage(answer);
      return;
    }
    finish(message.outcome);
    pump();
  };

  const onDeadline = (): void => {
    if (running === undefined) return;
    const ms = performance.now() - running.startedAt;
    logger.warn(
      { reason: 'deadline', deadlineMs: limits.deadlineMs, ms: Math.round(ms) },
      'dry-run worker stopped',
    );
    finish({
      ok: false,
      error: {
        kind: 'WORK_LIMIT',
        message: `the dry run did not finish within its deadline of ${String(limits.deadlineMs)} ms; its worker thread was stopped`,
      },
    });
    void stopThread();
    pump();
  };

  /** Hands the next waiting dry run to the thread, starting one when there is none. */
  function pump(): void {
    if (closed || running !== undefined || queue.length === 0) return;
    try {
      thread ??= startThread();
    } catch (err) {
      logger.error({ err, reason: 'start' }, 'dry-run worker cannot be started');
      const error: SerializedError = {
        kind: 'WORKER_FAILED',
        message: 'the dry-run worker thread cannot be started',
      };
      for (const waiting of queue.splice(0)) waiting.resolve({ ok: false, error });
      return;
    }
    if (!thread.ready) return;
    const job = queue.shift();
    if (job === undefined) return;
    const id = nextId++;
    running = {
      id,
      job,
      startedAt: performance.now(),
      timer: setTimeout(onDeadline, limits.deadlineMs),
    };
    const { bytes, transfer } = transferable(job.body);
    const message: MainToWorker = { type: 'run', id, body: bytes, explain: job.explain };
    thread.worker.postMessage(message, transfer);
  }

  function serializedRefs(names: SyntheticRefNames): SerializedRefs {
    const namespace =
      names.namespace === undefined ? undefined : deps.refs.namespace(names.namespace);
    const node = names.node === undefined ? undefined : deps.refs.node(names.node);
    return {
      ...(namespace === undefined ? {} : { namespace: manifestJson(namespace, 'Namespace') }),
      ...(node === undefined ? {} : { node: manifestJson(node, 'Node') }),
    };
  }

  /** The manifest as the worker gets it (without bookkeeping), serialized once per object. */
  function manifestJson(manifest: JsonObject, kind: string): string {
    let text = refJson.get(manifest);
    if (text === undefined) {
      text = JSON.stringify(stripBookkeeping(manifest));
      refJson.set(manifest, text);
    }
    if (text.length > MAX_REF_JSON_CHARS) {
      throw new Error(
        `a ${kind} manifest used as syntheticRefs is ${String(text.length)} characters of JSON, more than ${String(MAX_REF_JSON_CHARS)}`,
      );
    }
    return text;
  }

  const runner: WorkerDryRunRunner = {
    threads: () => live.size,
    run(body: Buffer, options: DryRunOptions): Promise<DryRunJobResult> {
      if (closed) return Promise.resolve(busy('the server is shutting down'));
      if (queue.length >= limits.queueLength) {
        return Promise.resolve(
          busy(
            `${String(queue.length)} dry runs are already waiting for the dry-run worker (at most ${String(limits.queueLength)}); retry later`,
          ),
        );
      }
      return new Promise((resolve) => {
        queue.push({ body, explain: options.explain === true, resolve });
        pump();
      });
    },
    async close(): Promise<void> {
      closed = true;
      const stopping = busy('the server is shutting down');
      for (const job of queue.splice(0)) job.resolve(stopping);
      finish(stopping);
      await stopThread();
    },
  };
  return runner;
};

function busy(message: string): DryRunJobResult {
  return { ok: false, error: { kind: 'SERVER_BUSY', message } };
}

/**
 * The body's bytes and what to transfer: its own ArrayBuffer when the Buffer spans all of it
 * (nothing else can see that memory), otherwise a copy (a small Buffer is a slice of a shared
 * pool, which must not be detached).
 */
function transferable(body: Buffer): { bytes: Uint8Array; transfer: ArrayBuffer[] } {
  const { buffer } = body;
  if (
    buffer instanceof ArrayBuffer &&
    body.byteOffset === 0 &&
    body.byteLength === buffer.byteLength
  ) {
    return { bytes: body, transfer: [buffer] };
  }
  const copy = new Uint8Array(body.byteLength);
  copy.set(body);
  return { bytes: copy, transfer: [copy.buffer] };
}

/**
 * How to start the worker: the compiled `dryrun-worker.js` next to this module (dist, the
 * container image), else, when running from the TypeScript sources (vitest, `npm start` through
 * tsx), a two-line bootstrap that registers tsx's loader in the thread and imports the `.ts`.
 */
function workerEntry(): WorkerEntry {
  const compiled = new URL('./dryrun-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(compiled))) return { script: compiled, eval: false };
  const source = new URL('./dryrun-worker.ts', import.meta.url);
  const tsxApi = import.meta.resolve('tsx/esm/api');
  return {
    script: `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source.href)}); });`,
    eval: true,
  };
}

function isCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && err.code === code;
}
