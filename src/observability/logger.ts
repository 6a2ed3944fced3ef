import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where log lines go: anything with a `write(line)` method (a stream, or a collector in tests). */
export interface LogDestination {
  write(line: string): unknown;
}

/**
 * Log bytes the buffered stdout holds while its reader (the container runtime) is not reading;
 * lines that would go past it are dropped and counted. 1,000 `patch applied` lines are about
 * 500 KB: this is seconds of a saturated webhook's log.
 */
export const LOG_BUFFER_BYTES = 8 * 1024 * 1024;

/** Bytes of log lines gathered before one write (see createBufferedStdout). */
export const LOG_BATCH_BYTES = 4096;
/** The longest a line waits for its batch to fill before it is written anyway. */
export const LOG_FLUSH_MS = 100;

/** A destination that holds lines and writes them in batches, off the request path. */
export interface BufferedLogDestination extends LogDestination {
  /** Lines dropped so far because the buffer was full. */
  dropped(): number;
  /** Writes out what it holds, stops its flush timer and closes its file descriptor. */
  close(): Promise<void>;
}

/**
 * stdout (or `fd`) written asynchronously, for the long-running commands (`serve`, `operator`).
 * Node writes process.stdout synchronously when it is a pipe or a file, one system call per log
 * line, on the event loop that answers the API server; a reader that stalls (a full pipe) would
 * stall the webhook with it. Here lines are appended to a buffer (pino's sonic-boom) and written
 * by one call per batch while the loop goes on; the buffer is bounded by `maxBytes`, past which
 * lines are dropped and counted (`kubemod_log_lines_dropped_total`) rather than held without
 * limit. What is buffered is written out when the process exits, normally or not (pino flushes
 * it synchronously on `exit`); only a process killed outright loses the unwritten tail.
 *
 * Lines are written once `batchBytes` have gathered, or `flushMs` after the last write at the
 * latest: each write is a round trip through libuv's thread pool (two thread switches), which
 * costs several times the line itself when every line has its own. A line is therefore at most
 * `flushMs` late on a quiet webhook; a busy one fills its batches sooner.
 */
export function createBufferedStdout(
  options: {
    readonly fd?: number;
    readonly maxBytes?: number;
    readonly batchBytes?: number;
    readonly flushMs?: number;
  } = {},
): BufferedLogDestination {
  const maxBytes = options.maxBytes ?? LOG_BUFFER_BYTES;
  const stream = pino.destination({
    dest: options.fd ?? 1,
    sync: false,
    maxLength: maxBytes,
    // A batch always fits in the buffer, with room for the lines that arrive while it is written.
    minLength: Math.min(options.batchBytes ?? LOG_BATCH_BYTES, Math.floor(maxBytes / 2)),
    periodicFlush: options.flushMs ?? LOG_FLUSH_MS,
  });
  let dropped = 0;
  // pino writes one line per call, so each dropped write is one line.
  stream.on('drop', () => {
    dropped += 1;
  });
  return {
    write: (line: string): boolean => stream.write(line),
    dropped: () => dropped,
    close: () =>
      new Promise<void>((resolve) => {
        stream.once('close', () => {
          resolve();
        });
        stream.end();
      }),
  };
}

export interface LoggerConfig {
  readonly level: LogLevel;
  /** Name attached to every line (`name` field). */
  readonly name?: string;
  /** Defaults to process.stdout. */
  readonly destination?: LogDestination;
}

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * A structured JSON logger (pino). Every process component receives the logger it should use;
 * there is no global logger. Levels are written as labels (`"level":"info"`), times as ISO 8601.
 */
export function createLogger(config: LoggerConfig): Logger {
  return pino(
    {
      level: config.level,
      name: config.name ?? 'kubemod-ts',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    config.destination ?? process.stdout,
  );
}

/** A logger that drops everything (for tools and tests that do not care). */
export function createSilentLogger(): Logger {
  return createLogger({ level: 'silent', destination: { write: () => true } });
}
