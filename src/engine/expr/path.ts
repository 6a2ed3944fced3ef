import type { Step } from './ast.js';
import { isMultiStep } from './ast.js';
import { hasOwn, isObject } from './values.js';
import { sortedKeys } from '../sort-strings.js';

/** A position reached while walking a path: the value there and, when asked for, the captured keys. */
export interface Cursor {
  readonly value: unknown;
  readonly captures: readonly (string | number)[];
}

export interface PathResult {
  readonly nodes: Cursor[];
  /** Elements of a multi-valued path that resolved to `undefined` and were filtered out. */
  readonly undefinedCount: number;
}

/** Evaluates a filter predicate with `@` bound to the candidate element. */
export type Predicate = (current: unknown, root: unknown) => boolean;

export interface CompiledPath {
  /** True when a step can select more than one value (wildcard, filter, union, slice, `..`). */
  readonly multi: boolean;
  /** Value of a single-valued path, `undefined` when any key is missing. */
  single(start: unknown): unknown;
  /** All values of the path with their captured keys (for patches) or without (for matching). */
  collect(start: unknown, root: unknown, capture: boolean): PathResult;
}

type StepRunner = (cursor: Cursor, out: Cursor[], capture: boolean, root: unknown) => boolean;

const NO_CAPTURES: readonly (string | number)[] = [];

export function compilePath(
  steps: readonly Step[],
  predicates: ReadonlyMap<Step, Predicate>,
): CompiledPath {
  const multi = steps.some(isMultiStep);
  const runners = steps.map((step) => compileStep(step, predicates));
  const plain = steps.map((step) =>
    step.type === 'member' ? step.name : step.type === 'index' ? step.index : null,
  );
  const prefixLength = plain.findIndex((key) => key === null);
  const prefix = (prefixLength === -1 ? plain : plain.slice(0, prefixLength)) as (
    string | number
  )[];
  const rest = runners.slice(prefix.length);
  return {
    multi,
    single: (start) => {
      let value = start;
      for (const key of plain) {
        value = typeof key === 'number' ? childAt(value, key) : childOf(value, key ?? '');
        if (value === undefined) return undefined;
      }
      return value;
    },
    collect: (start, root, capture) => {
      // Leading member/index steps select one value and capture nothing: walk them without cursors.
      let value = start;
      for (const key of prefix) {
        value = typeof key === 'number' ? childAt(value, key) : childOf(value, key);
        if (value === undefined) return { nodes: [], undefinedCount: 1 };
      }
      let cursors: Cursor[] = [{ value, captures: NO_CAPTURES }];
      let undefinedCount = 0;
      for (const run of rest) {
        const next: Cursor[] = [];
        for (const cursor of cursors) {
          if (!run(cursor, next, capture, root)) undefinedCount++;
        }
        cursors = next;
        if (cursors.length === 0) break;
      }
      return { nodes: cursors, undefinedCount };
    },
  };
}

function childOf(value: unknown, key: string): unknown {
  return isObject(value) && hasOwn(value, key) ? value[key] : undefined;
}

function childAt(value: unknown, index: number): unknown {
  if (!Array.isArray(value)) return undefined;
  const i = index < 0 ? value.length + index : index;
  return i >= 0 && i < value.length ? (value[i] as unknown) : undefined;
}

function extend(
  cursor: Cursor,
  key: string | number,
  capture: boolean,
): readonly (string | number)[] {
  return capture ? [...cursor.captures, key] : NO_CAPTURES;
}

/**
 * Each runner appends the cursors a step selects from one input cursor, and returns false when a
 * single-valued step found nothing there (an `undefined` element).
 */
function compileStep(step: Step, predicates: ReadonlyMap<Step, Predicate>): StepRunner {
  switch (step.type) {
    case 'member':
      return (cursor, out) => {
        const value = childOf(cursor.value, step.name);
        if (value === undefined) return false;
        out.push({ value, captures: cursor.captures });
        return true;
      };
    case 'index':
      return (cursor, out) => {
        const value = childAt(cursor.value, step.index);
        if (value === undefined) return false;
        out.push({ value, captures: cursor.captures });
        return true;
      };
    case 'wildcard':
      return (cursor, out, capture) => {
        eachChild(cursor.value, (key, value) =>
          out.push({ value, captures: extend(cursor, key, capture) }),
        );
        return true;
      };
    case 'union':
      return (cursor, out, capture) => {
        let complete = true;
        for (const key of step.keys) {
          const value =
            typeof key === 'number' ? childAt(cursor.value, key) : childOf(cursor.value, key);
          if (value === undefined) complete = false;
          else out.push({ value, captures: extend(cursor, key, capture) });
        }
        return complete;
      };
    case 'slice':
      return (cursor, out, capture) => {
        if (Array.isArray(cursor.value)) {
          for (const i of sliceIndexes(cursor.value.length, step.start, step.end, step.step)) {
            out.push({ value: cursor.value[i] as unknown, captures: extend(cursor, i, capture) });
          }
        }
        return true;
      };
    case 'filter': {
      const predicate = predicates.get(step);
      if (predicate === undefined) throw new Error('filter predicate was not compiled');
      return (cursor, out, capture, root) => {
        eachChild(cursor.value, (key, value) => {
          if (predicate(value, root)) out.push({ value, captures: extend(cursor, key, capture) });
        });
        return true;
      };
    }
    case 'descend': {
      const then = compileStep(step.then, predicates);
      return (cursor, out, capture, root) => {
        descendants(cursor.value, (value, segments) => {
          const captures = capture
            ? [...cursor.captures, segments.map(escapePointer).join('/')]
            : NO_CAPTURES;
          then({ value, captures }, out, capture, root);
        });
        return true;
      };
    }
  }
}

function eachChild(value: unknown, visit: (key: string | number, child: unknown) => void): void {
  if (Array.isArray(value)) {
    value.forEach((child: unknown, i) => {
      visit(i, child);
    });
  } else if (isObject(value)) {
    for (const key of sortedKeys(value)) visit(key, value[key]);
  }
}

/** Visits a value and every value below it, depth first, with the keys leading there. */
function descendants(
  root: unknown,
  visit: (value: unknown, segments: readonly (string | number)[]) => void,
): void {
  const stack: { value: unknown; segments: (string | number)[] }[] = [
    { value: root, segments: [] },
  ];
  while (stack.length > 0) {
    const item = stack.pop();
    if (item === undefined) break;
    visit(item.value, item.segments);
    const children: { value: unknown; segments: (string | number)[] }[] = [];
    eachChild(item.value, (key, child) => {
      if (typeof child === 'object' && child !== null)
        children.push({ value: child, segments: [...item.segments, key] });
    });
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child !== undefined) stack.push(child);
    }
  }
}

function escapePointer(segment: string | number): string {
  return String(segment).replaceAll('~', '~0').replaceAll('/', '~1');
}

function sliceIndexes(length: number, start?: number, end?: number, step = 1): number[] {
  const clamp = (n: number, low: number, high: number): number => Math.min(Math.max(n, low), high);
  const norm = (n: number): number => (n < 0 ? n + length : n);
  const out: number[] = [];
  if (step > 0) {
    const from = clamp(norm(start ?? 0), 0, length);
    const to = clamp(norm(end ?? length), 0, length);
    for (let i = from; i < to; i += step) out.push(i);
  } else {
    const from = clamp(norm(start ?? length - 1), -1, length - 1);
    const to = clamp(end === undefined ? -1 : norm(end), -1, length - 1);
    for (let i = from; i > to; i += step) out.push(i);
  }
  return out;
}
