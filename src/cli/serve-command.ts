import { watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startHealthServer, type HealthServer } from '../controller/health-server.js';
import { describeError, isKubemodError } from '../errors/catalog.js';
import { createLogger, type Logger } from '../observability/logger.js';
import type { BufferedLogDestination } from '../observability/batched-stdout.js';
import { createMetrics } from '../observability/metrics.js';
import { createDirectoryRuleSource } from '../rules/directory-source.js';
import { loadStaticRefs, NO_REFS } from '../rules/static-refs.js';
import { readClusterFiles } from './read-cluster.js';
import {
  createCertificateAuthority,
  generateRsaKeyPairAsync,
  issueCertificate,
} from '../tls/certificates.js';
import {
  startWebhookServer,
  type StartedWebhookServer,
  type TlsMaterial,
} from '../webhook/server.js';
import {
  loadPlaygroundAssets,
  type PlaygroundAssets,
} from '../webhook/playground/playground-assets.js';
import { readServerRules } from '../webhook/playground/playground-server-rules.js';
import {
  createHelperThreadPriority,
  keepHelperThreadsLowered,
} from '../webhook/http/thread-priority.js';
import { parseServeArgs, SERVE_USAGE, type ServeConfig } from './serve-config.js';
import { terminalLines } from '../engine/terminal-text.js';

export interface ServeIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where log lines go; defaults to `stdout`. */
  readonly logDestination?: BufferedLogDestination;
  /** Stops the server like SIGTERM does (tests, embedding). */
  readonly signal?: AbortSignal;
  /** Called once the server listens. */
  readonly onListening?: (server: StartedWebhookServer, health: HealthServer | undefined) => void;
}

/**
 * `kubemod-ts serve`: the webhook and dryrun API with the rules of a directory. Resolves with the
 * exit code after a graceful shutdown (0), or at once with 2 (bad flags) / 1 (cannot start).
 */
export async function runServe(argv: string[], io: ServeIo): Promise<number> {
  let config: ServeConfig;
  try {
    const args = parseServeArgs(argv, io.env);
    if (args.kind === 'help') {
      io.stdout.write(SERVE_USAGE);
      return 0;
    }
    config = args.config;
  } catch (err) {
    io.stderr.write(
      `kubemod-ts serve: ${terminalLines(describeError(err))}\n${isKubemodError(err) ? 'Run kubemod-ts serve --help for usage.\n' : ''}`,
    );
    return 2;
  }
  const logger = createLogger({
    level: config.logLevel,
    destination: io.logDestination ?? io.stdout,
  });
  const metrics = createMetrics();
  const logDestination = io.logDestination;
  if (logDestination !== undefined) metrics.setLogDropSource(() => logDestination.dropped());
  const source = createDirectoryRuleSource({
    dir: config.rulesDir,
    clusterNamespace: config.clusterNamespace,
    logger,
    debounceMs: config.debounceMs,
  });
  const helperThreads = createHelperThreadPriority({ nice: config.helperThreadNice, logger });
  let server: StartedWebhookServer;
  let health: HealthServer | undefined;
  // Set once the HTTPS server listens: closed again if a later start-up step fails.
  let started: StartedWebhookServer | undefined;
  let stopCertWatch = (): void => undefined;
  let stopLowering = (): void => undefined;
  let playground: PlaygroundAssets | undefined;
  try {
    const refs = config.refsPath === undefined ? NO_REFS : await loadStaticRefs(config.refsPath);
    const cluster =
      config.clusterPaths.length === 0 ? undefined : readClusterFiles(config.clusterPaths);
    if (config.ui) playground = await loadPlaygroundAssets();
    // The certificate is made (keys on the thread pool) while the rules load.
    const tlsMaterial =
      config.certDir === undefined ? selfSigned(config.host, logger) : readCertDir(config.certDir);
    tlsMaterial.catch(() => undefined); // reported below, by the await, unless loading fails first
    await source.start();
    const tls = await tlsMaterial;
    // V8's helpers and libuv's pool (used by the key generation and file reads) exist by now.
    stopLowering = keepHelperThreadsLowered(helperThreads);
    server = await startWebhookServer(
      {
        store: () => source.store(),
        refs,
        cluster,
        // serve's refs are files its user chose to serve (`--refs`): dry runs may use them.
        dryRunRefs: refs,
        logger,
        metrics,
        ready: () => source.ready(),
        clusterNamespace: config.clusterNamespace,
        limits: {
          bodyLimitBytes: config.bodyLimitBytes,
          deadlineMs: config.deadlineMs,
          template:
            config.templateMaxOutputBytes === undefined
              ? {}
              : { maxOutputBytes: config.templateMaxOutputBytes },
          work: config.work,
        },
        ...(playground === undefined
          ? {}
          : { playground, serverRules: () => readServerRules(config.rulesDir) }),
        helperThreads,
      },
      { host: config.host, port: config.port, tls, shutdownGraceMs: config.shutdownGraceMs },
    );
    started = server;
    if (config.certDir !== undefined) stopCertWatch = watchCertDir(config.certDir, server, logger);
    if (config.healthPort !== undefined) {
      health = await startHealthServer({
        host: config.host,
        port: config.healthPort,
        ready: () => source.ready(),
        metrics,
      });
      logger.info({ url: health.url, port: health.port }, 'health server listening');
    }
  } catch (err) {
    stopLowering();
    source.close();
    stopCertWatch();
    await started?.close();
    logger.fatal({ err }, 'cannot start');
    io.stderr.write(`kubemod-ts serve: ${terminalLines(describeError(err))}\n`);
    return 1;
  }
  if (playground !== undefined) logger.info({ url: `${server.url}/` }, 'playground page served');
  io.onListening?.(server, health);
  const signalName = await stopRequested(io.signal);
  logger.info({ signal: signalName }, 'shutting down');
  stopLowering();
  stopCertWatch();
  source.close();
  await Promise.all([server.close(), health?.close()]);
  return 0;
}

/** Resolves with the name of the first SIGTERM/SIGINT (or 'abort'), then removes the listeners. */
function stopRequested(signal: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve) => {
    const done = (name: string): void => {
      process.off('SIGTERM', onTerm);
      process.off('SIGINT', onInt);
      signal?.removeEventListener('abort', onAbort);
      resolve(name);
    };
    const onTerm = (): void => {
      done('SIGTERM');
    };
    const onInt = (): void => {
      done('SIGINT');
    };
    const onAbort = (): void => {
      done('abort');
    };
    process.once('SIGTERM', onTerm);
    process.once('SIGINT', onInt);
    if (signal?.aborted === true) done('abort');
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}

async function selfSigned(host: string, logger: Logger): Promise<TlsMaterial> {
  const [caKeys, leafKeys] = await Promise.all([
    generateRsaKeyPairAsync(),
    generateRsaKeyPairAsync(),
  ]);
  const ca = createCertificateAuthority({ commonName: 'kubemod-ts standalone CA' }, caKeys);
  const wildcard = host === '0.0.0.0' || host === '::' || host === '';
  const isIp = /^[\d.]+$/.test(host) || host.includes(':');
  const leaf = issueCertificate(
    ca,
    {
      commonName: 'kubemod-ts',
      dnsNames: ['localhost', ...(!wildcard && !isIp ? [host] : [])],
      ipAddresses: [
        '127.0.0.1',
        '::1',
        ...(!wildcard && isIp && host !== '127.0.0.1' && host !== '::1' ? [host] : []),
      ],
    },
    leafKeys,
  );
  logger.info('serving with a generated self-signed certificate (use --cert-dir for your own)');
  return { cert: `${leaf.certPem}${ca.certPem}`, key: leaf.keyPem };
}

async function readCertDir(dir: string): Promise<TlsMaterial> {
  const [cert, key] = await Promise.all([
    readFile(join(dir, 'tls.crt'), 'utf8'),
    readFile(join(dir, 'tls.key'), 'utf8'),
  ]);
  return { cert, key };
}

/** Reloads the certificate when tls.crt/tls.key change (e.g. a renewed Secret volume). */
function watchCertDir(dir: string, server: StartedWebhookServer, logger: Logger): () => void {
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dir, { persistent: false }, () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      readCertDir(dir).then(
        (tls) => {
          server.reloadCertificate(tls);
        },
        (err: unknown) => {
          logger.error({ err, dir }, 'cannot reload the certificate; keeping the current one');
        },
      );
    }, 500);
  });
  watcher.on('error', (err) => {
    logger.error({ err, dir }, 'watching the certificate directory failed');
  });
  return () => {
    if (timer !== undefined) clearTimeout(timer);
    watcher.close();
  };
}
