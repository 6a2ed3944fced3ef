import { describeError, KubemodError } from '../../errors/catalog.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../engine/json.js';
import { unifiedYamlDiff } from '../../engine/patch/index.js';
import { MAX_DIFF_YAML_BYTES, MAX_DIFF_YAML_LINES } from '../../engine/patch/yaml-diff.js';
import { renderYaml } from '../../engine/patch/yaml-render.js';
import { type WorkLimits } from '../../engine/work-limits.js';
import { withMeter } from '../../engine/active-meter.js';
import { WorkMeter } from '../../engine/work-meter.js';

/** Longest reason quoted in the note that replaces a diff that cannot be built. */
const MAX_REASON_CHARS = 200;

/**
 * The unified YAML diff of a dry run, built under a request's work budget. The diff only
 * illustrates the patch, so when it cannot be built (too large, too deep, any failure) the answer
 * still carries the patch and the diff is one comment line saying why: never an error.
 */
export function dryRunDiff(
  before: JsonValue,
  after: JsonValue,
  options: {
    readonly work?: Partial<WorkLimits>;
    readonly clock?: () => number;
    /** File name in the diff headers (default `<kind>/<name>` of a manifest, else `value`). */
    readonly name?: string;
  } = {},
): string {
  const meter = new WorkMeter(options.work, options.clock);
  const name = options.name ?? (isJsonObject(before) ? manifestName(before) : 'value');
  try {
    return withMeter(meter, () => unifiedYamlDiff(before, after, name));
  } catch (err) {
    const code = err instanceof KubemodError ? ` [${err.code}]` : '';
    const reason = (describeError(err).split('\n')[0] ?? '').slice(0, MAX_REASON_CHARS);
    return `# diff not available${code}: ${reason}\n`;
  }
}

/**
 * The YAML of a dry run's patched object (keys sorted, the text the diff's `after` side is made
 * of), under a request's work budget and the diff's size limits; like the diff, a comment line
 * saying why when it cannot be written.
 */
export function dryRunYaml(
  value: JsonObject,
  options: { readonly work?: Partial<WorkLimits>; readonly clock?: () => number } = {},
): string {
  const meter = new WorkMeter(options.work, options.clock);
  try {
    const rendered = withMeter(meter, () =>
      renderYaml(value, MAX_DIFF_YAML_BYTES, MAX_DIFF_YAML_LINES),
    );
    if (rendered.ok) return rendered.text;
    return `# YAML not available: the object is too ${rendered.reason === 'depth' ? 'deep' : 'large'} to write\n`;
  } catch (err) {
    const code = err instanceof KubemodError ? ` [${err.code}]` : '';
    const reason = (describeError(err).split('\n')[0] ?? '').slice(0, MAX_REASON_CHARS);
    return `# YAML not available${code}: ${reason}\n`;
  }
}

/** `<kind>/<name>` of a manifest, as the diff's file name. */
export function manifestName(resource: JsonObject): string {
  const metadata = resource.metadata;
  const name =
    typeof metadata === 'object' &&
    metadata !== null &&
    !Array.isArray(metadata) &&
    typeof metadata.name === 'string'
      ? metadata.name
      : 'resource';
  return typeof resource.kind === 'string' ? `${resource.kind}/${name}` : name;
}
