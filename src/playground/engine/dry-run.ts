import { describeError, KubemodError } from '../../errors/catalog.js';
import { DEFAULT_CLUSTER_NAMESPACE } from '../../engine/rule.js';
import type { DryRunDependencies } from '../../webhook/dryrun/dryrun-handler.js';
import { deserializeError, runDryRunJob } from '../../webhook/dryrun/dryrun-job.js';
import { httpStatusOf, type HttpErrorBody } from '../../webhook/http/errors.js';

/** What `PUT /v1/dryrun` answers: its HTTP status and its parsed JSON body. */
export interface DryRunAnswer {
  readonly status: number;
  readonly body: object;
}

export interface BrowserDryRunOptions {
  /** As `?explain=true`: add the explain document. */
  readonly explain?: boolean;
}

/**
 * The dry run of `PUT /v1/dryrun` run in the page: the very code the server's dry-run worker runs
 * (runDryRunJob: parse the body, compile the ModRules, evaluate or explain, diff, serialize) with
 * the webhook's default limits and cluster namespace, and the server's error answers (status and
 * `{error, code}` body, as errors.ts builds them). There is no cluster here, so the only Namespace
 * and Node manifests an evaluation sees are the ones the body carries (`syntheticRefs`).
 */
export async function dryRunInPage(
  body: unknown,
  options: BrowserDryRunOptions = {},
): Promise<DryRunAnswer> {
  const deps: DryRunDependencies = {
    clusterNamespace: DEFAULT_CLUSTER_NAMESPACE,
    limits: { template: {}, work: {} },
  };
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  const outcome = await runDryRunJob(
    bytes,
    { explain: options.explain === true },
    deps,
    () => ({}),
  );
  if (outcome.ok) return { status: 200, body: JSON.parse(outcome.json) as object };
  return errorAnswer(deserializeError(outcome.error));
}

function errorAnswer(err: Error): DryRunAnswer {
  if (err instanceof KubemodError) {
    const answer: HttpErrorBody = { error: err.message, code: err.code };
    return { status: httpStatusOf(err), body: answer };
  }
  const answer: HttpErrorBody = { error: `internal error: ${describeError(err)}`, code: 'KM0000' };
  return { status: 500, body: answer };
}
