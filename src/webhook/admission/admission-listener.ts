import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { describeError, KubemodError } from '../../errors/catalog.js';
import type { Logger } from '../../observability/logger.js';
import type { Metrics } from '../../observability/metrics.js';
import type { RequestResult } from '../../observability/metrics.js';
import {
  parseAdmissionReview,
  serializeAdmissionReview,
  type AdmissionRequest,
  type ParsedAdmissionReview,
} from './admission-review.js';
import type { HandlerOutcome } from './dragnet-handler.js';
import { errorAnswer, requestTooLarge } from '../http/errors.js';
import type { LoopSlicing } from '../loop-slicing.js';
import { parseJsonBodySliced } from '../http/json-body.js';
import { apiServerTimeoutMs } from './request-deadline.js';

/** One admission webhook: its metrics label and its handler. */
export interface AdmissionRoute {
  readonly webhook: string;
  /** `apiTimeoutMs`: what the API server waits for the answer, when its URL says (`?timeout=`). */
  handle(
    request: AdmissionRequest,
    waitedMs: number,
    apiTimeoutMs?: number,
  ): HandlerOutcome | Promise<HandlerOutcome>;
}

export interface AdmissionListenerOptions {
  /** Admission routes by exact path. */
  readonly routes: ReadonlyMap<string, AdmissionRoute>;
  readonly bodyLimitBytes: number;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** How a large body's parse and a request's rules share the event loop. */
  readonly slicing: LoopSlicing;
  /** Serves every other request (other paths and methods, compressed bodies). */
  readonly fallback: RequestListener;
}

/**
 * Parses an AdmissionReview body, runs the route's handler and returns the AdmissionReview to send;
 * records the request in the metrics. Throws catalogued errors for malformed input.
 */
export async function answerAdmission(
  route: AdmissionRoute,
  body: unknown,
  startedAt: number,
  options: Pick<AdmissionListenerOptions, 'clock' | 'metrics' | 'slicing'>,
  apiTimeoutMs?: number,
): Promise<unknown> {
  const review = parseAdmissionReview(await parseJsonBodySliced(body, options.slicing));
  const outcome = await route.handle(review.request, options.clock() - startedAt, apiTimeoutMs);
  const { answer, result } = serialize(review, outcome);
  const seconds = (options.clock() - startedAt) / 1000;
  options.metrics.observeRequest(route.webhook, review.request.operation, result, seconds);
  return answer;
}

/**
 * The AdmissionReview answer. A patch too deep to write (V8's JSON.stringify overflows its stack)
 * is dropped: the request is allowed unchanged with a warning, as for any failed evaluation.
 */
function serialize(
  review: ParsedAdmissionReview,
  outcome: HandlerOutcome,
): { answer: unknown; result: RequestResult } {
  const { apiVersion, request } = review;
  try {
    return {
      answer: serializeAdmissionReview(apiVersion, request.uid, outcome.response),
      result: outcome.result,
    };
  } catch (err) {
    if (outcome.response.patch === undefined || !outcome.response.allowed) throw err;
    const warning = `kubemod-ts: ModRules not applied, the patch cannot be written: ${describeError(err).slice(0, 60)}`;
    const response = { allowed: true, warnings: [...(outcome.response.warnings ?? []), warning] };
    return { answer: serializeAdmissionReview(apiVersion, request.uid, response), result: 'error' };
  }
}

/**
 * The request listener in front of the express application. The API server's admission calls (a
 * POST to a webhook path) take a direct route: the body is read into one buffer with the size
 * limit enforced while reading, and the answer is written with one `end`. This skips express's
 * router and body parser, which allocated more per request than the evaluation itself and kept
 * the garbage collector busy. Answers, errors, status codes and metrics are those of the express
 * routes, which still serve compressed bodies and every other path.
 */
export function createAdmissionListener(options: AdmissionListenerOptions): RequestListener {
  return (req, res) => {
    if (Number(req.headers['content-length'] ?? 0) > options.bodyLimitBytes) {
      // Refused before reading, on every path: express's body reader would wait for the whole
      // declared body (a client could trickle it for the request timeout) before answering.
      refuseDeclaredLength(req, res, options);
      return;
    }
    const route = req.method === 'POST' ? options.routes.get(pathOf(req.url)) : undefined;
    const encoding = req.headers['content-encoding'];
    if (route === undefined || (encoding !== undefined && encoding.toLowerCase() !== 'identity')) {
      options.fallback(req, res);
      return;
    }
    const startedAt = options.clock();
    readBody(req, options.bodyLimitBytes, (err, body) => {
      const fail = (failure: unknown): void => {
        sendFailure(req, res, route, failure, startedAt, options);
      };
      if (err !== undefined) {
        fail(err);
        return;
      }
      const apiTimeout = apiServerTimeoutMs(req.url);
      answerAdmission(route, body, startedAt, options, apiTimeout).then((answer) => {
        try {
          sendJson(res, 200, JSON.stringify(answer));
        } catch (failure) {
          fail(failure);
        }
      }, fail);
    });
  };
}

const EMPTY = Buffer.alloc(0);

/** Answers 400 REQUEST_TOO_LARGE at once and closes the connection, discarding the body. */
function refuseDeclaredLength(
  req: IncomingMessage,
  res: ServerResponse,
  options: AdmissionListenerOptions,
): void {
  const path = pathOf(req.url);
  const webhook = req.method === 'POST' ? options.routes.get(path)?.webhook : undefined;
  if (webhook !== undefined) options.metrics.observeRequest(webhook, 'unknown', 'malformed', 0);
  const { status, body } = errorAnswer(
    requestTooLarge(options.bodyLimitBytes),
    options.logger,
    path,
  );
  closeAfterAnswer(req, res);
  sendJson(res, status, JSON.stringify(body));
}

/**
 * Closes the connection once the answer is written, without reading the rest of the body: a body
 * already refused as too large is not worth receiving and decrypting (up to megabytes that a
 * client may keep sending). The client reads the 400, or sees the connection reset if it was
 * still sending.
 */
export function closeAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.shouldKeepAlive = false;
  req.pause();
  res.once('finish', () => {
    req.socket.destroy();
  });
}

/** The path of a request URL, without its query. */
export function pathOf(url: string | undefined): string {
  if (url === undefined) return '';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * Reads the whole body, failing with REQUEST_TOO_LARGE as soon as the declared or received length
 * exceeds the limit (the rest is discarded), or REQUEST_MALFORMED when the stream fails.
 */
function readBody(
  req: IncomingMessage,
  limit: number,
  done: (err: KubemodError | undefined, body: Buffer) => void,
): void {
  const tooLarge = (): KubemodError => requestTooLarge(limit);
  if (Number(req.headers['content-length'] ?? 0) > limit) {
    done(tooLarge(), EMPTY);
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  req.on('data', (chunk: Buffer) => {
    if (finished) return;
    size += chunk.length;
    if (size > limit) {
      finished = true;
      chunks.length = 0;
      req.pause();
      done(tooLarge(), EMPTY);
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (finished) return;
    finished = true;
    done(undefined, chunks.length === 1 ? (chunks[0] ?? EMPTY) : Buffer.concat(chunks, size));
  });
  req.on('error', (err) => {
    if (finished) return;
    finished = true;
    const reason = `request body cannot be read: ${describeError(err)}`;
    done(new KubemodError('REQUEST_MALFORMED', reason, undefined, { cause: err }), EMPTY);
  });
}

/** Writes `json` as the whole answer, with one `end`; `headers` are added to the JSON ones. */
export function sendJson(
  res: ServerResponse,
  status: number,
  json: string,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(json),
    ...headers,
  });
  res.end(json);
}

/** As the express error handler: catalogued errors get their status, anything else is a 500. */
function sendFailure(
  req: IncomingMessage,
  res: ServerResponse,
  route: AdmissionRoute,
  err: unknown,
  startedAt: number,
  options: AdmissionListenerOptions,
): void {
  const known = err instanceof KubemodError;
  if (known && err.kind === 'REQUEST_TOO_LARGE') closeAfterAnswer(req, res);
  const seconds = (options.clock() - startedAt) / 1000;
  options.metrics.observeRequest(route.webhook, 'unknown', known ? 'malformed' : 'error', seconds);
  if (res.headersSent) {
    options.logger.error(
      { path: pathOf(req.url), err },
      'internal error after the answer was sent',
    );
    return;
  }
  const { status, body } = errorAnswer(err, options.logger, pathOf(req.url));
  sendJson(res, status, JSON.stringify(body));
}
