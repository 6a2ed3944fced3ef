import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPidAlive } from './processes.js';

/** Prefix of the control plane temp dirs created under the parent directory. */
export const CONTROL_PLANE_DIR_PREFIX = 'kubemod-ts-cp-';
const PIDS_FILE = 'pids.json';
const UNCLAIMED_MAX_AGE_MS = 60 * 60 * 1000;

/** Records the pids that own a control plane temp dir, so later runs can tell it is stale. */
export function recordOwnerPids(dir: string, pids: readonly number[]): void {
  writeFileSync(join(dir, PIDS_FILE), JSON.stringify(pids));
}

/**
 * Removes control plane temp dirs left behind by runs that were SIGKILLed (the kernel kills the
 * processes via PDEATHSIG, but nobody is left to delete the files): dirs none of whose recorded
 * pids is alive, or dirs without a pid record that are older than an hour.
 */
export function removeStaleControlPlaneDirs(parentDir: string): string[] {
  const removed: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(parentDir).filter((name) => name.startsWith(CONTROL_PLANE_DIR_PREFIX));
  } catch {
    return removed;
  }
  for (const name of entries) {
    const dir = join(parentDir, name);
    try {
      if (isStale(dir)) {
        rmSync(dir, { recursive: true, force: true });
        removed.push(dir);
      }
    } catch {
      // owned by someone else or vanished meanwhile: leave it alone
    }
  }
  return removed;
}

function isStale(dir: string): boolean {
  let pids: unknown;
  try {
    pids = JSON.parse(readFileSync(join(dir, PIDS_FILE), 'utf8'));
  } catch {
    return Date.now() - statSync(dir).mtimeMs > UNCLAIMED_MAX_AGE_MS;
  }
  return (
    Array.isArray(pids) &&
    pids.every((pid) => typeof pid !== 'number' || pid <= 0 || !isPidAlive(pid))
  );
}
