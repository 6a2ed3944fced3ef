import { readFileSync } from 'node:fs';
import { createLogger } from '../src/observability/logger.js';
import { createMetrics } from '../src/observability/metrics.js';
import { loopSlicing } from '../src/webhook/loop-slicing.js';
import { FairTurns } from '../src/webhook/fair-turns.js';
import { handleDragnet } from '../src/webhook/admission/dragnet-handler.js';
import { answerAdmission, type AdmissionRoute } from '../src/webhook/admission/admission-listener.js';
import { DEFAULT_WEBHOOK_LIMITS, type WebhookDependencies } from '../src/webhook/dependencies.js';
import { loadRuleSet, wireBodyPath, type ObjectName } from './lib/fixtures.js';
import { CLUSTER_NAMESPACE } from './lib/fixture-rules.js';

const NO_REFS = { namespace: (): undefined => undefined, node: (): undefined => undefined };
const object = (process.argv[2] ?? 'pod-2kb') as ObjectName;
const seconds = Number(process.argv[3] ?? 5);
const { store } = loadRuleSet(Number(process.argv[4] ?? 1000));
const deps: WebhookDependencies = {
  store: () => store, refs: NO_REFS, metrics: createMetrics(), ready: () => true,
  limits: DEFAULT_WEBHOOK_LIMITS, clusterNamespace: CLUSTER_NAMESPACE,
  logger: createLogger({ level: 'silent' }),
};
const slicing = loopSlicing(deps);
const turns = new FairTurns(slicing.clock, slicing.yieldToLoop);
const route: AdmissionRoute = { webhook: 'dragnet', handle: (r, w) => handleDragnet(r, deps, w, slicing, turns) };
const options = { clock: slicing.clock, metrics: deps.metrics, slicing };
const text = readFileSync(wireBodyPath(object), 'utf8');
async function run(inflight: number, ms: number): Promise<number> {
  let n = 0;
  const end = performance.now() + ms;
  const t0 = performance.now();
  while (performance.now() < end) {
    const batch = [];
    for (let i = 0; i < inflight; i++) batch.push(answerAdmission(route, Buffer.from(text), slicing.clock(), options).then((a) => JSON.stringify(a)));
    await Promise.all(batch);
    n += inflight;
  }
  return ((performance.now() - t0) * 1000) / n;
}
const modes = (process.env.MODES ?? '1,32').split(',').map(Number);
await run(32, 3000);
const res: Record<number, number[]> = {};
for (let r = 0; r < seconds; r++) for (const m of modes) (res[m] ??= []).push(await run(m, 1000));
for (const m of modes) { const a = (res[m] ?? []).sort((x, y) => x - y); process.stderr.write(`${object} inflight ${m}: median ${a[a.length >> 1]?.toFixed(1)} us/req (${a[0]?.toFixed(0)}-${a[a.length - 1]?.toFixed(0)})\n`); }
