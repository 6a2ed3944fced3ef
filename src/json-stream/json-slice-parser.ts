import { KubemodError } from '../errors/catalog.js';
import type { JsonObject, JsonValue } from '../engine/json.js';
import { createJsonStringReader, type JsonStringReader } from './json-string.js';
import { describeByte, syntaxError, unexpected } from './json-syntax-error.js';
import {
  newNumberScan,
  numberIsComplete,
  numberValue,
  readNumber,
  startNumber,
  type NumberScan,
} from './json-number.js';

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

const QUOTE = 0x22;

function isWhitespace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
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

class SliceParser implements JsonSliceParser {
  private pos = 0;
  private state = VALUE;
  private readonly containers: (JsonValue[] | JsonObject)[] = [];
  private readonly keys: string[] = [];
  private root: JsonValue = null;
  private readonly string: JsonStringReader;
  private stringIsKey = false;
  private readonly number: NumberScan = newNumberScan();

  constructor(
    private readonly buf: Buffer,
    private readonly maxDepth: number,
    private readonly tuning: ParserTuning,
  ) {
    this.string = createJsonStringReader(buf, tuning.stringChunkBytes);
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
        pos = this.string.read(pos, limit);
        if (pos < 0) {
          pos = -pos - 1;
          if (this.stringIsKey) {
            this.keys[this.keys.length - 1] = this.string.take();
            state = COLON;
          } else {
            state = this.place(this.string.take());
          }
        }
        continue;
      }
      if (state === NUMBER) {
        const stop = readNumber(buf, this.number, pos, limit);
        if (stop < 0) {
          pos = -stop - 1;
          if (!numberIsComplete(this.number))
            throw unexpected(buf[pos] ?? -1, 'a digit in a number', pos);
          state = this.place(numberValue(buf, this.number, pos));
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
              this.string.start(pos);
              this.stringIsKey = false;
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
              startNumber(this.number, b, pos);
              pos++;
              state = NUMBER;
              break;
            default:
              if (b >= 0x30 && b <= 0x39) {
                startNumber(this.number, b, pos);
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
          this.string.start(pos);
          this.stringIsKey = true;
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
          if (b !== -1)
            throw syntaxError(`unexpected ${describeByte(b)} after the JSON value`, pos);
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
}
