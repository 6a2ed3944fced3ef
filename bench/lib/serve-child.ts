/**
 * The benchmark's server process: `kubemod-ts serve --rules <dir>` on 127.0.0.1:0, announcing
 * `{"port": …}` on stdout's first line once listening (logs go to stderr).
 *
 *   node --import tsx bench/lib/serve-child.ts <rules dir>
 */
import { runServe } from '../../src/cli/serve-command.js';
import { CLUSTER_NAMESPACE } from './fixture-rules.js';

const code = await runServe(
  [
    '--rules',
    process.argv[2] ?? 'bench/fixtures/rules/1000',
    '--host',
    '127.0.0.1',
    '--port',
    '0',
    '--cluster-namespace',
    CLUSTER_NAMESPACE,
    '--log-level',
    process.env.BENCH_LOG_LEVEL ?? 'info',
  ],
  {
    stdout: { write: (line: string) => process.stderr.write(line) },
    stderr: process.stderr,
    env: process.env,
    onListening: (server) => process.stdout.write(`${JSON.stringify({ port: server.port })}\n`),
  },
);
process.exit(code);
