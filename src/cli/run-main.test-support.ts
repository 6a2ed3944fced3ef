import type { CliIo } from './cli-io.js';
import { main } from './main.js';

/** What one in-process run of the CLI printed, and its exit code. */
export interface MainRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `kubemod-ts <argv>` in process with its output captured and an empty environment; `io`
 * adds or replaces CliIo fields (a terminal, a clock, stdin).
 */
export async function runMain(argv: readonly string[], io: Partial<CliIo> = {}): Promise<MainRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: {},
    ...io,
  });
  return { code, stdout, stderr };
}
