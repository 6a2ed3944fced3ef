import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { get } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from './support/kubectl.js';

// Builds the production artifact the Dockerfile's final stage contains (scripts/build-artifact.sh:
// dist/src + `npm ci --omit=dev` node_modules with re2 compiled from source) into a temp dir and
// runs the CLI from it, as the container would. No cluster needed; it lives in the e2e project
// because compiling re2 takes a minute or more.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const BUILD_TIMEOUT_MS = 15 * 60_000;

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: readonly string[], timeoutMs = 60_000): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args],
      { cwd: repoRoot, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

/** GET over HTTPS without verifying the (self-signed) certificate; resolves status and body. */
function httpsGet(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = get(url, { rejectUnauthorized: false, timeout: 5_000 }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString() });
      });
    });
    request.on('timeout', () => request.destroy(new Error(`GET ${url} timed out`)));
    request.on('error', reject);
  });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else
      child.once('exit', (code) => {
        resolve(code);
      });
  });
}

describe('production artifact (what the container image runs)', () => {
  const outDir = join(mkdtempSync(join(tmpdir(), 'kubemod-ts-artifact-')), 'app');
  const main = join(outDir, 'dist', 'src', 'cli', 'main.js');

  beforeAll(async () => {
    const started = Date.now();
    const build = await run('bash', ['scripts/build-artifact.sh', outDir], BUILD_TIMEOUT_MS);
    if (build.code !== 0) {
      throw new Error(`scripts/build-artifact.sh failed (${String(build.code)}):\n${build.stderr}`);
    }
    const size = await run('du', ['-sh', outDir]);
    console.log(
      `[artifact] built in ${String(Math.round((Date.now() - started) / 1000))} s, ` +
        `size ${size.stdout.split('\t')[0] ?? '?'}`,
    );
  }, BUILD_TIMEOUT_MS);

  afterAll(() => {
    rmSync(join(outDir, '..'), { recursive: true, force: true });
  });

  it('prints the usage with every command', async () => {
    const help = await run('node', [main, '--help']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/Usage: kubemod-ts/);
    for (const command of ['operator', 'serve', 'dryrun']) {
      expect(help.stdout).toContain(command);
    }
    const operatorHelp = await run('node', [main, 'operator', '--help']);
    expect(operatorHelp.code, operatorHelp.stderr).toBe(0);
    expect(operatorHelp.stdout).toMatch(/kubemod-ts operator/);
  });

  it('evaluates the samples offline (re2 loads from the production node_modules)', async () => {
    const result = await run('node', [
      main,
      'dryrun',
      '--modrule',
      join(repoRoot, 'samples', 'modrules'),
      '--resource',
      join(repoRoot, 'samples', 'resources', 'deployment.yaml'),
      '--output',
      'json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    // re2 is an optional dependency: without its binary the CLI would say so and run on re2js.
    expect(result.stderr).not.toMatch(/native re2 addon is not available/);
    const output = JSON.parse(result.stdout) as { patch: unknown[]; rejections: unknown[] };
    expect(Array.isArray(output.patch)).toBe(true);
    expect(Array.isArray(output.rejections)).toBe(true);
  });

  it('serves the webhooks over HTTPS, answers /healthz and serves the playground page', async () => {
    const port = await freePort();
    const child = spawn(
      'node',
      [main, 'serve', '--rules', join(repoRoot, 'samples', 'modrules')].concat([
        '--host',
        '127.0.0.1',
        '--port',
        String(port),
      ]),
      { cwd: outDir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const url = `https://127.0.0.1:${String(port)}/healthz`;
      const health = await Promise.race([
        waitFor(`GET ${url}`, async () => {
          const response = await httpsGet(url);
          return response.status === 200 ? response : undefined;
        }),
        exited(child).then((code) => {
          throw new Error(`kubemod-ts serve exited with ${String(code)}: ${output}`);
        }),
      ]);
      expect(health.status).toBe(200);
      // The built playground page is part of the artifact (npm run build bundles it into
      // dist/playground: one script, the stylesheet and the icon).
      const page = await httpsGet(`https://127.0.0.1:${String(port)}/`);
      expect(page.status).toBe(200);
      expect(page.body).toContain('<title>kubemod-ts playground</title>');
      for (const file of ['playground.js', 'playground.css', 'icon.svg']) {
        const asset = await httpsGet(`https://127.0.0.1:${String(port)}/${file}`);
        expect(asset.status, file).toBe(200);
      }
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited(child)).toBe(0);
  });
});
