import { KubemodError } from '../errors/catalog.js';
import type { JsonObject, JsonValue } from '../engine/json.js';

/**
 * A JSON parser over UTF-8 bytes that can stop at any point and carry on later: an explicit state
 * machine with an explicit stack of open arrays and objects (no recursion, so an attacker's depth
 * cannot overflow the call stack). It gives exactly what `JSON.parse(bytes.toString('utf8'))`
 * gives, or throws REQUEST_MALFORMED where JSON.parse would throw. The entry points that drive it
 * are in incremental-json.ts.
 */
export interface JsonSliceParser {
  /**
   * Parses until the value is complete (true) or until `clock()` has reached `deadline` (false;
   * call again to continue). The clock is read about every `checkIntervalBytes` bytes, never more
   * often; with an infinite deadline it is never read.
   */
  step(deadline: number, clock: () => number): boolean;
  /** The parsed value; only after step returned true. */
  result(): JsonValue;
}

/** Knobs that change when the parser reads the clock and decodes strings, never its result. */
export interface ParserTuning {
  /** Bytes parsed between two readings of the clock. */
  readonly checkIntervalBytes: number;
  /** The longest run of a string's bytes decoded at once (at least 4). */
  readonly stringChunkBytes: number;
}

export const DEFAULT_TUNING: ParserTuning = { checkIntervalBytes: 2048, stringChunkBytes: 32768 };

/** A parser for `bytes` that refuses nesting deeper than `maxDepth` arrays and objects. */
export function createJsonSliceParser(
  bytes: Uint8Array,
  maxDepth: number,
  tuning: ParserTuning = DEFAULT_TUNING,
): JsonSliceParser {
  const buf = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return new SliceParser(buf, maxDepth, tuning);
}

// Parser states. The structural ones come first: they skip whitespace before their byte.
const VALUE = 0; // a value must come (document start, after ':' or after ',' in an array)
const FIRST_ELEMENT = 1; // after '[': a value or ']'
const FIRST_KEY = 2; // after '{': a key or '}'
const KEY = 3; // after ',' in an object: a key
const COLON = 4; // after a key
const AFTER = 5; // after a value inside an array or object: ',' or the closer
const END = 6; // after the top-level value: only whitespace
const STRING = 7; // inside a string
const NUMBER = 8; // inside a number
const DONE = 9;

// Number grammar states: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
const N_MINUS = 0;
const N_ZERO = 1;
const N_INT = 2;
const N_DOT = 3;
const N_FRAC = 4;
const N_E = 5;
const N_E_SIGN = 6;
const N_EXP = 7;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** A syntax error in the catalog's words, at a byte offset of the body. */
export function syntaxError(reason: string, at: number): KubemodError {
  return new KubemodError(
    'REQUEST_MALFORMED',
    `request body is not valid JSON: ${reason} at byte ${at}`,
  );
}

function describeByte(b: number): string {
  if (b < 0) return 'end of input';
  if (b > 0x20 && b < 0x7f) return `'${String.fromCharCode(b)}'`;
  return `byte 0x${b.toString(16).padStart(2, '0')}`;
}

function unexpected(b: number, expected: string, at: number): KubemodError {
  return syntaxError(`unexpected ${describeByte(b)}, expected ${expected}`, at);
}

function isWhitespace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const lower = b | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

/** Sets a property as JSON.parse does: `__proto__` becomes an own data property, never the prototype. */
function setProperty(target: JsonObject, key: string, value: JsonValue): void {
  if (key === '__proto__') {
    Object.defineProperty(target, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else {
    target[key] = value;
  }
}

/**
 * Where a long string may be cut for decoding so that decoding both parts gives what decoding the
 * whole gives: before a byte that does not continue a UTF-8 sequence, or after three continuation
 * bytes (no sequence has more, so the decoder is between sequences there).
 */
function safeSplit(buf: Buffer, at: number): number {
  for (let p = at; p > at - 4; p--) if (((buf[p] ?? 0) & 0xc0) !== 0x80) return p;
  return at;
}

class SliceParser implements JsonSliceParser {
  private pos = 0;
  private state = VALUE;
  private readonly containers: (JsonValue[] | JsonObject)[] = [];
  private readonly keys: string[] = [];
  private root: JsonValue = null;
  // The string being read: where its quote is, where its undecoded bytes start, whether those are
  // all ASCII so far, what is decoded already, and whether it is a key.
  private stringStart = 0;
  private segmentStart = 0;
  private segmentAscii = true;
  private decoded = '';
  private stringIsKey = false;
  // The number being read: where it starts and its grammar state.
  private numberStart = 0;
  private numberState = N_INT;
  private readonly chunkBytes: number;

  constructor(
    private readonly buf: Buffer,
    private readonly maxDepth: number,
    private readonly tuning: ParserTuning,
  ) {
    this.chunkBytes = Math.max(4, tuning.stringChunkBytes);
  }

  result(): JsonValue {
    if (this.state !== DONE) throw new Error('JsonSliceParser.result() before the parse completed');
    return this.root;
  }

  step(deadline: number, clock: () => number): boolean {
    if (this.state === DONE) return true;
    const buf = this.buf;
    const end = buf.length;
    const interval =
      deadline === Number.POSITIVE_INFINITY
        ? Number.POSITIVE_INFINITY
        : Math.max(1, this.tuning.checkIntervalBytes);
    let pos = this.pos;
    let state = this.state;
    let checkAt = pos + interval;
    for (;;) {
      if (pos >= checkAt) {
        if (clock() >= deadline) {
          this.pos = pos;
          this.state = state;
          return false;
        }
        checkAt = pos + interval;
      }
      const limit = checkAt < end ? checkAt : end;
      if (state === STRING) {
        pos = this.readString(pos, limit);
        if (pos < 0) {
          pos = -pos - 1;
          state = this.stringIsKey ? COLON : this.place(this.decoded);
          this.decoded = '';
        }
        continue;
      }
      if (state === NUMBER) {
        const stop = this.readNumber(pos, limit);
        if (stop < 0) {
          pos = -stop - 1;
          state = this.place(this.numberValue(pos));
        } else {
          pos = stop;
        }
        continue;
      }
      let b = buf[pos] ?? -1;
      if (isWhitespace(b)) {
        do pos++;
        while (pos < limit && isWhitespace(buf[pos] ?? -1));
        if (pos < end && pos === limit) continue;
        b = buf[pos] ?? -1;
      }
      switch (state) {
        case FIRST_ELEMENT:
        case VALUE:
          if (state === FIRST_ELEMENT && b === 0x5d) {
            pos++;
            state = this.close();
            break;
          }
          switch (b) {
            case QUOTE:
              this.startString(pos, false);
              pos++;
              state = STRING;
              break;
            case 0x7b: // {
              this.open({});
              pos++;
              state = FIRST_KEY;
              break;
            case 0x5b: // [
              this.open([]);
              pos++;
              state = FIRST_ELEMENT;
              break;
            case 0x74: // t
              pos = this.literal(pos, 0x72, 0x75, 0x65, -1);
              state = this.place(true);
              break;
            case 0x66: // f
              pos = this.literal(pos, 0x61, 0x6c, 0x73, 0x65);
              state = this.place(false);
              break;
            case 0x6e: // n
              pos = this.literal(pos, 0x75, 0x6c, 0x6c, -1);
              state = this.place(null);
              break;
            case 0x2d: // -
              this.numberStart = pos;
              this.numberState = N_MINUS;
              pos++;
              state = NUMBER;
              break;
            default:
              if (b >= 0x30 && b <= 0x39) {
                this.numberStart = pos;
                this.numberState = b === 0x30 ? N_ZERO : N_INT;
                pos++;
                state = NUMBER;
                break;
              }
              throw unexpected(b, 'a value', pos);
          }
          break;
        case FIRST_KEY:
        case KEY:
          if (state === FIRST_KEY && b === 0x7d) {
            pos++;
            state = this.close();
            break;
          }
          if (b !== QUOTE) throw unexpected(b, 'a property name in double quotes', pos);
          this.startString(pos, true);
          pos++;
          state = STRING;
          break;
        case COLON:
          if (b !== 0x3a) throw unexpected(b, "':' after a property name", pos);
          pos++;
          state = VALUE;
          break;
        case AFTER: {
          const inArray = Array.isArray(this.containers[this.containers.length - 1]);
          if (b === 0x2c) {
            pos++;
            state = inArray ? VALUE : KEY;
          } else if (b === (inArray ? 0x5d : 0x7d)) {
            pos++;
            state = this.close();
          } else {
            throw unexpected(b, inArray ? "',' or ']'" : "',' or '}'", pos);
          }
          break;
        }
        case END:
          if (b !== -1) throw syntaxError(`unexpected ${describeByte(b)} after the JSON value`, pos);
          this.pos = pos;
          this.state = DONE;
          return true;
        default:
          throw new Error(`JsonSliceParser: unknown state ${state}`);
      }
    }
  }

  /** Adds a finished value to the open array or object (or makes it the result); the next state. */
  private place(value: JsonValue): number {
    const n = this.containers.length;
    const top = n === 0 ? undefined : this.containers[n - 1];
    if (top === undefined) {
      this.root = value;
      return END;
    }
    if (Array.isArray(top)) top.push(value);
    else setProperty(top, this.keys[n - 1] ?? '', value);
    return AFTER;
  }

  private open(container: JsonValue[] | JsonObject): void {
    if (this.containers.length >= this.maxDepth) {
      throw new KubemodError(
        'REQUEST_MALFORMED',
        `request body nests deeper than ${String(this.maxDepth)} levels`,
      );
    }
    this.containers.push(container);
    this.keys.push('');
  }

  private close(): number {
    const closed = this.containers.pop();
    this.keys.pop();
    if (closed === undefined) throw new Error('JsonSliceParser: closed a container never opened');
    return this.place(closed);
  }

  /** The position after a literal whose first byte is at `at` and whose next bytes are given (-1: none). */
  private literal(at: number, b1: number, b2: number, b3: number, b4: number): number {
    const buf = this.buf;
    const length = b4 < 0 ? 4 : 5;
    if (
      buf[at + 1] !== b1 ||
      buf[at + 2] !== b2 ||
      buf[at + 3] !== b3 ||
      (b4 >= 0 && buf[at + 4] !== b4)
    ) {
      throw syntaxError('invalid literal (expected true, false or null)', at);
    }
    return at + length;
  }

  private startString(quoteAt: number, isKey: boolean): void {
    this.stringStart = quoteAt;
    this.segmentStart = quoteAt + 1;
    this.segmentAscii = true;
    this.decoded = '';
    this.stringIsKey = isKey;
  }

  private decodeSegment(start: number, end: number, ascii: boolean): string {
    if (start === end) return '';
    return this.buf.toString(ascii ? 'latin1' : 'utf8', start, end);
  }

  /**
   * Reads string bytes from `pos` up to `limit`. Returns -(position after the closing quote) - 1
   * when the string ended (its value in `decoded`, or in the open object's key slot for a key), or
   * the position to resume from.
   */
  private readString(pos: number, limit: number): number {
    const buf = this.buf;
    const chunkEnd = this.segmentStart + this.chunkBytes;
    const stop = chunkEnd < limit ? chunkEnd : limit;
    let ascii = this.segmentAscii;
    let i = pos;
    let b = 0;
    while (i < stop) {
      b = buf[i] ?? 0;
      if (b > BACKSLASH) {
        if (b >= 0x80) ascii = false;
      } else if (b === QUOTE || b === BACKSLASH || b < 0x20) {
        break;
      }
      i++;
    }
    if (i < stop) {
      const text = this.decoded + this.decodeSegment(this.segmentStart, i, ascii);
      if (b === QUOTE) {
        if (this.stringIsKey) {
          this.keys[this.keys.length - 1] = text;
          this.decoded = '';
        } else {
          this.decoded = text;
        }
        return -(i + 1) - 1;
      }
      if (b === BACKSLASH) {
        const next = this.escape(i);
        this.decoded = text + next.text;
        this.segmentStart = next.after;
        this.segmentAscii = true;
        return next.after;
      }
      throw syntaxError(`control character ${describeByte(b)} in a string`, i);
    }
    if (i >= this.buf.length) throw syntaxError('unterminated string', this.stringStart);
    if (i === chunkEnd) {
      const split = safeSplit(buf, i);
      this.decoded += this.decodeSegment(this.segmentStart, split, ascii);
      this.segmentStart = split;
      this.segmentAscii = true;
      return split;
    }
    this.segmentAscii = ascii;
    return i;
  }

  private escape(at: number): { text: string; after: number } {
    const buf = this.buf;
    const e = buf[at + 1] ?? -1;
    switch (e) {
      case QUOTE:
        return { text: '"', after: at + 2 };
      case BACKSLASH:
        return { text: '\\', after: at + 2 };
      case 0x2f:
        return { text: '/', after: at + 2 };
      case 0x62:
        return { text: '\b', after: at + 2 };
      case 0x66:
        return { text: '\f', after: at + 2 };
      case 0x6e:
        return { text: '\n', after: at + 2 };
      case 0x72:
        return { text: '\r', after: at + 2 };
      case 0x74:
        return { text: '\t', after: at + 2 };
      case 0x75: {
        let code = 0;
        for (let k = at + 2; k < at + 6; k++) {
          const digit = hexValue(buf[k] ?? -1);
          if (digit < 0) throw syntaxError('bad Unicode escape', at);
          code = code * 16 + digit;
        }
        return { text: String.fromCharCode(code), after: at + 6 };
      }
      case -1:
        throw syntaxError('unterminated string', this.stringStart);
      default:
        throw syntaxError(`bad escape ${describeByte(e)} in a string`, at);
    }
  }

  /** Reads number bytes up to `limit`; -(end of the number) - 1 when it ended, or where to resume. */
  private readNumber(pos: number, limit: number): number {
    const buf = this.buf;
    let state = this.numberState;
    let i = pos;
    scan: for (; i < limit; i++) {
      const b = buf[i] ?? -1;
      const digit = b >= 0x30 && b <= 0x39;
      switch (state) {
        case N_MINUS:
          if (b === 0x30) state = N_ZERO;
          else if (digit) state = N_INT;
          else break scan;
          break;
        case N_INT:
        case N_ZERO:
          if (digit && state === N_INT) break;
          if (b === 0x2e) state = N_DOT;
          else if (b === 0x65 || b === 0x45) state = N_E;
          else break scan;
          break;
        case N_DOT:
          if (digit) state = N_FRAC;
          else break scan;
          break;
        case N_FRAC:
          if (digit) break;
          if (b === 0x65 || b === 0x45) state = N_E;
          else break scan;
          break;
        case N_E:
          if (b === 0x2b || b === 0x2d) state = N_E_SIGN;
          else if (digit) state = N_EXP;
          else break scan;
          break;
        case N_E_SIGN:
          if (digit) state = N_EXP;
          else break scan;
          break;
        default: // N_EXP
          if (!digit) break scan;
      }
    }
    this.numberState = state;
    if (i === limit && i < buf.length) return i;
    if (state === N_MINUS || state === N_DOT || state === N_E || state === N_E_SIGN) {
      throw unexpected(buf[i] ?? -1, 'a digit in a number', i);
    }
    return -i - 1;
  }

  /** The value of the number that ends at `end`, as JSON.parse computes it. */
  private numberValue(end: number): number {
    const buf = this.buf;
    const start = this.numberStart;
    const state = this.numberState;
    if ((state === N_INT || state === N_ZERO) && end - start <= 15) {
      // At most 15 digits: exact in a double, the same as Number().
      const negative = buf[start] === 0x2d;
      let value = 0;
      for (let k = negative ? start + 1 : start; k < end; k++)
        value = value * 10 + (buf[k] ?? 0) - 0x30;
      return negative ? -value : value;
    }
    return Number(buf.toString('latin1', start, end));
  }
}
