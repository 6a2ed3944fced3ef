import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

export interface ServeProcess {
  /** `https://127.0.0.1:<port>` */
  readonly url: string;
  /** The process id (its main thread's id on Linux). */
  readonly pid: number;
  /** Everything the process wrote so far. */
  output(): string;
  /** SIGTERM, then resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Runs `kubemod-ts serve` from the sources (node --import tsx src/cli/main.ts, as `npm start`
 * does) on a free port with a rules directory holding `ruleFiles` (name → content; empty by
 * default), and resolves once it logs its URL.
 */
export async function startServe(
  extraArgs: readonly string[] = [],
  ruleFiles: Readonly<Record<string, string>> = {},
): Promise<ServeProcess> {
  const rulesDir = mkdtempSync(join(tmpdir(), 'kubemod-playground-rules-'));
  for (const [name, content] of Object.entries(ruleFiles))
    writeFileSync(join(rulesDir, name), content);
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'serve',
      '--rules',
      rulesDir,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      ...extraArgs,
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      rmSync(rulesDir, { recursive: true, force: true });
      resolve(code);
    });
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timeout = setTimeout(() => {
      reject(new Error(`kubemod-ts serve did not start within 60 s:\n${output}`));
    }, 60_000);
    const look = (): void => {
      const match =
        /"url":"(https:\/\/127\.0\.0\.1:\d+)"[^\n]*"msg":"webhook server listening"/.exec(output);
      if (match?.[1] !== undefined) {
        clearTimeout(timeout);
        resolve(match[1]);
      }
    };
    child.stdout?.on('data', look);
    void exited.then((code) => {
      clearTimeout(timeout);
      reject(new Error(`kubemod-ts serve exited with ${String(code)}:\n${output}`));
    });
  });
  return {
    url,
    pid: child.pid ?? -1,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
