/**
 * The hostile client of `npm run bench:hostile`: HTTPS on loopback, one connection per request
 * (no keep-alive), every request bounded by a timeout; a steady-rate stream over the hostile
 * kinds; slow-loris connections. Everything is bounded in count and time.
 */
import { request } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';
import type { HostileKind, HostileRequest } from './hostile-inputs.js';

const HOST = '127.0.0.1';
/** Bytes of an answer kept for the kind's check. */
const KEEP_BYTES = 64 * 1024;

/** HTTP status; 'reset' when the server cut the connection while the body was being sent. */
export type Status = number | 'timeout' | 'error' | 'reset';

export interface Outcome {
  readonly kind: string;
  readonly status: Status;
  readonly ms: number;
  /** When the request was started, in Unix milliseconds. */
  readonly startedAt: number;
  /** Unexpected status or failed check. */
  readonly problem?: string;
}

/** Sends one request; resolves (never rejects) with its status and answer time. */
export function send(
  port: number,
  req: HostileRequest,
  timeoutMs: number,
): Promise<{ status: Status; ms: number; body: string; error?: string }> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (status: Status, body: string, error?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      client.destroy();
      resolve({
        status,
        ms: performance.now() - t0,
        body,
        ...(error === undefined ? {} : { error }),
      });
    };
    const client = request(
      {
        host: HOST,
        port,
        method: req.method,
        path: req.path,
        headers: { ...req.headers, 'content-length': String(req.body.length) },
        agent: false,
        rejectUnauthorized: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < KEEP_BYTES) chunks.push(chunk);
          kept += chunk.length;
        });
        res.on('end', () => {
          finish(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'));
        });
        res.on('error', () => {
          finish(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'));
        });
      },
    );
    const timer = setTimeout(() => {
      finish('timeout', '');
    }, timeoutMs);
    // A server that answers 413 early may reset the connection while the body is being written.
    client.on('error', (err: NodeJS.ErrnoException) => {
      const reset = err.code === 'EPIPE' || err.code === 'ECONNRESET';
      finish(reset ? 'reset' : 'error', '', err.message);
    });
    client.end(req.body);
  });
}

export interface StreamOptions {
  readonly port: number;
  readonly kinds: readonly HostileKind[];
  readonly ratePerSecond: number;
  readonly durationMs: number;
  readonly timeoutMs: number;
  /** Requests in flight at most; a tick with this many outstanding is skipped (and counted). */
  readonly maxInFlight: number;
}

export interface StreamResult {
  readonly outcomes: Outcome[];
  readonly skipped: number;
}

/**
 * Sends one request every 1/rate seconds for `durationMs`, cycling over the kinds, without
 * waiting for answers (at most `maxInFlight` outstanding); resolves once every answer is in.
 */
export async function runStream(options: StreamOptions): Promise<StreamResult> {
  const { kinds, port, timeoutMs } = options;
  const outcomes: Outcome[] = [];
  const pending = new Set<Promise<void>>();
  const seqByKind = new Map<string, number>();
  const total = Math.floor((options.ratePerSecond * options.durationMs) / 1000);
  const intervalMs = 1000 / options.ratePerSecond;
  const t0 = performance.now();
  let skipped = 0;
  for (let i = 0; i < total && kinds.length > 0; i++) {
    const wait = t0 + i * intervalMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if (pending.size >= options.maxInFlight) {
      skipped++;
      continue;
    }
    const kind = kinds[i % kinds.length];
    if (kind === undefined) continue;
    const seq = seqByKind.get(kind.name) ?? 0;
    seqByKind.set(kind.name, seq + 1);
    const startedAt = performance.timeOrigin + performance.now();
    const work = send(port, kind.build(seq), timeoutMs).then((answer) => {
      outcomes.push({
        kind: kind.name,
        startedAt,
        status: answer.status,
        ms: answer.ms,
        ...problemOf(kind, answer),
      });
    });
    pending.add(work);
    void work.finally(() => pending.delete(work));
  }
  await Promise.all(pending);
  return { outcomes, skipped };
}

function problemOf(
  kind: HostileKind,
  answer: { status: Status; body: string; error?: string },
): { problem?: string } {
  const { status } = answer;
  if (status === 'reset' && kind.mayReset === true) return {};
  if (typeof status !== 'number') {
    return { problem: status === 'timeout' ? 'no answer in time' : (answer.error ?? status) };
  }
  if (!kind.expect.includes(status)) {
    return {
      problem: `status ${String(status)}: ${answer.body.slice(0, 160).replace(/\s+/g, ' ')}`,
    };
  }
  const problem = kind.check?.(status, answer.body);
  return problem === undefined ? {} : { problem };
}

export interface LorisOutcome {
  readonly kind: 'slow headers' | 'slow body';
  /** How long the connection stayed open, in ms. */
  readonly openMs: number;
  /** Who ended it: the server (closed or answered) or the bench (at its bound). */
  readonly endedBy: 'server' | 'bench' | 'error';
  /** First line the server sent, if any (e.g. `HTTP/1.1 408 Request Timeout`). */
  readonly answer: string;
}

/**
 * Opens a TLS connection and sends a request one piece per second: the header lines (`slow
 * headers`) or, after complete headers announcing 1 MB, the body (`slow body`); stops when the
 * server closes the connection or after `boundMs`.
 */
export function slowLoris(
  port: number,
  kind: LorisOutcome['kind'],
  boundMs: number,
): Promise<LorisOutcome> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    let answer = '';
    let ticker: NodeJS.Timeout | undefined;
    let settled = false;
    const socket: TLSSocket = connect({ host: HOST, port, rejectUnauthorized: false });
    const done = (endedBy: LorisOutcome['endedBy']): void => {
      if (settled) return;
      settled = true;
      clearInterval(ticker);
      clearTimeout(bound);
      socket.destroy();
      resolve({ kind, openMs: performance.now() - t0, endedBy, answer });
    };
    const bound = setTimeout(() => {
      done('bench');
    }, boundMs);
    let piece = 0;
    const writePiece = (): void => {
      if (socket.destroyed) return;
      if (kind === 'slow headers') socket.write(`X-Slow-${String(piece++)}: ${'a'.repeat(8)}\r\n`);
      else socket.write('x');
    };
    socket.on('secureConnect', () => {
      socket.write(`POST /dragnet-webhook HTTP/1.1\r\nHost: ${HOST}\r\n`);
      if (kind === 'slow body') {
        socket.write('Content-Type: application/json\r\nContent-Length: 1048576\r\n\r\n');
      }
      ticker = setInterval(writePiece, 1000);
    });
    socket.on('data', (chunk: Buffer) => {
      if (answer === '') answer = chunk.toString('latin1').split('\r\n')[0] ?? '';
    });
    socket.on('close', () => {
      done('server');
    });
    socket.on('error', () => {
      done('error');
    });
  });
}
