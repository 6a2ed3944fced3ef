// Writes a copy of bundle.yaml whose operator image is pinned by digest (see pin-image.ts).
// Usage: tsx scripts/release/pin-bundle.ts <sha256:digest> [--repository <registry/path>]
//          [--in bundle.yaml] [--out dist/release/bundle.yaml]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pinBundleImage } from './pin-image.js';

interface Args {
  readonly digest: string;
  readonly repository: string | undefined;
  readonly input: string;
  readonly output: string;
}

const USAGE =
  'usage: pin-bundle.ts <sha256:digest> [--repository <registry/path>] [--in FILE] [--out FILE]';

function parseArgs(argv: readonly string[]): Args {
  let digest: string | undefined;
  let repository: string | undefined;
  let input = 'bundle.yaml';
  let output = 'dist/release/bundle.yaml';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    const value = (): string => {
      const next = argv[++i];
      if (next === undefined || next.startsWith('--'))
        throw new Error(`${arg} needs a value\n${USAGE}`);
      return next;
    };
    if (arg === '--repository') repository = value();
    else if (arg === '--in') input = value();
    else if (arg === '--out') output = value();
    else if (!arg.startsWith('--') && digest === undefined) digest = arg;
    else throw new Error(`unexpected argument ${arg}\n${USAGE}`);
  }
  if (digest === undefined) throw new Error(USAGE);
  return { digest, repository, input, output };
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const text = readFileSync(args.input, 'utf8');
  const pinned = pinBundleImage(text, {
    digest: args.digest,
    repository: args.repository,
    source: args.input,
  });
  mkdirSync(dirname(resolve(args.output)), { recursive: true });
  writeFileSync(args.output, pinned);
  console.log(`Wrote ${args.output} (operator image pinned to ${args.digest.trim()}).`);
}

try {
  main();
} catch (error: unknown) {
  console.error(`pin-bundle: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
