import type { JsonObject } from '../engine/json.js';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

export interface ListSplitter {
  /** Feeds the next chunk of the response body. Throws on malformed JSON in a finished item. */
  write(chunk: Buffer): void;
  /** The list without its items (kind, apiVersion, metadata); throws when the body is incomplete. */
  end(): JsonObject;
}

/**
 * Splits a Kubernetes list response (`{"kind":…,"metadata":…,"items":[{…},{…}]}`) as it streams
 * in: each item is parsed on its own as soon as its closing brace arrives and handed to `onItem`,
 * so neither the whole body nor the whole parsed list is ever held at once. `head` is the list as
 * known when its items begin (kind, apiVersion and metadata come first in the API server's output).
 *
 * Only the byte structure is tracked (strings, escapes, nesting); every value is still parsed by
 * JSON.parse. The source is the API server, a trusted peer; item size is bounded by its limits.
 */
export function createListSplitter(
  onItem: (item: JsonObject, head: JsonObject) => void,
): ListSplitter {
  /** Everything outside the items (a few hundred bytes), parsed at the end. */
  const rest: Buffer[] = [];
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** Depth of the items array's contents while inside it (2), otherwise -1. */
  let itemsDepth = -1;
  let head: JsonObject = {};
  /** Parts of the item being read (it may span chunks); undefined between items. */
  let item: Buffer[] | undefined;

  /** At a `[` directly inside the list object: is it the items array? */
  const startItems = (): void => {
    const text = Buffer.concat(rest).toString('utf8');
    if (!/"items"\s*:\s*$/.test(text)) return;
    itemsDepth = 2;
    try {
      head = JSON.parse(`${text}[]}`) as JsonObject;
    } catch {
      head = {};
    }
  };

  const write = (chunk: Buffer): void => {
    let itemStart = item === undefined ? -1 : 0;
    /** Start of the bytes of this chunk that belong to the rest; -1 while inside the items. */
    let restStart = itemsDepth < 0 ? 0 : -1;
    // Copies, so that the rest does not pin whole chunks.
    const keepRest = (to: number): void => {
      if (restStart >= 0 && to > restStart) rest.push(Buffer.from(chunk.subarray(restStart, to)));
    };
    // Most bytes are inside strings: jump to the string's end with indexOf, stopping at escapes.
    let nextBackslash = chunk.indexOf(BACKSLASH);
    for (let i = 0; i < chunk.length; i++) {
      if (inString) {
        if (escaped) {
          escaped = false;
          continue;
        }
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = chunk.indexOf(BACKSLASH, i);
        const quote = chunk.indexOf(QUOTE, i);
        if (nextBackslash !== -1 && (quote === -1 || nextBackslash < quote)) {
          i = nextBackslash;
          escaped = true;
        } else if (quote === -1) {
          i = chunk.length;
        } else {
          i = quote;
          inString = false;
        }
        continue;
      }
      const byte = chunk[i];
      switch (byte) {
        case QUOTE:
          inString = true;
          break;
        case OPEN_BRACE:
        case OPEN_BRACKET:
          if (depth === itemsDepth && item === undefined) {
            // An item begins (the bytes between items, commas, are not kept).
            keepRest(i);
            restStart = -1;
            item = [];
            itemStart = i;
          } else if (byte === OPEN_BRACKET && depth === 1) {
            keepRest(i);
            restStart = i;
            startItems();
          }
          depth++;
          break;
        case CLOSE_BRACE:
        case CLOSE_BRACKET:
          depth--;
          if (depth === itemsDepth && item !== undefined) {
            item.push(chunk.subarray(itemStart, i + 1));
            const text = Buffer.concat(item).toString('utf8');
            item = undefined;
            itemStart = -1;
            onItem(JSON.parse(text) as JsonObject, head);
          } else if (itemsDepth > 0 && depth === itemsDepth - 1) {
            // The items array closes: the rest continues with its bracket.
            itemsDepth = -1;
            if (restStart < 0) restStart = i;
          }
          break;
        default:
          break;
      }
    }
    if (item !== undefined && itemStart >= 0) item.push(chunk.subarray(itemStart));
    keepRest(chunk.length);
  };

  return {
    write,
    end(): JsonObject {
      if (item !== undefined || depth !== 0 || inString)
        throw new SyntaxError('the list response ended in the middle of a value');
      return JSON.parse(Buffer.concat(rest).toString('utf8')) as JsonObject;
    },
  };
}
