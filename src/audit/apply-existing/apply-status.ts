import { isJsonObject, type JsonObject } from '../../engine/json.js';
import { APPLY_TO_EXISTING_ANNOTATION } from './apply-existing.js';

/** `status.applyToExisting` of a ModRule: the job for one generation of the rule. */
export interface ApplyStatus {
  readonly observedGeneration: number;
  /**
   * Running (counts so far), Completed, Ignored (a rule the feature does nothing for), Disabled
   * (the trust checks did not allow the job; `message` says why; checked again later).
   */
  readonly phase: 'Running' | 'Completed' | 'Ignored' | 'Disabled';
  readonly updated: number;
  readonly forbidden: number;
  readonly failed: number;
  readonly startTime?: string;
  readonly completionTime?: string;
  readonly message?: string;
}

const PHASES: ReadonlySet<string> = new Set(['Running', 'Completed', 'Ignored', 'Disabled']);

export function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The job status a ModRule object carries, if any. */
export function applyStatusOf(obj: JsonObject): Partial<ApplyStatus> | undefined {
  const status = obj.status;
  if (!isJsonObject(status) || !isJsonObject(status.applyToExisting)) return undefined;
  const s = status.applyToExisting;
  const count = (key: 'updated' | 'forbidden' | 'failed'): Partial<ApplyStatus> =>
    typeof s[key] === 'number' ? { [key]: s[key] } : {};
  return {
    ...(typeof s.observedGeneration === 'number'
      ? { observedGeneration: s.observedGeneration }
      : {}),
    ...(typeof s.phase === 'string' && PHASES.has(s.phase)
      ? { phase: s.phase as ApplyStatus['phase'] }
      : {}),
    ...count('updated'),
    ...count('forbidden'),
    ...count('failed'),
    ...(typeof s.startTime === 'string' ? { startTime: s.startTime } : {}),
    ...(typeof s.message === 'string' ? { message: s.message } : {}),
  };
}

function annotationOf(obj: JsonObject): string | undefined {
  const metadata = obj.metadata;
  if (!isJsonObject(metadata) || !isJsonObject(metadata.annotations)) return undefined;
  const value = metadata.annotations[APPLY_TO_EXISTING_ANNOTATION];
  return typeof value === 'string' ? value : undefined;
}

export function generationOf(obj: JsonObject): number {
  const metadata = obj.metadata;
  return isJsonObject(metadata) && typeof metadata.generation === 'number'
    ? metadata.generation
    : 0;
}

/** `uid@generation`: one version of one ModRule (a rule deleted and re-created is a new one). */
export function incarnationOf(obj: JsonObject): string {
  const metadata = obj.metadata;
  const uid = isJsonObject(metadata) && typeof metadata.uid === 'string' ? metadata.uid : '';
  return `${uid}@${String(generationOf(obj))}`;
}

/**
 * Whether a ModRule object wants a job: annotated `api.kubemod.io/apply-to-existing: "true"`,
 * and its status shows no finished job for its current generation (a Disabled one is not
 * finished: it runs once the trust checks allow it).
 */
export function jobDue(obj: JsonObject): boolean {
  if (annotationOf(obj) !== 'true') return false;
  const status = applyStatusOf(obj);
  return !(
    status?.observedGeneration === generationOf(obj) &&
    (status.phase === 'Completed' || status.phase === 'Ignored')
  );
}

/**
 * What of a ModRule object a job runs on: everything the informer keeps of it but its
 * resourceVersion and status (uid, generation, the author record and its MAC, the behaviour
 * annotations). Any change of it interrupts the job, to be started again with the rule as it is
 * now (a new author's rights, say). The resourceVersion itself is not compared: the job's own
 * progress writes to the status change it.
 */
export function revisionOf(obj: JsonObject): string {
  const metadata = isJsonObject(obj.metadata) ? obj.metadata : {};
  return JSON.stringify(
    Object.entries(metadata)
      .filter(([field]) => field !== 'resourceVersion')
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
}
