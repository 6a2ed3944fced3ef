import type { SelectOutcome } from '../expr/select.js';
import type { MatchDecision } from '../explain/schema.js';

/**
 * The part of the evaluation tracer (explain/tracer.ts) that a match section reports to: how each
 * criteria item decided and what the whole section found. Kept here, with the code that calls it,
 * so that matching does not depend on the tracer's view of whole rules (which contain matches).
 */
export interface MatchTracer {
  /** The next criteria item of the current rule was evaluated (items run in order). */
  matchItem(
    outcome: SelectOutcome,
    decision: MatchDecision,
    decidingValue: number,
    matched: boolean,
  ): void;
  /** The current rule's whole match section was evaluated. */
  matchEnd(matched: boolean): void;
}
