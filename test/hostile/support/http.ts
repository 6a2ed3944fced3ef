import { request } from 'node:https';
import { connect, type TLSSocket } from 'node:tls';

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

export interface Target {
  readonly port: number;
  /** The CA to trust; undefined trusts any certificate (`curl -k`, for `serve`'s self-signed one). */
  readonly ca: string | undefined;
}

/** One HTTPS request on a fresh connection; resolves with the whole answer. */
export function sendRequest(
  target: Target,
  method: string,
  path: string,
  body?: string | Buffer,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: target.port,
        path,
        method,
        headers,
        agent: false,
        ...(target.ca === undefined ? { rejectUnauthorized: false } : { ca: target.ca }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface TrickleOutcome {
  /** Milliseconds from connecting until the server closed the connection. */
  readonly closedAfterMs: number;
  /** What the server wrote before closing (e.g. a 408), possibly nothing. */
  readonly received: string;
  /** Bytes of `payload` written before the server closed the connection. */
  readonly written: number;
}

/**
 * A slow client: opens a TLS connection, writes `prefix` at once and then `payload` one byte
 * every `everyMs`, until the server closes the connection or `giveUpMs` passes (then resolves
 * with closedAfterMs = Infinity). `everyMs` 0 writes the payload at once too. `stopOnAnswer`
 * resolves as soon as the head of an answer has arrived.
 */
export function trickle(
  target: Target,
  payload: string,
  everyMs: number,
  giveUpMs: number,
  prefix = '',
  stopOnAnswer = false,
): Promise<TrickleOutcome> {
  return new Promise((resolve) => {
    const started = performance.now();
    let written = 0;
    let received = '';
    let done = false;
    const socket: TLSSocket = connect(
      {
        host: '127.0.0.1',
        port: target.port,
        ...(target.ca === undefined ? { rejectUnauthorized: false } : { ca: target.ca }),
      },
      () => {
        socket.write(everyMs === 0 ? prefix + payload : prefix);
        if (everyMs === 0) written = payload.length;
      },
    );
    const finish = (closedAfterMs: number): void => {
      if (done) return;
      done = true;
      clearInterval(timer);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ closedAfterMs, received, written });
    };
    const timer = setInterval(
      () => {
        if (everyMs === 0 || !socket.writable || written >= payload.length) return;
        socket.write(payload.charAt(written));
        written += 1;
      },
      Math.max(everyMs, 1),
    );
    const giveUp = setTimeout(() => {
      finish(Number.POSITIVE_INFINITY);
    }, giveUpMs);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('utf8');
      if (stopOnAnswer && received.includes('\r\n\r\n')) finish(performance.now() - started);
    });
    socket.on('close', () => {
      finish(performance.now() - started);
    });
    socket.on('error', () => {
      finish(performance.now() - started);
    });
  });
}
