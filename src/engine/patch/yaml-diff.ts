import { createTwoFilesPatch } from 'diff';
import { dump } from 'js-yaml';
import type { JsonObject, JsonValue } from '../json.js';
import { setOwn } from './own-property.js';

/**
 * A unified diff between the YAML renderings of two JSON values (for the CLI and the web API).
 * Object members are written in sorted order so the diff only shows real changes. Returns `''`
 * when both render identically. File headers are `<name>` on both sides with the labels
 * `before` / `after`; `name` defaults to `object`.
 */
export function unifiedYamlDiff(before: JsonValue, after: JsonValue, name = 'object'): string {
  const beforeText = toYaml(before);
  const afterText = toYaml(after);
  if (beforeText === afterText) return '';
  return createTwoFilesPatch(name, name, beforeText, afterText, 'before', 'after', { context: 3 });
}

/** Block-style YAML with sorted keys, no anchors and no line folding. */
export function toYaml(value: JsonValue): string {
  return dump(sortKeys(value), { noRefs: true, lineWidth: -1 });
}

function sortKeys(value: JsonValue): JsonValue {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(sortKeys);
  const sorted: JsonObject = {};
  for (const key of Object.keys(value).sort())
    setOwn(sorted, key, sortKeys(value[key] as JsonValue));
  return sorted;
}
