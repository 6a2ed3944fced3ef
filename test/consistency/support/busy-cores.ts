/** A busy loop on every core: worker threads that spin until stopped. */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

export interface BusyCores {
  readonly threads: number;
  stop(): Promise<void>;
}

/** Starts one spinning worker thread per core and waits until each has started spinning. */
export async function busyCores(threads = availableParallelism()): Promise<BusyCores> {
  const workers = Array.from(
    { length: threads },
    () =>
      new Worker("require('node:worker_threads').parentPort.postMessage('spinning'); for (;;) {}", {
        eval: true,
      }),
  );
  await Promise.all(
    workers.map(
      (worker) =>
        new Promise<void>((resolve, reject) => {
          worker.once('message', () => {
            resolve();
          });
          worker.once('error', reject);
        }),
    ),
  );
  return {
    threads,
    stop: async () => {
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
