import { KubemodError } from '../../errors/catalog.js';
import { DateValue, isEmptyValue, isObject, typeName } from './values.js';
import { charge, chargeBytes } from '../active-meter.js';

/** Longest text date() tries to read; real timestamps are 35 characters at most. */
const MAX_DATE_LENGTH = 64;

/** A built-in function of the select language: fixed arity, pure, total on its domain. */
export interface BuiltinFunction {
  readonly arity: number;
  call(args: readonly unknown[]): unknown;
}

function typeError(name: string, value: unknown, expected: string): KubemodError {
  return new KubemodError('EXPR_TYPE', `${name}() expects ${expected}, got ${typeName(value)}`);
}

function length(args: readonly unknown[]): unknown {
  const [value] = args;
  if (value === undefined || value === null) return 0;
  // Go's len() of a string counts UTF-8 bytes.
  if (typeof value === 'string') {
    chargeBytes(value.length);
    return Buffer.byteLength(value, 'utf8');
  }
  if (Array.isArray(value)) return value.length;
  if (isObject(value)) {
    const count = Object.keys(value).length;
    charge(1 + count);
    return count;
  }
  // Numbers and booleans have no length: undefined, so `length($.x) > 0` is simply false.
  return undefined;
}

/** Date layouts accepted by date(): RFC 3339 and its date-only / space-separated forms. */
const DATE_PATTERN =
  /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

function date(args: readonly unknown[]): unknown {
  const [value] = args;
  if (value instanceof DateValue) return value;
  if (typeof value === 'number') return new DateValue(value * 1000);
  if (typeof value !== 'string') throw typeError('date', value, 'a date string');
  if (value.length > MAX_DATE_LENGTH || !DATE_PATTERN.test(value)) throw unparsable(value);
  const normalised = value.replace(' ', 'T');
  const hasZone = /(?:Z|[+-]\d{2}:?\d{2})$/.test(normalised) && normalised.includes('T');
  const ms = Date.parse(hasZone || !normalised.includes('T') ? normalised : `${normalised}Z`);
  if (Number.isNaN(ms)) throw unparsable(value);
  return new DateValue(ms);
}

/** The error for a string date() cannot read, quoting at most the start of it. */
function unparsable(value: string): KubemodError {
  const shown = value.length > MAX_DATE_LENGTH ? `${value.slice(0, MAX_DATE_LENGTH)}…` : value;
  return new KubemodError('EXPR_TYPE', `date() cannot parse ${JSON.stringify(shown)}`);
}

export function builtinFunctions(): ReadonlyMap<string, BuiltinFunction> {
  return new Map<string, BuiltinFunction>([
    ['length', { arity: 1, call: length }],
    ['isDefined', { arity: 1, call: (args) => args[0] !== undefined }],
    ['isUndefined', { arity: 1, call: (args) => args[0] === undefined }],
    ['isEmpty', { arity: 1, call: (args) => isEmptyValue(args[0]) }],
    ['isNotEmpty', { arity: 1, call: (args) => !isEmptyValue(args[0]) }],
    ['date', { arity: 1, call: date }],
  ]);
}
