import { describe, expect, it } from 'vitest';
import { metricNames, tokenize } from './promql-metric-names.js';

describe('metricNames', () => {
  it.each([
    { name: 'a bare selector', expr: 'up', names: ['up'] },
    {
      name: 'a histogram quantile with an aggregation list and a Grafana range variable',
      expr: 'histogram_quantile(0.99, sum by (le, webhook) (rate(kubemod_webhook_request_duration_seconds_bucket{job=~"$job"}[$__rate_interval])))',
      names: ['kubemod_webhook_request_duration_seconds_bucket'],
    },
    {
      name: 'label values that look like metric names, and a matcher on the label `rule`',
      expr: 'sum without (instance) (rate(a_total{rule="b_total", result!~"warn|audit"}[5m]))',
      names: ['a_total'],
    },
    {
      name: 'a ratio with `on`, `group_left` and `ignoring` lists',
      expr: 'x / on (job) group_left (version) y * ignoring (code) z / on(job) group_right w',
      names: ['x', 'y', 'z', 'w'],
    },
    {
      name: 'set operators, `bool`, `offset`, numbers and durations',
      expr: 'a > bool 1e3 and b offset 1h30m or c unless d > Inf',
      names: ['a', 'b', 'c', 'd'],
    },
    {
      name: 'functions, absent, vector, time and a subquery',
      expr: 'absent(m1) or max_over_time(m2[1h:5m]) - time() < 7 * 86400 or vector(0)',
      names: ['m1', 'm2'],
    },
    {
      name: 'a __name__ matcher, and label_replace strings',
      expr: 'label_replace({__name__="via_name", x="y"}, "dst", "$1", "src", "(.*)")',
      names: ['via_name'],
    },
    {
      name: 'a regex __name__ matcher names nothing for sure',
      expr: '{__name__=~"kubemod_.*"}',
      names: [],
    },
    {
      name: 'upper-case keywords, comments and repeated names',
      expr: 'SUM BY (rule) (m) # m and n\n + m',
      names: ['m'],
    },
    {
      name: 'recording-rule names with colons, topk and an @ modifier',
      expr: 'topk(5, job:kubemod_requests:rate5m @ start())',
      names: ['job:kubemod_requests:rate5m'],
    },
    {
      name: 'strings with escaped quotes and raw strings',
      expr: 'count_values("v\\"x", m{a="q\\"r"}) + label_join(n, `d`, ",", "a")',
      names: ['m', 'n'],
    },
  ])('$name ($expr)', ({ expr, names }) => {
    expect(metricNames(expr)).toEqual(names);
  });

  it.each([
    { expr: 'm{a="b}', error: /unterminated string at offset 4/ },
    { expr: 'rate(m[5m', error: /unclosed \[ at offset 6/ },
    { expr: 'sum(rate(m[5m])', error: /unclosed \( at offset 3/ },
    { expr: 'm{a="b"', error: /unclosed \{ at offset 1/ },
    { expr: 'sum(m})', error: /unexpected \} at offset 5/ },
  ])('refuses $expr, naming the offset', ({ expr, error }) => {
    expect(() => metricNames(expr)).toThrow(error);
  });
});

describe('tokenize', () => {
  it('splits numbers, durations, identifiers, strings, variables and punctuation', () => {
    expect(tokenize('rate(m{a=~"x"}[5m]) > 0.5 * ${v} offset 1h').map((t) => t.kind)).toEqual([
      'ident',
      'punct',
      'ident',
      'punct',
      'ident',
      'punct',
      'punct',
      'string',
      'punct',
      'punct',
      'punct',
      'number',
      'punct',
      'variable',
      'ident',
      'number',
    ]);
  });
});
