import { dump } from 'js-yaml';
import type { JsonObject, JsonValue } from '../json.js';
import { MAX_VALUE_DEPTH } from '../work-limits.js';
import { charge, chargeBytes } from '../active-meter.js';

/**
 * Block-style YAML of a JSON value with sorted keys: the same text as js-yaml's
 * `dump(value, { noRefs: true, lineWidth: -1 })` of the key-sorted value, built in time and
 * memory linear in its size. js-yaml's dumper re-reads every nested block it writes (cubic in the
 * depth: an object 800 levels deep took 12 s), so collections are laid out here, iteratively, and
 * js-yaml only formats the scalars and keys (each once, in a fixed one-level context, then
 * re-indented: its choice of style does not depend on the level below the top).
 */

/** Why a value was not rendered. */
export type RenderRefusal = 'depth' | 'size';

export type RenderResult =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly reason: RenderRefusal };

const DUMP_OPTIONS = { noRefs: true, lineWidth: -1 } as const;

/**
 * Renders `value`, or refuses when it nests deeper than MAX_VALUE_DEPTH, or its text would be
 * longer than `maxBytes` or `maxLines` lines.
 */
export function renderYaml(
  value: JsonValue,
  maxBytes = Number.POSITIVE_INFINITY,
  maxLines = Number.POSITIVE_INFINITY,
): RenderResult {
  if (value === null || typeof value !== 'object' || isLeaf(value)) {
    const text = dump(value, DUMP_OPTIONS);
    return text.length > maxBytes ? { ok: false, reason: 'size' } : { ok: true, text };
  }
  return new Renderer(maxBytes, maxLines).render(value);
}

type Collection = JsonObject | JsonValue[];

interface Frame {
  readonly value: Collection;
  /** Sorted member names of an object; undefined for an array. */
  readonly keys: readonly string[] | undefined;
  readonly level: number;
  /** Text that starts the first line (`- `, `: ` after its indentation), or undefined: own lines. */
  readonly head: string | undefined;
  index: number;
}

interface Scalar {
  /** The scalar as written one level down (continuation lines indented by 2). */
  readonly text: string;
  readonly multiline: boolean;
  /** A block scalar that js-yaml ends the document after (`...`) when it is the last one. */
  readonly openEnded: boolean;
}

interface Key {
  readonly text: string;
  /** Multi-line or very long keys are written as `? key` / `: value`. */
  readonly explicit: boolean;
}

class Renderer {
  private readonly maxBytes: number;
  private readonly maxLines: number;
  private readonly lines: string[] = [];
  private readonly indents: string[] = [''];
  private readonly scalars = new Map<string | number | boolean | null, Scalar>();
  private readonly keys = new Map<string, Key>();
  private bytes = 0;
  private charged = 0;
  private openEnded = false;

  constructor(maxBytes: number, maxLines: number) {
    this.maxBytes = maxBytes;
    this.maxLines = maxLines;
  }

  private tooLarge(): boolean {
    return this.bytes > this.maxBytes || this.lines.length > this.maxLines;
  }

  render(root: Collection): RenderResult {
    const stack: Frame[] = [];
    const refused = this.open(stack, root, 0, '');
    if (refused !== undefined) return { ok: false, reason: refused };
    for (;;) {
      const frame = stack[stack.length - 1];
      if (frame === undefined) break;
      const { index, level } = frame;
      const length =
        frame.keys === undefined ? (frame.value as JsonValue[]).length : frame.keys.length;
      if (index >= length) {
        stack.pop();
        continue;
      }
      frame.index++;
      const lead = index === 0 && frame.head !== undefined ? frame.head : this.indent(level);
      let child: JsonValue;
      let childHead: string | undefined;
      if (frame.keys === undefined) {
        child = (frame.value as JsonValue[])[index] as JsonValue;
        if (isLeaf(child)) {
          this.emit(`${lead}- ${this.leaf(child, level + 1)}`);
          if (this.tooLarge()) return { ok: false, reason: 'size' };
          continue;
        }
        childHead = `${lead}- `;
      } else {
        const name = frame.keys[index] as string;
        child = (frame.value as JsonObject)[name] as JsonValue;
        const key = this.key(name);
        if (key.explicit) {
          this.emit(`${lead}? ${key.text}`);
          if (isLeaf(child)) this.emit(`${this.indent(level)}: ${this.leaf(child, level + 1)}`);
          else childHead = `${this.indent(level)}: `;
        } else if (isLeaf(child)) {
          this.emit(`${lead}${key.text}: ${this.leaf(child, level + 1)}`);
        } else {
          this.emit(`${lead}${key.text}:`);
        }
        if (this.tooLarge()) return { ok: false, reason: 'size' };
        if (isLeaf(child)) continue;
      }
      const refusal = this.open(stack, child as Collection, level + 1, childHead);
      if (refusal !== undefined) return { ok: false, reason: refusal };
    }
    chargeBytes(this.bytes - this.charged);
    return { ok: true, text: `${this.lines.join('\n')}\n${this.openEnded ? '...\n' : ''}` };
  }

  /** Pushes the frame of a non-empty collection, charging its members. */
  private open(
    stack: Frame[],
    value: Collection,
    level: number,
    head: string | undefined,
  ): RenderRefusal | undefined {
    if (level >= MAX_VALUE_DEPTH) return 'depth';
    const keys = Array.isArray(value) ? undefined : sortedKeys(value);
    const members = keys === undefined ? (value as JsonValue[]).length : keys.length;
    charge(members + 1);
    // Charge the text written so far in bulk, so a huge rendering is stopped early.
    if (this.bytes - this.charged > 65_536) {
      chargeBytes(this.bytes - this.charged);
      this.charged = this.bytes;
    }
    stack.push({ value, keys, level, head, index: 0 });
    return undefined;
  }

  private emit(line: string): void {
    this.lines.push(line);
    this.bytes += line.length + 1;
  }

  private indent(level: number): string {
    let text = this.indents[level];
    if (text === undefined) {
      text = '  '.repeat(level);
      this.indents[level] = text;
    }
    return text;
  }

  private leaf(value: JsonValue, level: number): string {
    if (typeof value === 'object' && value !== null) {
      this.openEnded = false;
      return Array.isArray(value) ? '[]' : '{}';
    }
    const plain = plainScalar(value);
    if (plain !== undefined) {
      this.openEnded = false;
      return plain;
    }
    let scalar = this.scalars.get(value);
    if (scalar === undefined) {
      scalar = formatScalar(value);
      this.scalars.set(value, scalar);
    }
    this.openEnded = scalar.openEnded;
    if (!scalar.multiline || level <= 1) return scalar.text;
    // Block scalar lines are indented to the level; empty lines stay empty.
    return scalar.text.replace(/\n(?=[^\n])/g, `\n${this.indent(level - 1)}`);
  }

  private key(name: string): Key {
    let key = this.keys.get(name);
    if (key === undefined) {
      key = formatKey(name);
      this.keys.set(name, key);
    }
    return key;
  }
}

const ARRAY_INDEX = /^(?:0|[1-9][0-9]{0,9})$/;

/**
 * Member names in the order of a JS object built with sorted keys (as the js-yaml rendering this
 * replaces did): array-index names first, in numeric order (as `Object.keys` already lists them),
 * then the others sorted.
 */
function sortedKeys(value: JsonObject): string[] {
  const keys = Object.keys(value);
  let indexes = 0;
  while (indexes < keys.length && isArrayIndex(keys[indexes] as string)) indexes++;
  if (indexes === 0) return keys.sort();
  return [...keys.slice(0, indexes), ...keys.slice(indexes).sort()];
}

function isArrayIndex(key: string): boolean {
  return ARRAY_INDEX.test(key) && Number(key) < 4_294_967_295;
}

function isLeaf(value: JsonValue): boolean {
  if (value === null || typeof value !== 'object') return true;
  return Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0;
}

const END_MARK = '\n...\n';

/**
 * Strings js-yaml writes plain, recognised without asking it (it takes several microseconds per
 * scalar): a letter, then letters, digits and `_ . / -` (no indicator, space, `:` or `#`), except
 * the words YAML 1.1 reads as booleans or null (digits first could be numbers or dates).
 */
const PLAIN_STRING = /^[A-Za-z][A-Za-z0-9_./-]*$/;
const NOT_PLAIN_WORDS = new Set(
  'y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF null Null NULL'.split(
    ' ',
  ),
);
/** js-yaml writes keys longer than this as explicit `? key` entries. */
const MAX_IMPLICIT_KEY = 1024;

function isPlainString(value: string): boolean {
  return PLAIN_STRING.test(value) && !NOT_PLAIN_WORDS.has(value);
}

/** The text of a scalar js-yaml writes as is (most of them), else undefined. */
function plainScalar(value: string | number | boolean | null): string | undefined {
  if (typeof value === 'string') return isPlainString(value) ? value : undefined;
  if (value === null) return 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return Number.isSafeInteger(value) && !Object.is(value, -0) ? String(value) : undefined;
}

/** A scalar as js-yaml writes it as the value of a top-level member. */
function formatScalar(value: string | number | boolean | null): Scalar {
  let text = dump({ k: value }, DUMP_OPTIONS);
  const openEnded = text.endsWith(END_MARK);
  text = text.slice('k: '.length, text.length - (openEnded ? END_MARK.length : 1));
  return { text, multiline: text.includes('\n'), openEnded };
}

/** A member name as js-yaml writes it (plain, quoted, or as an explicit `? key`). */
function formatKey(name: string): Key {
  if (name.length <= MAX_IMPLICIT_KEY && isPlainString(name))
    return { text: name, explicit: false };
  const text = dump({ [name]: null }, DUMP_OPTIONS);
  if (text.startsWith('? ')) {
    const end = text.indexOf('\n');
    return { text: text.slice(2, end), explicit: true };
  }
  return { text: text.slice(0, text.length - ': null\n'.length), explicit: false };
}
