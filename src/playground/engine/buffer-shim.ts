/**
 * The few `Buffer` operations the engine uses (UTF-8, base64 and hex conversions, byte length,
 * byte-wise comparison), for the in-browser build, where esbuild injects this module in place of
 * Node's global `Buffer`. Decoding follows Node: invalid UTF-8 becomes U+FFFD (the WHATWG
 * decoder Node also follows), and base64 skips characters outside the alphabet (either
 * alphabet, standard or URL-safe) and stops at the first `=`.
 */
export const Buffer = {
  /** Bytes of a string (UTF-8 or base64 text), or a view of an ArrayBuffer's bytes. */
  from(
    value: string | ArrayBufferLike,
    encodingOrOffset: 'utf8' | 'base64' | number = 'utf8',
    length?: number,
  ): BufferBytes {
    if (typeof value !== 'string') {
      const offset = typeof encodingOrOffset === 'number' ? encodingOrOffset : 0;
      return new BufferBytes(value as ArrayBuffer, offset, length ?? value.byteLength - offset);
    }
    const bytes =
      encodingOrOffset === 'base64' ? decodeBase64(value) : new TextEncoder().encode(value);
    const buffer = new BufferBytes(bytes.length);
    buffer.set(bytes);
    return buffer;
  },

  isBuffer(value: unknown): value is BufferBytes {
    return value instanceof BufferBytes;
  },

  /** UTF-8 bytes of `value` (the only encoding the engine asks for). */
  byteLength(value: string): number {
    let bytes = 0;
    for (let i = 0; i < value.length; i++) {
      const code = value.charCodeAt(i);
      if (code < 0x80) bytes += 1;
      else if (code < 0x800) bytes += 2;
      else if (code >= 0xd800 && code <= 0xdbff && isLowSurrogate(value.charCodeAt(i + 1))) {
        bytes += 4;
        i += 1;
      } else bytes += 3;
    }
    return bytes;
  },

  compare(a: Uint8Array, b: Uint8Array): -1 | 0 | 1 {
    const length = Math.min(a.length, b.length);
    for (let i = 0; i < length; i++) {
      const x = a[i] ?? 0;
      const y = b[i] ?? 0;
      if (x !== y) return x < y ? -1 : 1;
    }
    return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
  },
};

/** The bytes `Buffer.from` returns: a Uint8Array whose toString decodes as Node's does. */
export class BufferBytes extends Uint8Array {
  override toString(encoding: 'utf8' | 'base64' | 'hex' = 'utf8'): string {
    if (encoding === 'hex') {
      let out = '';
      for (const byte of this) out += byte.toString(16).padStart(2, '0');
      return out;
    }
    if (encoding === 'base64') return encodeBase64(this);
    return new TextDecoder('utf-8').decode(this);
  }
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function encodeBase64(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] ?? 0;
    const b = bytes[i + 1] ?? 0;
    const c = bytes[i + 2] ?? 0;
    const left = bytes.length - i;
    out += ALPHABET.charAt(a >> 2) + ALPHABET.charAt(((a & 3) << 4) | (b >> 4));
    out += left > 1 ? ALPHABET.charAt(((b & 15) << 2) | (c >> 6)) : '=';
    out += left > 2 ? ALPHABET.charAt(c & 63) : '=';
  }
  return out;
}

function sextet(ch: string): number {
  if (ch === '-') return 62;
  if (ch === '_') return 63;
  return ALPHABET.indexOf(ch);
}

function decodeBase64(text: string): Uint8Array {
  const values: number[] = [];
  for (const ch of text) {
    if (ch === '=') break;
    const value = ch.length === 1 ? sextet(ch) : -1;
    if (value >= 0) values.push(value);
  }
  const out: number[] = [];
  for (let i = 0; i + 1 < values.length; i += 4) {
    const [a = 0, b = 0, c, d] = values.slice(i, i + 4);
    out.push(((a << 2) | (b >> 4)) & 255);
    if (c !== undefined) out.push(((b << 4) | (c >> 2)) & 255);
    if (c !== undefined && d !== undefined) out.push(((c << 6) | d) & 255);
  }
  return Uint8Array.from(out);
}
