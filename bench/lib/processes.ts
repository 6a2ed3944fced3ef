/** Child processes of the HTTP benchmark: optional CPU pinning, stdout lines, RSS. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export const TASKSET = ['/usr/bin/taskset', '/bin/taskset'].find((path) => existsSync(path));

/**
 * Spawns `command args`, pinned to `cpu` with taskset when it exists; stdout is piped. The child
 * gets this process's environment, plus `env` when given.
 */
export function spawnPinned(
  command: string,
  args: readonly string[],
  cpu: number | undefined,
  stderr: 'pipe' | 'inherit',
  env: Readonly<Record<string, string>> = {},
): ChildProcess {
  const [file, ...rest] =
    TASKSET !== undefined && cpu !== undefined
      ? [TASKSET, '-c', String(cpu), command, ...args]
      : [command, ...args];
  return spawn(file, rest, { stdio: ['ignore', 'pipe', stderr], env: { ...process.env, ...env } });
}

/**
 * Resolves with the first stdout line for which `pick` returns a value; later output keeps being
 * read and dropped as raw chunks (no decoding, no line splitting), so a chatty child never blocks
 * on a full pipe and reading its log costs this process as little as a log collector would.
 */
export function awaitLine<T>(
  child: ChildProcess,
  pick: (line: string) => T | undefined,
): Promise<T> {
  return new Promise((resolve, reject) => {
    if (child.stdout === null) {
      reject(new Error('child has no stdout'));
      return;
    }
    let found = false;
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      if (found) return;
      const value = pick(line);
      if (value === undefined) return;
      found = true;
      lines.close();
      child.stdout?.on('data', () => undefined).resume();
      resolve(value);
    });
    child.once('exit', (code) => {
      if (!found) reject(new Error(`child exited with ${String(code)} before answering`));
    });
  });
}

/** VmRSS of a process in MB, from /proc (Linux); NaN elsewhere. */
export function rssMb(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${String(pid)}/status`, 'utf8'));
    return match?.[1] === undefined ? Number.NaN : Number(match[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const code = await exited;
  if (code !== 0) process.stderr.write(`server exited with ${String(code)}\n`);
}

/** The port from serve's (and the floor server's) "webhook server listening" JSON log line. */
export function listeningPort(line: string): number | undefined {
  try {
    const entry = JSON.parse(line) as { msg?: unknown; port?: unknown };
    return entry.msg === 'webhook server listening' && typeof entry.port === 'number'
      ? entry.port
      : undefined;
  } catch {
    return undefined;
  }
}
