// Finds the metric names a PromQL expression reads, for the dashboard/alerts drift test
// (test/unit/monitoring/monitoring-drift.test.ts). Not a PromQL parser: a tokenizer plus the few
// rules that tell a metric name from the other identifiers of the language — function names,
// aggregation and set operators, modifiers, label names in matchers and in by/without/on/ignoring/
// group_left/group_right lists — and that skip strings, numbers, durations, range and subquery
// brackets and Grafana variables ($__rate_interval, ${job}).

type TokenKind = 'ident' | 'string' | 'number' | 'variable' | 'punct';

interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** Offset in the expression, for error messages. */
  readonly at: number;
}

/** Words that are never metric names where they stand (PromQL keywords are case-insensitive). */
const KEYWORDS: ReadonlySet<string> = new Set([
  // aggregation operators
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
  // binary and set operators, modifiers
  'and',
  'or',
  'unless',
  'atan2',
  'bool',
  'offset',
  // number literals
  'inf',
  'nan',
]);

/** Keywords followed by a parenthesised list of label names. */
const LABEL_LIST_KEYWORDS: ReadonlySet<string> = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
]);

const IDENT = /[A-Za-z_:][A-Za-z0-9_:]*/y;
const DURATION = /[0-9]+(?:ms|[smhdwy])(?:[0-9]+(?:ms|[smhdwy]))*/y;
const NUMBER = /(?:0[xX][0-9a-fA-F]+|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)/y;
const VARIABLE = /\$(?:\{[^}]*\}|[A-Za-z0-9_]+)/y;

function fail(expr: string, at: number, reason: string): never {
  throw new Error(`PromQL ${JSON.stringify(expr)}: ${reason} at offset ${String(at)}`);
}

function matchAt(pattern: RegExp, expr: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(expr)?.[0];
}

/** The end (exclusive) of the string literal starting at `at`. */
function stringEnd(expr: string, at: number): number {
  const quote = expr[at];
  for (let i = at + 1; i < expr.length; i++) {
    if (quote !== '`' && expr[i] === '\\') i++;
    else if (expr[i] === quote) return i + 1;
  }
  return fail(expr, at, 'unterminated string');
}

/** The tokens of `expr`; the contents of `[...]` (ranges, subqueries) are dropped. */
export function tokenize(expr: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < expr.length) {
    const c = expr[at] ?? '';
    if (/\s/.test(c)) {
      at++;
    } else if (c === '#') {
      const newline = expr.indexOf('\n', at);
      at = newline < 0 ? expr.length : newline;
    } else if (c === '"' || c === "'" || c === '`') {
      const end = stringEnd(expr, at);
      tokens.push({ kind: 'string', text: expr.slice(at + 1, end - 1), at });
      at = end;
    } else if (c === '[') {
      const end = expr.indexOf(']', at);
      if (end < 0) fail(expr, at, 'unclosed [');
      at = end + 1;
    } else if (c === '$') {
      const text = matchAt(VARIABLE, expr, at) ?? fail(expr, at, 'bad variable');
      tokens.push({ kind: 'variable', text, at });
      at += text.length;
    } else {
      const number = matchAt(DURATION, expr, at) ?? matchAt(NUMBER, expr, at);
      const ident = number === undefined ? matchAt(IDENT, expr, at) : undefined;
      const token: Token =
        number !== undefined
          ? { kind: 'number', text: number, at }
          : ident !== undefined
            ? { kind: 'ident', text: ident, at }
            : { kind: 'punct', text: c, at };
      tokens.push(token);
      at += token.text.length;
    }
  }
  return tokens;
}

/** The index after the token that closes the bracket opened at `open`. */
function closing(tokens: readonly Token[], open: number, expr: string): number {
  const pairs: Record<string, string> = { '(': ')', '{': '}' };
  const opener = tokens[open]?.text ?? '';
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    const token = tokens[i];
    if (token?.kind !== 'punct') continue;
    if (token.text === opener) depth++;
    else if (token.text === pairs[opener] && --depth === 0) return i + 1;
  }
  return fail(expr, tokens[open]?.at ?? 0, `unclosed ${opener}`);
}

/** Throws at the first bracket that is not closed, or closed by the wrong one. */
function checkBalanced(tokens: readonly Token[], expr: string): void {
  const open: Token[] = [];
  for (const token of tokens) {
    if (token.kind !== 'punct') continue;
    if (token.text === '(' || token.text === '{') open.push(token);
    else if (token.text === ')' || token.text === '}') {
      const opener = open.pop();
      if (opener === undefined || (opener.text === '(') !== (token.text === ')'))
        fail(expr, token.at, `unexpected ${token.text}`);
    }
  }
  const unclosed = open[0];
  if (unclosed !== undefined) fail(expr, unclosed.at, `unclosed ${unclosed.text}`);
}

/** Metric names in a `{...}` matcher list: only a `__name__="..."` matcher names one. */
function namesInMatchers(tokens: readonly Token[], from: number, to: number): string[] {
  const names: string[] = [];
  for (let i = from; i + 2 < to; i++) {
    const [label, op, value] = [tokens[i], tokens[i + 1], tokens[i + 2]];
    // `=~`, `!=` and `!~` are two punctuation tokens, so the value is not right after them.
    if (label?.text === '__name__' && op?.text === '=' && value?.kind === 'string') {
      names.push(value.text);
    }
  }
  return names;
}

/**
 * The metric names `expr` reads, each once, in order of appearance. Histogram series keep the
 * suffix written in the expression (`..._bucket`); relating them to the histogram is the caller's
 * business. Throws on unterminated strings and unbalanced brackets.
 */
export function metricNames(expr: string): string[] {
  const tokens = tokenize(expr);
  checkBalanced(tokens, expr);
  const names: string[] = [];
  let i = 0;
  while (i < tokens.length) {
    const token = tokens[i] as Token;
    const next = tokens[i + 1];
    if (token.kind === 'punct' && token.text === '{') {
      const end = closing(tokens, i, expr);
      names.push(...namesInMatchers(tokens, i + 1, end - 1));
      i = end;
      continue;
    }
    if (token.kind !== 'ident') {
      i++;
      continue;
    }
    const word = token.text.toLowerCase();
    if (LABEL_LIST_KEYWORDS.has(word)) {
      // group_left and group_right may stand without a list.
      i = next?.text === '(' ? closing(tokens, i + 1, expr) : i + 1;
      continue;
    }
    // A word followed by `(` is a function call; keywords are never metric names.
    if (!KEYWORDS.has(word) && next?.text !== '(') names.push(token.text);
    i++;
  }
  return [...new Set(names)];
}
