import type { JsonValue } from '../json.js';
import type { SelectItem, SelectOutcome } from '../expr/select.js';
import type { CompiledPatchOperation, CompiledRule } from '../rule.js';
import { exempt } from '../active-meter.js';
import { BoundedPrinter } from './bounded-print.js';
import type { ExplainLimits, MatchDecision, MatchItemNode } from './schema.js';
import type { EvaluationTracer } from './tracer.js';
import type { LookupRecord } from '../cluster/lookup-session.js';

/**
 * Bounds of a trace unless the caller sets others. A dry run holds at most 100 rules and a
 * request a few MB, so these keep a whole explanation to about a megabyte of JSON.
 */
export const DEFAULT_EXPLAIN_LIMITS: ExplainLimits = Object.freeze({
  valueChars: 200,
  textChars: 1000,
  values: 20,
  children: 100,
  rules: 1000,
  bytes: 1 << 20,
});

/** Map keys the printer may list over a whole trace (see BoundedPrinter). */
const KEY_BUDGET = 20_000;
/** Characters counted for a recorded entry besides its strings. */
const ENTRY_OVERHEAD = 64;

export interface MatchRecord {
  readonly result: MatchItemNode['result'];
  readonly decision: MatchDecision;
  readonly decidingValue: number | null;
  readonly matched: boolean;
}

export interface PatchRecord {
  readonly path: string;
  readonly selected: string | null;
  readonly keyParts: readonly (string | number)[];
  readonly rendered: string | null;
  readonly value: string | null;
}

export interface OperationRecord {
  readonly op: CompiledPatchOperation;
  readonly selectCount: number;
  readonly patches: PatchRecord[];
  /** Rendered patches not recorded (children or size limit). */
  omitted: number;
}

/** What the engine did with one rule, as far as the trace limits let it be recorded. */
export interface RuleRecord {
  readonly rule: CompiledRule;
  /** 1-based position in the order the engine first turned to the rules. */
  readonly order: number;
  readonly items: MatchRecord[];
  /** Criteria items evaluated, recorded or not. */
  itemsSeen: number;
  matched: boolean | undefined;
  readonly operations: OperationRecord[];
  /** Patch operations rendered but not recorded (children limit). */
  operationsOmitted: number;
  step: number | null;
  rejection: { readonly text: string; readonly message: string | null } | undefined;
  /** The rule's reads of the cluster, up to limits.children. */
  readonly lookups: LookupRecord[];
  /** Reads not recorded (children limit). */
  lookupsOmitted: number;
}

/**
 * The tracer that explain passes into evaluation: it records, rule by rule, what the engine
 * reports, printing values at once (the engine patches its containers in place later) and within
 * ExplainLimits. It never throws into the engine and charges the work meter nothing; the time it
 * spends printing is exempted from the rule's deadlines, so the result is the same as without it.
 */
export class TraceRecorder implements EvaluationTracer {
  /** Records in the order the engine first turned to their rules. */
  readonly records: RuleRecord[] = [];
  /** Rules whose match section matched (counted even past the rules limit). */
  matchedRules = 0;
  /** Rules whose match section did not match. */
  unmatchedRules = 0;
  /** Some detail was dropped by a limit (see also valuesCut). */
  truncated = false;
  /** Details (criteria items, patches) dropped because the trace reached limits.bytes. */
  droppedForSize = 0;
  /** Errors of the recorder itself (a bug, never the engine's): reported, never thrown. */
  readonly internalErrors: string[] = [];

  private readonly byRule = new Map<CompiledRule, RuleRecord>();
  private current: RuleRecord | undefined;
  private operation: OperationRecord | undefined;
  private bytes = 0;
  private steps = 0;
  private readonly printer = new BoundedPrinter(KEY_BUDGET);

  constructor(readonly limits: ExplainLimits) {}

  /** Cuts a text to maxChars, counting it in valuesCut when it does. */
  cut(text: string, maxChars: number): string {
    return this.printer.cut(text, maxChars);
  }

  /** Printed values and texts that were cut to their length limit. */
  get valuesCut(): number {
    return this.printer.cuts;
  }

  lookup(record: LookupRecord): void {
    const current = this.current;
    if (current === undefined) return;
    if (current.lookups.length >= this.limits.children) {
      current.lookupsOmitted += 1;
      this.truncated = true;
      return;
    }
    current.lookups.push(record);
  }

  enterRule(rule: CompiledRule): void {
    this.operation = undefined;
    const known = this.byRule.get(rule);
    if (known !== undefined) {
      this.current = known;
      return;
    }
    if (this.records.length >= this.limits.rules) {
      this.current = undefined;
      this.truncated = true;
      return;
    }
    const record: RuleRecord = {
      rule,
      order: this.records.length + 1,
      items: [],
      itemsSeen: 0,
      matched: undefined,
      operations: [],
      operationsOmitted: 0,
      step: null,
      rejection: undefined,
      lookups: [],
      lookupsOmitted: 0,
    };
    this.records.push(record);
    this.byRule.set(rule, record);
    this.current = record;
  }

  matchItem(
    outcome: SelectOutcome,
    decision: MatchDecision,
    decidingValue: number,
    matched: boolean,
  ): void {
    const record = this.current;
    if (record === undefined) return;
    record.itemsSeen++;
    if (record.items.length >= this.limits.children || !this.fits(ENTRY_OVERHEAD)) {
      this.truncated = true;
      return;
    }
    this.guarded(() => {
      const result: MatchItemNode['result'] =
        outcome.kind === 'boolean'
          ? { type: 'boolean', value: outcome.value }
          : {
              type: 'values',
              values: outcome.values
                .slice(0, this.limits.values)
                .map((value) => this.spend(this.printer.go(value, this.limits.valueChars))),
              count: outcome.values.length,
              undefinedCount: outcome.undefinedCount,
            };
      if (result.type === 'values' && result.count > result.values.length) this.truncated = true;
      record.items.push({
        result,
        decision,
        decidingValue: decidingValue < 0 ? null : decidingValue,
        matched,
      });
    });
  }

  matchEnd(matched: boolean): void {
    if (matched) this.matchedRules++;
    else this.unmatchedRules++;
    if (this.current !== undefined) this.current.matched = matched;
  }

  patchOperation(op: CompiledPatchOperation, items: readonly SelectItem[]): void {
    const record = this.current;
    this.operation = undefined;
    if (record === undefined) return;
    if (record.operations.length >= this.limits.children) {
      record.operationsOmitted++;
      this.truncated = true;
      return;
    }
    this.operation = { op, selectCount: items.length, patches: [], omitted: 0 };
    record.operations.push(this.operation);
  }

  patchItem(
    item: SelectItem,
    path: string,
    rendered: string | undefined,
    value: JsonValue | undefined,
  ): void {
    const operation = this.operation;
    if (operation === undefined) return;
    if (operation.patches.length >= this.limits.children || !this.fits(ENTRY_OVERHEAD)) {
      operation.omitted++;
      this.truncated = true;
      return;
    }
    this.guarded(() => {
      const { limits } = this;
      const op = operation.op;
      operation.patches.push({
        path: this.spend(this.printer.cut(path, limits.textChars)),
        selected:
          op.select === undefined
            ? null
            : this.spend(this.printer.go(item.value, limits.valueChars)),
        keyParts: item.keyParts
          .slice(0, limits.values)
          .map((part) =>
            typeof part === 'string' ? this.spend(this.printer.cut(part, limits.valueChars)) : part,
          ),
        rendered:
          rendered === undefined ? null : this.spend(this.printer.cut(rendered, limits.valueChars)),
        value: op.op === 'remove' ? null : this.spend(this.printer.json(value, limits.valueChars)),
      });
    });
  }

  applied(): void {
    if (this.current !== undefined) this.current.step = ++this.steps;
  }

  rejection(text: string, message: string | undefined): void {
    const record = this.current;
    if (record === undefined) return;
    const { textChars } = this.limits;
    record.rejection = {
      text: this.spend(this.printer.cut(text, textChars)),
      message: message === undefined ? null : this.spend(this.printer.cut(message, textChars)),
    };
  }

  /** Whether `chars` more fit in limits.bytes; counts them when they do, else marks the trace cut. */
  private fits(chars: number): boolean {
    if (this.bytes + chars > this.limits.bytes) {
      this.droppedForSize++;
      this.truncated = true;
      return false;
    }
    this.bytes += chars;
    return true;
  }

  /** Counts a recorded string against limits.bytes (it is already cut to its own limit). */
  private spend(text: string): string {
    this.bytes += text.length;
    return text;
  }

  /**
   * Runs recording work outside the rule's time deadlines (WorkMeter.exempt) and never lets an
   * error of the recorder reach the engine, where it would change the rule's outcome.
   */
  private guarded(work: () => void): void {
    try {
      exempt(work);
    } catch (err) {
      if (this.internalErrors.length < 10) {
        this.internalErrors.push(err instanceof Error ? err.message : String(err));
      }
      this.truncated = true;
    }
  }
}
