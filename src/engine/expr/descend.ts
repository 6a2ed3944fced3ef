import { isObject } from './values.js';
import { sortedKeys } from '../sort-strings.js';
import { charge, chargeBytes } from '../active-meter.js';

/**
 * A value met by the recursive descent (`..`) walk. Frames link to their parent instead of
 * carrying the keys leading to them, so visiting a node costs the same at any depth; the JSON
 * pointer of a frame is only built when a step after `..` selects something there.
 */
export interface DescentFrame {
  readonly value: unknown;
  readonly parent: DescentFrame | undefined;
  readonly key: string | number;
  /** Relative pointer from the start of the walk, built on demand (see pointerOf). */
  pointer: string | undefined;
}

/**
 * Units per node visited: the frame, the sort of an object's keys and the visit itself (the step
 * after `..`, which looks the node up and may build its pointer) cost about 0.3 µs a node, warm,
 * where a unit is nominally 50 ns (bench/backstop-margin.ts calibrates it).
 */
const NODE_UNITS = 6;

/**
 * Visits `start` and every object or array below it, depth first and in document order (array
 * indexes ascending, object keys sorted), without recursion. Charges NODE_UNITS per node visited
 * and one per member looked at.
 */
export function walkDescendants(start: unknown, visit: (frame: DescentFrame) => void): void {
  const stack: DescentFrame[] = [{ value: start, parent: undefined, key: '', pointer: '' }];
  for (let frame = stack.pop(); frame !== undefined; frame = stack.pop()) {
    visit(frame);
    const value = frame.value;
    if (Array.isArray(value)) {
      charge(NODE_UNITS + value.length);
      for (let i = value.length - 1; i >= 0; i--) {
        const child: unknown = value[i];
        if (typeof child === 'object' && child !== null) {
          stack.push({ value: child, parent: frame, key: i, pointer: undefined });
        }
      }
    } else if (isObject(value)) {
      const keys = sortedKeys(value);
      charge(NODE_UNITS + keys.length);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        const child = value[key];
        if (typeof child === 'object' && child !== null) {
          stack.push({ value: child, parent: frame, key, pointer: undefined });
        }
      }
    } else {
      charge(NODE_UNITS);
    }
  }
}

/**
 * The JSON pointer of `frame` relative to the start of the walk, without the leading `/`
 * (`a/0/b`). Built once per frame from the parent's pointer, so the pointers of a whole walk cost
 * linear time; the caller charges for the length of each pointer it hands out.
 */
export function pointerOf(frame: DescentFrame): string {
  if (frame.pointer !== undefined) return frame.pointer;
  const pending: DescentFrame[] = [];
  let known: DescentFrame | undefined = frame;
  while (known !== undefined && known.pointer === undefined) {
    pending.push(known);
    known = known.parent;
  }
  let pointer = known?.pointer ?? '';
  for (let i = pending.length - 1; i >= 0; i--) {
    const item = pending[i] as DescentFrame;
    const segment = escapePointer(item.key);
    pointer = pointer === '' ? segment : `${pointer}/${segment}`;
    item.pointer = pointer;
  }
  chargeBytes(pending.length);
  return pointer;
}

function escapePointer(segment: string | number): string {
  if (typeof segment === 'number') return String(segment);
  if (!segment.includes('~') && !segment.includes('/')) return segment;
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}
