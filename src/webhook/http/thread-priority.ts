import { readdirSync, readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import type { Logger } from '../../observability/logger.js';

/**
 * The operating system calls thread priorities need, injected so that the policy below is tested
 * without touching the test process's own threads.
 */
export interface ThreadPriorityIo {
  /** Ids of this process's threads; undefined where the system does not list them (not Linux). */
  readonly threadIds: () => readonly number[] | undefined;
  /** The calling thread's id; undefined where the system does not say. */
  readonly currentThreadId: () => number | undefined;
  /** A thread's nice value (-20 … 19). */
  readonly getNice: (threadId: number) => number;
  /** Sets a thread's nice value; throws as setpriority(2) fails (ESRCH for a thread gone). */
  readonly setNice: (threadId: number, nice: number) => void;
}

/**
 * Linux: threads are listed in /proc/self/task, and setpriority(2) with a thread id sets the nice
 * value of that one thread. Elsewhere the listing is undefined and nothing is changed.
 */
export function systemThreadPriorityIo(): ThreadPriorityIo {
  return {
    threadIds: (): readonly number[] | undefined => {
      try {
        return readdirSync('/proc/self/task')
          .map(Number)
          .filter((id) => Number.isInteger(id) && id > 0);
      } catch {
        return undefined;
      }
    },
    currentThreadId: (): number | undefined => {
      try {
        const match = /\/task\/(\d+)$/.exec(readlinkSync('/proc/thread-self'));
        return match?.[1] === undefined ? undefined : Number(match[1]);
      } catch {
        return undefined;
      }
    },
    getNice: (threadId) => getPriority(threadId),
    setNice: (threadId, nice) => {
      setPriority(threadId, nice);
    },
  };
}

/** The highest nice value (the lowest priority) Linux has. */
export const MAX_NICE = 19;

/**
 * Keeps the process's helper threads (V8's compiler and garbage-collector helpers, libuv's thread
 * pool, the dry-run worker) at a lower priority than the main thread, which answers admission
 * requests. When the webhook has one core, as a pod with a CPU limit of 1 does, those threads
 * otherwise take the core from the event loop for tens of milliseconds at a time: the first run of
 * a code path sends many functions to the optimizing compiler, a large body to the garbage
 * collector's helpers. A lower priority lets them run whenever the event loop waits.
 */
export interface HelperThreadPriority {
  /**
   * Sets every thread of the process but the main one to the nice value (threads started since
   * the last call included). Cheap (one listing and one system call per thread); call it after
   * starting a thread and now and then.
   */
  lower(): void;
}

export interface HelperThreadPriorityOptions {
  /** The system's calls (systemThreadPriorityIo) unless a test stands in. */
  readonly io?: ThreadPriorityIo;
  /** The helpers' nice value, 1 … 19; 0 turns lowering off. Never below the main thread's. */
  readonly nice: number;
  readonly logger: Logger;
}

/** Made on the main thread: the thread calling this is the one never lowered. */
export function createHelperThreadPriority(
  options: HelperThreadPriorityOptions,
): HelperThreadPriority {
  const { io = systemThreadPriorityIo(), logger } = options;
  const mainThread = options.nice > 0 ? io.currentThreadId() : undefined;
  if (mainThread === undefined) return { lower: (): void => undefined };
  // Raising a nice value needs no privilege; going below the process's own would.
  const nice = Math.min(MAX_NICE, Math.max(options.nice, io.getNice(mainThread)));
  let calls = 0;
  let failed = false;
  return {
    lower(): void {
      if (failed) return;
      const ids = io.threadIds() ?? [];
      let lowered = 0;
      for (const id of ids) {
        if (id === mainThread) continue;
        try {
          io.setNice(id, nice);
          lowered += 1;
        } catch (err) {
          // A thread that ended between the listing and the call is simply gone.
          if (errorCode(err) === 'ESRCH') continue;
          failed = true;
          logger.warn(
            { err, nice, thread: id },
            'cannot lower the priority of helper threads; they keep the main thread’s priority',
          );
          return;
        }
      }
      calls += 1;
      if (calls === 1) {
        logger.info({ nice, threads: lowered }, 'helper threads run at a lower priority');
      } else {
        logger.debug({ nice, threads: lowered }, 'helper threads lowered again');
      }
    },
  };
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  // os.setPriority throws a SystemError (code ERR_SYSTEM_ERROR) whose info.code names the errno.
  const { code, info } = err as { code?: unknown; info?: { code?: unknown } };
  if (typeof info?.code === 'string') return info.code;
  return typeof code === 'string' ? code : undefined;
}

/** How often the helper threads are lowered again, for threads started since. */
export const RELOWER_INTERVAL_MS = 30_000;

/**
 * Lowers the helper threads now and every RELOWER_INTERVAL_MS (an unref'd timer, which never keeps
 * the process alive); returns the function that stops the timer.
 */
export function keepHelperThreadsLowered(
  priority: HelperThreadPriority,
  every: (run: () => void, ms: number) => () => void = unrefInterval,
): () => void {
  priority.lower();
  return every(() => {
    priority.lower();
  }, RELOWER_INTERVAL_MS);
}

function unrefInterval(run: () => void, ms: number): () => void {
  const timer = setInterval(run, ms);
  timer.unref();
  return () => {
    clearInterval(timer);
  };
}
