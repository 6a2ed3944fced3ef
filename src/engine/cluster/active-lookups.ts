import type { LookupSession } from './lookup-session.js';

// The lookups of the evaluation in progress, as active-meter.ts keeps its meter: evaluation is
// synchronous, so one slot is enough; withLookups() sets it for a call and restores the previous.
let active: LookupSession | undefined;

/** Runs `work` with `session` as the active lookup session. */
export function withLookups<T>(session: LookupSession, work: () => T): T {
  const previous = active;
  active = session;
  try {
    return work();
  } finally {
    active = previous;
  }
}

/** The active session; undefined outside an evaluation (tools, tests of single templates). */
export function activeLookups(): LookupSession | undefined {
  return active;
}
