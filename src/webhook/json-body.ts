import express, { type RequestHandler } from 'express';
import { KubemodError } from '../errors/catalog.js';
import type { JsonValue } from '../engine/json.js';

/**
 * Reads the body as raw bytes whatever its Content-Type (curl -d sends form-encoded bodies) up to
 * `limitBytes`; body-parser's size error is mapped to REQUEST_TOO_LARGE by the error handler.
 */
export function rawBody(limitBytes: number): RequestHandler {
  return express.raw({ type: () => true, limit: limitBytes });
}

/** Parses the raw body read by rawBody as JSON; throws REQUEST_MALFORMED with the parser's reason. */
export function parseJsonBody(body: unknown): JsonValue {
  if (!Buffer.isBuffer(body) || body.length === 0) {
    throw new KubemodError('REQUEST_MALFORMED', 'request body is empty; expected JSON');
  }
  try {
    return JSON.parse(body.toString('utf8')) as JsonValue;
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new KubemodError('REQUEST_MALFORMED', `request body is not valid JSON: ${reason}`);
  }
}
