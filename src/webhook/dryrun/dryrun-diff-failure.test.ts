import { describe, expect, it, vi } from 'vitest';
import { KubemodError } from '../../errors/catalog.js';
import { dryRunDiff } from './dryrun-diff.js';

// Whatever the diff builder throws, the dry run answers with a note instead of the diff.
let failure: unknown;
vi.mock('../../engine/patch/index.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../engine/patch/index.js')>()),
  unifiedYamlDiff: () => {
    throw failure;
  },
}));

describe('dryRunDiff when the diff builder throws', () => {
  it('is one comment line with the reason (and the code of a catalogued error)', () => {
    failure = new RangeError('Maximum call stack size exceeded\n    at sortKeys (yaml-diff.ts:30)');
    expect(dryRunDiff({ kind: 'A' }, { kind: 'B' })).toBe(
      '# diff not available: Maximum call stack size exceeded\n',
    );
    failure = new KubemodError('WORK_LIMIT', 'request exceeded its 1000000 unit work budget');
    expect(dryRunDiff({ kind: 'A' }, { kind: 'B' })).toBe(
      '# diff not available [KM5002]: request exceeded its 1000000 unit work budget\n',
    );
    failure = new Error('x'.repeat(10_000));
    expect(dryRunDiff({ kind: 'A' }, { kind: 'B' }).length).toBeLessThan(260);
  });
});
