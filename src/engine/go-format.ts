import { KubemodError } from '../errors/catalog.js';
import { MAX_VALUE_DEPTH } from './work-limits.js';
import { charge, depthError } from './active-meter.js';

/** Longest text goFormat builds (in UTF-16 code units) when no work meter stops it sooner. */
export const MAX_PRINT_LENGTH = 16 << 20;

/**
 * Prints JSON values the way Go's fmt `%v` (and so text/template) prints the values that
 * encoding/json decodes into `interface{}`: numbers are float64, objects are maps with sorted keys,
 * arrays are slices. KubeMod compares matchValue against these strings and templates print them.
 *
 * Lists and maps are charged to the active work meter per node and per 64 bytes printed, every
 * time a node is printed (a value that holds the same list many times pays for every copy),
 * refused past MAX_VALUE_DEPTH levels (DEPTH_LIMIT) and past MAX_PRINT_LENGTH (WORK_LIMIT).
 */
export function goFormat(value: unknown): string {
  if (typeof value === 'object' && value !== null && !(value instanceof Date)) {
    const printer = new Printer();
    printer.print(value, 0);
    printer.flushCharge();
    return printer.parts.join('');
  }
  return goFormatScalar(value);
}

/** Go's %v of a scalar (a non-Date object prints as its tag). */
export function goFormatScalar(value: unknown): string {
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
      return value instanceof Date ? value.toISOString() : Object.prototype.toString.call(value);
    default:
      return typeof value === 'symbol' ? value.toString() : '<func>';
  }
}

/** Bytes of output between two charges (one unit per 64 bytes, as chargeBytes counts). */
const CHARGE_EVERY = 4096;

/**
 * Units per composite value printed, and per element or member: the writes, the formatting of a
 * scalar and the key sort cost 0.1–0.3 µs each (bench/backstop-margin.ts calibrates a unit at
 * about 50 ns), beyond the bytes of output charged by CHARGE_EVERY.
 */
const NODE_UNITS = 4;
const ELEMENT_UNITS = 2;
const MEMBER_UNITS = 4;

/** Prints one composite value into `parts`; recursion is bounded by MAX_VALUE_DEPTH. */
class Printer {
  readonly parts: string[] = [];
  private length = 0;
  private uncharged = 0;

  print(value: unknown, depth: number): void {
    if (typeof value !== 'object' || value === null || value instanceof Date) {
      this.write(goFormatScalar(value));
      return;
    }
    if (depth >= MAX_VALUE_DEPTH) throw depthError('printing a value');
    charge(NODE_UNITS);
    if (Array.isArray(value)) {
      charge(value.length * ELEMENT_UNITS);
      this.write('[');
      for (let i = 0; i < value.length; i++) {
        if (i > 0) this.write(' ');
        this.print(value[i], depth + 1);
      }
      this.write(']');
      return;
    }
    const map = value as Record<string, unknown>;
    const keys = Object.keys(map);
    charge(1 + keys.length * MEMBER_UNITS);
    keys.sort(compareGoStrings);
    this.write('map[');
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      if (i > 0) this.write(' ');
      this.write(key);
      this.write(':');
      this.print(map[key], depth + 1);
    }
    this.write(']');
  }

  /** Charges whatever output has not been charged yet. */
  flushCharge(): void {
    if (this.uncharged > 0) charge(Math.ceil(this.uncharged / 64));
    this.uncharged = 0;
  }

  private write(text: string): void {
    this.length += text.length;
    if (this.length > MAX_PRINT_LENGTH) {
      throw new KubemodError(
        'WORK_LIMIT',
        `printing a value: the text would exceed ${String(MAX_PRINT_LENGTH)} characters`,
      );
    }
    this.parts.push(text);
    this.uncharged += text.length;
    if (this.uncharged >= CHARGE_EVERY) this.flushCharge();
  }
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
