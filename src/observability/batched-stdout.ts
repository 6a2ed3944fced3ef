import { write as fsWrite, writeSync as fsWriteSync } from 'node:fs';
import type { LogDestination } from './logger.js';

/** A destination that holds lines and writes them in batches, off the request path. */
export interface BufferedLogDestination extends LogDestination {
  /** Lines dropped so far: the buffer was full, or their batch could not be written. */
  dropped(): number;
  /** Writes out what it holds and stops its flush timer (the file descriptor stays open). */
  close(): Promise<void>;
}

/**
 * Log bytes held while the reader of stdout (the container runtime) is not reading; lines that
 * would go past it are dropped and counted. 1,000 `patch applied` lines are about 500 KB: this is
 * seconds of a saturated webhook's log.
 */
export const LOG_BUFFER_BYTES = 8 * 1024 * 1024;
/** Bytes of log lines gathered before one write. */
export const LOG_BATCH_BYTES = 4096;
/** The longest a line waits for its batch to fill before it is written anyway. */
export const LOG_FLUSH_MS = 100;
/** How long a write that met a full non-blocking pipe (EAGAIN) waits before it tries again. */
const RETRY_MS = 10;
/** At exit: how many times a full pipe is waited for (1 ms each) before the rest is given up. */
const EXIT_ATTEMPTS = 1_000;

/** The file writes the destination makes (node:fs; injected in tests). */
export interface BatchedWriteIo {
  write(
    fd: number,
    buffer: Buffer,
    offset: number,
    length: number,
    done: (err: NodeJS.ErrnoException | null, written: number) => void,
  ): void;
  writeSync(fd: number, buffer: Buffer, offset: number, length: number): number;
}

const FS_IO: BatchedWriteIo = { write: fsWrite, writeSync: fsWriteSync };

export interface BatchedStdoutOptions {
  readonly fd?: number;
  readonly maxBytes?: number;
  readonly batchBytes?: number;
  readonly flushMs?: number;
  readonly io?: BatchedWriteIo;
}

/**
 * stdout (or `fd`) written asynchronously and in batches, for the long-running commands (`serve`,
 * `operator`). Node writes process.stdout synchronously when it is a pipe or a file: one system
 * call per log line on the event loop that answers the API server, and a reader that stalls (a
 * full pipe) would stall the webhook with it. Here each line is kept as it is, without copying,
 * and a batch is joined and written by one asynchronous call (libuv's thread pool) once
 * `batchBytes` have gathered, or `flushMs` after the last line at the latest; one batch is in
 * flight at a time. Lines that would take what is held past `maxBytes` are dropped and counted
 * (`kubemod_log_lines_dropped_total`) rather than held without limit.
 *
 * Why not pino's sonic-boom, which does the same: it appends each line to one growing string and
 * measures that string's UTF-8 length on every write, which makes V8 copy it whole each time:
 * about 10 KB of garbage per line on a busy webhook, more than the line and its JSON together.
 *
 * What is held is written synchronously when the process exits (normally or through an uncaught
 * error); the batch in flight is left to its write, so no line is written twice. Only a process
 * killed outright (SIGKILL, the OOM killer) loses what was not written yet.
 */
export function createBufferedStdout(options: BatchedStdoutOptions = {}): BufferedLogDestination {
  const fd = options.fd ?? 1;
  const io = options.io ?? FS_IO;
  const maxBytes = options.maxBytes ?? LOG_BUFFER_BYTES;
  // A batch always fits in the buffer, with room for the lines that arrive while it is written.
  const batchBytes = Math.min(options.batchBytes ?? LOG_BATCH_BYTES, Math.floor(maxBytes / 2));
  let lines: string[] = [];
  let heldBytes = 0;
  let inFlight: Buffer | undefined;
  let inFlightLines = 0;
  let dropped = 0;
  let onIdle: (() => void) | undefined;

  /** The held lines as one batch, no longer held. */
  const takeHeld = (): Buffer => {
    const batch = Buffer.from(lines.join(''), 'utf8');
    lines = [];
    heldBytes = 0;
    return batch;
  };
  const startWrite = (): void => {
    if (inFlight !== undefined || lines.length === 0) return;
    inFlightLines = lines.length;
    inFlight = takeHeld();
    writeFrom(inFlight, 0);
  };
  const writeFrom = (batch: Buffer, offset: number): void => {
    io.write(fd, batch, offset, batch.length - offset, (err, written) => {
      if (err !== null) {
        // A full non-blocking pipe: wait for the reader. Anything else: the batch is lost.
        if (err.code === 'EAGAIN') {
          setTimeout(() => {
            writeFrom(batch, offset);
          }, RETRY_MS).unref();
          return;
        }
        dropped += inFlightLines;
      } else if (offset + written < batch.length) {
        writeFrom(batch, offset + written);
        return;
      }
      inFlight = undefined;
      if (heldBytes >= batchBytes || (onIdle !== undefined && lines.length > 0)) startWrite();
      else onIdle?.();
    });
  };
  const timer = setInterval(startWrite, options.flushMs ?? LOG_FLUSH_MS);
  timer.unref();
  const flushAtExit = (): void => {
    writeAllSync(io, fd, takeHeld());
  };
  process.on('exit', flushAtExit);

  return {
    write(line: string): boolean {
      const bytes = Buffer.byteLength(line, 'utf8');
      if (heldBytes + (inFlight?.length ?? 0) + bytes > maxBytes) {
        dropped += 1;
        return false;
      }
      lines.push(line);
      heldBytes += bytes;
      if (heldBytes >= batchBytes) startWrite();
      return true;
    },
    dropped: () => dropped,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(timer);
        process.off('exit', flushAtExit);
        onIdle = resolve;
        if (inFlight === undefined) {
          if (lines.length === 0) resolve();
          else startWrite();
        }
      }),
  };
}

/** Writes `bytes` whole, waiting for a full pipe a bounded number of times. */
function writeAllSync(io: BatchedWriteIo, fd: number, bytes: Buffer): void {
  let offset = 0;
  let attempts = 0;
  while (offset < bytes.length) {
    try {
      offset += io.writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'EAGAIN' || ++attempts > EXIT_ATTEMPTS) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
    }
  }
}
