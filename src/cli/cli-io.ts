import {
  createBufferedStdout,
  type BufferedLogDestination,
} from '../observability/batched-stdout.js';

/** The process edges a command touches, injected so commands are testable in-process. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether stdout is a terminal (colours); absent means it is not. */
  readonly stdoutIsTty?: boolean | undefined;
  /** Milliseconds for the work meter's time backstops; absent means its CPU clock (cpuClock). */
  readonly clock?: (() => number) | undefined;
  /** Whether stderr is a terminal (progress output is drawn only then); false when absent. */
  readonly stderrIsTTY?: boolean | undefined;
  /** Reads all of stdin (`--resource -`); absent means the process's own stdin. */
  readonly stdin?: (() => string) | undefined;
  /**
   * Opens stdout as the buffered log destination of a long-running command (`serve`, `operator`;
   * see createBufferedStdout); absent means their log lines go to `stdout` as they are written.
   */
  readonly bufferedStdout?: (() => BufferedLogDestination) | undefined;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    stdoutIsTty: process.stdout.isTTY,
    stderrIsTTY: process.stderr.isTTY,
    bufferedStdout: () => createBufferedStdout(),
  };
}

/**
 * Whether to colour output: `always`, `never`, or (`auto`) only on a terminal and never when
 * NO_COLOR is set to a non-empty value (https://no-color.org).
 */
export function wantsColor(mode: 'auto' | 'always' | 'never', io: CliIo): boolean {
  if (mode !== 'auto') return mode === 'always';
  const noColor = io.env.NO_COLOR;
  if (noColor !== undefined && noColor !== '') return false;
  return io.stdoutIsTty === true;
}

/** A usage or input error: printed as one line, exit code 2 (usage) or 1 (input). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
