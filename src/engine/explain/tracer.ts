import type { JsonValue } from '../json.js';
import type { LookupRecord } from '../cluster/lookup-session.js';
import type { SelectItem } from '../expr/select.js';
import type { MatchTracer } from '../match/match-tracer.js';
import type { CompiledPatchOperation, CompiledRule } from '../rule.js';

/**
 * What the engine reports while it evaluates, when asked to (EvaluationRequest.trace). Optional by
 * design: evaluation calls these through `trace?.…(…)`, so without a tracer the hot path pays one
 * comparison per hook and allocates nothing (the arguments are not even evaluated).
 *
 * A tracer only observes: it must not throw, modify what it is given, or charge the work meter
 * (explaining must not change the result). Values it is given may be modified by later rules
 * (containers the engine owns are patched in place), so it must copy or print them at once.
 */
export interface EvaluationTracer extends MatchTracer {
  /** The engine turns to `rule` (matching, rendering, applying): the events that follow are about it. */
  enterRule(rule: CompiledRule): void;
  // matchItem and matchEnd: see MatchTracer (the match section's own reports).
  /** The next patch operation of the current rule: its select produced `items`. */
  patchOperation(op: CompiledPatchOperation, items: readonly SelectItem[]): void;
  /**
   * One JSON patch operation of the current patch operation, rendered: `rendered` is the value
   * template's output text (undefined for remove), `value` what it read as.
   */
  patchItem(
    item: SelectItem,
    path: string,
    rendered: string | undefined,
    value: JsonValue | undefined,
  ): void;
  /** The current rule's rendered operations were applied. */
  applied(): void;
  /** The current (Reject) rule rejected the request with `text`; `message` is its rendered rejectMessage. */
  rejection(text: string, message: string | undefined): void;
  /** The current rule looked something up (lookup, owner helpers, external): what it answered. */
  lookup?(record: LookupRecord): void;
}
