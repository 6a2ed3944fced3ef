/**
 * A cheap upper estimate of what RE2 does to compile a pattern. RE2 matches in linear time, but
 * compiling is not linear: counted repetitions are expanded (`x{1,100}` becomes 100 nested
 * optional copies), Unicode classes become hundreds of byte ranges, and long runs of optional
 * parts cost time quadratic in their number (a 12,000-character `[a-z]{1,100}…` took 30 s, and
 * `\pL` repeated 1,000 times took 1 s only to fail). The estimate counts one unit per plain atom,
 * more for classes, and multiplies by repetition counts; compileRegex refuses patterns above
 * MAX_PATTERN_COST before RE2 sees them.
 */
export const MAX_PATTERN_COST = 2000;

const UNICODE_CLASS_COST = 200;
const CLASS_COST = 2;

interface Group {
  total: number;
  last: number;
}

/** The estimated compile cost of an RE2 pattern (syntax errors are left to RE2 to report). */
export function patternCost(pattern: string): number {
  const groups: Group[] = [{ total: 0, last: 0 }];
  let group = groups[0] as Group;
  const atom = (cost: number): void => {
    group.total += cost;
    group.last = cost;
  };
  let i = 0;
  while (i < pattern.length) {
    const c = pattern.charAt(i);
    if (c === '\\') {
      const next = pattern.charAt(i + 1);
      if (next === 'p' || next === 'P') {
        i = pattern.charAt(i + 2) === '{' ? skipPast(pattern, i + 3, '}') : i + 3;
        atom(UNICODE_CLASS_COST);
      } else if (next === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const stop = end === -1 ? pattern.length : end;
        for (let j = i + 2; j < stop; j++) atom(1);
        i = end === -1 ? stop : end + 2;
      } else if (next === 'x' && pattern.charAt(i + 2) === '{') {
        i = skipPast(pattern, i + 3, '}');
        atom(1);
      } else {
        i += 2;
        atom('dDsSwW'.includes(next) ? CLASS_COST : 1);
      }
    } else if (c === '[') {
      const [end, cost] = scanClass(pattern, i + 1);
      i = end;
      atom(cost);
    } else if (c === '(') {
      group = { total: 0, last: 0 };
      groups.push(group);
      i++;
    } else if (c === ')') {
      const closed = groups.length > 1 ? groups.pop() : undefined;
      group = groups[groups.length - 1] as Group;
      atom(closed?.total ?? 0);
      i++;
    } else if (c === '{') {
      const repeat = /^\{(\d+)(?:,(\d*))?\}/.exec(pattern.slice(i, i + 24));
      if (repeat === null) {
        atom(1);
        i++;
      } else {
        const min = Number(repeat[1]);
        const max = repeat[2] === undefined || repeat[2] === '' ? min + 1 : Number(repeat[2]);
        group.total += group.last * (Math.max(min, max, 1) - 1);
        group.last *= Math.max(min, max, 1);
        i += repeat[0].length;
      }
    } else if (c === '.') {
      atom(CLASS_COST);
      i++;
    } else if (c === '*' || c === '+' || c === '?' || c === '|' || c === '^' || c === '$') {
      i++;
    } else {
      atom(1);
      i++;
    }
  }
  let total = 0;
  for (const open of groups) total += open.total;
  return total;
}

function skipPast(pattern: string, from: number, close: string): number {
  const end = pattern.indexOf(close, from);
  return end === -1 ? pattern.length : end + 1;
}

/** Scans a class after its `[`; returns the index after its `]` and its cost. */
function scanClass(pattern: string, from: number): [number, number] {
  let i = from;
  let cost = CLASS_COST;
  if (pattern.charAt(i) === '^') i++;
  if (pattern.charAt(i) === ']') i++;
  while (i < pattern.length && pattern.charAt(i) !== ']') {
    const c = pattern.charAt(i);
    if (c === '\\') {
      const next = pattern.charAt(i + 1);
      if (next === 'p' || next === 'P') {
        cost += UNICODE_CLASS_COST;
        i = pattern.charAt(i + 2) === '{' ? skipPast(pattern, i + 3, '}') : i + 3;
      } else {
        i += 2;
      }
    } else if (c === '[' && pattern.charAt(i + 1) === ':') {
      const end = pattern.indexOf(':]', i + 2);
      i = end === -1 ? i + 1 : end + 2;
    } else {
      i++;
    }
  }
  return [Math.min(i + 1, pattern.length), cost];
}
