import { once } from 'node:events';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { KubemodError } from '../errors/catalog.js';
import {
  DEFAULT_LAG_SAMPLE_MS,
  startEventLoopLagSampler,
  type LagTimers,
} from '../observability/event-loop-lag.js';
import {
  loopSlicing,
  type LoopSlicing,
  type SyntheticRefLookups,
  type WebhookDependencies,
} from './dependencies.js';
import { handleDragnet } from './admission/dragnet-handler.js';
import {
  answerAdmission,
  createAdmissionListener,
  type AdmissionRoute,
} from './admission/admission-listener.js';
import { explainParameter } from './dryrun/dryrun-handler.js';
import { deserializeError } from './dryrun/dryrun-job.js';
import type { DryRunRunner } from './dryrun/dryrun-runner.js';
import { createWorkerDryRunRunner } from './dryrun/dryrun-worker-runner.js';
import {
  DEFAULT_WEBHOOK_TIMEOUTS,
  dropIdleSockets,
  timeoutServerOptions,
  type WebhookTimeouts,
} from './http/server-timeouts.js';
import { createErrorHandler, fromBodyParserError, httpStatusOf, sendError } from './http/errors.js';
import { parseJsonBody } from './http/json-body.js';
import { rawBody } from './http/raw-body.js';
import {
  capConnections,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
  type ConnectionCaps,
} from './http/connection-caps.js';
import { budgetedListener, createBodyBudget, inFlightBodyBytes } from './http/body-budget.js';
import { closeAfterDelay, createLameDuck, timerDelay } from './http/lame-duck.js';
import { handleDefaultModRule, handleValidateModRule } from './admission/modrule-handlers.js';
import { handlePodBinding } from './admission/podbinding-handler.js';
import { playgroundHandler } from './playground/playground-route.js';
import { serverRulesHandler } from './playground/playground-server-rules.js';
import { FairTurns } from './fair-turns.js';
import { apiServerTimeoutMs } from './admission/request-deadline.js';

export { DEFAULT_WEBHOOK_TIMEOUTS, type WebhookTimeouts } from './http/server-timeouts.js';
export {
  DEFAULT_WEBHOOK_LIMITS,
  type NodeRefBinder,
  type RuleFailureContext,
  type SyntheticRefLookups,
  type WebhookDependencies,
  type WebhookLimits,
} from './dependencies.js';

/** Lookups that find nothing: a dry run's default (it sees only the refs its body gives). */
const NO_REFS: SyntheticRefLookups = Object.freeze({
  namespace: () => undefined,
  node: () => undefined,
});

/** Paths, as KubeMod registers them in its webhook configurations. */
export const WEBHOOK_PATHS = {
  dragnet: '/dragnet-webhook',
  podBinding: '/podbinding-webhook',
  validateModRule: '/validate-api-kubemod-io-v1beta1-modrule',
  mutateModRule: '/mutate-api-kubemod-io-v1beta1-modrule',
  dryRun: '/v1/dryrun',
} as const;

export interface TlsMaterial {
  /** PEM certificate chain. */
  readonly cert: string;
  /** PEM private key. */
  readonly key: string;
}

export interface WebhookServerOptions {
  readonly host: string;
  readonly port: number;
  readonly tls: TlsMaterial;
  /** How long close() lets in-flight requests finish before dropping connections (default 10 s). */
  readonly shutdownGraceMs?: number;
  /**
   * How long close() keeps accepting and answering requests after drain() before the listener
   * closes (default 0; the operator's --shutdown-delay-ms). See http/lame-duck.ts.
   */
  readonly shutdownDelayMs?: number;
  /** Waits the shutdown delay (tests); a timer by default. */
  readonly shutdownDelay?: (ms: number) => Promise<void>;
  /** Client time limits (defaults: DEFAULT_WEBHOOK_TIMEOUTS). */
  readonly timeouts?: Partial<WebhookTimeouts>;
  /**
   * Event-loop lag sampling into `kubemod_event_loop_lag_seconds` while the server runs: the
   * interval in ms (default 50), or 0 for none. close() stops it.
   */
  readonly lagSampleMs?: number;
  /** Clock and timer of the lag sampler (tests). */
  readonly lagTimers?: LagTimers;
  /**
   * Open connections at most, in all and per client address; more are closed at once (defaults:
   * DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_CONNECTIONS_PER_ADDRESS).
   */
  readonly maxConnections?: Partial<ConnectionCaps>;
}

export interface StartedWebhookServer {
  readonly port: number;
  /** `https://<host>:<port>` */
  readonly url: string;
  /** Serves new TLS handshakes with another certificate, without a restart. */
  reloadCertificate(tls: TlsMaterial): void;
  /**
   * Lame duck: readiness turns false, responses carry `connection: close`; new connections are
   * still accepted and answered. close() drains too.
   */
  drain(): void;
  /**
   * Graceful: drains, keeps answering for the shutdown delay, then accepts no new connections,
   * lets in-flight requests finish within the grace, then resolves.
   */
  close(): Promise<void>;
}

interface AppState {
  readonly app: express.Express;
  readonly routes: ReadonlyMap<string, AdmissionRoute>;
  /** Background work (node-ref binds) that close() waits for. */
  readonly pending: Set<Promise<void>>;
  /** The dry-run runner (its worker thread), stopped by close(); none when dry runs are off. */
  readonly dryRunRunner: DryRunRunner | undefined;
  /** How large bodies and long evaluations share the event loop (and the clock they use). */
  readonly slicing: LoopSlicing;
}

/**
 * The express application with every route; no listening socket. Its dry-run worker thread (if
 * a dry run starts one) is never stopped, but it does not keep the process alive either.
 */
export function createWebhookApp(deps: WebhookDependencies): express.Express {
  return buildApp(deps).app;
}

function buildApp(deps: WebhookDependencies): AppState {
  const slicing = loopSlicing(deps);
  const clock = slicing.clock;
  // The slices of dragnet evaluations, namespaces in turn (one queue per server); a turn of the
  // loop runs slices for up to one slice's time before the network is read again.
  const turns = new FairTurns(clock, slicing.yieldToLoop, slicing.sliceMs);
  const limit = deps.limits.bodyLimitBytes;
  const pending = new Set<Promise<void>>();
  const track = (work: Promise<void>): void => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };
  deps.metrics.setRuleCountSource(() => deps.store().countsByNamespace());
  deps.metrics.setRulePresence((rule) => {
    const slash = rule.indexOf('/');
    return deps.store().get(rule.slice(0, slash), rule.slice(slash + 1)) !== undefined;
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((_req: Request, res: Response, next: NextFunction) => {
    res.locals.startedAt = clock();
    next();
  });

  const routes = new Map<string, AdmissionRoute>([
    [
      WEBHOOK_PATHS.dragnet,
      {
        webhook: 'dragnet',
        handle: (request, waited, apiTimeoutMs) =>
          handleDragnet(request, deps, waited, slicing, turns, apiTimeoutMs),
      },
    ],
    [
      WEBHOOK_PATHS.podBinding,
      { webhook: 'podbinding', handle: (request) => handlePodBinding(request, deps, track) },
    ],
    [
      WEBHOOK_PATHS.validateModRule,
      { webhook: 'validate-modrule', handle: (request) => handleValidateModRule(request, deps) },
    ],
    [
      WEBHOOK_PATHS.mutateModRule,
      { webhook: 'mutate-modrule', handle: (request) => handleDefaultModRule(request, deps) },
    ],
  ]);
  // The admission listener answers these directly; express serves them too (compressed bodies).
  for (const [path, route] of routes) {
    app.post(
      path,
      (_req, res, next) => {
        res.locals.webhook = route.webhook;
        next();
      },
      rawBody(limit),
      (req, res, next) => {
        answerAdmission(
          route,
          req.body,
          startedAtOf(res, clock),
          { clock, metrics: deps.metrics, slicing },
          apiServerTimeoutMs(req.originalUrl),
        )
          .then((answer) => {
            res.status(200).json(answer);
          })
          .catch(next);
      },
    );
  }

  let dryRunRunner: DryRunRunner | undefined;
  if (deps.dryRun !== false) {
    // Made here, started lazily: the worker thread comes up with the first dry run.
    // Only the refs the dry-run service may look up (see WebhookDependencies.dryRunRefs).
    const refs = deps.dryRunRefs ?? NO_REFS;
    const runner = (deps.dryRunRunner ?? createWorkerDryRunRunner)({ ...deps, refs });
    dryRunRunner = runner;
    app.put(WEBHOOK_PATHS.dryRun, rawBody(limit), async (req, res) => {
      const startedAt = startedAtOf(res, clock);
      res.locals.webhook = 'dryrun';
      const explain = explainParameter(req.query.explain);
      const body: unknown = req.body;
      // An empty body is refused here; the bytes of any other go to the runner as they are.
      if (!Buffer.isBuffer(body) || body.length === 0) parseJsonBody(body);
      const outcome = await runner.run(body as Buffer, { explain });
      if (!outcome.ok) {
        if (outcome.error.kind === 'SERVER_BUSY') res.set('Retry-After', '1');
        throw deserializeError(outcome.error);
      }
      res.status(200).type('application/json').send(outcome.json);
      deps.metrics.observeRequest(
        'dryrun',
        outcome.operation,
        outcome.result,
        (clock() - startedAt) / 1000,
      );
    });
  }

  app.get('/healthz', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  app.get('/readyz', (_req, res) => {
    const ready = deps.ready();
    res
      .status(ready ? 200 : 503)
      .type('text/plain')
      .send(ready ? 'ok' : 'not ready');
  });
  if (deps.playground !== undefined) {
    if (deps.serverRules !== undefined) app.use(serverRulesHandler(deps.serverRules));
    app.use(playgroundHandler(deps.playground));
  }
  app.use((req: Request, res: Response) => {
    sendError(res, 404, `no route for ${req.method} ${req.path}`, 'KM6003');
  });

  const errorHandler = createErrorHandler(deps.logger, limit);
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    const webhook: unknown = res.locals.webhook;
    const mapped = fromBodyParserError(err, limit);
    if (typeof webhook === 'string') {
      const result =
        mapped instanceof KubemodError && httpStatusOf(mapped) < 500 ? 'malformed' : 'error';
      deps.metrics.observeRequest(
        webhook,
        'unknown',
        result,
        (clock() - startedAtOf(res, clock)) / 1000,
      );
    }
    errorHandler(mapped, req, res, next);
  });
  return { app, pending, routes, dryRunRunner, slicing };
}

function startedAtOf(res: Response, clock: () => number): number {
  const value: unknown = res.locals.startedAt;
  return typeof value === 'number' ? value : clock();
}

/** Starts the HTTPS webhook server. Resolves once it listens (port 0 picks a free port). */
export async function startWebhookServer(
  deps: WebhookDependencies,
  options: WebhookServerOptions,
): Promise<StartedWebhookServer> {
  const lameDuck = createLameDuck();
  const { app, pending, routes, dryRunRunner, slicing } = buildApp({
    ...deps,
    ready: () => !lameDuck.draining && deps.ready(),
  });
  const listener = createAdmissionListener({
    routes,
    bodyLimitBytes: deps.limits.bodyLimitBytes,
    clock: slicing.clock,
    logger: deps.logger,
    metrics: deps.metrics,
    slicing,
    fallback: app,
  });
  const budget = createBodyBudget({
    bytes: inFlightBodyBytes(deps.limits),
    limitBytes: deps.limits.bodyLimitBytes,
    clock: slicing.clock,
  });
  const timeouts = { ...DEFAULT_WEBHOOK_TIMEOUTS, ...options.timeouts };
  const server: Server = createServer(
    { cert: options.tls.cert, key: options.tls.key, ...timeoutServerOptions(timeouts) },
    lameDuck.wrap(
      budgetedListener(listener, { budget, logger: deps.logger, metrics: deps.metrics }),
    ),
  );
  dropIdleSockets(server, timeouts);
  capConnections(
    server,
    {
      total: options.maxConnections?.total ?? DEFAULT_MAX_CONNECTIONS,
      perAddress: options.maxConnections?.perAddress ?? DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
    },
    (reason) => {
      deps.metrics.connectionDropped(reason);
    },
  );
  server.on('tlsClientError', (err) => {
    deps.logger.debug({ err }, 'TLS handshake failed');
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const lagSampleMs = options.lagSampleMs ?? DEFAULT_LAG_SAMPLE_MS;
  const sampler =
    lagSampleMs > 0
      ? startEventLoopLagSampler({
          observe: (seconds) => {
            deps.metrics.observeEventLoopLag(seconds);
          },
          intervalMs: lagSampleMs,
          timers: options.lagTimers,
        })
      : undefined;
  const port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  const url = `https://${host}:${String(port)}`;
  deps.logger.info({ url, port }, 'webhook server listening');
  let closed: Promise<void> | undefined;
  const drain = (): void => {
    if (lameDuck.draining) return;
    lameDuck.drain();
    deps.logger.info(
      { delayMs: options.shutdownDelayMs ?? 0 },
      'webhook server draining: not ready, still answering',
    );
  };
  return {
    port,
    url,
    reloadCertificate(tls: TlsMaterial): void {
      server.setSecureContext({ cert: tls.cert, key: tls.key });
      deps.logger.info('serving certificate reloaded');
    },
    drain,
    close(): Promise<void> {
      drain();
      closed ??= closeAfterDelay(server, pending, {
        delayMs: options.shutdownDelayMs ?? 0,
        graceMs: options.shutdownGraceMs ?? 10_000,
        delay: options.shutdownDelay ?? timerDelay,
      })
        .then(() => {
          sampler?.stop();
        })
        .then(() => dryRunRunner?.close())
        .then(() => {
          deps.logger.info('webhook server stopped');
        });
      return closed;
    },
  };
}
