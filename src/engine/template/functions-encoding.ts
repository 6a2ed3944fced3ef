import { createHash } from 'node:crypto';
import { dump } from 'js-yaml';
import { goFormatFloat } from '../go-format.js';
import { MAX_VALUE_DEPTH } from '../work-limits.js';
import { charge, chargeBytes, depthError } from '../active-meter.js';
import {
  BASE64_BYTES_PER_UNIT,
  chargeListVisit,
  chargeMapVisit,
  HASH_BYTES_PER_UNIT,
} from './costs.js';
import { loadYamlBounded } from '../yaml-bounded.js';
import { renderError } from './faults.js';
import { fixed, type CallContext, type FunctionFamily } from './function-table.js';
import { keysToSort, newMap, setKey, toStringArg } from './go-values.js';
import { checkStringSize, isLimitError } from './render-state.js';

/**
 * Work units per value for js-yaml's dump (a few microseconds a value), charged before it runs.
 */
const YAML_DUMP_UNITS = 32;
/** Bytes of JSON text per work unit for JSON.parse (a 1 MB text of small keys takes ~100 ms). */
const JSON_PARSE_BYTES_PER_UNIT = 2;
/** Work units per byte of YAML text for js-yaml's load (far slower than JSON.parse). */
const YAML_LOAD_UNITS_PER_BYTE = 2;
/** Units of encoding one string or key as JSON, whatever its length. */
const JSON_STRING_UNITS = 4;
/** Strings up to this length are encoded without charging (the wrapper charges the output). */
const FREE_STRING = 256;

/**
 * Encoding functions: base64, hashes, JSON (Go encoding/json style) and YAML (Helm style). The
 * wrapper charges the strings read and produced; JSON and YAML output charges every value visited
 * and stops at MAX_VALUE_DEPTH, so a value that shares parts many times over (`$d = dict "a" $d "b"
 * $d` repeated) or contains itself is cut off, and text parsing is charged before it runs.
 */
export function encodingFunctions(): FunctionFamily {
  return {
    b64enc: fixed(1, ([s]) =>
      Buffer.from(encoded(toStringArg(s, 'b64enc')), 'utf8').toString('base64'),
    ),
    b64dec: fixed(1, ([s]) => b64dec(encoded(toStringArg(s, 'b64dec')))),
    sha256sum: fixed(1, ([s]) =>
      createHash('sha256')
        .update(hashed(toStringArg(s, 'sha256sum')), 'utf8')
        .digest('hex'),
    ),
    sha1sum: fixed(1, ([s]) =>
      createHash('sha1')
        .update(hashed(toStringArg(s, 'sha1sum')), 'utf8')
        .digest('hex'),
    ),
    toJson: fixed(1, ([v], call) => safeJson(v, '', true, call)),
    mustToJson: fixed(1, ([v], call) => goJson(v, '', true, 0, call)),
    toRawJson: fixed(1, ([v], call) => safeJson(v, '', false, call)),
    toPrettyJson: fixed(1, ([v], call) => safeJson(v, '  ', true, call)),
    mustToPrettyJson: fixed(1, ([v], call) => goJson(v, '  ', true, 0, call)),
    fromJson: fixed(1, ([s]) => fromJson(toStringArg(s, 'fromJson'), false)),
    mustFromJson: fixed(1, ([s]) => fromJson(toStringArg(s, 'mustFromJson'), true)),
    toYaml: fixed(1, ([v], call) => toYaml(v, call)),
    fromYaml: fixed(1, ([s]) => fromYaml(toStringArg(s, 'fromYaml'))),
  };
}

/** Charges base64-coding `s` (the wrapper only charges reading it) and returns it. */
function encoded(s: string): string {
  charge(Math.ceil(s.length / BASE64_BYTES_PER_UNIT));
  return s;
}

/** Charges hashing `s` (the wrapper only charges reading it) and returns it. */
function hashed(s: string): string {
  charge(Math.ceil(s.length / HASH_BYTES_PER_UNIT));
  return s;
}

/** Go's base64.StdEncoding.DecodeString; Sprig returns the error text instead of failing. */
function b64dec(s: string): string {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) {
    const bad = s.search(/[^A-Za-z0-9+/=]/);
    return `illegal base64 data at input byte ${bad < 0 ? Math.max(s.length - (s.length % 4), 0) : bad}`;
  }
  return Buffer.from(s, 'base64').toString('utf8');
}

/** Sprig's toJson: on error (NaN…) the result is ""; limit errors still end the render. */
function safeJson(value: unknown, indent: string, escapeHtml: boolean, call: CallContext): string {
  try {
    return goJson(value, indent, escapeHtml, 0, call);
  } catch (err) {
    if (isLimitError(err)) throw err;
    return '';
  }
}

/** encoding/json.Marshal(Indent): sorted map keys, HTML-safe escaping, Go float formatting. */
export function goJson(
  value: unknown,
  indent: string,
  escapeHtml: boolean,
  depth: number,
  call: CallContext,
): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return jsonString(value, escapeHtml);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      return value.toString();
    case 'number':
      if (!Number.isFinite(value))
        throw renderError(`json: unsupported value: ${goFormatFloat(value)}`);
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw renderError(`json: unsupported type ${typeof value}`);
  }
  if (depth >= MAX_VALUE_DEPTH) throw depthError('toJson');
  const inner = indent === '' ? '' : `\n${indent.repeat(depth + 1)}`;
  const outer = indent === '' ? '' : `\n${indent.repeat(depth)}`;
  const sep = indent === '' ? ':' : ': ';
  let parts: string[];
  let open: string;
  let close: string;
  if (Array.isArray(value)) {
    chargeListVisit(value.length);
    parts = value.map((v) => goJson(v, indent, escapeHtml, depth + 1, call));
    [open, close] = ['[', ']'];
  } else {
    const map = value as Record<string, unknown>;
    const keys = keysToSort(map);
    chargeMapVisit(keys.length);
    parts = keys
      .sort()
      .map(
        (k) =>
          `${jsonString(k, escapeHtml)}${sep}${goJson(map[k], indent, escapeHtml, depth + 1, call)}`,
      );
    [open, close] = ['{', '}'];
  }
  const size = parts.reduce((n, p) => n + p.length + inner.length + 1, 2);
  checkStringSize(call.state, size, 'toJson');
  if (parts.length === 0) return open + close;
  return `${open}${inner}${parts.join(`,${inner}`)}${outer}${close}`;
}

function jsonString(s: string, escapeHtml: boolean): string {
  // Every key and string is encoded and escaped (a few hundred nanoseconds even when short).
  charge(JSON_STRING_UNITS);
  if (s.length > FREE_STRING) chargeBytes(s.length);
  const encoded = JSON.stringify(s).replace(
    /[\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16)}`,
  );
  return escapeHtml
    ? encoded.replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)
    : encoded;
}

function fromJson(s: string, strict: boolean): unknown {
  charge(Math.ceil(s.length / JSON_PARSE_BYTES_PER_UNIT));
  try {
    return JSON.parse(s) as unknown;
  } catch (err) {
    if (strict) throw renderError(`fromJson: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
}

/** Helm's toYaml: keys sorted, trailing newline removed. */
function toYaml(value: unknown, call: CallContext): string {
  const counter: PlainCounter = { nodes: 0, bytes: 0 };
  const plain = toPlain(value, 0, counter);
  charge(counter.nodes * YAML_DUMP_UNITS);
  chargeBytes(counter.bytes);
  // Every value takes at least a few characters of YAML: refuse what cannot fit before dumping.
  checkStringSize(call.state, counter.bytes + counter.nodes, 'toYaml');
  try {
    return dump(plain, { noRefs: true }).replace(/\n$/, '');
  } catch (err) {
    throw renderError(`toYaml: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Helm's fromYaml: a map; on a syntax error a map with an "Error" key. Aliases are bounded. */
function fromYaml(s: string): unknown {
  charge(s.length * YAML_LOAD_UNITS_PER_BYTE);
  try {
    if (s.trim() === '') return newMap();
    return loadYamlBounded(s) ?? newMap();
  } catch (err) {
    if (isLimitError(err)) throw err;
    const out = newMap();
    setKey(out, 'Error', err instanceof Error ? err.message : String(err));
    return out;
  }
}

/** What toPlain copied: values and string bytes, for charging the dump before it runs. */
interface PlainCounter {
  nodes: number;
  bytes: number;
}

/**
 * A JSON-like copy with sorted keys and Go ints as JS numbers, ready for js-yaml. Shared parts are
 * copied (and charged) each time they occur; cycles stop at MAX_VALUE_DEPTH.
 */
function toPlain(value: unknown, depth: number, counter: PlainCounter): unknown {
  counter.nodes += 1;
  if (typeof value === 'bigint') return Number(value);
  if (value === undefined) return null;
  if (typeof value === 'string') {
    counter.bytes += value.length;
    return value;
  }
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_VALUE_DEPTH) throw depthError('toYaml');
  if (Array.isArray(value)) {
    chargeListVisit(value.length);
    return value.map((v) => toPlain(v, depth + 1, counter));
  }
  const map = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  const keys = keysToSort(map).sort();
  chargeMapVisit(keys.length);
  for (const k of keys) {
    counter.bytes += k.length;
    Object.defineProperty(out, k, {
      value: toPlain(map[k], depth + 1, counter),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}
