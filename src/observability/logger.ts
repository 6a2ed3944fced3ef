import { pino, type Logger as PinoLogger } from 'pino';

export type Logger = PinoLogger;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Where log lines go: anything with a `write(line)` method (a stream, or a collector in tests). */
export interface LogDestination {
  write(line: string): unknown;
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
