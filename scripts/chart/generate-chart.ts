// Writes the Helm chart (charts/kubemod-ts) from config/. Templates no longer generated (a config/
// file renamed or dropped) are removed, so the chart never keeps a stale one.
// Usage: npm run chart
//        tsx scripts/chart/generate-chart.ts --out <dir> [--version <v>] [--app-version <v>]
//                                            [--image-digest sha256:...]   (scripts/chart/package.sh)
import { cpSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CHART_DIR } from './chart-sources.js';
import { renderChart } from './render-chart.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      version: { type: 'string' },
      'app-version': { type: 'string' },
      'image-digest': { type: 'string' },
    },
  });
  const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '../..');
  const chartDir = join(repoRoot, CHART_DIR);
  const out = values.out === undefined ? chartDir : resolve(values.out);
  const files = await renderChart(repoRoot, {
    version: values.version,
    appVersion: values['app-version'],
    imageDigest: values['image-digest'],
  });
  if (out !== chartDir) {
    rmSync(out, { recursive: true, force: true });
    cpSync(chartDir, out, { recursive: true });
  }
  const templates = join(out, 'templates');
  mkdirSync(templates, { recursive: true });
  for (const name of readdirSync(templates)) {
    if (!files.has(`templates/${name}`)) rmSync(join(templates, name));
  }
  for (const [path, content] of files) {
    mkdirSync(dirname(join(out, path)), { recursive: true });
    writeFileSync(join(out, path), content);
  }
  console.log(`Wrote ${String(files.size)} files to ${out}.`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
