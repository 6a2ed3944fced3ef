/** Issue 8's performance targets, printed with the measured value and PASS/MISS. */
export interface TargetResult {
  readonly target: string;
  readonly limit: string;
  readonly measured: string;
  readonly pass: boolean;
}

export function below(target: string, value: number, limit: number, unit: string): TargetResult {
  return {
    target,
    limit: `< ${fmt(limit)} ${unit}`,
    measured: `${fmt(value)} ${unit}`,
    pass: value < limit,
  };
}

export function atLeast(target: string, value: number, limit: number, unit: string): TargetResult {
  return {
    target,
    limit: `≥ ${fmt(limit)} ${unit}`,
    measured: `${fmt(value)} ${unit}`,
    pass: value >= limit,
  };
}

function fmt(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(n >= 10 ? 1 : 2);
}

export function formatTargets(results: readonly TargetResult[]): string {
  const lines = ['| target | limit | measured | result |', '| --- | ---: | ---: | --- |'];
  for (const r of results)
    lines.push(`| ${r.target} | ${r.limit} | ${r.measured} | ${r.pass ? 'PASS' : 'MISS'} |`);
  return lines.join('\n');
}
