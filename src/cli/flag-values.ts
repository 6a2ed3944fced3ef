import { KubemodError } from '../errors/catalog.js';
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../observability/logger.js';
import { MAX_NICE } from '../webhook/http/thread-priority.js';

/** An integer flag within [min, max]; `fallback` when absent. Throws INPUT_INVALID naming the flag. */
export function integerFlag(
  raw: string | undefined,
  flag: string,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new KubemodError(
      'INPUT_INVALID',
      `${flag} must be an integer between ${String(min)} and ${String(max)}, got ${JSON.stringify(raw)}`,
    );
  }
  return value;
}

/** `--log-level`, else `$KUBEMOD_LOG_LEVEL`, else info. */
export function logLevelFlag(
  raw: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): LogLevel {
  const level = raw ?? env.KUBEMOD_LOG_LEVEL ?? 'info';
  if (!isLogLevel(level)) {
    throw new KubemodError(
      'INPUT_INVALID',
      `--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(level)}`,
    );
  }
  return level;
}

/** The helper threads' nice value unless --helper-thread-nice says otherwise (BENCHMARKS.md). */
export const DEFAULT_HELPER_THREAD_NICE = 15;

/** The usage lines of --helper-thread-nice (shared by `serve` and `operator`), flags padded to `width`. */
export function helperThreadNiceUsage(width: number): string {
  const pad = ' '.repeat(width + 2);
  return [
    `  ${'--helper-thread-nice <n>'.padEnd(width)}nice value (0-${String(MAX_NICE)}) of the helper threads: compiler,`,
    `${pad}garbage collector, thread pool, dry-run worker; the thread answering`,
    `${pad}admission requests then comes first on a busy core (default ${String(DEFAULT_HELPER_THREAD_NICE)};`,
    `${pad}0 leaves them alone; Linux only)`,
    '',
  ].join('\n');
}

/** `--helper-thread-nice`: 0 … 19. */
export function helperThreadNiceFlag(raw: string | undefined): number {
  return integerFlag(raw, '--helper-thread-nice', DEFAULT_HELPER_THREAD_NICE, 0, MAX_NICE);
}
