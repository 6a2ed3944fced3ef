import { DEFAULT_SLICE_MS, type WebhookLimits } from './webhook-limits.js';

/** How long work (a large body's parse, a request's rules) shares the webhook's event loop. */
export interface LoopSlicing {
  /** Work about this long, then yield. */
  readonly sliceMs: number;
  /** Milliseconds. */
  readonly clock: () => number;
  /** Resolves on a later turn of the event loop, after pending I/O. */
  readonly yieldToLoop: () => Promise<void>;
}

/** The slicing of `deps`: its limits' sliceMs, its clock, its yield (setImmediate by default). */
export function loopSlicing(deps: {
  readonly limits: Pick<WebhookLimits, 'sliceMs'>;
  readonly clock?: (() => number) | undefined;
  readonly yieldToLoop?: (() => Promise<void>) | undefined;
}): LoopSlicing {
  return {
    sliceMs: deps.limits.sliceMs ?? DEFAULT_SLICE_MS,
    clock: deps.clock ?? ((): number => performance.now()),
    yieldToLoop: deps.yieldToLoop ?? nextTurn,
  };
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
