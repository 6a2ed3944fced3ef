/**
 * The inputs of a full ESLint run, as one hash, and the stamp of the last run that passed with
 * them (`scripts/lint-eslint.ts`). Type-aware rules read types across files, so ESLint's own
 * per-file cache could keep a file's result after a file it depends on changed; this records
 * only "every input was exactly this, and the run passed", so it can be trusted whole or not at
 * all: any changed byte in a linted file, a tsconfig, the lockfile (ESLint's, typescript-eslint's
 * and TypeScript's versions) or the Node version means a full run.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Files whose content can change what ESLint reports: sources, configs, the lockfile. */
const INPUT = /\.(ts|js|mjs|cjs|json)$/;

/** Which of `files` (paths relative to the repository) are inputs of the lint. */
export function lintInputs(files: readonly string[]): string[] {
  return files.filter((file) => INPUT.test(file)).sort();
}

/** One hash of the inputs' paths and contents, and of `runtime` (the Node version). */
export function inputsHash(
  files: readonly string[],
  read: (file: string) => Buffer | undefined,
  runtime: string,
): string {
  const hash = createHash('sha256').update(`${runtime}\n`);
  for (const file of files) {
    const content = read(file);
    // A listed file that is gone (deleted, not yet staged) counts as absent.
    hash.update(`${file}\n${content === undefined ? '-' : String(content.length)}\n`);
    if (content !== undefined) hash.update(content);
  }
  return hash.digest('hex');
}

/** Whether the stamp at `path` records a passing run with these inputs. */
export function stampMatches(path: string, hash: string): boolean {
  return existsSync(path) && readFileSync(path, 'utf8').trim() === hash;
}

/** Records a passing run with these inputs. */
export function writeStamp(path: string, hash: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${hash}\n`);
}
