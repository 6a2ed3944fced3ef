import { runServe } from '../../../src/cli/serve-command.js';
import type { HealthServer } from '../../../src/controller/health-server.js';
import type { StartedWebhookServer } from '../../../src/webhook/server.js';

export interface InProcessServe {
  readonly server: StartedWebhookServer;
  /** The plain-HTTP health server (/healthz, /readyz, /metrics), with --health-port only. */
  readonly health: HealthServer | undefined;
  /** Everything serve wrote so far, stdout and stderr together. */
  output(): string;
  /** The exit code once serve has ended; undefined while it runs. */
  exitCode(): number | undefined;
  /** Stops serve as SIGTERM would. */
  stop(): void;
}

/**
 * `kubemod-ts serve --rules <rulesDir>` in this process on 127.0.0.1 and a free port, resolved
 * once it listens; rejects, with the end of its output, if it exits first. Its helper threads are
 * the test runner's own, so they keep their priority (--helper-thread-nice 0).
 */
export function runServeInProcess(
  rulesDir: string,
  flags: readonly string[] = [],
): Promise<InProcessServe> {
  const output: string[] = [];
  const controller = new AbortController();
  let exited: number | undefined;
  return new Promise((resolve, reject) => {
    runServe(
      [
        ...['--rules', rulesDir, '--port', '0', '--host', '127.0.0.1'],
        ...['--helper-thread-nice', '0', ...flags],
      ],
      {
        stdout: { write: (t: string) => output.push(t) },
        stderr: { write: (t: string) => output.push(t) },
        env: {},
        signal: controller.signal,
        onListening: (server, health) => {
          resolve({
            server,
            health,
            output: () => output.join(''),
            exitCode: () => exited,
            stop: () => {
              controller.abort();
            },
          });
        },
      },
    ).then(
      (code) => {
        exited = code;
        reject(new Error(`serve exited with ${String(code)}: ${output.join('').slice(-2000)}`));
      },
      (err: unknown) => {
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
