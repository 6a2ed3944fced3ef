import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Points TMPDIR at a fresh directory for the rest of a test run, from a vitest globalSetup (before
 * any worker starts, so the workers and the processes they start inherit it). The returned
 * function removes the directory: a test that leaves its temporary files behind then does not
 * leave them on the machine.
 */
export function useRunTmpdir(prefix: string): () => void {
  const root = mkdtempSync(join(tmpdir(), prefix));
  process.env.TMPDIR = root;
  return () => {
    rmSync(root, { recursive: true, force: true });
  };
}
