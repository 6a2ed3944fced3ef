/**
 * The shape of config/monitoring that Grafana, the Prometheus Operator and the runbooks rely on:
 * every query goes through the dashboard's `datasource` variable, panels do not overlap, and every
 * alert has a severity, a summary, a description and a runbook section in docs/monitoring.md.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: { datasource?: { type: string; uid: string }; expr: string }[];
}

interface Dashboard {
  uid: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: unknown }[] };
}

interface Alert {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const dashboard = JSON.parse(
  readFileSync(join(ROOT, 'config/monitoring/grafana-dashboard.json'), 'utf8'),
) as Dashboard;
const rule = load(readFileSync(join(ROOT, 'config/monitoring/prometheus-rule.yaml'), 'utf8')) as {
  apiVersion: string;
  kind: string;
  spec: { groups: { rules: Alert[] }[] };
};
const alerts = rule.spec.groups.flatMap((group) => group.rules);
const PROMETHEUS = { type: 'prometheus', uid: '${datasource}' };

/** GitHub's anchor of a Markdown heading (lower case, spaces to dashes, punctuation dropped). */
function anchors(markdown: string): Set<string> {
  const headings = [...markdown.matchAll(/^#+ (.+)$/gm)].map((m) => m[1] ?? '');
  return new Set(
    headings.map((h) =>
      h
        .toLowerCase()
        .replace(/[^\w\- ]/g, '')
        .replace(/ /g, '-'),
    ),
  );
}

describe('the Grafana dashboard', () => {
  it('has a stable uid, a current schema and a Prometheus datasource variable', () => {
    expect(dashboard.uid).toBe('kubemod-ts');
    expect(dashboard.schemaVersion).toBe(42);
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
  });

  it('queries only through the datasource variable', () => {
    for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
      expect(panel.datasource, panel.title).toEqual(PROMETHEUS);
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) expect(target.datasource).toEqual(PROMETHEUS);
    }
  });

  it('has unique panel ids and panels that fit the 24-column grid without overlapping', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const taken = new Map<string, string>();
    for (const { title, gridPos: g } of dashboard.panels) {
      expect(g.x + g.w, title).toBeLessThanOrEqual(24);
      for (let x = g.x; x < g.x + g.w; x++) {
        for (let y = g.y; y < g.y + g.h; y++) {
          const cell = `${String(x)},${String(y)}`;
          expect(taken.get(cell), `${title} overlaps`).toBeUndefined();
          taken.set(cell, title);
        }
      }
    }
  });
});

describe('the alert rules', () => {
  const docs = readFileSync(join(ROOT, 'docs/monitoring.md'), 'utf8');

  it('are a PrometheusRule of the Prometheus Operator', () => {
    expect([rule.apiVersion, rule.kind]).toEqual(['monitoring.coreos.com/v1', 'PrometheusRule']);
  });

  it.each(alerts.map((a) => [`${a.alert} (${String(a.labels.severity)})`, a] as const))(
    '%s has a severity, a summary, a description and a runbook section',
    (_name, alert) => {
      expect(['warning', 'critical']).toContain(alert.labels.severity);
      expect(alert.for).toMatch(/^\d+[mh]$/);
      expect(alert.annotations.summary).toMatch(/\.$/);
      expect(alert.annotations.description?.length).toBeGreaterThan(40);
      const url = alert.annotations.runbook_url ?? '';
      expect(url).toBe(
        `https://github.com/kubemod-ts/kubemod-ts/blob/main/docs/monitoring.md#${alert.alert.toLowerCase()}`,
      );
      expect(anchors(docs)).toContain(alert.alert.toLowerCase());
    },
  );
});
