import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createBufferedStdout, type BatchedWriteIo } from './batched-stdout.js';
import { createLogger } from './logger.js';
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
    closeSync(fd);
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
    closeSync(fd);
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
    closeSync(fd);
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
      `import { createBufferedStdout } from ${JSON.stringify(join(root, 'src', 'observability', 'batched-stdout.ts'))};`,
      `import { createLogger } from ${JSON.stringify(join(root, 'src', 'observability', 'logger.ts'))};`,
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

  it('joins a burst of lines into few writes, and goes on after partial writes and a full pipe', async () => {
    const fake = fakeIo([{ partial: 100 }, { error: 'EAGAIN' }]);
    const destination = createBufferedStdout({ fd: 7, batchBytes: 4096, io: fake.io });
    const logger = createLogger({ level: 'info', destination });
    for (let i = 0; i < 1000; i++) logger.info({ i }, 'line');
    await destination.close();
    const written = fake
      .text()
      .split('\n')
      .filter((line) => line !== '');
    expect(written.map((line) => (JSON.parse(line) as { i: number }).i)).toEqual(
      Array.from({ length: 1000 }, (_, i) => i),
    );
    // About 80 bytes a line: tens of batches, not a write per line.
    expect(fake.calls()).toBeLessThan(60);
    expect(destination.dropped()).toBe(0);
  });

  it('counts the lines of a batch that could not be written as dropped', async () => {
    const fake = fakeIo([{ error: 'EBADF' }]);
    const destination = createBufferedStdout({ fd: 7, batchBytes: 64, io: fake.io });
    destination.write('{"a":1}\n');
    destination.write('{"a":2}\n');
    destination.write(`${'x'.repeat(60)}\n`);
    await destination.close();
    expect(destination.dropped()).toBe(3);
    expect(fake.text()).toBe('');
  });
});

/** node:fs writes into memory; the first writes behave as `script` says, in order. */
function fakeIo(script: ({ partial: number } | { error: string })[]): {
  io: BatchedWriteIo;
  text: () => string;
  calls: () => number;
} {
  const chunks: Buffer[] = [];
  let calls = 0;
  const io: BatchedWriteIo = {
    write(_fd, buffer, offset, length, done) {
      calls += 1;
      const step = script.shift();
      setImmediate(() => {
        if (step !== undefined && 'error' in step) {
          done(Object.assign(new Error(step.error), { code: step.error }), 0);
          return;
        }
        const n = step === undefined ? length : Math.min(step.partial, length);
        chunks.push(Buffer.from(buffer.subarray(offset, offset + n)));
        done(null, n);
      });
    },
    writeSync(_fd, buffer, offset, length) {
      chunks.push(Buffer.from(buffer.subarray(offset, offset + length)));
      return length;
    },
  };
  return { io, text: () => Buffer.concat(chunks).toString('utf8'), calls: () => calls };
}
