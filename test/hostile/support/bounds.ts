/**
 * The bounds every hostile case is held to. Generous for a loaded 2-core CI VM, but far below what
 * the attacks of issue #12 cost before (seconds to minutes of blocking, gigabytes of heap).
 */

/** Longest event-loop stall one hostile request or rule may cause, in milliseconds. */
export const MAX_BLOCKED_MS = 500;

/** Largest heap growth one hostile request may cause, in MB. */
export const MAX_HEAP_GROWTH_MB = 300;

/** A normal admission request sent right after a hostile one must be answered within this. */
export const PROMPT_MS = 250;

/** Largest /metrics page after hostile label values, in bytes. */
export const MAX_METRICS_BYTES = 200 * 1024;

/** Extra wall time a hostile `dryrun` CLI run may take over a normal run, in milliseconds. */
export const CLI_EXTRA_MS = 2000;

/** Timeout for a test that sends one hostile request (so a regression reports its time). */
export const CASE_TIMEOUT_MS = 60_000;
