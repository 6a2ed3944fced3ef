import { describeError, KubemodError } from '../errors/catalog.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../engine/json.js';
import { unifiedYamlDiff } from '../engine/patch/index.js';
import { WorkMeter, withMeter, type WorkLimits } from '../engine/work-meter.js';

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
