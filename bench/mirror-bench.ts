/**
 * Per-element cost of the README's `mirror-images` rule (a select over
 * `containers[? @.image =~ "^bitnami/"]` and a `regexReplaceAll` value) on Deployments whose
 * containers all use `bitnami/` images: the whole evaluation (match, select, one render and one
 * patch operation per container, the final diff), warm, divided by the number of containers.
 * `npm run bench:mirror`; figures go into BENCHMARKS.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { evaluate } from '../src/engine/evaluate.js';
import type { JsonObject } from '../src/engine/json.js';
import { loadModRules } from '../src/engine/load-rules.js';
import { RuleStore } from '../src/engine/store.js';
import { cpuClock } from '../src/engine/cpu-clock.js';
import { measure } from './lib/measure.js';

const SIZES = [1, 10, 20, 30, 100, 200, 250];

function readmeRule(root: string, example: string): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const marker = `<!-- example: ${example} modrule -->\n\`\`\`yaml\n`;
  const start = readme.indexOf(marker);
  if (start < 0) throw new Error(`README has no ${example} modrule block`);
  const from = start + marker.length;
  return readme.slice(from, readme.indexOf('```', from));
}

function deployment(containers: number): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      template: {
        spec: {
          containers: Array.from({ length: containers }, (_, i) => ({
            name: `c${String(i)}`,
            image: `bitnami/app-${String(i)}:1.0`,
          })),
        },
      },
    },
  };
}

function main(): void {
  const root = process.argv[2] ?? process.cwd();
  const loaded = loadModRules(readmeRule(root, 'mirror-images'), 'README.md', {
    defaultNamespace: 'shop',
    clusterNamespace: 'kubemod-system',
  });
  if (loaded.errors.length > 0) throw new Error(loaded.errors.join('\n'));
  const store = new RuleStore();
  for (const rule of loaded.rules) store.put(rule);
  console.log(
    'containers | patch ops | median µs / request (wall) | p99 µs | µs per element (wall) | µs per element (CPU)',
  );
  const cpu = cpuClock();
  for (const size of SIZES) {
    const object = deployment(size);
    const request = { operation: 'CREATE' as const, namespace: 'shop', object };
    const first = evaluate(store, request);
    if (first.failures.length > 0 || first.patch.length !== size) {
      throw new Error(`mirror-images at ${String(size)}: ${JSON.stringify(first.failures)}`);
    }
    const stats = measure(`mirror-images ${String(size)}`, () => evaluate(store, request), {
      samples: Math.max(20, Math.round(2000 / size)),
      batch: 5,
    });
    // CPU time of the process over a batch: what a busy machine's preemption does not inflate.
    const batch = Math.max(20, Math.round(4000 / size));
    const start = cpu();
    for (let i = 0; i < batch; i++) evaluate(store, request);
    const cpuUs = ((cpu() - start) * 1000) / batch;
    console.log(
      `${String(size)} | ${String(first.patch.length)} | ${stats.medianUs.toFixed(0)} | ${stats.p99Us.toFixed(0)} | ${(stats.medianUs / size).toFixed(1)} | ${(cpuUs / size).toFixed(1)}`,
    );
  }
}

main();
