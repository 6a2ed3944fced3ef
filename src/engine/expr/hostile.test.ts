import { describe, expect, it } from 'vitest';
import { compileSelect } from './select.js';
import { MAX_DEPTH } from './parser.js';
import { KubemodError } from '../../errors/catalog.js';
import { compileRule, RuleCompileError } from '../rule.js';
import { withMeter } from '../active-meter.js';
import { WorkMeter } from '../work-meter.js';
import { validateModRule } from '../validate-modrule.js';

/** Wall-clock ceiling for one hostile call: far below 1 s, with room for a slow, busy CI VM. */
const FAST_MS = 500;

/** Runs `work`, asserts it took less than FAST_MS, and returns its result or what it threw. */
function timed(work: () => unknown): { value?: unknown; error?: unknown } {
  const start = performance.now();
  let outcome: { value?: unknown; error?: unknown };
  try {
    outcome = { value: work() };
  } catch (error) {
    outcome = { error };
  }
  expect(performance.now() - start).toBeLessThan(FAST_MS);
  return outcome;
}

/** Runs `work` as one rule under a fresh meter (the default per-rule budget). */
function metered<T>(work: () => T): T {
  const meter = new WorkMeter();
  return withMeter(meter, () => meter.runRule('team', 'team/hostile', work));
}

/** The same with a generous clock, for large-but-legal input on a busy machine. */
function meteredUnhurried<T>(work: () => T): T {
  const meter = new WorkMeter({ ruleMillis: 5_000, namespaceMillis: 5_000, requestMillis: 5_000 });
  return withMeter(meter, () => meter.runRule('team', 'team/hostile', work));
}

/** Validates a ModRule spec without compiling it, then compiles it as the engine does. */
function compileSpec(spec: Record<string, unknown>): unknown {
  const result = validateModRule(
    { apiVersion: 'api.kubemod.io/v1beta1', kind: 'ModRule', metadata: { name: 'r' }, spec },
    { semantic: false },
  );
  if (!result.ok) throw new Error('structurally invalid');
  return compileRule(result.modRule);
}

function expectKubemodError(
  outcome: { error?: unknown },
  kind: KubemodError['kind'],
  text?: string,
): KubemodError {
  expect(outcome.error).toBeInstanceOf(KubemodError);
  const err = outcome.error as KubemodError;
  expect(err.kind).toBe(kind);
  if (text !== undefined) expect(err.message).toContain(text);
  return err;
}

/** `{a: {a: … {leaf} …}}`, `depth` levels deep, built without recursion. */
function nested(depth: number, leaf: unknown, key = 'a'): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { [key]: value };
  return value;
}

function chain(terms: number, term: string, op: string): string {
  return Array.from({ length: terms }, () => term).join(op);
}

describe('hostile selects: long flat chains and deep nesting are compile errors', () => {
  it.each([
    ['1+1+… (4,000 terms)', chain(4000, '1', '+')],
    ['a || b || … (3,000 terms)', chain(3000, '$.a', '||')],
    ['a && b && … (2,500 terms)', chain(2500, 'true', '&&')],
    ['a == b == … (4,000 terms)', chain(4000, '1', '==')],
    ['mixed precedence chain', chain(2000, '1*2', '+')],
    ['[[[[…]]]] (4,000 levels)', '['.repeat(4000) + ']'.repeat(4000)],
    ['!!!!… (8,000)', '!'.repeat(8000) + 'true'],
    ['- - - 1 (5,000)', '- '.repeat(5000) + '1'],
    ['((((…)))) (5,000)', '('.repeat(5000) + '1' + ')'.repeat(5000)],
    ['{a:{a:{…}}} (2,000)', '{a:'.repeat(2000) + '1' + '}'.repeat(2000)],
    ['length(length(…)) (1,500)', 'length('.repeat(1500) + '1' + ')'.repeat(1500)],
    ['ternary chain (3,000)', 'true ? 1 : '.repeat(1400) + '1'],
    ['nested filters (1,000)', '$.a[?('.repeat(1000) + '@' + ')]'.repeat(1000)],
  ])('%s', (_name, source) => {
    const outcome = timed(() => compileSelect(source));
    const err = expectKubemodError(outcome, 'EXPR_SYNTAX', `deeper than ${String(MAX_DEPTH)}`);
    expect(err.code).toBe('KM1001');
    // The message quotes only the start of a long expression.
    expect(err.message.length).toBeLessThan(600);
  });

  it('accepts a chain at the limit and evaluates it well within the stack', () => {
    const atLimit = chain(MAX_DEPTH, '1', '+');
    const outcome = timed(() => meteredUnhurried(() => compileSelect(atLimit).evaluate({})));
    expect(outcome.value).toBe(MAX_DEPTH);
    // One term more is one level too many.
    const over = timed(() => compileSelect(chain(MAX_DEPTH + 1, '1', '+')));
    expectKubemodError(over, 'EXPR_SYNTAX', 'nests deeper than');
  });

  it('evaluates nesting at the limit even from deep inside a busy stack', () => {
    const source = '['.repeat(MAX_DEPTH - 1) + '$.a' + ']'.repeat(MAX_DEPTH - 1);
    const select = compileSelect(source);
    // Use up a good part of the stack first, as a caller deep in a request handler might.
    const deepCall = (n: number): unknown =>
      n === 0 ? select.evaluate({ a: 1 }) : deepCall(n - 1);
    const value = deepCall(2000);
    let unwrapped = value;
    for (let i = 0; i < MAX_DEPTH - 1; i++) unwrapped = (unwrapped as unknown[])[0];
    expect(unwrapped).toBe(1);
  });

  it('compiles and evaluates a very long (legal) path quickly', () => {
    const steps = 5000;
    const source = '$' + '.a'.repeat(steps);
    const doc = nested(steps, 'leaf');
    const outcome = timed(() => meteredUnhurried(() => compileSelect(source).evaluate(doc)));
    expect(outcome.value).toBe('leaf');
    const many = timed(() =>
      meteredUnhurried(() => compileSelect('$' + '[*]'.repeat(3000)).evaluate([])),
    );
    expect(many.value).toEqual([]);
  });

  it('reports a chain in a ModRule as that rule field error', () => {
    const spec = {
      type: 'Patch',
      match: [{ select: chain(4000, '1', '+') }],
      patch: [{ op: 'add', path: '/metadata/labels/x', value: 'y' }],
    };
    const outcome = timed(() => compileSpec(spec));
    expect(outcome.error).toBeInstanceOf(RuleCompileError);
    const [error] = (outcome.error as RuleCompileError).errors;
    expect(error?.field).toBe('spec.match[0].select');
    expect(error?.code).toBe('KM1001');
    expect(error?.message).toContain('nests deeper than');
  });

  it('reports a chain in a patch select as that field error', () => {
    const spec = {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'Pod' }],
      patch: [{ op: 'remove', select: chain(3000, '$.a', '||'), path: '/x' }],
    };
    const outcome = timed(() => compileSpec(spec));
    // Validation (the validating webhook) reports the same field.
    const validated = validateModRule({
      apiVersion: 'api.kubemod.io/v1beta1',
      kind: 'ModRule',
      metadata: { name: 'r' },
      spec,
    });
    expect(validated.ok).toBe(false);
    if (!validated.ok) expect(validated.errors[0]?.field).toBe('spec.patch[0].select');
    expect(outcome.error).toBeInstanceOf(RuleCompileError);
    const [error] = (outcome.error as RuleCompileError).errors;
    expect(error?.field).toBe('spec.patch[0].select');
    expect(error?.code).toBe('KM1001');
  });
});

describe('hostile documents: recursive descent is linear and metered', () => {
  // Deep enough for quadratic pointers to pass any budget, and for a linear walk (7 units a
  // level, see descend.ts) to fit in one rule's.
  const depth = 20_000;
  const deepImage = nested(depth, { image: 'nginx' });

  it('finds $..image in an object nested 20,000 deep, with its pointer', () => {
    const select = compileSelect('$..image');
    const items = timed(() => meteredUnhurried(() => select.items(deepImage)));
    const found = items.value as { value: unknown; keyParts: string[] }[];
    expect(found).toHaveLength(1);
    expect(found[0]?.value).toBe('nginx');
    expect(found[0]?.keyParts[0]).toBe(Array.from({ length: depth }, () => 'a').join('/'));
    const outcome = timed(() => meteredUnhurried(() => select.outcome(deepImage)));
    expect(outcome.value).toEqual({ kind: 'values', values: ['nginx'], undefinedCount: 0 });
  });

  it('stops $..a on {a:{a:…}} (quadratic pointers) with WORK_LIMIT', () => {
    const doc = nested(depth, 1);
    const select = compileSelect('$..a');
    expectKubemodError(
      timed(() => metered(() => select.items(doc))),
      'WORK_LIMIT',
    );
    // Matching needs no pointers: every node is found in linear time.
    const outcome = timed(() => meteredUnhurried(() => select.outcome(doc)));
    expect((outcome.value as { values: unknown[] }).values).toHaveLength(depth);
  });

  it('stops $..*..* (a descent per node) with WORK_LIMIT', () => {
    const doc = nested(20_000, 1);
    expectKubemodError(
      timed(() => metered(() => compileSelect('$..*..*').outcome(doc))),
      'WORK_LIMIT',
    );
  });

  it('stops $..* over a very wide object with WORK_LIMIT', () => {
    const wide: Record<string, number> = {};
    for (let i = 0; i < 300_000; i++) wide[`k${String(i)}`] = i;
    expectKubemodError(
      timed(() => metered(() => compileSelect('$..*').outcome(wide))),
      'WORK_LIMIT',
    );
  });
});

describe('hostile documents: other steps and operators are charged', () => {
  const big = Array.from({ length: 300_000 }, (_, i) => i);

  it('stops a union that multiplies cursors', () => {
    const union = `[${Array.from({ length: 1000 }, () => '0').join(',')}]`;
    const doc = [[[[1]]]];
    expectKubemodError(
      timed(() => metered(() => compileSelect('$' + union.repeat(4)).outcome(doc))),
      'WORK_LIMIT',
    );
  });

  it.each([
    ['wildcard', '$.a[*]'],
    ['slice', '$.a[::1]'],
    ['reverse slice', '$.a[::-1]'],
    ['filter', '$.a[? @ > 1 && @ < 5 || @ == 7]'],
    ['in', '-1 in $.a'],
    ['equality of large arrays', '$.a == $.b'],
  ])('stops %s over 300,000 elements', (_name, source) => {
    const doc = { a: big, b: [...big] };
    expectKubemodError(
      timed(() => metered(() => compileSelect(source).evaluate(doc))),
      'WORK_LIMIT',
    );
  });

  it('charges a filter by the size of its predicate', () => {
    const heavy = chain(200, '@ == 1', ' || ');
    const doc = { a: Array.from({ length: 2000 }, (_, i) => i) };
    expectKubemodError(
      timed(() => metered(() => compileSelect(`$.a[?(${heavy})]`).evaluate(doc))),
      'WORK_LIMIT',
    );
  });

  it('compares two 40,000-deep objects without recursion', () => {
    const doc = { a: nested(40_000, 1), b: nested(40_000, 1), c: nested(40_000, 2) };
    expect(
      timed(() => meteredUnhurried(() => compileSelect('$.a == $.b').evaluate(doc))).value,
    ).toBe(true);
    expect(
      timed(() => meteredUnhurried(() => compileSelect('$.a == $.c').evaluate(doc))).value,
    ).toBe(false);
    expect(timed(() => compileSelect('$.a in [$.c, $.b]').evaluate(doc)).value).toBe(true);
  });

  it('refuses to print a 40,000-deep object for =~ with DEPTH_LIMIT', () => {
    const doc = { a: nested(40_000, 1) };
    const err = expectKubemodError(
      timed(() => metered(() => compileSelect('$.a =~ "x"').evaluate(doc))),
      'DEPTH_LIMIT',
    );
    expect(err.message).toContain('$.a =~');
  });

  it('charges printing a value that holds the same object many times (a DAG)', () => {
    const wide: Record<string, string> = {};
    for (let i = 0; i < 5000; i++) wide[`key${String(i)}`] = 'value';
    const many = `[${Array.from({ length: 200 }, () => '$.w').join(',')}]`;
    expectKubemodError(
      timed(() => metered(() => compileSelect(`${many} =~ "nomatch"`).evaluate({ w: wide }))),
      'WORK_LIMIT',
    );
  });

  it('charges =~ by the length of its input', () => {
    const long = 'ab'.repeat(500_000);
    const select = compileSelect('$.s =~ "c$"');
    expect(timed(() => meteredUnhurried(() => select.evaluate({ s: long }))).value).toBe(false);
    const meter = new WorkMeter();
    withMeter(meter, () => select.evaluate({ s: long }));
    expect(meter.left).toBeLessThan(1_000_000 - 10_000);
  });

  it('caps string concatenation with EXPR_LIMIT', () => {
    const s = 'x'.repeat(600_000);
    const err = expectKubemodError(
      timed(() => metered(() => compileSelect('$.s + $.s').evaluate({ s }))),
      'EXPR_LIMIT',
      'over the 1048576 limit',
    );
    expect(err.code).toBe('KM1004');
    expect(timed(() => compileSelect('$.s + "y"').evaluate({ s })).value).toHaveLength(600_001);
  });

  it('keeps functions cheap on large input', () => {
    const keys: Record<string, number> = {};
    for (let i = 0; i < 200_000; i++) keys[`k${String(i)}`] = i;
    expect(timed(() => compileSelect('isEmpty($.o)').evaluate({ o: keys })).value).toBe(false);
    expectKubemodError(
      timed(() => metered(() => compileSelect('length($.o)').evaluate({ o: keys }))),
      'WORK_LIMIT',
    );
    expectKubemodError(
      timed(() => compileSelect('date($.s)').evaluate({ s: '2020-01-01'.repeat(100_000) })),
      'EXPR_TYPE',
      'cannot parse',
    );
  });

  it('keeps WORK_LIMIT its kind once exhausted (sticky) through the select wrapper', () => {
    const meter = new WorkMeter({ requestUnits: 100 });
    const select = compileSelect('$.a[*]');
    const doc = { a: big };
    withMeter(meter, () => {
      expect(() => select.items(doc)).toThrow(KubemodError);
      try {
        select.evaluate({ a: [1] });
        expect.unreachable('the meter is exhausted');
      } catch (err) {
        expect((err as KubemodError).kind).toBe('WORK_LIMIT');
      }
    });
  });
});
