import { KubemodError } from '../../errors/catalog.js';
import { charge } from '../active-meter.js';
import type { JsonValue } from '../json.js';
import type { TemplateLimits } from '../template/render-state.js';
import type {
  AskingRule,
  ClusterView,
  LookupAnswer,
  ObjectKey,
  PendingAsk,
} from './cluster-view.js';
import { describeKey, pinRefusal } from './namespace-pin.js';

/** Work units of a lookup the request has not made before (the view's map reads, the memo entry). */
export const LOOKUP_UNITS = 64;
/** Work units of a lookup answered from the request's memo. */
export const MEMO_HIT_UNITS = 4;
/**
 * Distinct lookups one request may make, all rules together: a rule computing names in a loop
 * meets this long before its work allowance, and the pending asks a round resolves stay few.
 */
export const MAX_LOOKUPS_PER_REQUEST = 1_000;

/** One lookup as the explain tree shows it. */
export interface LookupRecord {
  /** `lookup`, `external` (owner helpers read through `lookup`). */
  readonly function: 'lookup' | 'external';
  /** `v1/ConfigMap team-a/allowed`, or `provider key`. */
  readonly target: string;
  readonly answer: LookupAnswer['kind'];
  /** Why the read was refused or had no answer. */
  readonly reason: string | undefined;
  /** Answered from the request's memo (an earlier identical lookup of the same rule). */
  readonly memoised: boolean;
}

/** Told about every lookup of the current rule (the explain recorder). */
export type LookupObserver = (record: LookupRecord) => void;

/**
 * The lookups of one evaluation: asks the ClusterView on behalf of the rule being evaluated,
 * after the namespace pinning (pinRefusal), memoises answers per rule and key, charges work units,
 * and collects the asks that answered `pending`. Answers never depend on the order of the rules:
 * the memo is per asking rule.
 */
export class LookupSession {
  private asker: AskingRule | undefined;
  /** The first lookup of the current `as` call that answered pending. */
  private pendingTarget: string | undefined;
  private readonly memo = new Map<string, LookupAnswer>();
  private readonly pendingAsks = new Map<string, PendingAsk>();

  constructor(
    private readonly view: ClusterView | undefined,
    private readonly clusterNamespace: string,
    /** The request's namespace: owners of an object without metadata.namespace live there. */
    readonly requestNamespace: string,
    private readonly observe?: LookupObserver,
    /** The request's template limits: templates in selects and paths render with them too. */
    readonly templateLimits?: Partial<TemplateLimits>,
  ) {}

  /**
   * Runs `work` with `asker` as the rule whose lookups these are. A lookup that answers pending
   * reads as an empty map meanwhile, so that one evaluation collects every ask the rule makes;
   * the work then fails with LOOKUP_PENDING whatever it computed (its result is not final).
   */
  as<T>(asker: AskingRule, work: () => T): T {
    const previous = this.asker;
    const previousPending = this.pendingTarget;
    this.asker = asker;
    this.pendingTarget = undefined;
    try {
      let result: T;
      try {
        result = work();
      } catch (err) {
        throw this.pendingError() ?? err;
      }
      const pending = this.pendingError();
      if (pending !== undefined) throw pending;
      return result;
    } finally {
      this.asker = previous;
      this.pendingTarget = previousPending;
    }
  }

  /** LOOKUP_PENDING for the current `as` call, if one of its lookups answered pending. */
  private pendingError(): KubemodError | undefined {
    return this.pendingTarget === undefined ? undefined : notResolved(this.pendingTarget);
  }

  /** The value a template sees for an answer, or the error that fails the rule. */
  valueOf(fn: string, target: string, answer: LookupAnswer): JsonValue {
    if (answer.kind !== 'pending') return answerValue(fn, target, answer);
    this.pendingTarget ??= `${fn} ${target}`;
    return EMPTY_MAP;
  }

  /** An object by key: the answer, after pinning and memo. */
  get(key: ObjectKey): LookupAnswer {
    const asker = this.currentAsker();
    const target = describeKey(key);
    const memoKey = JSON.stringify([
      'o',
      asker.namespace,
      asker.name,
      key.apiVersion,
      key.kind,
      key.namespace ?? '',
      key.name,
    ]);
    return this.answer(
      memoKey,
      'lookup',
      target,
      () => {
        const refusal = pinRefusal(asker, key, this.clusterNamespace);
        if (refusal !== undefined) return { kind: 'refused', reason: refusal };
        if (this.view === undefined) return NO_CLUSTER;
        return this.view.get(asker, key);
      },
      { type: 'object', asker, key },
    );
  }

  /** An external-data value: provider and key. */
  external(provider: string, key: string): LookupAnswer {
    const asker = this.currentAsker();
    const memoKey = JSON.stringify(['e', asker.namespace, asker.name, provider, key]);
    return this.answer(
      memoKey,
      'external',
      `${provider} ${key}`,
      () => (this.view === undefined ? NO_CLUSTER : this.view.external(asker, provider, key)),
      { type: 'external', asker, provider, key },
    );
  }

  /** The asks that answered `pending`, deduplicated and in a deterministic order. */
  pending(): PendingAsk[] {
    return [...this.pendingAsks.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, ask]) => ask);
  }

  private answer(
    memoKey: string,
    fn: LookupRecord['function'],
    target: string,
    ask: () => LookupAnswer,
    pendingAsk: PendingAsk,
  ): LookupAnswer {
    const known = this.memo.get(memoKey);
    if (known !== undefined) {
      charge(MEMO_HIT_UNITS);
      this.observe?.(recordOf(fn, target, known, true));
      return known;
    }
    if (this.memo.size >= MAX_LOOKUPS_PER_REQUEST) {
      throw new KubemodError(
        'LOOKUP_LIMIT',
        `${fn} ${target}: the request made more than ${String(MAX_LOOKUPS_PER_REQUEST)} distinct lookups`,
      );
    }
    charge(LOOKUP_UNITS);
    const answer = ask();
    this.memo.set(memoKey, answer);
    if (answer.kind === 'pending') this.pendingAsks.set(memoKey, pendingAsk);
    this.observe?.(recordOf(fn, target, answer, false));
    return answer;
  }

  private currentAsker(): AskingRule {
    if (this.asker === undefined) throw new Error('lookup outside a rule');
    return this.asker;
  }
}

const NO_CLUSTER: LookupAnswer = {
  kind: 'unavailable',
  reason:
    "no cluster state was given (offline: --cluster, a test file's cluster section, the dry run's cluster member)",
};

function recordOf(
  fn: LookupRecord['function'],
  target: string,
  answer: LookupAnswer,
  memoised: boolean,
): LookupRecord {
  const reason =
    answer.kind === 'refused' || answer.kind === 'unavailable' ? answer.reason : undefined;
  return { function: fn, target, answer: answer.kind, reason, memoised };
}

/** The value a template sees for an answer, or the error that fails the rule. */
export function answerValue(fn: string, target: string, answer: LookupAnswer): JsonValue {
  switch (answer.kind) {
    case 'found':
      return answer.value;
    case 'absent':
      return EMPTY_MAP;
    case 'refused':
      return fail('LOOKUP_REFUSED', `${fn} ${target}: refused: ${answer.reason}`);
    case 'unavailable':
      return fail('LOOKUP_UNAVAILABLE', `${fn} ${target}: unavailable: ${answer.reason}`);
    case 'pending':
      throw notResolved(`${fn} ${target}`);
  }
}

function notResolved(what: string): KubemodError {
  return new KubemodError(
    'LOOKUP_PENDING',
    `${what}: not resolved (an access review or provider call was still pending)`,
  );
}

/** The empty map an absent object reads as (frozen: shared by every absent answer). */
export const EMPTY_MAP: JsonValue = Object.freeze(Object.create(null) as Record<string, JsonValue>);

function fail(
  kind: 'LOOKUP_REFUSED' | 'LOOKUP_UNAVAILABLE' | 'LOOKUP_PENDING',
  message: string,
): never {
  throw new KubemodError(kind, message);
}
