import { sha1, sha256 } from './sha.js';

/** A `node:crypto` hash as the engine uses it: update with text, digest as hex. */
export interface Hash {
  update(data: string, encoding?: 'utf8'): Hash;
  digest(encoding: 'hex'): string;
}

/**
 * `createHash` of `node:crypto` for the in-browser build (esbuild aliases `node:crypto` to this
 * module): SHA-1 and SHA-256 only, the two the template functions `sha1sum` and `sha256sum` use.
 */
export function createHash(algorithm: string): Hash {
  const digest = algorithm === 'sha256' ? sha256 : algorithm === 'sha1' ? sha1 : undefined;
  if (digest === undefined) throw new Error(`Digest method not supported: ${algorithm}`);
  const parts: Uint8Array[] = [];
  const hash: Hash = {
    update(data: string): Hash {
      parts.push(new TextEncoder().encode(data));
      return hash;
    },
    digest(): string {
      const length = parts.reduce((sum, part) => sum + part.length, 0);
      const all = new Uint8Array(length);
      let at = 0;
      for (const part of parts) {
        all.set(part, at);
        at += part.length;
      }
      return Array.from(digest(all), (byte) => byte.toString(16).padStart(2, '0')).join('');
    },
  };
  return hash;
}
