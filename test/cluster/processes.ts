import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** A child process whose stdout/stderr go to a log file. */
export interface ManagedProcess {
  readonly name: string;
  readonly pid: number;
  readonly logPath: string;
  readonly child: ChildProcess;
  /** Resolves once the process has exited (never rejects). */
  readonly exited: Promise<ExitInfo>;
  hasExited(): boolean;
}

export interface SpawnOptions {
  /**
   * Start the process in its own session so it outlives this Node process (`cluster:up`).
   * Otherwise the child stays in our process group and, where `setpriv` exists, is SIGKILLed by
   * the kernel when this process dies, so a crashed or killed test run leaves no orphans.
   */
  readonly detached?: boolean;
}

let pdeathsigSupport: boolean | undefined;

function supportsPdeathsig(): boolean {
  if (pdeathsigSupport === undefined) {
    const probe = spawnSync('setpriv', ['--help'], { encoding: 'utf8' });
    pdeathsigSupport = probe.status === 0 && probe.stdout.includes('--pdeathsig');
  }
  return pdeathsigSupport;
}

export function spawnLogged(
  name: string,
  command: string,
  args: readonly string[],
  logPath: string,
  options: SpawnOptions = {},
): ManagedProcess {
  const detached = options.detached ?? false;
  const [file, argv] =
    !detached && process.platform === 'linux' && supportsPdeathsig()
      ? ['setpriv', ['--pdeathsig', 'KILL', '--', command, ...args]]
      : [command, [...args]];
  const logFd = openSync(logPath, 'a');
  let child: ChildProcess;
  try {
    child = spawn(file, argv, { detached, stdio: ['ignore', logFd, logFd] });
  } finally {
    closeSync(logFd);
  }
  const { pid } = child;
  if (pid === undefined) {
    throw new Error(`failed to spawn ${name} (${command})`);
  }
  let done = false;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
    child.once('error', () => {
      done = true;
      resolve({ code: null, signal: null });
    });
  });
  if (detached) {
    child.unref();
  }
  return { name, pid, logPath, child, exited, hasExited: () => done };
}

/** Sends SIGTERM, then SIGKILL after `graceMs`, and waits until the process has exited. */
export async function terminate(proc: ManagedProcess, graceMs = 10_000): Promise<void> {
  if (proc.hasExited()) {
    return;
  }
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    proc.child.kill('SIGKILL');
  }, graceMs);
  try {
    await proc.exited;
  } finally {
    clearTimeout(timer);
  }
}

export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error: unknown) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Like {@link terminate} for a process we did not spawn ourselves (a detached dev cluster).
 * Returns false if the process was already gone.
 */
export async function terminatePid(pid: number, graceMs = 10_000): Promise<boolean> {
  if (!isPidAlive(pid)) {
    return false;
  }
  signalPid(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  let killed = false;
  while (isPidAlive(pid)) {
    if (!killed && Date.now() > deadline) {
      killed = true;
      signalPid(pid, 'SIGKILL');
    }
    await sleep(100);
  }
  return true;
}

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Best-effort synchronous SIGKILL, for process 'exit' handlers. */
export function killNow(proc: ManagedProcess): void {
  if (!proc.hasExited()) {
    signalPid(proc.pid, 'SIGKILL');
  }
}

/** The last `lines` lines of a log file, for error messages. */
export function logTail(path: string, lines = 30): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}
