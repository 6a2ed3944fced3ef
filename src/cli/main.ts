#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { processIo, type CliIo } from './cli-io.js';
import { terminalText } from '../engine/terminal-text.js';
import { chooseRegexEngine } from './regex-engine-choice.js';

const USAGE = `Usage: kubemod-ts <command> [options]

Commands:
  operator   run the operator: webhooks, ModRule controller, certificates (kubemod-ts operator --help)
  dryrun     evaluate ModRules against objects offline (see: kubemod-ts dryrun --help)
  serve      standalone webhook + dryrun API on ModRules from a directory (kubemod-ts serve --help)
  test       run ModRule test files (kubemod-test.yaml) for CI (kubemod-ts test --help)
  audit      report live objects the ModRules would patch or reject (kubemod-ts audit --help)

Run 'kubemod-ts <command> --help' for a command's options.
`;

const COMMANDS: ReadonlySet<string> = new Set(['dryrun', 'test', 'operator', 'audit', 'serve']);

/**
 * Dispatches a command line to its command; returns the exit code. Each command's module is
 * imported only when it runs: `serve` and `dryrun` never load the operator's Kubernetes client,
 * informers and certificate code.
 */
export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== undefined && COMMANDS.has(command)) {
    const error = chooseRegexEngine(io.env, io.stderr);
    if (error !== undefined) {
      io.stderr(`${error}\n`);
      return 2;
    }
  }
  switch (command) {
    case 'dryrun': {
      const { runDryrun } = await import('./dryrun-command.js');
      return runDryrun(rest, io);
    }
    case 'test': {
      const { runTest } = await import('./test-command.js');
      return runTest(rest, io);
    }
    case 'operator': {
      const { runOperator } = await import('./operator-command.js');
      const logDestination = io.bufferedStdout?.();
      return runOperator([...rest], logDestination === undefined ? io : { ...io, logDestination });
    }
    case 'audit': {
      const { runAudit } = await import('./audit-command.js');
      return runAudit(rest, io);
    }
    case 'serve': {
      const { runServe } = await import('./serve-command.js');
      return runServe(rest, {
        stdout: { write: io.stdout },
        stderr: { write: io.stderr },
        env: io.env,
        ...(io.bufferedStdout === undefined ? {} : { logDestination: io.bufferedStdout() }),
      });
    }
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      io.stdout(USAGE);
      return command === undefined ? 2 : 0;
    default:
      io.stderr(`kubemod-ts: unknown command ${terminalText(JSON.stringify(command))}\n${USAGE}`);
      return 2;
  }
}

/**
 * The one line printed for an error no command handled: its message, never a stack trace (a
 * user's input should not be answered with the program's internals), its controls escaped.
 */
export function lastResortMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const line = message.split('\n', 1)[0] ?? '';
  return line === '' ? 'unexpected error' : terminalText(line);
}

function invokedDirectly(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

/**
 * Ends the process when `stream` cannot be written, as a closed pipe ends a Unix tool: exit code
 * 141 (128 + SIGPIPE) and no stack trace. `kubemod-ts dryrun … | head` closes stdout before
 * everything is written; Node then raises EPIPE as an 'error' event nothing else handles.
 */
function exitOnBrokenStream(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE' && stream !== process.stderr) {
      process.stderr.write(`kubemod-ts: cannot write the output: ${lastResortMessage(err)}\n`);
    }
    process.exit(err.code === 'EPIPE' ? 141 : 1);
  });
}

if (invokedDirectly()) {
  exitOnBrokenStream(process.stdout);
  exitOnBrokenStream(process.stderr);
  main(process.argv.slice(2), processIo()).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      process.stderr.write(`kubemod-ts: ${lastResortMessage(err)}\n`);
      process.exitCode = 1;
    },
  );
}
