import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createBufferedStdout, createLogger } from './logger.js';
import { createMetrics } from './metrics.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dirs: string[] = [];

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempFile(): { path: string; fd: number } {
  const dir = mkdtempSync(join(tmpdir(), 'kubemod-log-'));
  dirs.push(dir);
  const path = join(dir, 'out.log');
  return { path, fd: openSync(path, 'a') };
}

/** The file's complete lines once it has `count` of them (the destination writes asynchronously). */
async function lines(path: string, count: number): Promise<string[]> {
  const until = Date.now() + 10_000;
  for (;;) {
    const text = readFileSync(path, 'utf8');
    const got = text.split('\n').filter((line) => line !== '');
    if (got.length >= count || Date.now() > until) return got;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('createBufferedStdout', () => {
  it('writes every line, whole and in order, off the caller', async () => {
    const { path, fd } = tempFile();
    const destination = createBufferedStdout({ fd });
    const logger = createLogger({ level: 'info', destination });
    for (let i = 0; i < 2000; i++) logger.info({ i }, 'patch applied');
    // Nothing has waited for the disk: the lines are still on their way.
    const written = await lines(path, 2000);
    await destination.close();
    expect(written.map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(
      Array.from({ length: 2000 }, (_, i) => i),
    );
    expect(destination.dropped()).toBe(0);
  });

  it('writes a lone line within its flush interval, without waiting for a full batch', async () => {
    const { path, fd } = tempFile();
    const destination = createBufferedStdout({ fd, flushMs: 20 });
    const logger = createLogger({ level: 'info', destination });
    logger.info({ i: 1 }, 'quiet webhook');
    // Far below the batch size: only the timer writes it.
    expect(readFileSync(path, 'utf8')).toBe('');
    const written = await lines(path, 1);
    await destination.close();
    expect(written.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([
      'quiet webhook',
    ]);
  });

  it('drops whole lines past its bound and counts them', async () => {
    const { path, fd } = tempFile();
    const destination = createBufferedStdout({ fd, maxBytes: 2000 });
    const logger = createLogger({ level: 'info', destination });
    // One synchronous burst: the lines wait in the buffer for their batch or the timer.
    for (let i = 0; i < 100; i++) logger.info({ i, pad: 'x'.repeat(50) }, 'line');
    const dropped = destination.dropped();
    expect(dropped).toBeGreaterThan(50);
    const written = await lines(path, 100 - dropped);
    await destination.close();
    expect(written).toHaveLength(100 - dropped);
    const kept = written.map((line) => (JSON.parse(line) as { i: number }).i);
    // What was kept came first: a stalled reader loses the newest lines, never half a line.
    expect(kept).toEqual(Array.from({ length: kept.length }, (_, i) => i));
  });

  it('is counted in kubemod_log_lines_dropped_total', async () => {
    const metrics = createMetrics();
    let dropped = 0;
    metrics.setLogDropSource(() => dropped);
    expect(await metrics.render()).toMatch(/^kubemod_log_lines_dropped_total 0$/m);
    dropped = 7;
    expect(await metrics.render()).toMatch(/^kubemod_log_lines_dropped_total 7$/m);
  });

  it('writes out what it holds when the process exits at once', { timeout: 60_000 }, () => {
    // A burst of lines then process.exit in the same turn: without the flush at exit the
    // buffered lines would be lost.
    const script = [
      `import { createBufferedStdout, createLogger } from ${JSON.stringify(join(root, 'src', 'observability', 'logger.ts'))};`,
      `const logger = createLogger({ level: 'info', destination: createBufferedStdout() });`,
      `for (let i = 0; i < 5000; i++) logger.info({ i }, 'line');`,
      `process.exit(3);`,
    ].join('\n');
    const child = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { encoding: 'utf8', cwd: root, maxBuffer: 64 * 1024 * 1024 },
    );
    expect(child.stderr).toBe('');
    expect(child.status).toBe(3);
    const out = child.stdout.split('\n').filter((line) => line !== '');
    expect(out).toHaveLength(5000);
    expect((JSON.parse(out[4999] ?? '{}') as { i?: number }).i).toBe(4999);
  });
});
