import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_HELPER_THREAD_NICE } from '../../src/cli/flag-values.js';
import { startServe, type ServeProcess } from '../browser/support/serve-process.js';

// The helper threads of a real `kubemod-ts serve` process, as Linux reports them in /proc: the
// main thread keeps its priority, every other thread (V8's helpers, libuv's pool, the dry-run
// worker started later) runs at the configured nice value.

const linux = process.platform === 'linux';

/** Nice value of each thread of a process: field 19 of /proc/<pid>/task/<tid>/stat. */
function threadNices(pid: number): Map<number, number> {
  const nices = new Map<number, number>();
  for (const entry of readdirSync(`/proc/${String(pid)}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${String(pid)}/task/${entry}/stat`, 'utf8');
    } catch {
      continue; // a thread that ended meanwhile
    }
    // Fields after the command name in parentheses start at field 3 (state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    nices.set(Number(entry), Number(fields[19 - 3]));
  }
  return nices;
}

function helpers(nices: Map<number, number>, pid: number): number[] {
  return [...nices].filter(([id]) => id !== pid).map(([, nice]) => nice);
}

function dryRun(url: string, body: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/dryrun`,
      { method: 'PUT', rejectUnauthorized: false, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => {
          resolve(res.statusCode ?? 0);
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Each test starts `kubemod-ts serve` in a child process: seconds on a busy machine. */
const SERVE_TEST_MS = 60_000;

describe.skipIf(!linux)('helper threads of kubemod-ts serve (Linux)', () => {
  let serve: ServeProcess | undefined;
  afterEach(async () => {
    await serve?.stop();
    serve = undefined;
  });

  it(
    'run at nice 15 by default, the main thread at 0, the dry-run worker too once it starts',
    async () => {
      expect(DEFAULT_HELPER_THREAD_NICE).toBeGreaterThan(0);
      serve = await startServe();
      const { pid } = serve;
      const atStart = threadNices(pid);
      expect(atStart.get(pid)).toBe(0);
      // V8's platform threads and libuv's pool exist from the start.
      expect(helpers(atStart, pid).length).toBeGreaterThanOrEqual(4);
      expect(
        helpers(atStart, pid).every((nice) => nice === DEFAULT_HELPER_THREAD_NICE),
        JSON.stringify([...atStart]),
      ).toBe(true);
      expect(serve.output()).toContain('helper threads run at a lower priority');

      const body = await readFile('samples/dryrun-request.json');
      expect(await dryRun(serve.url, body)).toBe(200);
      const after = threadNices(pid);
      const started = [...after.keys()].filter((id) => !atStart.has(id));
      expect(started.length, 'the dry-run worker thread').toBeGreaterThanOrEqual(1);
      expect(after.get(pid)).toBe(0);
      expect(
        helpers(after, pid).every((nice) => nice === DEFAULT_HELPER_THREAD_NICE),
        JSON.stringify([...after]),
      ).toBe(true);
    },
    SERVE_TEST_MS,
  );

  it(
    'are left alone with --helper-thread-nice 0',
    async () => {
      serve = await startServe(['--helper-thread-nice', '0']);
      const { pid } = serve;
      expect(await dryRun(serve.url, await readFile('samples/dryrun-request.json'))).toBe(200);
      const nices = threadNices(pid);
      expect(helpers(nices, pid).length).toBeGreaterThanOrEqual(5);
      expect(
        [...nices.values()].every((nice) => nice === 0),
        JSON.stringify([...nices]),
      ).toBe(true);
      expect(serve.output()).not.toContain('helper threads run at a lower priority');
    },
    SERVE_TEST_MS,
  );
});
