import { randomBytes } from 'node:crypto';

/**
 * A unique DNS-1123 label such as `e2e-lz3k9a-4f2c1b`, so tests can share one cluster (and be
 * re-run against it) without colliding.
 */
export function uniqueName(prefix = 'e2e'): string {
  const suffix = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  const base = prefix.toLowerCase().replace(/[^a-z0-9-]/g, '-');
  return `${base.slice(0, 63 - suffix.length - 1)}-${suffix}`;
}
