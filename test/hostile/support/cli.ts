import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly wallMs: number;
}

const ROOT = join(import.meta.dirname, '..', '..', '..');
const MAX_OUTPUT = 16 * 1024 * 1024;

/**
 * Runs `kubemod-ts <args>` from source in a child process with a 256 MB heap (so a ballooning
 * input ends in an OOM exit rather than taking the machine), killing it after `killAfterMs`.
 * `closeStdoutAfterFirstChunk` closes the child's stdout once it has written anything.
 */
export function runCli(
  args: readonly string[],
  killAfterMs = 30_000,
  options: { readonly closeStdoutAfterFirstChunk?: boolean } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(
      process.execPath,
      ['--max-old-space-size=256', '--import', 'tsx', join('src', 'cli', 'main.ts'), ...args],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_OPTIONS: '' } },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdout.length < MAX_OUTPUT) stdout += chunk.toString('utf8');
      // As `| head` does: the reader goes away before the output ends.
      if (options.closeStdoutAfterFirstChunk === true) child.stdout.destroy();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < MAX_OUTPUT) stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
    }, killAfterMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, wallMs: performance.now() - started });
    });
  });
}
