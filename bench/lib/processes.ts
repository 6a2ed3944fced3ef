/** Child processes of the HTTP benchmark: optional CPU pinning, first stdout line, RSS. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

export const TASKSET = ['/usr/bin/taskset', '/bin/taskset'].find((path) => existsSync(path));

/** Spawns `node --import tsx <args>`, pinned to `cpu` with taskset when it exists. */
export function spawnNode(
  args: readonly string[],
  cpu: number | undefined,
  stdio: 'pipe' | 'inherit',
): ChildProcess {
  const node = [process.execPath, '--import', 'tsx', ...args];
  const [command, ...rest] =
    TASKSET !== undefined && cpu !== undefined ? [TASKSET, '-c', String(cpu), ...node] : node;
  return spawn(command ?? process.execPath, rest, { stdio: ['ignore', 'pipe', stdio] });
}

export function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    if (child.stdout === null) {
      reject(new Error('child has no stdout'));
      return;
    }
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      lines.close();
      resolve(line);
    });
    child.once('exit', (code) => {
      reject(new Error(`child exited with ${String(code)} before answering`));
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
