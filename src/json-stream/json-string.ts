import { describeByte, syntaxError } from './json-syntax-error.js';

/**
 * Reading JSON strings from UTF-8 bytes for the sliced parser (json-slice-parser.ts), stopping and
 * resuming anywhere. Runs of raw bytes are decoded with Buffer.toString on the bytes between the
 * quotes and escapes, which gives what decoding the whole body gives: quotes and backslashes are
 * ASCII, so they never sit inside a UTF-8 sequence, and invalid bytes become U+FFFD the same way.
 * A long run is decoded in pieces cut where that stays exact (see safeSplit).
 */
export interface JsonStringReader {
  /** Starts reading the string whose opening quote is at `quoteAt`. */
  start(quoteAt: number): void;
  /**
   * Reads from `pos` up to about `limit` (an escape may end a few bytes past it). Returns
   * -(the position after the closing quote) - 1 when the string ended (its text from take()), or
   * the position to resume from.
   */
  read(pos: number, limit: number): number;
  /** The text of the string that ended. */
  take(): string;
}

/** A reader over `buf` that decodes at most `chunkBytes` (at least 4) raw bytes at once. */
export function createJsonStringReader(buf: Buffer, chunkBytes: number): JsonStringReader {
  return new StringReader(buf, Math.max(4, chunkBytes));
}

/** ASCII runs between escapes up to this long are copied as code units rather than decoded. */
const SHORT_RUN = 32;
/** Pending code units are turned into text once there are this many. */
const MAX_PENDING_CODES = 4096;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  const lower = b | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
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

class StringReader implements JsonStringReader {
  // Where the string's quote is, where its undecoded bytes start, whether those are all ASCII so
  // far, and what is decoded already.
  private stringStart = 0;
  private segmentStart = 0;
  private segmentAscii = true;
  private decoded = '';
  // UTF-16 code units of escapes (and short ASCII runs between them) not yet added to `decoded`.
  private readonly codes: number[] = [];

  constructor(
    private readonly buf: Buffer,
    private readonly chunkBytes: number,
  ) {}

  start(quoteAt: number): void {
    this.stringStart = quoteAt;
    this.segmentStart = quoteAt + 1;
    this.segmentAscii = true;
    this.decoded = '';
  }

  take(): string {
    const text = this.decoded;
    this.decoded = '';
    return text;
  }

  private decodeSegment(start: number, end: number, ascii: boolean): string {
    if (start === end) return '';
    return this.buf.toString(ascii ? 'latin1' : 'utf8', start, end);
  }

  /** Turns the pending UTF-16 code units into text. */
  private flushCodes(): void {
    const codes = this.codes;
    if (codes.length === 0) return;
    this.decoded += String.fromCharCode(...codes);
    codes.length = 0;
  }

  /**
   * Appends raw string bytes after an escape was seen: short ASCII runs join the pending code
   * units (no call per run), others are decoded.
   */
  private appendSegment(start: number, end: number, ascii: boolean): void {
    if (start === end) return;
    const codes = this.codes;
    if (ascii && end - start <= SHORT_RUN && codes.length < MAX_PENDING_CODES) {
      for (let k = start; k < end; k++) codes.push(this.buf[k] ?? 0);
      return;
    }
    this.flushCodes();
    this.decoded += this.decodeSegment(start, end, ascii);
  }

  read(pos: number, limit: number): number {
    const buf = this.buf;
    const end = buf.length;
    let segmentStart = this.segmentStart;
    let ascii = this.segmentAscii;
    let i = pos;
    for (;;) {
      const chunkEnd = segmentStart + this.chunkBytes;
      const stop = chunkEnd < limit ? chunkEnd : limit;
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
        if (b === QUOTE) {
          let text: string;
          if (this.decoded === '' && this.codes.length === 0) {
            text = this.decodeSegment(segmentStart, i, ascii);
          } else {
            this.appendSegment(segmentStart, i, ascii);
            this.flushCodes();
            text = this.decoded;
          }
          this.decoded = text;
          return -(i + 1) - 1;
        }
        if (b !== BACKSLASH)
          throw syntaxError(`control character ${describeByte(b)} in a string`, i);
        this.appendSegment(segmentStart, i, ascii);
        i = this.escape(i);
        segmentStart = i;
        ascii = true;
        continue;
      }
      if (i >= end) throw syntaxError('unterminated string', this.stringStart);
      if (i !== chunkEnd) break;
      // A long run without escapes: decode what is read so far, cut where decoding is exact.
      const split = safeSplit(buf, i);
      this.appendSegment(segmentStart, split, ascii);
      segmentStart = split;
      i = split;
      ascii = true;
    }
    this.segmentStart = segmentStart;
    this.segmentAscii = ascii;
    return i;
  }

  /** Reads the escape whose backslash is at `at` into the pending code units; the position after it. */
  private escape(at: number): number {
    const buf = this.buf;
    const e = buf[at + 1] ?? -1;
    let code: number;
    switch (e) {
      case QUOTE:
      case BACKSLASH:
      case 0x2f: // /
        code = e;
        break;
      case 0x62: // b
        code = 0x08;
        break;
      case 0x66: // f
        code = 0x0c;
        break;
      case 0x6e: // n
        code = 0x0a;
        break;
      case 0x72: // r
        code = 0x0d;
        break;
      case 0x74: // t
        code = 0x09;
        break;
      case 0x75: {
        // u: four hex digits
        code = 0;
        for (let k = at + 2; k < at + 6; k++) {
          const digit = hexValue(buf[k] ?? -1);
          if (digit < 0) throw syntaxError('bad Unicode escape', at);
          code = code * 16 + digit;
        }
        this.codes.push(code);
        if (this.codes.length >= MAX_PENDING_CODES) this.flushCodes();
        return at + 6;
      }
      case -1:
        throw syntaxError('unterminated string', this.stringStart);
      default:
        throw syntaxError(`bad escape ${describeByte(e)} in a string`, at);
    }
    this.codes.push(code);
    if (this.codes.length >= MAX_PENDING_CODES) this.flushCodes();
    return at + 2;
  }
}
