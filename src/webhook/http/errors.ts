import type { NextFunction, Request, Response } from 'express';
import { describeError, errorCatalog, KubemodError, type ErrorName } from '../../errors/catalog.js';
import type { Logger } from '../../observability/logger.js';

/** HTTP status for each catalogued error the HTTP layer can answer with. Unlisted kinds are 500. */
const STATUS_BY_KIND: Partial<Record<ErrorName, number>> = {
  REQUEST_MALFORMED: 400,
  // The issue asks for 400 (not 413) so every "bad input" answer looks the same to callers.
  REQUEST_TOO_LARGE: 400,
  INPUT_INVALID: 400,
  INPUT_UNREADABLE: 400,
  MODRULE_INVALID: 400,
  // An input that needs more work, depth or YAML expansion than a request may use.
  WORK_LIMIT: 400,
  DEPTH_LIMIT: 400,
  YAML_LIMIT: 400,
  // Too many dry runs waiting for the worker thread: come back later.
  SERVER_BUSY: 503,
};

export function httpStatusOf(err: KubemodError): number {
  return STATUS_BY_KIND[err.kind] ?? 500;
}

/** The JSON body of every HTTP error: `{"error": "<message>", "code": "KM6003"}`. */
export interface HttpErrorBody {
  readonly error: string;
  readonly code: string;
}

/** REQUEST_TOO_LARGE for a body over `limitBytes`, whichever reader found it. */
export function requestTooLarge(limitBytes: number, cause?: unknown): KubemodError {
  return new KubemodError(
    'REQUEST_TOO_LARGE',
    `request body exceeds the limit of ${String(limitBytes)} bytes`,
    undefined,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Maps the errors body-parser raises (size, encoding, corrupt compressed data) onto the catalog;
 * other errors pass through.
 */
export function fromBodyParserError(err: unknown, limitBytes: number): unknown {
  if (typeof err !== 'object' || err === null) return err;
  if (isZlibError(err)) {
    return new KubemodError(
      'REQUEST_MALFORMED',
      `request body cannot be decompressed: ${describeError(err)}`,
      undefined,
      { cause: err },
    );
  }
  if (!('type' in err)) return err;
  const type: unknown = err.type;
  if (type === 'entity.too.large') return requestTooLarge(limitBytes, err);
  if (
    (typeof type === 'string' && type.startsWith('encoding.')) ||
    type === 'request.aborted' ||
    type === 'request.size.invalid'
  ) {
    return new KubemodError(
      'REQUEST_MALFORMED',
      `request body cannot be read: ${describeError(err)}`,
      undefined,
      { cause: err },
    );
  }
  return err;
}

/** An error of node:zlib (corrupt or truncated gzip/deflate/br data): its code is Z_* or ERR_ZLIB_*. */
function isZlibError(err: object): boolean {
  if (!('code' in err)) return false;
  const code: unknown = err.code;
  return typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR_ZLIB'));
}

/**
 * The answer to a failed request, logged: catalogued errors get their status and message, anything
 * else is a 500. Shared by the express error handler and the direct admission route.
 */
export function errorAnswer(
  err: unknown,
  logger: Logger,
  path: string,
): { status: number; body: HttpErrorBody } {
  if (err instanceof KubemodError) {
    const status = httpStatusOf(err);
    logger.warn({ path, code: err.code, status }, err.message);
    return { status, body: { error: err.message, code: err.code } };
  }
  logger.error({ path, err }, 'internal error while handling a request');
  return { status: 500, body: { error: `internal error: ${describeError(err)}`, code: 'KM0000' } };
}

/** Express error handler: catalogued errors become their status with a JSON body; the rest are 500s. */
export function createErrorHandler(logger: Logger, limitBytes: number) {
  return (raw: unknown, req: Request, res: Response, next: NextFunction): void => {
    const err = fromBodyParserError(raw, limitBytes);
    if (res.headersSent) {
      next(err);
      return;
    }
    const { status, body } = errorAnswer(err, logger, req.path);
    res.status(status).json(body);
  };
}

export function sendError(res: Response, status: number, message: string, code: string): void {
  const body: HttpErrorBody = { error: message, code };
  res.status(status).json(body);
}

/** The catalog code of a kind (for bodies built outside the error handler). */
export function codeOf(kind: ErrorName): string {
  return errorCatalog[kind].code;
}
