import { createKubeClient } from '../kube/kube-client.js';
import {
  inClusterConnection,
  kubeconfigConnection,
  type KubeConnection,
} from '../kube/kube-connection.js';
import { sleepWithSignal } from '../kube/informer.js';
import { startOperator, type RunningOperator } from '../controller/operator.js';
import { describeError, isKubemodError } from '../errors/catalog.js';
import { createLogger, type LogDestination, type Logger } from '../observability/logger.js';
import type { BufferedLogDestination } from '../observability/batched-stdout.js';
import { createMetrics } from '../observability/metrics.js';
import {
  createHelperThreadPriority,
  keepHelperThreadsLowered,
} from '../webhook/http/thread-priority.js';
import type { CliIo } from './cli-io.js';
import { OPERATOR_USAGE, parseOperatorArgs, type OperatorConfig } from './operator-config.js';
import { terminalLines } from '../engine/terminal-text.js';

export interface OperatorIo extends CliIo {
  /** Stops the operator like SIGTERM does (tests). When absent, SIGTERM/SIGINT are handled. */
  readonly signal?: AbortSignal;
  /** Receives the running operator once it listens (tests). */
  readonly onStarted?: (operator: RunningOperator) => void;
  /** Where log lines go; defaults to stdout. A buffered one's drops are counted in the metrics. */
  readonly logDestination?: LogDestination | BufferedLogDestination;
  /** Where the in-cluster token and ca.crt are mounted (tests); defaults to the Pod's path. */
  readonly serviceAccountDir?: string;
}

/** The kubeconfig file named in the config, or the in-cluster configuration of the Pod. */
export function loadConnection(
  config: OperatorConfig,
  io: Pick<OperatorIo, 'env' | 'serviceAccountDir'>,
  logger: Logger,
): KubeConnection {
  if (config.kubeconfig !== undefined) return kubeconfigConnection(config.kubeconfig);
  return inClusterConnection({
    env: io.env,
    ...(io.serviceAccountDir === undefined ? {} : { serviceAccountDir: io.serviceAccountDir }),
    onTokenError: (err) => {
      logger.warn({ err: describeError(err) }, 'could not re-read the service-account token');
    },
  });
}

/**
 * `kubemod-ts operator`: runs until SIGTERM/SIGINT (or `io.signal`), then shuts down gracefully.
 * Resolves the exit code: 0 after a clean shutdown, 1 when startup failed, 2 on a usage error.
 */
export async function runOperator(argv: string[], io: OperatorIo): Promise<number> {
  let parsed;
  try {
    parsed = parseOperatorArgs(argv, io.env);
  } catch (err) {
    io.stderr(`kubemod-ts operator: ${terminalLines(describeError(err))}\n`);
    return 2;
  }
  if (parsed.kind === 'help') {
    io.stdout(OPERATOR_USAGE);
    return 0;
  }
  const { config } = parsed;
  const logger = createLogger({
    level: config.logLevel,
    name: 'kubemod-ts',
    destination: io.logDestination ?? { write: io.stdout },
  });
  let operator: RunningOperator;
  const lifetime = new AbortController();
  const helperThreads = createHelperThreadPriority({ nice: config.helperThreadNice, logger });
  try {
    const client = createKubeClient(loadConnection(config, io, logger));
    const metrics = createMetrics({ maxRuleSeries: config.metricsMaxRules });
    const destination = io.logDestination;
    if (destination !== undefined && 'dropped' in destination) {
      metrics.setLogDropSource(() => destination.dropped());
    }
    operator = await startOperator(config, {
      client,
      logger,
      metrics,
      now: () => Date.now(),
      delay: sleepWithSignal,
      helperThreads,
    });
  } catch (err) {
    const code = isKubemodError(err) ? ` [${err.code}]` : '';
    io.stderr(`kubemod-ts operator: cannot start${code}: ${terminalLines(describeError(err))}\n`);
    return 1;
  }
  const stopLowering = keepHelperThreadsLowered(helperThreads);
  io.onStarted?.(operator);
  logger.info(
    { webhook: operator.webhookUrl, health: operator.healthUrl, namespace: config.namespace },
    'operator started',
  );
  await new Promise<void>((resolve) => {
    const finish = (): void => {
      process.off('SIGTERM', finish);
      process.off('SIGINT', finish);
      resolve();
    };
    if (io.signal === undefined) {
      process.on('SIGTERM', finish);
      process.on('SIGINT', finish);
    } else if (io.signal.aborted) {
      finish();
    } else {
      io.signal.addEventListener('abort', finish, { once: true });
    }
    lifetime.signal.addEventListener('abort', finish, { once: true });
  });
  logger.info('shutting down');
  stopLowering();
  await operator.stop();
  return 0;
}
