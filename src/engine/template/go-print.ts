import { goFormatScalar } from '../go-format.js';
import { MAX_VALUE_DEPTH } from '../work-limits.js';
import { depthError } from '../active-meter.js';
import { chargeListVisit, chargeMapVisit } from './costs.js';
import { defaultTemplateLimits, limitError } from './render-state.js';
import { keysToSort, type GoMap } from './go-values.js';

/** How a scalar (or nil) prints inside a printed list or map. */
export type LeafFormat = (value: unknown) => string;

/** fmt's %v of a scalar: what Go prints for the values encoding/json decodes. */
export function formatScalar(value: unknown): string {
  return typeof value === 'object' && value !== null && !(value instanceof Date)
    ? '<nil>'
    : goFormatScalar(value);
}

/**
 * fmt's %v (as text/template prints values): the same text as ../go-format.ts's goFormat, but
 * bounded. A template can build values that share parts (`$x = list $x $x`) or contain themselves
 * (`set $d "self" $d`), whose printed form is exponentially large or infinite: every list and map
 * visited is charged to the work meter, nesting stops at MAX_VALUE_DEPTH (DEPTH_LIMIT), and the
 * text stops at `max` UTF-16 code units (TEMPLATE_LIMIT).
 */
export function formatValue(
  value: unknown,
  max: number = defaultTemplateLimits.maxOutputBytes,
  leaf: LeafFormat = formatScalar,
): string {
  if (typeof value !== 'object' || value === null || value instanceof Date) {
    const text = leaf(value);
    if (text.length > max) throw tooLong(max);
    return text;
  }
  const printer: Printer = { out: '', max, leaf };
  write(printer, value, 0);
  return printer.out;
}

/** sprig's strval: strings as they are, everything else as fmt's %v. */
export function strval(value: unknown, max?: number): string {
  if (typeof value === 'string') return value;
  return formatValue(value === undefined ? null : value, max);
}

interface Printer {
  out: string;
  readonly max: number;
  readonly leaf: LeafFormat;
}

function tooLong(max: number): Error {
  return limitError(`printing a value would produce more than ${max} bytes`);
}

function append(printer: Printer, text: string): void {
  printer.out += text;
  if (printer.out.length > printer.max) throw tooLong(printer.max);
}

function write(printer: Printer, value: unknown, depth: number): void {
  if (typeof value !== 'object' || value === null || value instanceof Date) {
    append(printer, printer.leaf(value === undefined ? null : value));
    return;
  }
  if (depth >= MAX_VALUE_DEPTH) throw depthError('printing a value');
  if (Array.isArray(value)) {
    chargeListVisit(value.length);
    append(printer, '[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) append(printer, ' ');
      write(printer, value[i], depth + 1);
    }
    append(printer, ']');
    return;
  }
  const map = value as GoMap;
  const keys = keysToSort(map);
  keys.sort(keys.some((k) => SURROGATE.test(k)) ? compareGoStrings : compareUnits);
  chargeMapVisit(keys.length);
  append(printer, 'map[');
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] ?? '';
    append(printer, i > 0 ? ` ${key}:` : `${key}:`);
    write(printer, map[key], depth + 1);
  }
  append(printer, ']');
}

const SURROGATE = /[\uD800-\uDFFF]/;

function compareUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Go sorts map keys by byte order. UTF-8 byte order equals UTF-16 code unit order except where
 * surrogate pairs (characters beyond the BMP) meet U+E000…U+FFFF, so only then compare the bytes.
 */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  if (!SURROGATE.test(a) && !SURROGATE.test(b)) return a < b ? -1 : 1;
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
