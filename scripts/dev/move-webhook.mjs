#!/usr/bin/env node
/**
 * Gives src/webhook/ one folder per concern (issue 30) and moves the resumable JSON parser to
 * src/json-stream/, then rewrites every relative import that points at a moved file.
 *
 *   node scripts/dev/move-webhook.mjs [--dry-run]      (from the repository root)
 *
 * - Files are moved with `git mv` (history follows them). A `<stem>.test.ts` or
 *   `<stem>.test-support.ts` goes where `<stem>.ts` goes.
 * - Import specifiers are rewritten in every .ts/.mts/.cts/.js/.mjs/.cjs file under src/, test/,
 *   bench/ and scripts/: `import … from`, `export … from`, `import '…'`, `import('…')` (JSDoc
 *   types too), `vi.mock('…')` and friends, `require('…')` and `new URL('…', import.meta.url)`.
 *   A specifier changes when the file holding it moved or the file it names moved.
 * - Repository paths of moved files (`src/webhook/raw-body.ts`, also under dist/) are rewritten
 *   in every tracked text file (docs, tests, scripts), so the docs keep pointing at the code.
 * - Each new folder gets a README.md saying what it owns (not overwritten when present).
 * - Files of src/webhook/ that the map does not know stay where they are and are listed: move
 *   them by hand (and add them to PLACES) when their concern is clear.
 * - Re-runnable: a file already in its folder is left alone, so a second run changes nothing
 *   (and a run after new files arrived moves only what the map names).
 *
 * - It also completes issue 30's earlier moves for code written against the old places (other
 *   branches): imports of src/cli/machine-text.ts and src/api/semantic-checks.ts, and of
 *   `validateModRule` from src/api (now src/engine/validate-modrule.ts), are pointed at the new
 *   places (ALREADY_MOVED, MOVED_EXPORTS).
 *
 * Afterwards: npx tsc -p tsconfig.json --noEmit && npm run lint.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, posix } from 'node:path';

const WEBHOOK = 'src/webhook';

/** Where each file of src/webhook/ goes (by stem); `.` keeps it in src/webhook/ itself. */
const PLACES = {
  // The server and what every concern shares: its dependencies, limits and loop slicing.
  server: '.',
  dependencies: '.',
  'webhook-limits': '.',
  'loop-slicing': '.',
  // Admission: AdmissionReview in, one handler per webhook, decisions out.
  'admission-listener': 'admission',
  'admission-review': 'admission',
  'admission-evaluation': 'admission',
  'admission-answer': 'admission',
  'dragnet-handler': 'admission',
  'failed-rules-warning': 'admission',
  'modrule-handlers': 'admission',
  'podbinding-handler': 'admission',
  'synthetic-refs': 'admission',
  'admission-warnings': 'admission',
  'fail-closed': 'admission',
  // The dry-run service (PUT /v1/dryrun) and its worker thread.
  'dryrun-handler': 'dryrun',
  'dryrun-request': 'dryrun',
  'dryrun-runner': 'dryrun',
  'dryrun-job': 'dryrun',
  'dryrun-worker': 'dryrun',
  'dryrun-worker-runner': 'dryrun',
  'dryrun-diff': 'dryrun',
  'dryrun-diff-failure': 'dryrun',
  'dryrun-prepare': 'dryrun',
  'dryrun-manifests': 'dryrun',
  // HTTP hardening: what any request meets before a handler sees it.
  'body-budget': 'http',
  'connection-caps': 'http',
  'server-timeouts': 'http',
  'raw-body': 'http',
  'json-body': 'http',
  'heap-ceiling': 'http',
  'thread-priority': 'http',
  errors: 'http',
  // The playground page (kubemod-ts serve).
  'playground-route': 'playground',
  'playground-assets': 'playground',
  'playground-server-rules': 'playground',
  // The resumable JSON parser, not webhook-specific: a layer of its own.
  'incremental-json': '../json-stream',
  'json-slice-parser': '../json-stream',
  'json-string': '../json-stream',
  'json-number': '../json-stream',
  'json-syntax-error': '../json-stream',
};

/**
 * Files moved before this script ran (issue 30's layer fixes); imports that other branches still
 * write to the old place are pointed at the new one.
 */
const ALREADY_MOVED = new Map([
  ['src/cli/machine-text.ts', 'src/engine/machine-text.ts'],
  ['src/api/semantic-checks.ts', 'src/engine/validate-modrule.ts'],
]);

/**
 * Exports that moved to another module (issue 30: the API validates structure only, the full
 * validation compiles expressions and lives in the engine): `import { validateModRule } from` the
 * API is split into an import from the engine.
 */
const MOVED_EXPORTS = [
  {
    name: 'validateModRule',
    from: ['src/api/index.ts', 'src/api/validate.ts'],
    to: 'src/engine/validate-modrule.ts',
  },
];

/** The header of each new folder's README.md. */
const READMES = {
  [WEBHOOK]: `# src/webhook

The operator's HTTPS server. \`server.ts\` builds it from its dependencies (\`dependencies.ts\`:
the rule store, syntheticRef lookups, logger, metrics, limits in \`webhook-limits.ts\`) and routes
each request: the admission webhooks to ./admission, \`PUT /v1/dryrun\` to ./dryrun, \`/\` to
./playground (\`kubemod-ts serve\` only). Everything passes ./http first (connections, timeouts,
body budget and parsing). \`loop-slicing.ts\` says how long one piece of work may hold the event
loop before it yields. The webhook answers from memory: no call to the API server on the request
path, no rule logic (the engine decides).
`,
  [`${WEBHOOK}/admission`]: `# src/webhook/admission

Where an admission request goes. \`admission-listener.ts\` reads the AdmissionReview (v1 and
v1beta1, \`admission-review.ts\`) and writes the answer; one handler per webhook decides:
\`dragnet-handler.ts\` (\`dragnet.kubemod.io\`: every targeted object, evaluated against the rule
store by \`admission-evaluation.ts\`), \`modrule-handlers.ts\` (\`mmodrule\`/\`vmodrule\`: ModRules
defaulted and validated) and \`podbinding-handler.ts\` (\`podbinding\`: the node of a scheduled Pod
recorded). \`synthetic-refs.ts\` gives a request's rules their \`syntheticRefs\` from memory. No
rule logic lives here: the engine decides, these files translate.
`,
  [`${WEBHOOK}/dryrun`]: `# src/webhook/dryrun

The dry-run service, \`PUT /v1/dryrun\` (also what the playground calls). \`dryrun-request.ts\`
reads and checks the body, \`dryrun-handler.ts\` compiles the sent ModRules and evaluates the
resource, \`dryrun-diff.ts\` renders the answer's diff. \`dryrun-job.ts\` is one dry run from raw
bytes to answer; \`dryrun-runner.ts\` runs jobs, in process or, as the server does, in one worker
thread (\`dryrun-worker-runner.ts\` and \`dryrun-worker.ts\`: deadline, queue, heap limit), off the
event loop that answers admission requests.
`,
  [`${WEBHOOK}/http`]: `# src/webhook/http

HTTP hardening: what every request meets before a handler sees it. Connection caps
(\`connection-caps.ts\`) and server timeouts (\`server-timeouts.ts\`), the raw body read and
inflated in bounded chunks (\`raw-body.ts\`) within a shared budget of bytes in flight
(\`body-budget.ts\`), the body parsed as JSON with depth and size bounds (\`json-body.ts\`, sliced
through src/json-stream for large bodies), the heap ceiling (\`heap-ceiling.ts\`), the helper
threads' priority (\`thread-priority.ts\`) and the mapping of catalogued errors to HTTP answers
(\`errors.ts\`).
`,
  [`${WEBHOOK}/playground`]: `# src/webhook/playground

The playground page of \`kubemod-ts serve\`: its files read once from src/playground
(\`playground-assets.ts\`) and served at \`/\` (\`playground-route.ts\`). The operator never serves
it. The page itself runs its dry runs through \`PUT /v1/dryrun\` (../dryrun).
`,
  'src/json-stream': `# src/json-stream

A resumable JSON parser: \`parseJsonSliced\` (\`incremental-json.ts\`) parses a document in slices
of bounded work and yields to the event loop between them, so that a large request body does not
hold the loop for the length of a \`JSON.parse\`. The slice parser (\`json-slice-parser.ts\`) reads
strings (\`json-string.ts\`) and numbers (\`json-number.ts\`) as \`JSON.parse\` does and reports
syntax errors with their position (\`json-syntax-error.ts\`). Not webhook-specific: any layer may
use it; it imports only the error catalog and the engine's JSON types.
`,
};

const SOURCE_DIRS = ['src', 'test', 'bench', 'scripts'];
/** This script (its examples name files by their old paths). */
const SELF = 'scripts/dev/move-webhook.mjs';
const CODE = /\.(ts|mts|cts|js|mjs|cjs)$/;
const dryRun = process.argv.includes('--dry-run');

function stemOf(file) {
  return file.replace(/\.ts$/, '').replace(/\.test(-support)?$/, '');
}

/** old repo path → new repo path, for every file of src/webhook/ the map places elsewhere. */
function planMoves() {
  const moves = new Map();
  const unknown = [];
  const kept = [];
  for (const entry of readdirSync(WEBHOOK, { withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const place = PLACES[stemOf(entry.name)];
    const from = `${WEBHOOK}/${entry.name}`;
    if (place === undefined) unknown.push(from);
    else if (place === '.') kept.push(from);
    else moves.set(from, posix.normalize(`${WEBHOOK}/${place}/${entry.name}`));
  }
  return { moves, unknown, kept };
}

function walk(dir, out = []) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(path, out);
    else if (CODE.test(entry.name)) out.push(path);
  }
  return out;
}

/** The repo path a relative specifier names, as the moves map keys it (`.js` → `.ts`). */
function movedTarget(target, moves) {
  const asTs = target.replace(/\.js$/, '.ts');
  const js = (path) => (asTs === target ? path : path.replace(/\.ts$/, '.js'));
  if (moves.has(asTs)) return js(moves.get(asTs));
  if (ALREADY_MOVED.has(asTs) && !existsSync(asTs)) {
    const now = ALREADY_MOVED.get(asTs);
    return js(moves.get(now) ?? now);
  }
  return undefined;
}

/** `specifier` of a file moving from `oldFile` to `newFile`, pointing where it should. */
function rewriteSpecifier(specifier, oldFile, newFile, moves) {
  if (!specifier.startsWith('./') && !specifier.startsWith('../')) return specifier;
  const trailingSlash = specifier.endsWith('/') ? '/' : '';
  const target = posix.normalize(posix.join(posix.dirname(oldFile), specifier));
  const newTarget = movedTarget(target, moves);
  if (newTarget === undefined && oldFile === newFile) return specifier;
  let spec = posix.relative(posix.dirname(newFile), newTarget ?? target);
  if (!spec.startsWith('.')) spec = `./${spec}`;
  return spec + (spec.endsWith('/') ? '' : trailingSlash);
}

/** Specifier positions: after `from`, `import`, `import(`, `vi.mock(`…, `require(`, `new URL(`. */
const SPECIFIER =
  /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bvi\.(?:mock|doMock|unmock|doUnmock|importActual|importMock)\s*\(\s*|\brequire\s*\(\s*|\bnew\s+URL\s*\(\s*)(['"])(\.{1,2}\/[^'"\n]*)\2/g;

/** `import { a, validateModRule } from '../api/index.js'` → two imports, one from the engine. */
function retargetMovedExports(text, file, moves) {
  return text.replace(
    /^import\s*\{([^}]*)\}\s*from\s*'(\.{1,2}\/[^']+)';$/gm,
    (whole, names, specifier) => {
      const target = posix.normalize(posix.join(posix.dirname(file), specifier));
      const moved = MOVED_EXPORTS.find((m) => m.from.includes(target.replace(/\.js$/, '.ts')));
      const list = names
        .split(',')
        .map((n) => n.trim())
        .filter((n) => n !== '');
      if (moved === undefined || !list.includes(moved.name)) return whole;
      const rest = list.filter((n) => n !== moved.name);
      const to = moves.get(moved.to) ?? moved.to;
      let spec = posix.relative(posix.dirname(file), to).replace(/\.ts$/, '.js');
      if (!spec.startsWith('.')) spec = `./${spec}`;
      const lines = rest.length > 0 ? [`import { ${rest.join(', ')} } from '${specifier}';`] : [];
      lines.push(`import { ${moved.name} } from '${spec}';`);
      return lines.join('\n');
    },
  );
}

function rewriteImports(text, oldFile, newFile, moves) {
  return text.replace(SPECIFIER, (whole, lead, quote, specifier) => {
    const next = rewriteSpecifier(specifier, oldFile, newFile, moves);
    return next === specifier ? whole : `${lead}${quote}${next}${quote}`;
  });
}

/** Repository paths of moved files in prose and path strings (`src/webhook/x.ts`, dist/…/x.js). */
function rewritePaths(text, moves) {
  let out = text;
  for (const [from, to] of moves) {
    for (const [a, b] of [
      [from, to],
      [from.replace(/\.ts$/, '.js'), to.replace(/\.ts$/, '.js')],
    ]) {
      const pattern = new RegExp(
        `(^|[^A-Za-z0-9_./-])${a.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&')}(?![A-Za-z0-9_-])`,
        'g',
      );
      out = out.replace(pattern, (_, before) => `${before}${b}`);
    }
  }
  return out;
}

function trackedTextFiles() {
  const files = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' }).split('\0');
  return files.filter(
    (file) =>
      file !== '' &&
      file !== 'package-lock.json' &&
      file !== SELF &&
      !file.startsWith('node_modules/') &&
      /\.(ts|mts|cts|js|mjs|cjs|md|json|ya?ml|sh|txt)$|Dockerfile$/.test(file) &&
      existsSync(file) &&
      statSync(file).size < 2_000_000,
  );
}

function main() {
  if (!existsSync(WEBHOOK) || !existsSync('package.json')) {
    throw new Error(`run from the repository root (no ${WEBHOOK}/ here)`);
  }
  const { moves, unknown, kept } = planMoves();
  const changed = new Set();

  // 1. Rewrite imports in place, computing each file's new location, before anything moves.
  for (const file of SOURCE_DIRS.flatMap((dir) => walk(dir))) {
    const newFile = moves.get(file) ?? file;
    const text = readFileSync(file, 'utf8');
    const next = retargetMovedExports(rewriteImports(text, file, newFile, moves), newFile, moves);
    if (next !== text) {
      changed.add(newFile);
      if (!dryRun) writeFileSync(file, next);
    }
  }
  // 2. Paths of moved files named in docs, tests and scripts.
  for (const file of trackedTextFiles()) {
    const text = readFileSync(file, 'utf8');
    const next = rewritePaths(text, moves);
    if (next !== text) {
      changed.add(moves.get(file) ?? file);
      if (!dryRun) writeFileSync(file, next);
    }
  }
  // 3. Move.
  for (const [from, to] of moves) {
    console.log(`move ${from} -> ${to}`);
    if (dryRun) continue;
    mkdirSync(dirname(to), { recursive: true });
    execFileSync('git', ['mv', from, to], { stdio: 'inherit' });
  }
  // 4. A README for each folder that has files and none yet.
  for (const [dir, text] of Object.entries(READMES)) {
    const readme = `${dir}/README.md`;
    const hasFiles = [...moves.values()].some((to) => to.startsWith(`${dir}/`)) || existsSync(dir);
    if (!hasFiles || existsSync(readme)) continue;
    console.log(`write ${readme}`);
    if (dryRun) continue;
    mkdirSync(dir, { recursive: true });
    writeFileSync(readme, text);
    execFileSync('git', ['add', readme]);
    changed.add(readme);
  }
  // 5. Formatting of what changed (longer import paths may wrap differently).
  const toFormat = [...changed].filter((file) => existsSync(file));
  if (!dryRun && toFormat.length > 0 && existsSync('node_modules/.bin/prettier')) {
    execFileSync('node_modules/.bin/prettier', ['--write', '--log-level', 'warn', ...toFormat], {
      stdio: 'inherit',
    });
  }

  console.log(
    `${moves.size} file(s) moved, ${changed.size} file(s) rewritten${dryRun ? ' (dry run: nothing written)' : ''}`,
  );
  if (kept.length > 0) console.log(`kept in ${WEBHOOK}/ by design: ${kept.join(', ')}`);
  if (unknown.length > 0) {
    console.log(`NOT MOVED (not in the map; place them by hand and add them to PLACES):`);
    for (const file of unknown) console.log(`  ${file}`);
  }
  console.log('next: npx tsc -p tsconfig.json --noEmit && npm run lint');
}

main();
