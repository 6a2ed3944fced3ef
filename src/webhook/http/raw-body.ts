import type { IncomingMessage } from 'node:http';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import express, { type RequestHandler } from 'express';
import { KubemodError } from '../../errors/catalog.js';
import { closeAfterAnswer } from '../admission/admission-listener.js';
import { fromBodyParserError, requestTooLarge } from './errors.js';

// Apart from json-body.ts (which parses what this reads) so that the dry-run worker thread, which
// parses bodies but never reads one from a socket, does not load express and its dependencies:
// they were most of the thread's start-up time.

/**
 * Output chunk of the decompressors. zlib's default (16 KiB) costs one trip through the thread
 * pool and one stream callback on the event loop per 16 KiB: a gzip bomb cut at a 3 MiB limit took
 * about 17 ms of the event loop (bench:hostile). 256 KiB makes that about 1 ms; a small body still
 * gets one chunk, sliced from a buffer of this size that lives as long as its request.
 */
export const INFLATE_CHUNK_BYTES = 256 * 1024;

/**
 * Reads the body as raw bytes whatever its Content-Type (curl -d sends form-encoded bodies) up to
 * `limitBytes`, inflating gzip/deflate/br bodies. The limit applies to the inflated bytes, and
 * inflating stops as soon as it is passed (a small compressed body that would inflate to
 * gigabytes is cut at the limit); the compressed bytes count against it too (a stream of empty
 * gzip members inflates to nothing). Every failure to read the body is catalogued: too large is
 * REQUEST_TOO_LARGE; a corrupt, truncated or unknown encoding, a broken stream and anything else
 * the reader throws is REQUEST_MALFORMED, never an internal error.
 */
export function rawBody(limitBytes: number): RequestHandler {
  const read: RequestHandler = express.raw({ type: () => true, limit: limitBytes });
  return (req, res, next) => {
    const failed = (err: unknown): void => {
      const error = bodyReadError(err, limitBytes);
      // The rest of a body refused as too large is not worth receiving (nor inflating).
      if (error.kind === 'REQUEST_TOO_LARGE') closeAfterAnswer(req, res);
      next(error);
    };
    const inflater = inflaterFor(req);
    if (inflater === undefined) {
      read(req, res, (err?: unknown) => {
        if (err === undefined || err === null || err === 'route' || err === 'router') {
          next(err as undefined);
          return;
        }
        failed(err);
      });
      return;
    }
    readInflated(req, inflater, limitBytes).then((body) => {
      req.body = body;
      next();
    }, failed);
  };
}

/** The decompressor for the request's Content-Encoding, when it names exactly one we inflate. */
function inflaterFor(req: IncomingMessage): Transform | undefined {
  const encoding = req.headers['content-encoding']?.trim().toLowerCase();
  const options = { chunkSize: INFLATE_CHUNK_BYTES };
  switch (encoding) {
    case 'gzip':
      return createGunzip(options);
    case 'deflate':
      return createInflate(options);
    case 'br':
      return createBrotliDecompress(options);
    default:
      // identity, none, unknown or stacked encodings: body-parser reads or refuses them.
      return undefined;
  }
}

/** Pipes `req` through `inflater`, collecting at most `limitBytes` in and out. */
function readInflated(
  req: IncomingMessage,
  inflater: Transform,
  limitBytes: number,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let inflated = 0;
    let compressed = 0;
    let settled = false;
    const countIn = (chunk: Buffer): void => {
      compressed += chunk.length;
      if (compressed > limitBytes) tooLarge();
    };
    const fail = (err: unknown): void => {
      if (settled) return;
      settled = true;
      // As body-parser does: stop reading; Node discards or drops the rest after the answer.
      req.unpipe(inflater);
      req.removeListener('data', countIn);
      req.pause();
      inflater.destroy();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    const tooLarge = (): void => {
      fail(requestTooLarge(limitBytes));
    };
    req.on('data', countIn);
    req.on('close', () => {
      if (!req.complete) fail(new Error('the client closed the connection before the body ended'));
    });
    req.on('error', fail);
    inflater.on('data', (chunk: Buffer) => {
      inflated += chunk.length;
      if (inflated > limitBytes) {
        tooLarge();
        return;
      }
      chunks.push(chunk);
    });
    inflater.on('error', fail);
    inflater.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(
        chunks.length === 1 && chunks[0] !== undefined
          ? chunks[0]
          : Buffer.concat(chunks, inflated),
      );
    });
    req.pipe(inflater);
  });
}

/** The catalogued error for a failure of the body reader. */
export function bodyReadError(err: unknown, limitBytes: number): KubemodError {
  if (err instanceof KubemodError) return err;
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
