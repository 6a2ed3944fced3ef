import fc from 'fast-check';
import { createHash as nodeCreateHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Buffer as ShimBuffer } from './buffer-shim.js';
import { createHash } from './crypto-shim.js';

// The in-browser stand-ins for Node's Buffer and node:crypto against Node itself, on arbitrary
// Unicode text (lone surrogates included) and arbitrary base64-ish input.

const text = fc.string({ unit: 'binary', maxLength: 200 });
const base64ish = fc.string({
  unit: fc.constantFrom(
    ...Array.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n!'),
  ),
  maxLength: 60,
});

describe('browser stand-ins against Node', () => {
  it('Buffer: UTF-8, hex and base64 conversions, byte length and comparison', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const mine = ShimBuffer.from(a, 'utf8');
        const node = Buffer.from(a, 'utf8');
        expect([...mine]).toEqual([...node]);
        expect(mine.toString('hex')).toBe(node.toString('hex'));
        expect(mine.toString('base64')).toBe(node.toString('base64'));
        expect(mine.toString('utf8')).toBe(node.toString('utf8'));
        expect(ShimBuffer.byteLength(a)).toBe(Buffer.byteLength(a, 'utf8'));
        expect(ShimBuffer.compare(mine, ShimBuffer.from(b, 'utf8'))).toBe(
          Buffer.compare(node, Buffer.from(b, 'utf8')),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('Buffer: base64 decoding (either alphabet, junk skipped, stops at =), then UTF-8', () => {
    fc.assert(
      fc.property(base64ish, (s) => {
        const mine = ShimBuffer.from(s, 'base64');
        const node = Buffer.from(s, 'base64');
        expect([...mine], JSON.stringify(s)).toEqual([...node]);
        expect(mine.toString('utf8')).toBe(node.toString('utf8'));
      }),
      { numRuns: 1000 },
    );
  });

  it('createHash: sha1 and sha256 hex digests, across block boundaries', () => {
    const lengths = fc.oneof(
      text,
      fc.integer({ min: 50, max: 140 }).map((n) => 'x'.repeat(n)),
    );
    fc.assert(
      fc.property(lengths, (s) => {
        for (const algorithm of ['sha1', 'sha256']) {
          expect(createHash(algorithm).update(s, 'utf8').digest('hex')).toBe(
            nodeCreateHash(algorithm).update(s, 'utf8').digest('hex'),
          );
        }
      }),
      { numRuns: 300 },
    );
    expect(() => createHash('md5')).toThrow('Digest method not supported: md5');
  });
});
