import { dryRunInPage } from './engine/dry-run.js';

/**
 * Evaluates a dry-run request in the page, with the same contract as `PUT /v1/dryrun?explain=true`:
 * the same request body, and the answer's HTTP status and parsed JSON body. The engine runs here,
 * in the browser (bundled from src/engine with re2js for RE2): nothing is sent anywhere, so the
 * page works from `file://` and any static host.
 *
 * @param {unknown} body the dry-run request body (`resourceManifest`, `modRules`, …)
 * @param {{ explain?: boolean }} [options] `explain: false` leaves the explain document out
 * @returns {Promise<{ status: number, body: object }>}
 */
export async function evaluate(body, options = {}) {
  return dryRunInPage(body, { explain: options.explain !== false });
}
