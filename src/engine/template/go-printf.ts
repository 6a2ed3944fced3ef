import { goFormatFloat } from '../go-format.js';
import { formatValue } from './go-print.js';
import { goTypeName } from './go-values.js';
import { defaultTemplateLimits, limitError } from './render-state.js';

const DEFAULT_MAX = defaultTemplateLimits.maxOutputBytes;

/** Go's fmt.Sprintf for the verbs templates use: %v %s %q %d %t %f %e %g %x %X %o %b %c %U %T %%. */
export function goSprintf(
  format: string,
  args: readonly unknown[],
  maxWidth = DEFAULT_MAX,
): string {
  let out = '';
  let argIndex = 0;
  let i = 0;
  while (i < format.length) {
    const percent = format.indexOf('%', i);
    if (percent < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, percent);
    const spec = /^([-+# 0]*)(\d+)?(?:\.(\d*))?([a-zA-Z%])?/.exec(format.slice(percent + 1));
    const [whole = '', flags = '', width, precision, verb] = spec ?? [];
    i = percent + 1 + whole.length;
    if (verb === undefined) {
      out += '%!(NOVERB)';
      continue;
    }
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argIndex >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const arg = args[argIndex];
    argIndex += 1;
    if (Number(width ?? 0) > maxWidth || Number(precision ?? 0) > maxWidth) {
      throw limitError(
        `printf width or precision in %${whole} exceeds the ${maxWidth} byte output limit`,
      );
    }
    const directive: Directive = {
      flags,
      width: width === undefined ? undefined : Number(width),
      precision: precision === undefined ? undefined : Number(precision === '' ? '0' : precision),
      verb,
    };
    out += pad(formatOne(arg === undefined ? null : arg, directive, maxWidth), directive);
    if (out.length > maxWidth) throw tooLong(maxWidth);
  }
  if (argIndex < args.length) {
    const extra = args
      .slice(argIndex)
      .map((a) =>
        a === null || a === undefined ? '<nil>' : `${goTypeName(a)}=${formatValue(a, maxWidth)}`,
      );
    out += `%!(EXTRA ${extra.join(', ')})`;
  }
  if (out.length > maxWidth) throw tooLong(maxWidth);
  return out;
}

interface Directive {
  flags: string;
  width: number | undefined;
  precision: number | undefined;
  verb: string;
}

function tooLong(max: number): Error {
  return limitError(`printf would produce more than ${max} bytes`);
}

function badVerb(value: unknown, verb: string, max = DEFAULT_MAX): string {
  if (value === null || value === undefined) return `%!${verb}(<nil>)`;
  return `%!${verb}(${goTypeName(value)}=${formatValue(value, max)})`;
}

function badString(value: unknown): string {
  return typeof value === 'string' ? value : badVerb(value, 's');
}

function formatOne(value: unknown, d: Directive, max: number): string {
  switch (d.verb) {
    case 'v':
      return d.flags.includes('#') && typeof value === 'string'
        ? goQuote(value)
        : formatValue(value, max);
    case 's':
      return formatString(value, d, max);
    case 'T':
      return goTypeName(value);
    case 'q':
      if (typeof value === 'string') return goQuote(value);
      if (typeof value === 'bigint') return `'${String.fromCodePoint(Number(value))}'`;
      return badVerb(value, 'q');
    case 't':
      return typeof value === 'boolean' ? String(value) : badVerb(value, 't');
    case 'd':
      return typeof value === 'bigint' ? signed(value.toString(), d) : badVerb(value, 'd');
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
      return typeof value === 'number'
        ? signed(formatFloat(value, d), d)
        : badVerb(value, d.verb, max);
    case 'x':
    case 'X':
    case 'o':
    case 'b':
      return formatRadix(value, d);
    case 'c':
      return typeof value === 'bigint' ? String.fromCodePoint(Number(value)) : badVerb(value, 'c');
    case 'U':
      return typeof value === 'bigint'
        ? `U+${value.toString(16).toUpperCase().padStart(4, '0')}`
        : badVerb(value, 'U');
    default:
      return badVerb(value, d.verb);
  }
}

/** %s: strings as they are, lists and maps element by element, anything else a bad verb. */
function formatString(value: unknown, d: Directive, max: number): string {
  if (typeof value !== 'object' || value === null) return badString(value);
  const text = formatValue(value, max, badString);
  return d.precision === undefined ? text : Array.from(text).slice(0, d.precision).join('');
}

function formatFloat(value: number, d: Directive): string {
  if (!Number.isFinite(value)) return goFormatFloat(value);
  const precision = d.precision;
  switch (d.verb) {
    case 'f':
    case 'F':
      return value.toFixed(Math.min(precision ?? 6, 100));
    case 'e':
    case 'E': {
      const text = goExponent(value.toExponential(Math.min(precision ?? 6, 100)));
      return d.verb === 'E' ? text.toUpperCase() : text;
    }
    default: {
      const text = precision === undefined ? goFormatFloat(value) : goG(value, precision);
      return d.verb === 'G' ? text.toUpperCase() : text;
    }
  }
}

function goG(value: number, precision: number): string {
  const p = Math.max(precision, 1);
  const exp = Math.floor(Math.log10(Math.abs(value === 0 ? 1 : value)));
  if (exp < -4 || exp >= p) return goExponent(Number(value.toPrecision(p)).toExponential());
  return String(Number(value.toPrecision(p)));
}

/** JS writes exponents as e+6; Go pads them to two digits: e+06. */
function goExponent(text: string): string {
  return text.replace(/e([+-])(\d)$/, 'e$10$2');
}

function formatRadix(value: unknown, d: Directive): string {
  const radix = d.verb === 'o' ? 8 : d.verb === 'b' ? 2 : 16;
  if (typeof value === 'bigint') {
    const negative = value < 0n;
    let digits = (negative ? -value : value).toString(radix);
    if (d.verb === 'X') digits = digits.toUpperCase();
    if (d.flags.includes('#'))
      digits = (radix === 16 ? (d.verb === 'X' ? '0X' : '0x') : radix === 8 ? '0' : '') + digits;
    return signed(negative ? `-${digits}` : digits, d);
  }
  if (typeof value === 'string' && radix === 16) {
    const hex = Buffer.from(value, 'utf8').toString('hex');
    return d.verb === 'X' ? hex.toUpperCase() : hex;
  }
  return badVerb(value, d.verb);
}

function signed(text: string, d: Directive): string {
  if (text.startsWith('-')) return text;
  if (d.flags.includes('+')) return `+${text}`;
  if (d.flags.includes(' ')) return ` ${text}`;
  return text;
}

function pad(text: string, d: Directive): string {
  const width = d.width ?? 0;
  if (width === 0) return text;
  const length = runesUpTo(text, width);
  if (length >= width) return text;
  const fill = width - length;
  if (d.flags.includes('-')) return text + ' '.repeat(fill);
  const numeric = /^[+\- ]?[0-9]/.test(text) && 'dfFeEgGxXob'.includes(d.verb);
  if (d.flags.includes('0') && numeric) {
    const sign = /^[+\- ]/.test(text) ? text.charAt(0) : '';
    return sign + '0'.repeat(fill) + text.slice(sign.length);
  }
  return ' '.repeat(fill) + text;
}

/**
 * The number of Unicode characters (code points) of `text`, counted up to `limit` only: the
 * padding of a directive only needs to know whether the text is shorter than its width, and
 * counting a megabyte-long argument (or building an array of its characters) for a `%v` without
 * any width would cost far more than the call is charged.
 */
function runesUpTo(text: string, limit: number): number {
  let count = 0;
  for (let i = 0; i < text.length && count < limit; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** strconv.Quote: double-quoted, Go escapes, printable Unicode kept as is. */
export function goQuote(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"':
        out += '\\"';
        break;
      case '\\':
        out += '\\\\';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\u0007':
        out += '\\a';
        break;
      case '\b':
        out += '\\b';
        break;
      case '\f':
        out += '\\f';
        break;
      case '\v':
        out += '\\v';
        break;
      default:
        if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
        else if (
          (code >= 0x80 && code < 0xa0) ||
          code === 0xfffd ||
          (code >= 0xd800 && code < 0xe000)
        )
          out +=
            code > 0xffff
              ? `\\U${code.toString(16).padStart(8, '0')}`
              : `\\u${code.toString(16).padStart(4, '0')}`;
        else out += ch;
    }
  }
  return `${out}"`;
}

/** fmt.Sprint: operands joined, with a space between two operands when neither is a string. */
export function goSprint(args: readonly unknown[], max = DEFAULT_MAX): string {
  let out = '';
  args.forEach((arg, i) => {
    const isString = typeof arg === 'string';
    if (i > 0 && !isString && typeof args[i - 1] !== 'string') out += ' ';
    out += formatValue(arg === undefined ? null : arg, max);
    if (out.length > max) throw tooLong(max);
  });
  return out;
}

/** fmt.Sprintln: operands always separated by spaces, newline appended. */
export function goSprintln(args: readonly unknown[], max = DEFAULT_MAX): string {
  let out = '';
  args.forEach((arg, i) => {
    out += (i > 0 ? ' ' : '') + formatValue(arg === undefined ? null : arg, max);
    if (out.length > max) throw tooLong(max);
  });
  return `${out}\n`;
}
