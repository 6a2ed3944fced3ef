import { isStatus, type KubeClient } from '../kube/kube-client.js';
import { describeError } from '../errors/catalog.js';
import type { Logger } from '../observability/logger.js';
import { apiVersionOfReports, servedReportApis } from './report-api.js';
import { buildReports, DEFAULT_RESULTS_PER_REPORT, partialNotes } from './report-build.js';
import type { CollectedResults } from './report-collector.js';
import { syncReports, type ReportSyncResult } from './report-sync.js';

/** The log line when the operator may not read or write reports (the default install). */
export const NOT_GRANTED =
  'policy reports not written: the operator may not list or write report objects; apply config/optional/policy-reports-rbac.yaml (chart: audit.policyReports.enabled) to let the periodic audit write them';

export interface PublishReportsOptions {
  readonly client: KubeClient;
  readonly logger: Logger;
  readonly resultsPerReport?: number | undefined;
}

/**
 * Writes one audit's results as policy reports in the API the cluster serves (OpenReports when
 * it can, else wgpolicyk8s.io), removing kubemod-ts's reports from the other API if it is served
 * too. Without either API it writes nothing and resolves undefined. Never throws: a failure is
 * logged, and the next audit tries again.
 */
export async function publishReports(
  collected: CollectedResults,
  options: PublishReportsOptions,
): Promise<ReportSyncResult | undefined> {
  try {
    const served = await servedReportApis(options.client);
    const [api, ...stale] = served;
    if (api === undefined) {
      options.logger.debug({}, 'policy reports: the cluster serves no report API; none written');
      return undefined;
    }
    const notes = partialNotes(collected.partial);
    if (collected.dropped > 0)
      options.logger.warn(
        {
          dropped: collected.dropped,
          partial: [...notes]
            .slice(0, 20)
            .map(([scope, note]) => `${scope || '(cluster)'}: ${note}`),
        },
        'policy reports: too many results; some were left out, and those reports are marked partial',
      );
    const desired = buildReports(
      api,
      collected.results,
      options.resultsPerReport ?? DEFAULT_RESULTS_PER_REPORT,
      collected.partial,
    );
    const result = await syncReports(options.client, api, desired, stale, notes);
    const fields = {
      api: apiVersionOfReports(api),
      reports: desired.length,
      created: result.created,
      updated: result.updated,
      unchanged: result.unchanged,
      deleted: result.deleted,
      kept: result.kept,
      failed: result.failed.slice(0, 20),
    };
    if (result.failed.length > 0)
      options.logger.warn(fields, 'policy reports written, some failed');
    else options.logger.info(fields, 'policy reports written');
    return result;
  } catch (err) {
    if (isStatus(err, 403)) {
      options.logger.warn({ err: describeError(err) }, NOT_GRANTED);
      return undefined;
    }
    options.logger.warn(
      { err: describeError(err) },
      'policy reports could not be written; retrying after the next audit',
    );
    return undefined;
  }
}
