import { Agent, request as httpsRequest, type RequestOptions } from 'node:https';
import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { createInterface } from 'node:readline';
import { KubemodError } from '../errors/catalog.js';
import type { JsonObject } from '../engine/json.js';
import type { KubeConnection } from './kube-connection.js';
import { createListSplitter } from './list-splitter.js';

/** A Kubernetes API failure: the HTTP status (0 when the server was unreachable) and its message. */
export class KubeApiError extends KubemodError {
  constructor(
    readonly statusCode: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('CLUSTER', message, undefined, options);
  }
}

export function isStatus(err: unknown, code: number): boolean {
  return err instanceof KubeApiError && err.statusCode === code;
}

export type QueryParams = Readonly<Record<string, string | number | boolean | undefined>>;

export interface KubeRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly query?: QueryParams;
  readonly body?: unknown;
  /** Defaults to application/json; use application/merge-patch+json or application/json-patch+json for PATCH. */
  readonly contentType?: string;
  /**
   * The caller does not read the answer (e.g. a status write, whose answer is the whole object):
   * a successful response's body is drained without being kept or parsed, and `{}` resolves.
   */
  readonly discardResponse?: boolean;
}

export interface RawWatchEvent {
  readonly type: string;
  readonly object: JsonObject;
}

export interface WatchHandle {
  stop(): void;
  /** Resolves when the server closes the stream normally; rejects on errors (KubeApiError 410 when expired). */
  readonly done: Promise<void>;
}

/** The few Kubernetes API calls the operator makes, so everything above it can be tested with a fake. */
export interface KubeClient {
  request(req: KubeRequest): Promise<JsonObject>;
  /**
   * GET of a collection, read as it streams in: each item is handed to `onItem` once it has
   * arrived (with the list's kind and apiVersion in `head`); resolves the list without its items.
   */
  list(
    path: string,
    query: QueryParams,
    onItem: (item: JsonObject, head: JsonObject) => void,
    options?: ReadOptions,
  ): Promise<JsonObject>;
  watch(
    path: string,
    query: QueryParams,
    onEvent: (event: RawWatchEvent) => void,
    options?: ReadOptions,
  ): WatchHandle;
}

/** How a list or watch is read. */
export interface ReadOptions {
  /**
   * The Accept header (default application/json), e.g. `application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1`
   * for metadata only.
   */
  readonly accept?: string;
}

function buildPath(path: string, query: QueryParams | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {}))
    if (value !== undefined) params.set(key, String(value));
  const qs = params.toString();
  return qs === '' ? path : `${path}?${qs}`;
}

function headerObject(headers: RequestOptions['headers']): OutgoingHttpHeaders {
  return headers === undefined || Array.isArray(headers) ? {} : (headers as OutgoingHttpHeaders);
}

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    res.on('error', reject);
  });
}

function statusMessage(body: string, statusCode: number): string {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
  } catch {
    // not JSON
  }
  return `HTTP ${statusCode}${body === '' ? '' : `: ${body.slice(0, 200)}`}`;
}

/** A KubeClient over node:https, with the server and credentials of a kubeconfig or the Pod. */
export function createKubeClient(
  connection: KubeConnection,
  options: { timeoutMs?: number; watchIdleMs?: number } = {},
): KubeClient {
  const base = connection.server;
  // Requests share keep-alive connections; each watch holds its own for its whole life.
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const watchAgent = new Agent({ keepAlive: false });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const watchIdleMs = options.watchIdleMs ?? 420_000;

  const baseOptions = async (method: string, path: string): Promise<RequestOptions> => {
    const opts: RequestOptions = {
      method,
      hostname: base.hostname.replace(/^\[|\]$/g, ''),
      port: base.port === '' ? 443 : Number(base.port),
      path: `${base.pathname.replace(/\/$/, '')}${path}`,
      headers: {},
    };
    await connection.authorize(opts);
    return opts;
  };

  const request = async (req: KubeRequest): Promise<JsonObject> => {
    const opts = await baseOptions(req.method, buildPath(req.path, req.query));
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
    opts.agent = agent;
    opts.timeout = timeoutMs;
    opts.headers = {
      ...headerObject(opts.headers),
      accept: 'application/json',
      ...(payload === undefined ? {} : { 'content-type': req.contentType ?? 'application/json' }),
    };
    return new Promise<JsonObject>((resolve, reject) => {
      const r = httpsRequest(opts, (res) => {
        const ok = (res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300;
        if (ok && req.discardResponse === true) {
          res.on('end', () => {
            resolve({});
          });
          res.on('error', reject);
          res.resume();
          return;
        }
        readAll(res).then((body) => {
          const code = res.statusCode ?? 0;
          if (code < 200 || code >= 300) {
            reject(
              new KubeApiError(code, `${req.method} ${req.path}: ${statusMessage(body, code)}`),
            );
            return;
          }
          resolve(body === '' ? {} : (JSON.parse(body) as JsonObject));
        }, reject);
      });
      r.on('timeout', () => r.destroy(new Error(`timed out after ${timeoutMs} ms`)));
      r.on('error', (err) => {
        reject(new KubeApiError(0, `${req.method} ${req.path}: ${err.message}`, { cause: err }));
      });
      r.end(payload);
    });
  };

  const list = async (
    path: string,
    query: QueryParams,
    onItem: (item: JsonObject, head: JsonObject) => void,
    readOptions: ReadOptions = {},
  ): Promise<JsonObject> => {
    const opts = await baseOptions('GET', buildPath(path, query));
    opts.agent = agent;
    opts.timeout = timeoutMs;
    opts.headers = {
      ...headerObject(opts.headers),
      accept: readOptions.accept ?? 'application/json',
    };
    return new Promise<JsonObject>((resolve, reject) => {
      const fail = (err: unknown): void => {
        reject(
          err instanceof KubeApiError
            ? err
            : new KubeApiError(
                0,
                `GET ${path}: ${err instanceof Error ? err.message : String(err)}`,
                {
                  cause: err,
                },
              ),
        );
      };
      const r = httpsRequest(opts, (res) => {
        const code = res.statusCode ?? 0;
        if (code < 200 || code >= 300) {
          readAll(res).then((body) => {
            reject(new KubeApiError(code, `GET ${path}: ${statusMessage(body, code)}`));
          }, fail);
          return;
        }
        const splitter = createListSplitter(onItem);
        res.on('data', (chunk: Buffer) => {
          try {
            splitter.write(chunk);
          } catch (err) {
            // A malformed response, or a handler that threw: stop reading.
            r.destroy();
            fail(err);
          }
        });
        res.on('end', () => {
          try {
            resolve(splitter.end());
          } catch (err) {
            fail(err);
          }
        });
        res.on('error', fail);
      });
      r.on('timeout', () => r.destroy(new Error(`timed out after ${timeoutMs} ms`)));
      r.on('error', fail);
      r.end();
    });
  };

  const watch = (
    path: string,
    query: QueryParams,
    onEvent: (event: RawWatchEvent) => void,
    readOptions: ReadOptions = {},
  ): WatchHandle => {
    let stopped = false;
    let abort: (() => void) | undefined;
    const done = new Promise<void>((resolve, reject) => {
      baseOptions('GET', buildPath(path, { ...query, watch: 1 })).then((opts) => {
        if (stopped) {
          resolve();
          return;
        }
        opts.agent = watchAgent;
        opts.headers = {
          ...headerObject(opts.headers),
          accept: readOptions.accept ?? 'application/json',
        };
        const r = httpsRequest(opts, (res) => {
          const code = res.statusCode ?? 0;
          if (code !== 200) {
            readAll(res).then((body) => {
              reject(new KubeApiError(code, `watch ${path}: ${statusMessage(body, code)}`));
            }, reject);
            return;
          }
          const lines = createInterface({ input: res });
          // readline re-emits the response's errors (e.g. "aborted" when stopped); res handles them.
          lines.on('error', () => undefined);
          let failed = false;
          lines.on('line', (line) => {
            if (line.trim() === '' || failed) return;
            let event: RawWatchEvent;
            try {
              event = JSON.parse(line) as RawWatchEvent;
            } catch {
              return;
            }
            if (event.type === 'ERROR') {
              failed = true;
              const status = event.object as { code?: unknown; message?: unknown };
              const errCode = typeof status.code === 'number' ? status.code : 500;
              reject(
                new KubeApiError(
                  errCode,
                  `watch ${path}: ${typeof status.message === 'string' ? status.message : 'error event'}`,
                ),
              );
              r.destroy();
              return;
            }
            onEvent(event);
          });
          res.on('error', (err) => {
            if (!stopped)
              reject(new KubeApiError(0, `watch ${path}: ${err.message}`, { cause: err }));
          });
          res.on('close', () => {
            if (stopped || res.complete) resolve();
            else reject(new KubeApiError(0, `watch ${path}: connection closed`));
          });
        });
        abort = (): void => {
          r.destroy();
        };
        // A silently dead connection (no RST) must not stall the informer: the server ends
        // watches within timeoutSeconds and sends bookmarks, so long silence means trouble.
        r.setTimeout(watchIdleMs, () => {
          r.destroy(new Error(`no data for ${String(watchIdleMs)} ms`));
        });
        r.on('error', (err) => {
          if (stopped) resolve();
          else reject(new KubeApiError(0, `watch ${path}: ${err.message}`, { cause: err }));
        });
        r.end();
      }, reject);
    });
    return {
      stop: (): void => {
        stopped = true;
        abort?.();
      },
      done,
    };
  };

  return { request, list, watch };
}
