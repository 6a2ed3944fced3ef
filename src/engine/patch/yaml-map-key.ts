/**
 * How sigs.k8s.io/yaml turns a non-string YAML map key into a JSON member name: ints in decimal,
 * floats with Go's `strconv.FormatFloat(f, 'g', -1, 32)` (`.inf`, `-.inf`, `.nan` for the
 * specials), booleans as `true`/`false`. Anything else (null, uint64 beyond int64, collections)
 * is unsupported and yields `undefined`.
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export function goMapKey(key: unknown): string | undefined {
  if (typeof key === 'string') return key;
  if (typeof key === 'boolean') return key ? 'true' : 'false';
  if (typeof key === 'bigint') {
    return key >= INT64_MIN && key <= INT64_MAX ? key.toString() : undefined;
  }
  if (typeof key === 'number') return formatGoFloat32(key);
  return undefined;
}

/** Go's `strconv.FormatFloat(f, 'g', -1, 32)` with go-yaml's names for NaN and infinities. */
export function formatGoFloat32(value: number): string {
  const f = Math.fround(value);
  if (Number.isNaN(f)) return '.nan';
  if (f === Number.POSITIVE_INFINITY) return '.inf';
  if (f === Number.NEGATIVE_INFINITY) return '-.inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const sign = f < 0 ? '-' : '';
  let digits = '';
  let exp = 0;
  // The shortest decimal that reads back as the same float32 (at most 9 digits).
  for (let precision = 1; precision <= 9; precision++) {
    const text = Math.abs(f).toExponential(precision - 1);
    if (Math.fround(Number(text)) === Math.abs(f) || precision === 9) {
      const [mantissa = '', exponent = '0'] = text.split('e');
      digits = mantissa.replace('.', '');
      exp = Number(exponent);
      break;
    }
  }
  // %e when the exponent is < -4 or >= 6 (the precision Go uses for the shortest form).
  if (exp < -4 || exp >= 6) {
    const fraction = digits.length > 1 ? '.' + digits.slice(1) : '';
    const absExp = String(Math.abs(exp)).padStart(2, '0');
    return `${sign}${digits.slice(0, 1)}${fraction}e${exp < 0 ? '-' : '+'}${absExp}`;
  }
  const point = exp + 1;
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
