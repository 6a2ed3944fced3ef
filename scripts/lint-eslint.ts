/**
 * `npm run lint`'s ESLint step: `eslint --max-warnings 0 .`, type-aware, about 50 s of a 2-core
 * machine and 1.7 GB. When the last run that passed saw exactly the same inputs (see
 * lint/eslint-stamp.ts: every linted file, tsconfig and the lockfile, byte for byte, and the Node
 * version), its result stands and ESLint is not run again; the line printed says so. A fresh
 * clone, CI, or `KUBEMOD_LINT_FULL=1` always runs it. The stamp lives in node_modules/.cache.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { inputsHash, lintInputs, stampMatches, writeStamp } from './lint/eslint-stamp.js';

const ROOT = resolve(import.meta.dirname, '..');
const STAMP = join(ROOT, 'node_modules', '.cache', 'kubemod-ts', 'eslint-passed');

function listedFiles(): string[] | undefined {
  try {
    const out = execFileSync(
      'git',
      ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
      {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      },
    );
    return out.split('\0').filter((file) => file !== '');
  } catch {
    return undefined; // not a git checkout: no stamp, always a full run
  }
}

/** The hash of the lint's inputs now; undefined outside a git checkout or when a full run is asked. */
function currentHash(): string | undefined {
  if (process.env.KUBEMOD_LINT_FULL === '1' || process.env.CI === 'true') return undefined;
  const files = listedFiles();
  if (files === undefined) return undefined;
  return inputsHash(
    lintInputs(files),
    (file) => {
      const path = join(ROOT, file);
      return existsSync(path) ? readFileSync(path) : undefined;
    },
    process.version,
  );
}

const hash = currentHash();
if (hash !== undefined && stampMatches(STAMP, hash)) {
  console.log(
    `eslint: every input is as in the last run that passed (${hash.slice(0, 12)}); not run again (KUBEMOD_LINT_FULL=1 runs it)`,
  );
  process.exit(0);
}
const eslint = join(ROOT, 'node_modules', 'eslint', 'bin', 'eslint.js');
const run = spawnSync(process.execPath, [eslint, '--max-warnings', '0', '.'], {
  cwd: ROOT,
  stdio: 'inherit',
});
const code = run.status ?? 1;
// Stamped only if nothing changed while ESLint ran: the stamp must name what was linted.
if (code === 0 && hash !== undefined && currentHash() === hash) writeStamp(STAMP, hash);
process.exit(code);
