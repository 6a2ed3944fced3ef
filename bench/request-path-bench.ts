/**
 * The request path of the dragnet webhook in process, stage by stage (issue 38): what one admission
 * request costs besides TLS and HTTP, against what the floor server (bench/floor-server.ts) does
 * with the same body. Every stage is the shipped code, timed on its own (median µs of batches):
 * parsing alone, parsing and reading the review, evaluation alone, the handler (at log level info
 * and silent, on one parsed request), and the whole path on fresh bytes each time (the realistic
 * figure: no cache sees the same object twice).
 *
 * Usage: npx tsc -p tsconfig.bench.json && node dist/bench/request-path-bench.js [rules]
 */
import { readFileSync } from 'node:fs';
import { createLogger } from '../src/observability/logger.js';
import { createMetrics } from '../src/observability/metrics.js';
import { loopSlicing } from '../src/webhook/loop-slicing.js';
import { FairTurns } from '../src/webhook/fair-turns.js';
import { handleDragnet } from '../src/webhook/admission/dragnet-handler.js';
import {
  parseAdmissionReview,
  serializeAdmissionReview,
} from '../src/webhook/admission/admission-review.js';
import { parseJsonBodySliced } from '../src/webhook/http/json-body.js';
import {
  answerAdmission,
  type AdmissionRoute,
} from '../src/webhook/admission/admission-listener.js';
import { DEFAULT_WEBHOOK_LIMITS, type WebhookDependencies } from '../src/webhook/dependencies.js';
import { evaluateAdmissionSliced } from '../src/webhook/admission/admission-evaluation.js';
import { loadRuleSet, wireBodyPath, type ObjectName } from './lib/fixtures.js';
import { CLUSTER_NAMESPACE } from './lib/fixture-rules.js';
import { environment, percentile } from './lib/measure.js';
import type { JsonObject } from '../src/engine/json.js';

const NO_REFS = { namespace: (): undefined => undefined, node: (): undefined => undefined };

/** Median µs per call of `fn` (awaited), over `samples` batches of `batch` calls. */
async function timeAsync(fn: () => unknown, samples = 400, batch = 20): Promise<number> {
  const warmEnd = performance.now() + 300;
  while (performance.now() < warmEnd) await fn();
  const perCall: number[] = [];
  for (let s = 0; s < samples; s++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) await fn();
    perCall.push(((performance.now() - t0) * 1000) / batch);
  }
  perCall.sort((a, b) => a - b);
  return percentile(perCall, 0.5);
}

async function stages(
  object: ObjectName,
  deps: WebhookDependencies,
  silent: WebhookDependencies,
): Promise<[string, number][]> {
  const body = readFileSync(wireBodyPath(object));
  const slicing = loopSlicing(deps);
  const turns = new FairTurns(slicing.clock, slicing.yieldToLoop, slicing.sliceMs);
  const route = (d: WebhookDependencies): AdmissionRoute => ({
    webhook: 'dragnet',
    handle: (request, waited) => handleDragnet(request, d, waited, slicing, turns),
  });
  const options = { clock: slicing.clock, metrics: deps.metrics, slicing };
  const review = parseAdmissionReview(await parseJsonBodySliced(body, slicing));
  const request = review.request;
  const input = {
    operation: 'CREATE' as const,
    object: request.object as JsonObject,
    kind: request.kind?.kind,
    requestNamespace: request.namespace,
  };
  const floor = (): string => {
    const parsed = JSON.parse(body.toString('utf8')) as { request: { uid: string } };
    return JSON.stringify({ response: { uid: parsed.request.uid, allowed: true } });
  };
  const rows: [string, number][] = [
    ['floor: toString + JSON.parse + answer', await timeAsync(floor)],
    [
      'body → JSON (depth check + JSON.parse)',
      await timeAsync(() => parseJsonBodySliced(body, slicing)),
    ],
    [
      '+ parseAdmissionReview',
      await timeAsync(async () => parseAdmissionReview(await parseJsonBodySliced(body, slicing))),
    ],
    [
      'evaluation alone (evaluateAdmissionSliced)',
      await timeAsync(() => evaluateAdmissionSliced(input, deps, slicing)),
    ],
    [
      'handleDragnet, log level silent',
      await timeAsync(() => handleDragnet(request, silent, 0, slicing, turns)),
    ],
    [
      'handleDragnet, log level info',
      await timeAsync(() => handleDragnet(request, deps, 0, slicing, turns)),
    ],
    [
      'answerAdmission + JSON.stringify (whole path, info)',
      await timeAsync(async () =>
        JSON.stringify(await answerAdmission(route(deps), body, slicing.clock(), options)),
      ),
    ],
    [
      'answerAdmission + JSON.stringify (whole path, silent)',
      await timeAsync(async () =>
        JSON.stringify(await answerAdmission(route(silent), body, slicing.clock(), options)),
      ),
    ],
    [
      'serializeAdmissionReview + JSON.stringify',
      await timeAsync(() =>
        JSON.stringify(serializeAdmissionReview(review.apiVersion, request.uid, { allowed: true })),
      ),
    ],
  ];
  return rows;
}

async function main(): Promise<void> {
  const rules = Number(process.argv[2] ?? 1000);
  const { store } = loadRuleSet(rules);
  // Log lines go where serve's go in a container: a sync write per line (here to /dev/null).
  const logger = createLogger({ level: 'info', destination: process.stdout });
  const base = {
    store: () => store,
    refs: NO_REFS,
    metrics: createMetrics(),
    ready: () => true,
    limits: DEFAULT_WEBHOOK_LIMITS,
    clusterNamespace: CLUSTER_NAMESPACE,
  };
  const deps: WebhookDependencies = { ...base, logger };
  const silent: WebhookDependencies = { ...base, logger: createLogger({ level: 'silent' }) };
  const out: string[] = [`Request path in process — ${environment()}; ${String(rules)} rules`, ''];
  for (const object of ['pod-2kb', 'deployment-10kb', 'deployment-100kb'] as const) {
    out.push(`${object}:`, '', '| stage | median µs |', '| --- | ---: |');
    for (const [name, us] of await stages(object, deps, silent)) {
      out.push(`| ${name} | ${us.toFixed(1)} |`);
    }
    out.push('');
  }
  process.stderr.write(`${out.join('\n')}\n`);
}

await main();
