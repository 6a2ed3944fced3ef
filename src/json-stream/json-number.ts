/**
 * Reading JSON numbers for the sliced parser (json-slice-parser.ts): the grammar
 * -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? checked one byte at a time so that reading can
 * stop and resume anywhere, and the value as JSON.parse computes it. A number of a megabyte of
 * digits is converted in time independent of its length: only its first 800 significant digits
 * and whether any later digit is non-zero decide the nearest double.
 */
export interface NumberScan {
  start: number;
  state: number;
  /** Where the '.' and the 'e' are (-1: none). */
  dot: number;
  exponentAt: number;
  /** Where the first and the last non-zero digit before the exponent are (-1: none). */
  firstNonZero: number;
  lastNonZero: number;
  /** The exponent's digits read so far, as a number that stops growing at 1e9. */
  exponent: number;
}

// Grammar states.
const N_MINUS = 0;
const N_ZERO = 1;
const N_INT = 2;
const N_DOT = 3;
const N_FRAC = 4;
const N_E = 5;
const N_E_SIGN = 6;
const N_EXP = 7;

/** Numbers longer than this are converted from their significant digits. */
const LONG_NUMBER = 1000;
/** More than the 767 significant digits of the longest midpoint between two doubles. */
const KEPT_DIGITS = 800;
const EXPONENT_CAP = 1e9;

export function newNumberScan(): NumberScan {
  return {
    start: 0,
    state: N_INT,
    dot: -1,
    exponentAt: -1,
    firstNonZero: -1,
    lastNonZero: -1,
    exponent: 0,
  };
}

/** Starts reading the number whose first byte ('-' or a digit) is at `at`. */
export function startNumber(scan: NumberScan, first: number, at: number): void {
  scan.start = at;
  scan.state = first === 0x2d ? N_MINUS : first === 0x30 ? N_ZERO : N_INT;
  scan.dot = -1;
  scan.exponentAt = -1;
  scan.firstNonZero = first > 0x30 && first <= 0x39 ? at : -1;
  scan.lastNonZero = scan.firstNonZero;
  scan.exponent = 0;
}

/**
 * Reads number bytes from `pos` (the byte after those read before) up to `limit`. Returns
 * -(the end of the number) - 1 once it ended (check numberIsComplete), or the position to resume
 * from.
 */
export function readNumber(buf: Uint8Array, scan: NumberScan, pos: number, limit: number): number {
  let state = scan.state;
  let i = pos;
  scan: for (; i < limit; i++) {
    const b = buf[i] ?? -1;
    const digit = b >= 0x30 && b <= 0x39;
    switch (state) {
      case N_MINUS:
        if (b === 0x30) state = N_ZERO;
        else if (digit) {
          state = N_INT;
          scan.firstNonZero = i;
          scan.lastNonZero = i;
        } else break scan;
        break;
      case N_INT:
      case N_ZERO:
        if (digit && state === N_INT) {
          if (b !== 0x30) scan.lastNonZero = i;
          break;
        }
        if (b === 0x2e) {
          state = N_DOT;
          scan.dot = i;
        } else if (b === 0x65 || b === 0x45) {
          state = N_E;
          scan.exponentAt = i;
        } else break scan;
        break;
      case N_DOT:
      case N_FRAC:
        if (digit) {
          state = N_FRAC;
          if (b !== 0x30) {
            if (scan.firstNonZero < 0) scan.firstNonZero = i;
            scan.lastNonZero = i;
          }
        } else if (state === N_FRAC && (b === 0x65 || b === 0x45)) {
          state = N_E;
          scan.exponentAt = i;
        } else break scan;
        break;
      default: // N_E, N_E_SIGN, N_EXP
        if (state === N_E && (b === 0x2b || b === 0x2d)) {
          state = N_E_SIGN;
          break;
        }
        if (!digit) break scan;
        state = N_EXP;
        if (scan.exponent < EXPONENT_CAP) scan.exponent = scan.exponent * 10 + b - 0x30;
    }
  }
  scan.state = state;
  if (i === limit && i < buf.length) return i;
  return -i - 1;
}

/** Whether the number read so far is a whole number (not '-', '1.', '1e' or '1e+'). */
export function numberIsComplete(scan: NumberScan): boolean {
  return (
    scan.state === N_ZERO || scan.state === N_INT || scan.state === N_FRAC || scan.state === N_EXP
  );
}

/** The value of the number read by `scan` that ends at `end`, as JSON.parse computes it. */
export function numberValue(buf: Buffer, scan: NumberScan, end: number): number {
  const start = scan.start;
  const negative = buf[start] === 0x2d;
  if ((scan.state === N_INT || scan.state === N_ZERO) && end - start <= 15) {
    // At most 15 digits: exact in a double, the same as Number().
    let value = 0;
    for (let k = negative ? start + 1 : start; k < end; k++)
      value = value * 10 + (buf[k] ?? 0) - 0x30;
    return negative ? -value : value;
  }
  if (end - start <= LONG_NUMBER) return Number(buf.toString('latin1', start, end));
  if (scan.firstNonZero < 0) return negative ? -0 : 0;
  // The first KEPT_DIGITS significant digits, then a 1 if any later digit is not zero.
  const mantissaEnd = scan.exponentAt >= 0 ? scan.exponentAt : end;
  const units = scan.dot >= 0 ? scan.dot : mantissaEnd;
  let k = scan.firstNonZero;
  let kept = 0;
  let last = k;
  for (; k < mantissaEnd && kept < KEPT_DIGITS; k++) {
    if (k === scan.dot) continue;
    kept++;
    last = k;
  }
  let digits = buf.toString('latin1', scan.firstNonZero, last + 1).replace('.', '');
  // The power of ten of the last kept digit.
  let scale = last < units ? units - 1 - last : -(last - scan.dot);
  if (scan.lastNonZero > last) {
    digits += '1';
    scale -= 1;
  }
  const exponentNegative = scan.exponentAt >= 0 && buf[scan.exponentAt + 1] === 0x2d;
  scale += exponentNegative ? -scan.exponent : scan.exponent;
  const value = Number(`${digits}e${String(scale)}`);
  return negative ? -value : value;
}
