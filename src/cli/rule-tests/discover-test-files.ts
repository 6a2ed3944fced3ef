import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CliError } from '../cli-io.js';
import { reason } from '../read-inputs.js';
import { isTestFileName, TEST_FILE_NAMES } from './test-file.js';

/** Directory entries one search may look at (a search of `/` by mistake ends quickly). */
export const MAX_SEARCHED_ENTRIES = 100_000;
/** Test files one run may hold. */
export const MAX_TEST_FILES = 10_000;

/** Directories never searched: dependencies and hidden directories (`.git`, …). */
function skipped(name: string): boolean {
  return name === 'node_modules' || name.startsWith('.');
}

/**
 * The test files of `paths`: a file is taken whatever its name; a directory is searched
 * recursively (without following symbolic links, and skipping `node_modules` and hidden
 * directories) for files named `kubemod-test.yaml`, `kubemod-test.yml` or ending in
 * `.kubemod-test.yaml` / `.kubemod-test.yml`. Files are named as reached from the paths given,
 * sorted within each directory, each once. Throws CliError (exit code 2) for a path that does
 * not exist, past the limits, and when no test file is found.
 */
export function discoverTestFiles(paths: readonly string[]): string[] {
  const files: string[] = [];
  const seen = new Set<string>();
  const add = (file: string): void => {
    const key = resolve(file);
    if (seen.has(key)) return;
    seen.add(key);
    files.push(file);
    if (files.length > MAX_TEST_FILES) {
      throw new CliError(`more than ${String(MAX_TEST_FILES)} test files; run fewer at a time`, 2);
    }
  };
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch (err) {
      throw new CliError(`${path}: cannot read: ${reason(err)}`, 2);
    }
    if (isDirectory) searchDirectory(path).forEach(add);
    else add(path);
  }
  if (files.length === 0) {
    throw new CliError(
      `no test files in ${paths.join(', ')} (test files are named ${TEST_FILE_NAMES.join(' or ')}, or end in .${TEST_FILE_NAMES[0] ?? ''})`,
      2,
    );
  }
  return files;
}

/** Test files below `root`, iteratively (no recursion on the directory depth). */
function searchDirectory(root: string): string[] {
  const found: string[] = [];
  const pending = [root];
  let searched = 0;
  for (;;) {
    const dir = pending.pop();
    if (dir === undefined) break;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch (err) {
      throw new CliError(`${dir}: cannot read: ${reason(err)}`, 2);
    }
    searched += entries.length;
    if (searched > MAX_SEARCHED_ENTRIES) {
      throw new CliError(
        `${root}: more than ${String(MAX_SEARCHED_ENTRIES)} entries searched for test files; name a smaller directory or the files`,
        2,
      );
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !skipped(entry.name)) pending.push(join(dir, entry.name));
      else if (entry.isFile() && isTestFileName(entry.name)) found.push(join(dir, entry.name));
    }
  }
  return found.sort();
}
