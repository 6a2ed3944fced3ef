/** The process edges a command touches, injected so commands are testable in-process. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether stderr is a terminal (progress output is drawn only then); false when absent. */
  readonly stderrIsTTY?: boolean | undefined;
}

export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    stderrIsTTY: process.stderr.isTTY,
  };
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
