import express, { type RequestHandler } from 'express';
import { KubemodError } from '../errors/catalog.js';
import { fromBodyParserError } from './errors.js';

// Apart from json-body.ts (which parses what this reads) so that the dry-run worker thread, which
// parses bodies but never reads one from a socket, does not load express and its dependencies:
// they were most of the thread's start-up time.

/**
 * Reads the body as raw bytes whatever its Content-Type (curl -d sends form-encoded bodies) up to
 * `limitBytes`, inflating gzip/deflate/br bodies. The limit applies to the inflated bytes, and
 * inflating stops as soon as it is passed (a small compressed body that would inflate to
 * gigabytes is cut at the limit). Every failure to read the body is catalogued: too large is
 * REQUEST_TOO_LARGE; a corrupt, truncated or unknown encoding, a broken stream and anything else
 * the reader throws is REQUEST_MALFORMED, never an internal error.
 */
export function rawBody(limitBytes: number): RequestHandler {
  const read: RequestHandler = express.raw({ type: () => true, limit: limitBytes });
  return (req, res, next) => {
    read(req, res, (err?: unknown) => {
      if (err === undefined || err === null || err === 'route' || err === 'router') {
        next(err as undefined);
        return;
      }
      next(bodyReadError(err, limitBytes));
    });
  };
}

/** The catalogued error for a failure of the body reader. */
export function bodyReadError(err: unknown, limitBytes: number): KubemodError {
  const mapped = fromBodyParserError(err, limitBytes);
  if (mapped instanceof KubemodError) return mapped;
  const reason = err instanceof Error ? err.message : String(err);
  return new KubemodError(
    'REQUEST_MALFORMED',
    `request body cannot be read: ${reason}`,
    undefined,
    { cause: err },
  );
}
