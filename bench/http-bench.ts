/**
 * HTTP benchmark of `kubemod-ts serve`: starts the server as a child process on an ephemeral
 * loopback port with the 100 ModRules of bench/fixtures/http/rules, then drives it from a second
 * child process (bench/lib/load-generator.ts) with an AdmissionReview for a Deployment create.
 *
 *   npm run bench:http                    # closed-loop throughput + p99 at 500 req/s, Markdown table
 *   tsx bench/http-bench.ts --generate    # rewrite bench/fixtures/http (committed; run once)
 *
 * Bounded: every phase stops at its duration or request cap, whichever comes first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpus, totalmem, type } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { dump } from 'js-yaml';
import { runServe } from '../src/cli/serve-command.js';
import type { LoadReport, LoadSpec } from './lib/load-generator.js';

const FIXTURES = 'bench/fixtures/http';
const RULES_DIR = `${FIXTURES}/rules`;
const REQUEST_FILE = `${FIXTURES}/deployment-create.json`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--generate')) {
    generateFixtures();
    return;
  }
  if (args.includes('--serve-child')) {
    await serveChild();
    return;
  }
  await bench();
}

/** In the server child: `serve` on 127.0.0.1:0, announcing the port on stdout's first line. */
async function serveChild(): Promise<void> {
  const code = await runServe(
    [
      '--rules',
      RULES_DIR,
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--log-level',
      process.env.BENCH_LOG_LEVEL ?? 'info',
    ],
    {
      stdout: { write: (line: string) => process.stderr.write(line) },
      stderr: process.stderr,
      env: process.env,
      onListening: (server) => process.stdout.write(`${JSON.stringify({ port: server.port })}\n`),
    },
  );
  process.exit(code);
}

async function bench(): Promise<void> {
  const server = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/http-bench.ts', '--serve-child'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  server.stderr.resume(); // the JSON logs (one line per applied patch at info): drained, not kept
  const port = await firstLine(server).then((line) => (JSON.parse(line) as { port: number }).port);
  try {
    const base = {
      port,
      path: '/dragnet-webhook',
      method: 'POST' as const,
      bodyFile: REQUEST_FILE,
    };
    await load({ ...base, mode: 'closed', concurrency: 16, durationMs: 3000, maxRequests: 20_000 }); // warm-up
    const closed = await load({
      ...base,
      mode: 'closed',
      concurrency: 32,
      durationMs: 10_000,
      maxRequests: 200_000,
    });
    const open = await load({
      ...base,
      mode: 'open',
      rate: 500,
      concurrency: 32,
      durationMs: 10_000,
      maxRequests: 5000,
    });
    const cpu = cpus();
    const lines = [
      `kubemod-ts serve, 100 ModRules (${RULES_DIR}), AdmissionReview v1 Deployment CREATE (patched by 3 rules), loopback HTTPS keep-alive.`,
      `Machine: ${cpu[0]?.model ?? 'unknown CPU'} × ${String(cpu.length)}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB, ${type()}, Node ${process.version}.`,
      '',
      '| scenario | requests | errors | req/s | p50 ms | p90 ms | p99 ms | max ms |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      row('closed loop, 32 concurrent', closed),
      row('open loop, 500 req/s offered', open),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    if (closed.errors + closed.non200 + open.errors + open.non200 > 0) process.exitCode = 1;
  } finally {
    server.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => server.once('exit', resolve));
    if (code !== 0) process.stderr.write(`server exited with ${String(code)}\n`);
  }
}

function row(name: string, r: LoadReport): string {
  const f = (n: number): string => n.toFixed(2);
  return `| ${name} | ${String(r.requests)} | ${String(r.errors + r.non200)} | ${r.requestsPerSecond.toFixed(0)} | ${f(r.p50Ms)} | ${f(r.p90Ms)} | ${f(r.p99Ms)} | ${f(r.maxMs)} |`;
}

function load(spec: LoadSpec): Promise<LoadReport> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'bench/lib/load-generator.ts', JSON.stringify(spec)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  return firstLine(child).then((line) => JSON.parse(line) as LoadReport);
}

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    if (child.stdout === null) {
      reject(new Error('child has no stdout'));
      return;
    }
    const lines = createInterface({ input: child.stdout });
    lines.once('line', (line) => {
      lines.close();
      resolve(line);
    });
    child.once('exit', (code) => {
      reject(new Error(`child exited with ${String(code)} before answering`));
    });
  });
}

/**
 * 100 rules: 60 in other namespaces (never candidates), 25 in `bench` that do not match the
 * Deployment (other kinds, other labels), 10 cluster-wide for other kinds, and 5 that match:
 * 3 Patch rules with Go templates and 2 Reject rules whose criteria do not hold.
 */
function generateFixtures(): void {
  mkdirSync(RULES_DIR, { recursive: true });
  const rule = (namespace: string, name: string, spec: object): object => ({
    apiVersion: 'api.kubemod.io/v1beta1',
    kind: 'ModRule',
    metadata: { name, namespace },
    spec,
  });
  const labelPatch = (kind: string, label: string, value: string): object => ({
    type: 'Patch',
    match: [
      { select: '$.kind', matchValue: kind },
      { select: `$.metadata.labels.${label}`, matchValue: value },
    ],
    patch: [
      {
        op: 'add',
        path: `/metadata/annotations/bench.kubemod.io~1${label}`,
        value: '"{{ .Target.metadata.name }}"',
      },
    ],
  });
  const files: Record<string, object[]> = {};
  for (let i = 0; i < 60; i++) {
    const ns = `team-${String(i % 12).padStart(2, '0')}`;
    (files[`${ns}.yaml`] ??= []).push(
      rule(ns, `rule-${String(i)}`, labelPatch('Deployment', 'app', `app-${String(i)}`)),
    );
  }
  const kinds = ['ConfigMap', 'Service', 'Secret', 'StatefulSet', 'Job'];
  for (let i = 0; i < 25; i++) {
    const kind = i < 15 ? (kinds[i % kinds.length] ?? 'ConfigMap') : 'Deployment';
    (files['bench-nonmatching.yaml'] ??= []).push(
      rule('bench', `nonmatching-${String(i)}`, labelPatch(kind, 'tier', `tier-${String(i)}`)),
    );
  }
  for (let i = 0; i < 10; i++) {
    (files['cluster.yaml'] ??= []).push(
      rule('kubemod-system', `cluster-${String(i)}`, {
        ...labelPatch(kinds[i % kinds.length] ?? 'Service', 'team', `t${String(i)}`),
        targetNamespaceRegex: '.*',
      }),
    );
  }
  files['bench-matching.yaml'] = [
    rule('bench', 'owner-label', {
      type: 'Patch',
      match: [{ select: '$.kind', matchValue: 'Deployment' }],
      patch: [
        {
          op: 'add',
          path: '/metadata/labels/owner',
          value: '{{ .Target.metadata.labels.team | default "platform" }}',
        },
      ],
    }),
    rule('bench', 'resource-limits', {
      type: 'Patch',
      executionTier: 5,
      match: [{ select: '$.kind', matchValue: 'Deployment' }],
      patch: [
        {
          op: 'add',
          select: '$.spec.template.spec.containers[*]',
          path: '/spec/template/spec/containers/#0/resources',
          value: 'limits: {cpu: 500m, memory: 256Mi}',
        },
      ],
    }),
    rule('bench', 'sidecar', {
      type: 'Patch',
      executionTier: 10,
      match: [
        { select: '$.kind', matchValue: 'Deployment' },
        { select: '$.spec.template.spec.containers[*].name', matchValue: 'proxy', negate: true },
      ],
      patch: [
        {
          op: 'add',
          path: '/spec/template/spec/containers/-1',
          value: 'name: proxy\nimage: envoyproxy/envoy:v1.30.0',
        },
      ],
    }),
    rule('bench', 'reject-latest', {
      type: 'Reject',
      match: [
        { select: '$.kind', matchValue: 'Deployment' },
        { select: '$.spec.template.spec.containers[*].image', matchRegex: '.*:latest$' },
      ],
      rejectMessage: '{{ .Target.metadata.name }} uses :latest',
    }),
    rule('bench', 'reject-privileged', {
      type: 'Reject',
      match: [
        {
          select: '$.spec.template.spec.containers[*].securityContext.privileged',
          matchValue: 'true',
        },
      ],
    }),
  ];
  let count = 0;
  for (const [file, docs] of Object.entries(files)) {
    count += docs.length;
    writeFileSync(
      `${RULES_DIR}/${file}`,
      docs.map((d) => dump(d, { lineWidth: -1 })).join('---\n'),
    );
  }
  const containers = Array.from({ length: 3 }, (_, i) => ({
    name: `app-${String(i)}`,
    image: `registry.example.com/shop/app-${String(i)}:1.4.${String(i)}`,
    ports: [{ containerPort: 8080 + i }],
    env: Array.from({ length: 10 }, (_, j) => ({
      name: `VAR_${String(j)}`,
      value: `value-${String(j)}`,
    })),
  }));
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'shop', namespace: 'bench', labels: { app: 'shop', team: 'storefront' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'shop' } },
      template: { metadata: { labels: { app: 'shop' } }, spec: { containers } },
    },
  };
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: '2b6f1f0a-6a2c-4c62-9a4e-bench00000001',
      kind: { group: 'apps', version: 'v1', kind: 'Deployment' },
      resource: { group: 'apps', version: 'v1', resource: 'deployments' },
      name: 'shop',
      namespace: 'bench',
      operation: 'CREATE',
      userInfo: { username: 'bench' },
      object: deployment,
      oldObject: null,
      dryRun: false,
    },
  };
  writeFileSync(REQUEST_FILE, `${JSON.stringify(review, null, 2)}\n`);
  process.stdout.write(`wrote ${String(count)} rules to ${RULES_DIR} and ${REQUEST_FILE}\n`);
}

void main();
