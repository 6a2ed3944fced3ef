import { describe, expect, it } from 'vitest';
import { AUTHOR_KEY_BYTES, authorSigner } from './author-signature.js';

const RECORD = '{"username":"alice","groups":["team"],"extra":{}}';
const key = (fill: number): Buffer => Buffer.alloc(AUTHOR_KEY_BYTES, fill);

describe('authorSigner', () => {
  it('signs a record on one rule with HMAC-SHA256, the same way every time', () => {
    const signer = authorSigner(key(1));
    const mac = signer.sign('shop', 'tier', RECORD);
    expect(mac).toMatch(/^v1:[A-Za-z0-9_-]{43}$/);
    expect(authorSigner(key(1)).sign('shop', 'tier', RECORD)).toBe(mac);
    expect(signer.verify('shop', 'tier', RECORD, mac)).toBe(true);
  });

  it.each([
    ['another key', (mac: string) => authorSigner(key(2)).verify('shop', 'tier', RECORD, mac)],
    [
      'another namespace',
      (mac: string) => authorSigner(key(1)).verify('shop2', 'tier', RECORD, mac),
    ],
    ['another name', (mac: string) => authorSigner(key(1)).verify('shop', 'tier2', RECORD, mac)],
    [
      'a tampered record',
      (mac: string) =>
        authorSigner(key(1)).verify('shop', 'tier', RECORD.replace('alice', 'admin'), mac),
    ],
    [
      'namespace and name split elsewhere',
      (mac: string) => authorSigner(key(1)).verify('sho', 'ptier', RECORD, mac),
    ],
    [
      'a truncated MAC',
      (mac: string) => authorSigner(key(1)).verify('shop', 'tier', RECORD, mac.slice(0, -2)),
    ],
    ['no MAC', () => authorSigner(key(1)).verify('shop', 'tier', RECORD, '')],
  ])('refuses %s', (_what, check) => {
    const mac = authorSigner(key(1)).sign('shop', 'tier', RECORD);
    expect(check(mac)).toBe(false);
  });

  it('refuses a key shorter than 32 bytes', () => {
    expect(() => authorSigner(Buffer.alloc(16))).toThrow(/16 bytes; at least 32 are needed/);
  });
});
