// The PromQL of config/monitoring (the Grafana dashboard's panel and variable queries, the
// PrometheusRule's alert expressions) and the metric names a /metrics exposition offers, for the
// drift test (test/unit/monitoring/monitoring-drift.test.ts).
import { metricNames } from './promql-metric-names.js';

/** One PromQL expression and where it is written, for failure messages. */
export interface Query {
  readonly where: string;
  readonly expr: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(value: unknown): Json[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

/** Grafana's `label_values(<selector>, <label>)`: the selector is PromQL, the label is not. */
const LABEL_VALUES = /^\s*label_values\(\s*(.+?)\s*,\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$/s;

function variableQuery(variable: Json): string | undefined {
  const query = isObject(variable.query) ? variable.query.query : variable.query;
  if (variable.type !== 'query' || typeof query !== 'string') return undefined;
  const selector = LABEL_VALUES.exec(query)?.[1];
  if (selector === undefined) {
    throw new Error(`dashboard variable ${String(variable.name)}: unsupported query ${query}`);
  }
  return selector;
}

/** Every panel query (rows' nested panels included) and every query variable of a dashboard. */
export function dashboardQueries(dashboard: unknown): Query[] {
  if (!isObject(dashboard)) throw new Error('dashboard: not a JSON object');
  const panels = (items: Json[]): Json[] => items.flatMap((p) => [p, ...panels(list(p.panels))]);
  const fromPanels = panels(list(dashboard.panels)).flatMap((panel) =>
    list(panel.targets).map((target, index) => {
      if (typeof target.expr !== 'string' || target.expr.trim() === '') {
        throw new Error(
          `dashboard panel "${String(panel.title)}": target ${String(index)} has no expr`,
        );
      }
      return { where: `dashboard panel "${String(panel.title)}"`, expr: target.expr };
    }),
  );
  const templating = isObject(dashboard.templating) ? dashboard.templating.list : undefined;
  const fromVariables = list(templating).flatMap((variable) => {
    const expr = variableQuery(variable);
    return expr === undefined
      ? []
      : [{ where: `dashboard variable ${String(variable.name)}`, expr }];
  });
  return [...fromPanels, ...fromVariables];
}

/** Every rule expression of a PrometheusRule (alerting and recording rules). */
export function ruleQueries(rule: unknown): Query[] {
  const spec = isObject(rule) ? rule.spec : undefined;
  const groups = isObject(spec) ? list(spec.groups) : [];
  return groups.flatMap((group) =>
    list(group.rules).map((r) => {
      const name = String(r.alert ?? r.record);
      if (typeof r.expr !== 'string') throw new Error(`PrometheusRule rule ${name}: no expr`);
      return { where: `alert ${name}`, expr: r.expr };
    }),
  );
}

/**
 * The series names a Prometheus text exposition offers: each `# TYPE` family (with `_bucket`,
 * `_sum` and `_count` for histograms, `_sum` and `_count` for summaries), whether or not it has a
 * sample yet, and the name of every sample line.
 */
export function exposedMetricNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE ([A-Za-z_:][A-Za-z0-9_:]*) (\w+)$/.exec(line);
    if (type !== null) {
      const [, name = '', kind] = type;
      names.add(name);
      const suffixes =
        kind === 'histogram'
          ? ['_bucket', '_sum', '_count']
          : kind === 'summary'
            ? ['_sum', '_count']
            : [];
      for (const suffix of suffixes) names.add(`${name}${suffix}`);
      continue;
    }
    const sample = /^([A-Za-z_:][A-Za-z0-9_:]*)[{ ]/.exec(line);
    if (sample?.[1] !== undefined) names.add(sample[1]);
  }
  return names;
}

/** `<where>: <metric>` for every metric a query names that the exposition does not offer. */
export function unexposedMetrics(
  queries: readonly Query[],
  exposed: ReadonlySet<string>,
): string[] {
  return queries.flatMap(({ where, expr }) =>
    metricNames(expr)
      .filter((name) => !exposed.has(name))
      .map((name) => `${where}: ${name}`),
  );
}
