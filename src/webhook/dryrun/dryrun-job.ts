import type { AdmissionOperation } from '../../api/index.js';
import { describeError, errorCatalog, KubemodError, type ErrorName } from '../../errors/catalog.js';
import type { SyntheticRefs } from '../../engine/evaluate.js';
import type { RequestResult } from '../../observability/metrics.js';
import {
  completeDryRun,
  isMultiAnswer,
  type DryRunAnswer,
  type DryRunDependencies,
  type DryRunOptions,
} from './dryrun-handler.js';
import { mergeSyntheticRefs, namesToLookUp, needsLookUp, prepareDryRun } from './dryrun-prepare.js';
import { parseJsonBody } from '../http/json-body.js';
import type { SyntheticRefNames } from '../admission/synthetic-refs.js';

/** A thrown error as it crosses a thread: a catalogued kind keeps its kind, message and field. */
export interface SerializedError {
  readonly kind?: ErrorName;
  /** The message without the field prefix (KubemodError.rawMessage). */
  readonly message: string;
  readonly field?: string;
  /** Stack of an uncatalogued error, for the log. */
  readonly stack?: string;
}

/** The outcome of one dry run: the answer's JSON text or the error to answer with. */
export type DryRunJobResult =
  | {
      readonly ok: true;
      /** The `PUT /v1/dryrun` answer, serialized. */
      readonly json: string;
      /** Metric labels (fixed values, never request text). */
      readonly operation: AdmissionOperation;
      readonly result: Extract<RequestResult, 'allowed' | 'patched' | 'rejected'>;
    }
  | { readonly ok: false; readonly error: SerializedError };

/** Looks up the Namespace and Node manifests a dry run's syntheticRefs are made of. */
export type SyntheticRefsFetcher = (
  names: SyntheticRefNames,
) => SyntheticRefs | Promise<SyntheticRefs>;

/**
 * A whole dry run from the raw body bytes to the answer's JSON text: parse, compile, look up the
 * syntheticRefs (through `fetchRefs`), evaluate (or explain), diff and serialize. Never throws:
 * every failure comes back as the error to answer with. Runs in the dry-run worker thread, or in
 * process for tests.
 */
export async function runDryRunJob(
  body: Uint8Array,
  options: DryRunOptions,
  deps: DryRunDependencies,
  fetchRefs: SyntheticRefsFetcher,
): Promise<DryRunJobResult> {
  try {
    const parsed = parseJsonBody(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
    const prepared = prepareDryRun(parsed, deps);
    const given = prepared.request.syntheticRefs;
    const refs: SyntheticRefs[] = [];
    for (const item of prepared.items) {
      const names = namesToLookUp(item.refNames, given);
      const looked = needsLookUp(names) ? await fetchRefs(names) : {};
      refs.push(mergeSyntheticRefs(item.refNames, given, looked));
    }
    const answer = completeDryRun(prepared, refs, deps, options);
    return {
      ok: true,
      json: jsonText(answer),
      operation: prepared.request.operation,
      result: resultOf(answer),
    };
  } catch (err) {
    return { ok: false, error: serializeError(err) };
  }
}

/** The metric result of an answer: rejected if any resource was, else patched if any was. */
function resultOf(answer: DryRunAnswer): 'allowed' | 'patched' | 'rejected' {
  const answers = isMultiAnswer(answer) ? answer.results : [answer];
  if (answers.some((one) => one.rejections.length > 0)) return 'rejected';
  return answers.some((one) => one.patch.length > 0) ? 'patched' : 'allowed';
}

/** JSON.stringify, refusing a value too deep to write (V8 overflows its stack) as DEPTH_LIMIT. */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (err) {
    throw new KubemodError(
      'DEPTH_LIMIT',
      `the answer cannot be written: ${describeError(err)}`,
      undefined,
      { cause: err },
    );
  }
}

export function serializeError(err: unknown): SerializedError {
  if (err instanceof KubemodError) {
    return {
      kind: err.kind,
      message: err.rawMessage(),
      ...(err.field === undefined ? {} : { field: err.field }),
    };
  }
  return {
    message: describeError(err),
    ...(err instanceof Error && err.stack !== undefined ? { stack: err.stack } : {}),
  };
}

/** The error a SerializedError stands for: the same KubemodError (kind, message, field) or an Error. */
export function deserializeError(error: SerializedError): Error {
  if (error.kind !== undefined && Object.hasOwn(errorCatalog, error.kind)) {
    return new KubemodError(error.kind, error.message, error.field);
  }
  const plain = new Error(error.message);
  if (error.stack !== undefined) plain.stack = error.stack;
  return plain;
}
