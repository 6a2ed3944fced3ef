import fc from 'fast-check';

/**
 * Builders of hostile JSON texts and expressions. Everything is built as a string, iteratively:
 * JSON.stringify of a deeply nested value would overflow this process's own stack.
 */

/** `{"a":{"a":…<leaf>…}}`, `depth` objects deep. */
export function deepObjectJson(depth: number, leaf = '"bottom"', key = 'a'): string {
  const open = `{${JSON.stringify(key)}:`;
  return open.repeat(depth) + leaf + '}'.repeat(depth);
}

/** `[[[…<leaf>…]]]`, `depth` arrays deep. */
export function deepArrayJson(depth: number, leaf = '"bottom"'): string {
  return '['.repeat(depth) + leaf + ']'.repeat(depth);
}

/**
 * `{"image":"nginx","a":{"image":"nginx","a":…}}`: every level holds an `image`, the worst case
 * for `$..image`.
 */
export function deepImagesJson(depth: number): string {
  return '{"image":"nginx","a":'.repeat(depth) + '{}' + '}'.repeat(depth);
}

/** Alternating object and array levels, `depth` deep in all. */
export function deepMixedJson(depth: number, leaf = '"bottom"'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i++) {
    open += i % 2 === 0 ? '{"a":' : '[';
    close = (i % 2 === 0 ? '}' : ']') + close;
  }
  return open + leaf + close;
}

/** An object with `keys` keys `k0…`, each holding `value` (a JSON text). */
export function wideObjectJson(keys: number, value = '"v"'): string {
  const parts: string[] = [];
  for (let i = 0; i < keys; i++) parts.push(`"k${String(i)}":${value}`);
  return `{${parts.join(',')}}`;
}

/** An array of `items` copies of `value` (a JSON text). */
export function wideArrayJson(items: number, value = '"v"'): string {
  return `[${Array.from({ length: items }, () => value).join(',')}]`;
}

/** A ConfigMap-like manifest in namespace `team` whose `spec` is `specJson`. */
export function manifestJson(
  specJson: string,
  options: { name?: string; labels?: Record<string, string>; kind?: string } = {},
): string {
  const metadata = {
    name: options.name ?? 'hostile',
    namespace: 'team',
    labels: options.labels ?? { app: 'hostile' },
  };
  return `{"apiVersion":"v1","kind":${JSON.stringify(options.kind ?? 'ConfigMap')},"metadata":${JSON.stringify(metadata)},"spec":${specJson}}`;
}

/** `1+1+…+1`, `terms` terms, with operator `op`. */
export function flatChain(terms: number, op = '+', term = '1'): string {
  return Array.from({ length: terms }, () => term).join(op);
}

/** `((((1))))`, `depth` parentheses deep. */
export function deepParens(depth: number, inner = '1'): string {
  return '('.repeat(depth) + inner + ')'.repeat(depth);
}

/** `$.a.a.a…`, `segments` long. */
export function longPath(segments: number, segment = 'a'): string {
  return `$${`.${segment}`.repeat(segments)}`;
}

// fast-check generators -------------------------------------------------------------------------

export type Shape = 'object' | 'array' | 'mixed' | 'images';

export interface DeepInput {
  readonly shape: Shape;
  readonly depth: number;
}

/** Deep values of each shape, up to `maxDepth` levels (kept below the 10,000-level body limit). */
export function deepInput(maxDepth = 9000): fc.Arbitrary<DeepInput> {
  return fc.record({
    shape: fc.constantFrom<Shape>('object', 'array', 'mixed', 'images'),
    depth: fc.oneof(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 600, max: maxDepth })),
  });
}

export function deepInputJson(input: DeepInput): string {
  switch (input.shape) {
    case 'object':
      return deepObjectJson(input.depth);
    case 'array':
      return deepArrayJson(input.depth);
    case 'mixed':
      return deepMixedJson(input.depth);
    case 'images':
      return deepImagesJson(input.depth);
  }
}

export interface WideInput {
  readonly keys: number;
  readonly valueDepth: number;
  readonly array: boolean;
}

/** Wide objects and arrays (up to `maxKeys` entries), each entry a small nested value. */
export function wideInput(maxKeys = 40_000): fc.Arbitrary<WideInput> {
  return fc.record({
    keys: fc.integer({ min: 1, max: maxKeys }),
    valueDepth: fc.integer({ min: 0, max: 4 }),
    array: fc.boolean(),
  });
}

export function wideInputJson(input: WideInput): string {
  const value = deepObjectJson(input.valueDepth, '{"image":"nginx"}', 'image');
  return input.array ? wideArrayJson(input.keys, value) : wideObjectJson(input.keys, value);
}

/**
 * Long select expressions: flat operator chains, deep parentheses, long and repeated paths,
 * unary chains, long filters, long unions. Some are valid, some are not; none may stall or crash.
 */
export function longSelect(): fc.Arbitrary<string> {
  const n = (max: number): fc.Arbitrary<number> =>
    fc.oneof(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 200, max: max }));
  return fc.oneof(
    fc
      .tuple(n(6000), fc.constantFrom('+', '-', '*', '/', '%', '&&', '||', '==', '<', ' in '))
      .map(([terms, op]) => flatChain(terms, op)),
    fc
      .tuple(n(6000), fc.constantFrom('$.spec', '"s"', 'true', '@', '$..a'))
      .map(([terms, term]) => flatChain(terms, ' + ', term)),
    n(6000).map((depth) => deepParens(depth)),
    n(6000).map((depth) => deepParens(depth, '$.spec.a')),
    n(20_000).map((segments) => longPath(segments)),
    n(5000).map((segments) => `$${'..a'.repeat(segments)}`),
    n(5000).map((segments) => `$${'[*]'.repeat(segments)}`),
    n(5000).map((count) => `${'!'.repeat(count)}true`),
    n(5000).map((count) => `${'-'.repeat(count)}1`),
    n(3000).map((count) => `$.spec[?(${flatChain(count, ' && ', '@.a == 1')})]`),
    n(3000).map(
      (count) => `$.spec[${Array.from({ length: count }, (_, i) => String(i)).join(',')}]`,
    ),
    n(3000).map((count) => `[${'['.repeat(count)}${']'.repeat(count)}]`),
    n(3000).map((count) => `${'length('.repeat(count)}$.spec${')'.repeat(count)}`),
    n(50_000).map((length) => `"${'x'.repeat(length)}"`),
  );
}

/** Long and deeply nested templates for patch values. */
export function longTemplate(): fc.Arbitrary<string> {
  const n = (max: number): fc.Arbitrary<number> =>
    fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 100, max: max }));
  return fc.oneof(
    n(4000).map((depth) => `{{ ${deepParens(depth, '"x"')} }}`),
    n(4000).map((depth) => `${'{{ if true }}'.repeat(depth)}x${'{{ end }}'.repeat(depth)}`),
    n(4000).map((count) => `{{ "x"${' | upper'.repeat(count)} }}`),
    n(4000).map((count) => `{{ ${flatChain(count, ' ', 'print')} 1 }}`),
    n(2000).map(
      (count) =>
        `{{ $x := list 1 }}${'{{ $x = concat $x $x }}'.repeat(Math.min(count, 64))}{{ len $x }}`,
    ),
    n(4000).map((count) => `{{ .Target${'.spec'.repeat(count)} }}`),
  );
}

/**
 * A "billion laughs" YAML mapping: `levels` anchors, each a list of `fan` aliases of the one
 * before (fan^levels leaves), under `key` and indented by `indent` spaces.
 */
export function aliasBombYaml(key: string, levels = 9, fan = 10, indent = 0): string {
  const pad = ' '.repeat(indent);
  const lines = [`${pad}${key}:`];
  lines.push(`${pad}  l0: &l0 [${Array.from({ length: fan }, () => '"lol"').join(', ')}]`);
  for (let i = 1; i < levels; i++) {
    const previous = `*l${String(i - 1)}`;
    lines.push(
      `${pad}  l${String(i)}: &l${String(i)} [${Array.from({ length: fan }, () => previous).join(', ')}]`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** The same bomb as one flow-style YAML text (for patch values, which are YAML strings). */
export function aliasBombFlow(levels = 9, fan = 10): string {
  const items = [`a0: &a0 [${Array.from({ length: fan }, () => 'lol').join(', ')}]`];
  for (let i = 1; i < levels; i++) {
    items.push(
      `a${String(i)}: &a${String(i)} [${Array.from({ length: fan }, () => `*a${String(i - 1)}`).join(', ')}]`,
    );
  }
  return `{${items.join(', ')}}`;
}

/** A YAML document nested `depth` flow sequences deep: `[[[…]]]`. */
export function deepFlowYaml(depth: number): string {
  return `${'['.repeat(depth)}x${']'.repeat(depth)}`;
}

/** A YAML document nested `depth` block mappings deep. */
export function deepBlockYaml(depth: number): string {
  const lines: string[] = [];
  for (let i = 0; i < depth; i++) lines.push(`${' '.repeat(i)}a:`);
  lines.push(`${' '.repeat(depth)}x`);
  return `${lines.join('\n')}\n`;
}
