import {
  defineMappingTag,
  defineScalarTag,
  defineSequenceTag,
  mergeTag,
  NOT_RESOLVED,
  realMapTag,
  Schema,
  seqTag,
  strTag,
} from 'js-yaml';

/**
 * A js-yaml schema that resolves plain scalars like go-yaml v2 (what KubeMod's sigs.k8s.io/yaml
 * uses), which is neither YAML 1.1 nor 1.2 exactly:
 *
 * - null: `""`, `~`, `null`, `Null`, `NULL`;
 * - booleans: `y Y yes Yes YES true True TRUE on On ON` / `n N no No NO false False FALSE off
 *   Off OFF`;
 * - integers (returned as `bigint`, so map keys stay exact): Go's `strconv.ParseInt(s, 0, 64)`
 *   after removing `_` (sign, `0x`, `0o`, `0b`, leading-`0` octal), else `ParseUint`;
 * - floats: `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?` (after removing `_`), `.nan`,
 *   `.inf`, `-.inf` in three spellings each (NaN/Inf are returned and rejected later, as JSON
 *   cannot hold them); a float that overflows stays a string, as in Go;
 * - timestamps stay strings (go-yaml v2 does that when decoding into `interface{}`);
 * - `!!binary` decodes base64 into a (UTF-8) string; unknown tags are ignored (the scalar is a
 *   string, collections are read as usual); `<<` merge keys work.
 *
 * Mappings are read into `Map`s so the caller can convert non-string keys the way Go does.
 */

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const GO_INT = /^([+-]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]+|0|[1-9][0-9]*)$/;
const GO_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const DOT_FLOAT = /^\.[0-9]+([eE][-+]?[0-9]+)?$/;
const NUMBER_FIRST_CHARS = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '+', '-'];

const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const TRUES = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const FALSES = new Set([
  'n',
  'N',
  'no',
  'No',
  'NO',
  'false',
  'False',
  'FALSE',
  'off',
  'Off',
  'OFF',
]);
const SPECIAL_FLOATS = new Map<string, number>([
  ...['.nan', '.NaN', '.NAN'].map((s): [string, number] => [s, Number.NaN]),
  ...['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF'].map((s): [string, number] => [
    s,
    Number.POSITIVE_INFINITY,
  ]),
  ...['-.inf', '-.Inf', '-.INF'].map((s): [string, number] => [s, Number.NEGATIVE_INFINITY]),
]);

/** Go's ParseInt(s, 0, 64), falling back to ParseUint(s, 0, 64); `undefined` if neither. */
export function parseGoInt(text: string): bigint | undefined {
  const match = GO_INT.exec(text);
  if (match === null) return undefined;
  const sign = match[1] ?? '';
  const body = match[2] ?? '';
  let value: bigint;
  if (/^0[0-7]+$/.test(body)) value = BigInt('0o' + body.slice(1));
  else value = BigInt(body);
  if (sign === '-') value = -value;
  if (value >= INT64_MIN && value <= INT64_MAX) return value;
  if (sign === '' && value <= UINT64_MAX) return value;
  return undefined;
}

function resolveInt(source: string): bigint | typeof NOT_RESOLVED {
  return parseGoInt(source.replace(/_/g, '')) ?? NOT_RESOLVED;
}

function resolveFloat(source: string): number | typeof NOT_RESOLVED {
  const special = SPECIAL_FLOATS.get(source);
  if (special !== undefined) return special;
  const text = source.startsWith('.') ? source : source.replace(/_/g, '');
  if (!(source.startsWith('.') ? DOT_FLOAT : GO_FLOAT).test(text)) return NOT_RESOLVED;
  const value = Number(text);
  return Number.isFinite(value) ? value : NOT_RESOLVED;
}

function resolveBinary(source: string): string | typeof NOT_RESOLVED {
  const input = source.replace(/\s/g, '');
  if (input.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(input)) return NOT_RESOLVED;
  return Buffer.from(input, 'base64').toString('utf8');
}

const loadOnly = (): boolean => false;

/**
 * Whether go-yaml reads plain scalar `text` as something other than a string because of its
 * spelling alone: one of the null or boolean words (numbers and floats start with a digit, a sign
 * or a dot).
 */
export function isGoYamlWord(text: string): boolean {
  return NULLS.has(text) || TRUES.has(text) || FALSES.has(text);
}

/** Builds the schema (call once and keep it; building is cheap but not free). */
export function createGoYamlSchema(): Schema {
  return new Schema([
    strTag,
    seqTag,
    realMapTag,
    defineScalarTag('tag:yaml.org,2002:null', {
      implicit: true,
      implicitFirstChars: ['', '~', 'n', 'N'],
      resolve: (source) => (NULLS.has(source) ? null : NOT_RESOLVED),
      identify: loadOnly,
    }),
    defineScalarTag('tag:yaml.org,2002:bool', {
      implicit: true,
      implicitFirstChars: ['y', 'Y', 't', 'T', 'o', 'O', 'n', 'N', 'f', 'F'],
      resolve: (source) => (TRUES.has(source) ? true : FALSES.has(source) ? false : NOT_RESOLVED),
      identify: loadOnly,
    }),
    defineScalarTag('tag:yaml.org,2002:int', {
      implicit: true,
      implicitFirstChars: NUMBER_FIRST_CHARS,
      resolve: resolveInt,
      identify: loadOnly,
    }),
    defineScalarTag('tag:yaml.org,2002:float', {
      implicit: true,
      implicitFirstChars: [...NUMBER_FIRST_CHARS, '.'],
      resolve: resolveFloat,
      identify: loadOnly,
    }),
    mergeTag,
    defineScalarTag('tag:yaml.org,2002:binary', { resolve: resolveBinary, identify: loadOnly }),
    // Any other tag (the empty prefix matches every tag name not defined above) is ignored.
    defineScalarTag('', {
      matchByTagPrefix: true,
      resolve: (source) => source,
      identify: loadOnly,
    }),
    defineSequenceTag('', {
      matchByTagPrefix: true,
      create: (): unknown[] => [],
      addItem: (carrier, item) => {
        carrier.push(item);
      },
      identify: loadOnly,
    }),
    defineMappingTag('', { ...realMapTag, matchByTagPrefix: true, identify: loadOnly }),
  ]);
}
