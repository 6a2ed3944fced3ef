import type { FieldError } from './modrule-types.js';
import { errorCatalog } from '../errors/catalog.js';
import { didYouMean } from './did-you-mean.js';

const INVALID = errorCatalog.MODRULE_INVALID.code;

/** Reads typed fields out of untrusted input, collecting every problem with its field path. */
export class FieldReader {
  readonly errors: FieldError[] = [];

  /** @param code catalog code of the errors (default: MODRULE_INVALID). */
  constructor(private readonly code: string = INVALID) {}

  fail(field: string, message: string, code: string = this.code): void {
    this.errors.push({ field, message, code });
  }

  object(value: unknown, field: string): Record<string, unknown> | undefined {
    if (typeof value === 'object' && value !== null && !Array.isArray(value))
      return value as Record<string, unknown>;
    this.fail(field, `must be an object, got ${describe(value)}`);
    return undefined;
  }

  optionalString(value: unknown, field: string): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'string') return value;
    this.fail(
      field,
      `must be a string, got ${describe(value)}${typeof value === 'number' || typeof value === 'boolean' ? ` (quote it: '${String(value)}')` : ''}`,
    );
    return undefined;
  }

  requiredString(value: unknown, field: string): string | undefined {
    if (value === undefined || value === null || value === '') {
      this.fail(field, 'is required');
      return undefined;
    }
    return this.optionalString(value, field);
  }

  optionalBoolean(value: unknown, field: string): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === 'boolean') return value;
    this.fail(field, `must be a boolean, got ${describe(value)}`);
    return undefined;
  }

  optionalArray(value: unknown, field: string): unknown[] | undefined {
    if (value === undefined || value === null) return undefined;
    if (Array.isArray(value)) return value as unknown[];
    this.fail(field, `must be a list, got ${describe(value)}`);
    return undefined;
  }

  oneOf<T extends string>(
    value: unknown,
    allowed: readonly T[],
    field: string,
    what: string,
  ): T | undefined {
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value))
      return value as T;
    if (value === undefined || value === null) {
      const choices = allowed.length === 2 ? allowed.join(' or ') : `one of ${allowed.join(', ')}`;
      this.fail(field, `required (${choices})`);
      return undefined;
    }
    this.fail(
      field,
      `unknown ${what} ${JSON.stringify(value)}; must be one of ${allowed.join(', ')}`,
    );
    return undefined;
  }

  /** Reports fields a ModRule does not have (e.g. a misspelt `matches`), which would otherwise be silently ignored. */
  noUnknownFields(object: Record<string, unknown>, known: readonly string[], field: string): void {
    for (const key of Object.keys(object)) {
      if (!known.includes(key)) {
        const hint =
          known.find((k) => key.startsWith(k) || k.startsWith(key)) ?? didYouMean(key, known);
        this.fail(
          field === '' ? key : `${field}.${key}`,
          `unknown field${hint === undefined ? '' : ` (did you mean ${hint}?)`}`,
        );
      }
    }
  }
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}
