import { createHash } from 'node:crypto';
import { dump, load } from 'js-yaml';
import { goFormatFloat } from '../go-format.js';
import { renderError } from './faults.js';
import { fixed, type CallContext, type FunctionFamily } from './function-table.js';
import { isMap, newMap, setKey, toStringArg } from './go-values.js';
import { checkStringSize } from './render-state.js';

/** Encoding functions: base64, hashes, JSON (Go encoding/json style) and YAML (Helm style). */
export function encodingFunctions(): FunctionFamily {
  return {
    b64enc: fixed(1, ([s]) => Buffer.from(toStringArg(s, 'b64enc'), 'utf8').toString('base64')),
    b64dec: fixed(1, ([s]) => b64dec(toStringArg(s, 'b64dec'))),
    sha256sum: fixed(1, ([s]) =>
      createHash('sha256').update(toStringArg(s, 'sha256sum'), 'utf8').digest('hex'),
    ),
    sha1sum: fixed(1, ([s]) =>
      createHash('sha1').update(toStringArg(s, 'sha1sum'), 'utf8').digest('hex'),
    ),
    toJson: fixed(1, ([v], call) => safeJson(v, '', true, call)),
    mustToJson: fixed(1, ([v], call) => goJson(v, '', true, 0, call)),
    toRawJson: fixed(1, ([v], call) => safeJson(v, '', false, call)),
    toPrettyJson: fixed(1, ([v], call) => safeJson(v, '  ', true, call)),
    mustToPrettyJson: fixed(1, ([v], call) => goJson(v, '  ', true, 0, call)),
    fromJson: fixed(1, ([s]) => fromJson(toStringArg(s, 'fromJson'), false)),
    mustFromJson: fixed(1, ([s]) => fromJson(toStringArg(s, 'mustFromJson'), true)),
    toYaml: fixed(1, ([v]) => toYaml(v)),
    fromYaml: fixed(1, ([s]) => fromYaml(toStringArg(s, 'fromYaml'))),
  };
}

/** Go's base64.StdEncoding.DecodeString; Sprig returns the error text instead of failing. */
function b64dec(s: string): string {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) {
    const bad = s.search(/[^A-Za-z0-9+/=]/);
    return `illegal base64 data at input byte ${bad < 0 ? Math.max(s.length - (s.length % 4), 0) : bad}`;
  }
  return Buffer.from(s, 'base64').toString('utf8');
}

/** Sprig's toJson: on error (NaN, cycles…) the result is "". */
function safeJson(value: unknown, indent: string, escapeHtml: boolean, call: CallContext): string {
  try {
    return goJson(value, indent, escapeHtml, 0, call);
  } catch (err) {
    if (
      err instanceof Error &&
      err.name === 'KubemodError' &&
      (err as { kind?: unknown }).kind === 'TEMPLATE_LIMIT'
    )
      throw err;
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
  if (depth > 1000) throw renderError('json: value nested too deeply');
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
  const inner = indent === '' ? '' : `\n${indent.repeat(depth + 1)}`;
  const outer = indent === '' ? '' : `\n${indent.repeat(depth)}`;
  const sep = indent === '' ? ':' : ': ';
  let parts: string[];
  let open: string;
  let close: string;
  if (Array.isArray(value)) {
    parts = value.map((v) => goJson(v, indent, escapeHtml, depth + 1, call));
    [open, close] = ['[', ']'];
  } else {
    const map = value as Record<string, unknown>;
    parts = Object.keys(map)
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
  const encoded = JSON.stringify(s).replace(
    /[\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16)}`,
  );
  return escapeHtml
    ? encoded.replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)
    : encoded;
}

function fromJson(s: string, strict: boolean): unknown {
  try {
    return JSON.parse(s) as unknown;
  } catch (err) {
    if (strict) throw renderError(`fromJson: ${err instanceof Error ? err.message : String(err)}`);
    return null;
  }
}

/** Helm's toYaml: keys sorted, trailing newline removed. */
function toYaml(value: unknown): string {
  try {
    return dump(toPlain(value, 0), { noRefs: true }).replace(/\n$/, '');
  } catch (err) {
    throw renderError(`toYaml: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** Helm's fromYaml: a map; on error a map with an "Error" key. */
function fromYaml(s: string): unknown {
  try {
    if (s.trim() === '') return newMap();
    return load(s) ?? newMap();
  } catch (err) {
    const out = newMap();
    setKey(out, 'Error', err instanceof Error ? err.message : String(err));
    return out;
  }
}

/** A JSON-like copy with sorted keys and Go ints as JS numbers, ready for js-yaml. */
function toPlain(value: unknown, depth: number): unknown {
  if (depth > 1000) throw renderError('value nested too deeply');
  if (typeof value === 'bigint') return Number(value);
  if (value === undefined) return null;
  if (Array.isArray(value)) return value.map((v) => toPlain(v, depth + 1));
  if (isMap(value)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      Object.defineProperty(out, k, {
        value: toPlain(value[k], depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
