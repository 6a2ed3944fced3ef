import { goFormatScalar } from '../go-format.js';
import { compareGoStrings } from '../template/go-print.js';

/** Ends a printed value or text that was cut. */
export const CUT_MARK = '…';

/** Cuts `text` to at most `maxChars` characters, the last being CUT_MARK when it was cut. */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, Math.max(0, maxChars - 1))}${CUT_MARK}`;
}

/**
 * Prints values for the explain trace, as Go's %v (what match criteria compare) or as JSON (patch
 * values), cut at a length. Unlike goFormat it charges no work meter (explaining must not change
 * what evaluation does) and is bounded on its own: output stops at the length, nesting is bounded
 * by it (every level prints at least one character), and `keyBudget` caps the map keys it may
 * list over the whole trace (listing and ordering a map's keys costs its size, and one request
 * can hold maps of hundreds of thousands of keys); a map past it prints as `map[…` / `{…`.
 */
export class BoundedPrinter {
  /** How many texts were cut (by go, json or cut). */
  cuts = 0;

  constructor(private keyBudget: number) {}

  /** Go's %v of `value`, cut at maxChars. */
  go(value: unknown, maxChars: number): string {
    if (typeof value !== 'object' || value === null || value instanceof Date) {
      return this.cut(goFormatScalar(value), maxChars);
    }
    const out = new Output(maxChars);
    this.printGo(value, out);
    return this.finish(out);
  }

  /** JSON text of `value`, cut at maxChars (undefined prints as null, as in an array). */
  json(value: unknown, maxChars: number): string {
    const out = new Output(maxChars);
    this.printJson(value, out);
    return this.finish(out);
  }

  /** cutText, counted in `cuts` when it cuts. */
  cut(text: string, maxChars: number): string {
    if (text.length > maxChars) this.cuts++;
    return cutText(text, maxChars);
  }

  private finish(out: Output): string {
    if (out.done()) this.cuts++;
    return out.text();
  }

  private printGo(value: unknown, out: Output): void {
    if (out.done()) return;
    if (typeof value !== 'object' || value === null || value instanceof Date) {
      out.write(goFormatScalar(value));
      return;
    }
    if (Array.isArray(value)) {
      out.write('[');
      for (let i = 0; i < value.length && !out.done(); i++) {
        if (i > 0) out.write(' ');
        this.printGo(value[i], out);
      }
      out.write(']');
      return;
    }
    out.write('map[');
    const all = this.keysOf(value);
    if (all === undefined) {
      out.cut();
      return;
    }
    // Go prints keys sorted. Only the first ones can fit: every entry takes at least 3 characters
    // (`k:v` and a space), so a big map needs only its smallest room/2 + 1 keys, not a full sort.
    const keys =
      all.length <= SORT_ALL_KEYS
        ? all.sort(compareGoStrings)
        : smallestKeys(all, out.room / 2 + 1);
    const map = value as Record<string, unknown>;
    for (let i = 0; i < keys.length && !out.done(); i++) {
      const key = keys[i] ?? '';
      out.write(i > 0 ? ` ${key}:` : `${key}:`);
      this.printGo(map[key], out);
    }
    if (keys.length < all.length) out.cut();
    out.write(']');
  }

  private printJson(value: unknown, out: Output): void {
    if (out.done()) return;
    if (value === null || value === undefined) {
      out.write('null');
      return;
    }
    switch (typeof value) {
      case 'string':
        // Only the part that can be shown is quoted (a value can be megabytes long).
        out.write(JSON.stringify(value.length > out.room ? value.slice(0, out.room + 1) : value));
        return;
      case 'number':
        out.write(Number.isFinite(value) ? String(value) : 'null');
        return;
      case 'boolean':
        out.write(value ? 'true' : 'false');
        return;
      case 'object':
        break;
      default:
        out.write('null');
        return;
    }
    if (Array.isArray(value)) {
      out.write('[');
      for (let i = 0; i < value.length && !out.done(); i++) {
        if (i > 0) out.write(',');
        this.printJson(value[i], out);
      }
      out.write(']');
      return;
    }
    out.write('{');
    const keys = this.keysOf(value);
    if (keys === undefined) {
      out.cut();
      return;
    }
    const map = value as Record<string, unknown>;
    let first = true;
    for (let i = 0; i < keys.length && !out.done(); i++) {
      const key = keys[i] ?? '';
      if (map[key] === undefined) continue;
      out.write(first ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`);
      first = false;
      this.printJson(map[key], out);
    }
    out.write('}');
  }

  /**
   * A map's own keys, or undefined when they do not fit in what is left of the key budget (or it
   * is spent). Reading the keys of a map that does not fit still costs its size once, and spends
   * the budget, so the maps printed after it do not pay again.
   */
  private keysOf(value: object): string[] | undefined {
    if (this.keyBudget <= 0) return undefined;
    const keys = Object.keys(value);
    this.keyBudget -= keys.length + 1;
    return this.keyBudget < 0 ? undefined : keys;
  }
}

/** Maps up to this many keys are printed after a full sort of their keys. */
const SORT_ALL_KEYS = 1000;

/** The `count` smallest keys in Go's order, without sorting them all: n·log(count) comparisons. */
function smallestKeys(keys: readonly string[], count: number): string[] {
  const best: string[] = [];
  for (const key of keys) {
    const last = best[best.length - 1];
    if (best.length >= count && last !== undefined && compareGoStrings(key, last) >= 0) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (compareGoStrings(best[mid] ?? '', key) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, key);
    if (best.length > count) best.pop();
  }
  return best;
}

/** Text built up to a length; past it, cut with CUT_MARK and `full`. */
class Output {
  private readonly parts: string[] = [];
  private length = 0;
  private full = false;

  constructor(private readonly maxChars: number) {}

  /** Whether the text was cut (nothing more is written). */
  done(): boolean {
    return this.full;
  }

  /** Characters that still fit. */
  get room(): number {
    return this.maxChars - this.length;
  }

  write(text: string): void {
    if (this.full) return;
    if (this.length + text.length <= this.maxChars) {
      this.parts.push(text);
      this.length += text.length;
      return;
    }
    this.parts.push(text.slice(0, Math.max(0, this.maxChars - this.length - 1)));
    this.cut();
  }

  /** Ends the text here, marked as cut. */
  cut(): void {
    if (this.full) return;
    this.parts.push(CUT_MARK);
    this.full = true;
  }

  text(): string {
    const text = this.parts.join('');
    return text.length <= this.maxChars ? text : cutText(text, this.maxChars);
  }
}
