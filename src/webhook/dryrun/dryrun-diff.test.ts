import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../../engine/json.js';
import { dryRunDiff, manifestName } from './dryrun-diff.js';

describe('dryRunDiff', () => {
  it('is the unified YAML diff named after the manifest', () => {
    const before: JsonObject = { kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };
    const after: JsonObject = { ...before, data: { a: '2' } };
    const diff = dryRunDiff(before, after);
    expect(diff).toContain('--- ConfigMap/c\tbefore');
    expect(diff).toContain("+  a: '2'");
    expect(dryRunDiff(before, before)).toBe('');
    expect(dryRunDiff(before, after, { name: 'ConfigMap' })).toContain('--- ConfigMap\tbefore');
  });

  it('is one comment line saying why, never an error, when the diff cannot be built', () => {
    const cyclic: JsonObject = { kind: 'ConfigMap' };
    cyclic.self = cyclic; // no JSON value is cyclic, but no walker may hang or crash on one
    const start = performance.now();
    const diff = dryRunDiff({ kind: 'ConfigMap' }, cyclic);
    expect(performance.now() - start).toBeLessThan(1000);
    // The engine explains (`# diff omitted: …`) or dryRunDiff does (`# diff not available: …`).
    expect(diff).toMatch(/^# diff .+\n$/);
    expect(diff.split('\n')).toHaveLength(2);
  });

  it('names manifests kind/name, falling back to the kind or "resource"', () => {
    expect(manifestName({ kind: 'Pod', metadata: { name: 'p' } })).toBe('Pod/p');
    expect(manifestName({ kind: 'Pod' })).toBe('Pod/resource');
    expect(manifestName({ metadata: { name: 'p' } })).toBe('p');
  });
});
