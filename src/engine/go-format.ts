/**
 * Prints JSON values the way Go's fmt `%v` (and so text/template) prints the values that
 * encoding/json decodes into `interface{}`: numbers are float64, objects are maps with sorted keys,
 * arrays are slices. KubeMod compares matchValue against these strings and templates print them.
 */
export function goFormat(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  switch (typeof value) {
    case 'string':
      return value;
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      return goFormatFloat(value);
    case 'bigint':
      return value.toString();
    case 'object':
      if (Array.isArray(value)) return `[${value.map(goFormat).join(' ')}]`;
      if (value instanceof Date) return value.toISOString();
      return goFormatMap(value as Record<string, unknown>);
    default:
      return typeof value === 'symbol' ? value.toString() : '<func>';
  }
}

function goFormatMap(map: Record<string, unknown>): string {
  const keys = Object.keys(map).sort(compareGoStrings);
  return `map[${keys.map((k) => `${k}:${goFormat(map[k])}`).join(' ')}]`;
}

const SURROGATE = /[\uD800-\uDFFF]/;

/**
 * Go sorts map keys by byte order. UTF-8 byte order equals UTF-16 code unit order except where
 * surrogate pairs (characters beyond the BMP) meet U+E000…U+FFFF, so only then compare the bytes.
 */
function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** strconv.FormatFloat(f, 'g', -1, 64) as fmt's %v uses it: shortest digits, %e when exp < -4 || exp >= 6. */
export function goFormatFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // Integers below 1e6 in magnitude print as their digits, as JavaScript prints them.
  if (Number.isInteger(f) && Math.abs(f) < 1e6) return String(f);
  // toExponential() with no argument yields the shortest round-trip digits, like Go's shortest mode.
  const [mantissa = '0', expText = '0'] = f.toExponential().split('e');
  const exp = Number(expText);
  // 'g' with the shortest precision switches to %e when exp < -4 || exp >= 6 (so 1e+06, not 1000000).
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const abs = Math.abs(exp);
    return `${mantissa}e${sign}${abs < 10 ? `0${abs}` : abs}`;
  }
  const negative = mantissa.startsWith('-');
  const digits = mantissa.replace('-', '').replace('.', '');
  const pointPos = exp + 1;
  let text: string;
  if (pointPos <= 0) text = `0.${'0'.repeat(-pointPos)}${digits}`;
  else if (pointPos >= digits.length) text = digits + '0'.repeat(pointPos - digits.length);
  else text = `${digits.slice(0, pointPos)}.${digits.slice(pointPos)}`;
  return negative ? `-${text}` : text;
}
