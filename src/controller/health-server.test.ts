import { afterEach, describe, expect, it } from 'vitest';
import { createMetrics, type Metrics } from '../observability/metrics.js';
import { startHealthServer, type HealthServer } from './health-server.js';

// /metrics answers any Pod that reaches the health port (issue 37): scrapes in a loop must not
// each cost a render of every series.

let server: HealthServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function counted(): { metrics: Metrics; renders: () => number } {
  const metrics = createMetrics();
  let renders = 0;
  return {
    metrics: {
      ...metrics,
      render: () => {
        renders++;
        return metrics.render();
      },
    },
    renders: () => renders,
  };
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  expect(res.status).toBe(200);
  return res.text();
}

describe('the health server’s /metrics', () => {
  it('renders once per cache period however often it is scraped', async () => {
    const { metrics, renders } = counted();
    let clock = 0;
    server = await startHealthServer({
      host: '127.0.0.1',
      port: 0,
      ready: () => true,
      metrics,
      now: () => clock,
    });
    metrics.rulePatched('shop/label');
    const pages = [];
    for (let i = 0; i < 20; i++) pages.push(await scrape(server.url));
    pages.push(...(await Promise.all(Array.from({ length: 20 }, () => scrape(server?.url ?? '')))));
    expect(renders()).toBe(1);
    expect(new Set(pages).size).toBe(1);
    // Counts made meanwhile appear once the period is over.
    metrics.rulePatched('shop/label');
    clock += 4_999;
    expect(await scrape(server.url)).toContain('kubemod_rule_patches_total{rule="shop/label"} 1');
    clock += 1;
    expect(await scrape(server.url)).toContain('kubemod_rule_patches_total{rule="shop/label"} 2');
    expect(renders()).toBe(2);
  });

  it('renders every scrape with a cache period of 0', async () => {
    const { metrics, renders } = counted();
    server = await startHealthServer({
      host: '127.0.0.1',
      port: 0,
      ready: () => true,
      metrics,
      metricsCacheMs: 0,
    });
    for (let i = 1; i <= 3; i++) {
      metrics.rulePatched('shop/label');
      expect(await scrape(server.url)).toContain(
        `kubemod_rule_patches_total{rule="shop/label"} ${String(i)}`,
      );
    }
    expect(renders()).toBe(3);
  });
});
