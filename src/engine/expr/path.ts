import type { Step } from './ast.js';
import { isMultiStep } from './ast.js';
import { pointerOf, walkDescendants } from './descend.js';
import { hasOwn, isObject } from './values.js';
import { sortedKeys } from '../sort-strings.js';
import { charge, chargeBytes } from '../active-meter.js';

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

/** A compiled filter: its test and the work units one test costs (the size of its predicate). */
export interface Filter {
  readonly test: Predicate;
  readonly weight: number;
}

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

/**
 * Units per value a step selects: the cursor it allocates, its captures extended by one key, and
 * the collection of them (bench/backstop-margin.ts calibrates a unit at about 50 ns).
 */
const ITEM_UNITS = 3;

/**
 * Compiles the steps of a path. Every step that can select many values charges the active work
 * meter per value it looks at, so a walk costs units in proportion to the data it touches.
 */
export function compilePath(
  steps: readonly Step[],
  filters: ReadonlyMap<Step, Filter>,
): CompiledPath {
  const multi = steps.some(isMultiStep);
  const runners = steps.map((step) => compileStep(step, filters));
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
function compileStep(step: Step, filters: ReadonlyMap<Step, Filter>): StepRunner {
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
        const value = cursor.value;
        if (Array.isArray(value)) {
          charge(1 + value.length * ITEM_UNITS);
          for (let i = 0; i < value.length; i++) {
            out.push({ value: value[i] as unknown, captures: extend(cursor, i, capture) });
          }
        } else if (isObject(value)) {
          const keys = sortedKeys(value);
          charge(1 + keys.length * ITEM_UNITS);
          for (const key of keys)
            out.push({ value: value[key], captures: extend(cursor, key, capture) });
        }
        return true;
      };
    case 'union':
      return (cursor, out, capture) => {
        charge(step.keys.length * ITEM_UNITS);
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
        const value = cursor.value;
        if (Array.isArray(value)) {
          eachSliceIndex(value.length, step.start, step.end, step.step, ITEM_UNITS, (i) => {
            out.push({ value: value[i] as unknown, captures: extend(cursor, i, capture) });
          });
        }
        return true;
      };
    case 'filter':
      return filterRunner(filterOf(step, filters));
    case 'descend':
      return descendRunner(compileStep(step.then, filters));
  }
}

function filterOf(step: Step, filters: ReadonlyMap<Step, Filter>): Filter {
  const filter = filters.get(step);
  if (filter === undefined) throw new Error('filter predicate was not compiled');
  return filter;
}

/** Tests every child; each test is charged by the size of the predicate it runs. */
function filterRunner(filter: Filter): StepRunner {
  const { test, weight } = filter;
  return (cursor, out, capture, root) => {
    const value = cursor.value;
    if (Array.isArray(value)) {
      charge(1 + value.length * (weight + ITEM_UNITS));
      for (let i = 0; i < value.length; i++) {
        const child: unknown = value[i];
        if (test(child, root)) out.push({ value: child, captures: extend(cursor, i, capture) });
      }
    } else if (isObject(value)) {
      const keys = sortedKeys(value);
      charge(1 + keys.length * (weight + ITEM_UNITS));
      for (const key of keys) {
        const child = value[key];
        if (test(child, root)) out.push({ value: child, captures: extend(cursor, key, capture) });
      }
    }
    return true;
  };
}

/**
 * `..step`: runs `then` on the start value and on every object and array below it. The capture
 * of a result is the pointer to the node `then` ran on, built only for nodes where `then`
 * selected something, and charged by its length.
 */
function descendRunner(then: StepRunner): StepRunner {
  return (cursor, out, capture, root) => {
    walkDescendants(cursor.value, (frame) => {
      if (!capture) {
        then({ value: frame.value, captures: NO_CAPTURES }, out, false, root);
        return;
      }
      const before = out.length;
      then({ value: frame.value, captures: NO_CAPTURES }, out, true, root);
      if (out.length === before) return;
      const pointer = pointerOf(frame);
      chargeBytes((out.length - before) * (pointer.length + 8));
      for (let i = before; i < out.length; i++) {
        const found = out[i] as Cursor;
        out[i] = { value: found.value, captures: [...cursor.captures, pointer, ...found.captures] };
      }
    });
    return true;
  };
}

/**
 * Calls `visit` with each index a slice selects, in order; charged `units` per index before any
 * work.
 */
function eachSliceIndex(
  length: number,
  start: number | undefined,
  end: number | undefined,
  step: number | undefined,
  units: number,
  visit: (index: number) => void,
): void {
  const by = step ?? 1;
  const clamp = (n: number, low: number, high: number): number => Math.min(Math.max(n, low), high);
  const norm = (n: number): number => (n < 0 ? n + length : n);
  if (by > 0) {
    const from = clamp(norm(start ?? 0), 0, length);
    const to = clamp(norm(end ?? length), 0, length);
    charge(1 + units * Math.max(0, Math.ceil((to - from) / by)));
    for (let i = from; i < to; i += by) visit(i);
  } else {
    const from = clamp(norm(start ?? length - 1), -1, length - 1);
    const to = clamp(end === undefined ? -1 : norm(end), -1, length - 1);
    charge(1 + units * Math.max(0, Math.ceil((from - to) / -by)));
    for (let i = from; i > to; i += by) visit(i);
  }
}
