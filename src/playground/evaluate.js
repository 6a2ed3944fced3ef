import { dryRunInPage } from './engine/dry-run.js';

/** Where the page's server answers dry runs when the page is served by `kubemod-ts serve`. */
const DRYRUN_URL = 'v1/dryrun';

/**
 * Evaluates a dry-run request with the same contract as `PUT /v1/dryrun?explain=true`: the same
 * request body, and the answer's HTTP status and parsed JSON body.
 *
 * The engine runs in the page (src/engine bundled with re2js for RE2), so nothing is sent
 * anywhere and the page works from `file://` and any static host. One exception: handlebars
 * builds each template into a function (the Function constructor), which a
 * Content-Security-Policy without 'unsafe-eval' forbids. `kubemod-ts serve` sends such a policy with the page (and keeps it: the
 * page then runs no code it did not load), and answers dry runs itself with the same engine, so
 * a page whose policy forbids building functions asks its own server instead (the same code
 * answers there, so the answers are the same).
 *
 * @param {unknown} body the dry-run request body (`resourceManifest`, `modRules`, …)
 * @param {{ explain?: boolean }} [options] `explain: false` leaves the explain document out
 * @returns {Promise<{ status: number, body: object }>}
 */
export async function evaluate(body, options = {}) {
  const explain = options.explain !== false;
  if (!(await templatesNeedServer())) return dryRunInPage(body, { explain });
  const response = await fetch(`${DRYRUN_URL}?explain=${String(explain)}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  /** @type {unknown} */
  const answer = await response.json().catch(() => undefined);
  return {
    status: response.status,
    body:
      typeof answer === 'object' && answer !== null
        ? answer
        : { error: `HTTP ${String(response.status)}`, code: '' },
  };
}

/** @type {Promise<boolean> | undefined} */
let needServer;

/**
 * Whether the page must ask its server: only when it was served (not opened from disk) with a
 * Content-Security-Policy whose script sources forbid 'unsafe-eval'. Read once, from the
 * headers of the page itself.
 * @returns {Promise<boolean>}
 */
function templatesNeedServer() {
  if (location.protocol !== 'http:' && location.protocol !== 'https:')
    return Promise.resolve(false);
  needServer ??= fetch(location.href, { method: 'HEAD', cache: 'no-store' }).then(
    (response) => forbidsEval(response.headers.get('content-security-policy') ?? ''),
    () => false,
  );
  return needServer;
}

/**
 * Whether a Content-Security-Policy header value forbids 'unsafe-eval' for scripts. Several
 * policies (headers joined with commas) all apply: one that forbids it is enough.
 * @param {string} header
 * @returns {boolean}
 */
export function forbidsEval(header) {
  return header.split(',').some((policy) => {
    const directives = new Map(
      policy
        .split(';')
        .map((part) => part.trim().split(/\s+/))
        .filter((words) => words[0] !== undefined && words[0] !== '')
        .map((words) => [String(words[0]).toLowerCase(), words.slice(1)]),
    );
    const sources = directives.get('script-src') ?? directives.get('default-src');
    return sources !== undefined && !sources.includes("'unsafe-eval'");
  });
}

/**
 * The page's scripting hook: `window.kubemodPlayground.evaluate(body)` evaluates a dry-run body
 * as the page does (for tests and automation driving a static copy of the page; documented in
 * docs/playground.md). Read-only, defined once when the page starts.
 */
export function exposeEvaluate() {
  if (Object.hasOwn(window, 'kubemodPlayground')) return;
  Object.defineProperty(window, 'kubemodPlayground', {
    value: Object.freeze({ evaluate }),
    enumerable: false,
    writable: false,
    configurable: false,
  });
}
