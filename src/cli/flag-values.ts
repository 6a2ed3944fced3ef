import { KubemodError } from '../errors/catalog.js';
import { isLogLevel, LOG_LEVELS, type LogLevel } from '../observability/logger.js';

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
