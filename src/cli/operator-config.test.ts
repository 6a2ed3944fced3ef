import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_WORK_LIMITS } from '../engine/work-limits.js';
import {
  certificateExtraDnsNames,
  certificateIpAddresses,
  parseOperatorArgs,
} from './operator-config.js';
import { optInRefusal } from '../authz/apply-opt-in.js';
import { DEFAULT_REPORT_BOUNDS } from '../reports/report-quota.js';

describe('parseOperatorArgs', () => {
  it('has the documented defaults, with the namespace from POD_NAMESPACE', () => {
    const parsed = parseOperatorArgs([], { POD_NAMESPACE: 'ops', POD_NAME: 'kubemod-0' });
    expect(parsed.kind).toBe('config');
    if (parsed.kind !== 'config') return;
    expect(parsed.config).toMatchObject({
      kubeconfig: undefined,
      namespace: 'ops',
      clusterNamespace: 'kubemod-system',
      webhookPort: 9443,
      healthPort: 8081,
      secretName: 'kubemod-webhook-server-cert',
      authorKeySecretName: 'kubemod-author-key',
      serviceName: 'kubemod-webhook-service',
      mutatingWebhookName: 'kubemod-mutating-webhook-configuration',
      validatingWebhookName: 'kubemod-validating-webhook-configuration',
      leaseName: 'kubemod-operator-leader',
      identity: 'kubemod-0',
      webhookUrlBase: undefined,
      work: DEFAULT_WORK_LIMITS,
      dryRun: false,
      auditIntervalMs: 0,
      applyExistingRate: 2,
      applyExistingMaxRate: 10,
      applyExistingMaxRollouts: 2,
      applyExistingRolloutTimeoutMs: 600_000,
      helperThreadNice: 15,
      shutdownDelayMs: 5_000,
      shutdownGraceMs: 10_000,
    });
    // The default delay plus grace fits in the Deployment's terminationGracePeriodSeconds.
    const deployment = readFileSync(
      new URL('../../config/manager/deployment.yaml', import.meta.url),
      'utf8',
    );
    const period = Number(/terminationGracePeriodSeconds: (\d+)/.exec(deployment)?.[1]);
    expect((parsed.config.shutdownDelayMs + parsed.config.shutdownGraceMs) / 1000).toBeLessThan(
      period,
    );
    const drained = parseOperatorArgs(['--shutdown-delay-ms', '0'], {});
    expect(drained.kind === 'config' && drained.config.shutdownDelayMs).toBe(0);
    expect(() => parseOperatorArgs(['--shutdown-delay-ms', '-1'], {})).toThrow(
      /--shutdown-delay-ms/,
    );
    const audited = parseOperatorArgs(
      ['--audit-interval-seconds', '600', '--apply-existing-rate', '0'],
      {},
    );
    expect(audited.kind === 'config' && audited.config).toMatchObject({
      auditIntervalMs: 600_000,
      applyExistingRate: 0,
    });
    expect(() => parseOperatorArgs(['--apply-existing-rate', '-1'], {})).toThrow(
      /--apply-existing-rate/,
    );
    const paced = parseOperatorArgs(
      [
        '--apply-existing-rate',
        '3',
        '--apply-existing-max-rate',
        '20',
        '--apply-existing-max-rollouts',
        '1',
        '--apply-existing-rollout-timeout-seconds',
        '120',
      ],
      {},
    );
    expect(paced.kind === 'config' && paced.config).toMatchObject({
      applyExistingRate: 3,
      applyExistingMaxRate: 20,
      applyExistingMaxRollouts: 1,
      applyExistingRolloutTimeoutMs: 120_000,
    });
    expect(() => parseOperatorArgs(['--apply-existing-max-rate', '0'], {})).toThrow(
      /--apply-existing-max-rate must be an integer between 1 and 10000, got "0"/,
    );
    expect(() => parseOperatorArgs(['--apply-existing-max-rollouts', 'two'], {})).toThrow(
      /--apply-existing-max-rollouts must be an integer between 1 and 1000/,
    );
    const defaults = parseOperatorArgs([], {});
    expect(defaults.kind === 'config' && defaults.config).toMatchObject({
      reportBounds: DEFAULT_REPORT_BOUNDS,
      metricsMaxRules: 1000,
      metricsCacheMs: 5000,
    });
    const bounded = parseOperatorArgs(
      [
        '--report-max-results-per-namespace=10',
        '--report-max-results-per-rule=3',
        '--report-max-findings=12',
        '--report-max-passes=0',
        '--metrics-max-rules=50',
        '--metrics-cache-ms=0',
      ],
      {},
    );
    expect(bounded.kind === 'config' && bounded.config).toMatchObject({
      reportBounds: { maxPerNamespace: 10, maxPerRule: 3, maxFindings: 12, maxPasses: 0 },
      metricsMaxRules: 50,
      metricsCacheMs: 0,
    });
    expect(() => parseOperatorArgs(['--report-max-results-per-rule=0'], {})).toThrow(
      /--report-max-results-per-rule must be an integer between 1 and 10000000, got "0"/,
    );
    expect(() => parseOperatorArgs(['--metrics-max-rules=lots'], {})).toThrow(
      /--metrics-max-rules must be an integer/,
    );
    const niced = parseOperatorArgs(['--helper-thread-nice', '10'], {});
    expect(niced.kind === 'config' && niced.config.helperThreadNice).toBe(10);
    expect(() => parseOperatorArgs(['--helper-thread-nice=-1'], {})).toThrow(
      /--helper-thread-nice must be an integer between 0 and 19/,
    );
    const withDryRun = parseOperatorArgs(['--enable-dryrun'], {});
    expect(withDryRun.kind === 'config' && withDryRun.config.dryRun).toBe(true);
    const limited = parseOperatorArgs(
      ['--namespace-work-units', '300000', '--rule-time-ms', '20'],
      {},
    );
    expect(limited.kind === 'config' && limited.config.work).toEqual({
      ...DEFAULT_WORK_LIMITS,
      namespaceUnits: 300_000,
      ruleMillis: 20,
    });
  });

  it('adds loopback SANs in URL mode and rejects bad flags', () => {
    const parsed = parseOperatorArgs(
      [
        '--webhook-host',
        '127.0.0.1',
        '--webhook-url-base',
        'https://127.0.0.1:9443/',
        '--webhook-port',
        '0',
      ],
      {},
    );
    if (parsed.kind !== 'config') throw new Error('expected config');
    expect(parsed.config.webhookUrlBase).toBe('https://127.0.0.1:9443');
    expect(certificateIpAddresses(parsed.config)).toEqual(['127.0.0.1']);
    expect(certificateExtraDnsNames(parsed.config)).toEqual(['localhost']);
    expect(() => parseOperatorArgs(['--webhook-port', 'x'], {})).toThrow(/--webhook-port/);
    expect(() => parseOperatorArgs(['--webhook-url-base', 'http://x'], {})).toThrow(
      /--webhook-url-base/,
    );
    expect(parseOperatorArgs(['--help'], {}).kind).toBe('help');
  });

  it('reads the apply-to-existing namespace opt-in (label by default, regex when given)', () => {
    const parsed = parseOperatorArgs([], {});
    if (parsed.kind !== 'config') throw new Error('expected config');
    const optIn = parsed.config.applyExistingOptIn;
    expect(optIn.label).toEqual({ key: 'apply-to-existing.kubemod.io/enabled', value: 'true' });
    expect(optIn.regex).toBeUndefined();
    const labelled = { metadata: { labels: { 'apply-to-existing.kubemod.io/enabled': 'true' } } };
    expect(optInRefusal(optIn, 'shop', labelled)).toBeUndefined();
    expect(optInRefusal(optIn, 'shop', { metadata: {} })).toBe(
      'apply-to-existing is not enabled in namespace shop: an admin enables it by labelling the namespace apply-to-existing.kubemod.io/enabled=true',
    );
    const custom = parseOperatorArgs(
      [
        '--apply-existing-namespace-label',
        'corp.io/apply=yes',
        '--apply-existing-namespace-regex',
        'team-.*',
      ],
      {},
    );
    if (custom.kind !== 'config') throw new Error('expected config');
    const c = custom.config.applyExistingOptIn;
    expect(optInRefusal(c, 'team-a', undefined)).toBeUndefined();
    // Anchored: the whole name must match.
    expect(optInRefusal(c, 'x-team-a', undefined)).toMatch(/not enabled in namespace x-team-a/);
    expect(
      optInRefusal(c, 'x', { metadata: { labels: { 'corp.io/apply': 'yes' } } }),
    ).toBeUndefined();
    expect(() => parseOperatorArgs(['--apply-existing-namespace-label', 'novalue'], {})).toThrow(
      /--apply-existing-namespace-label must be <label key>=<label value>, got "novalue"/,
    );
    expect(() => parseOperatorArgs(['--apply-existing-namespace-regex', '(open'], {})).toThrow(
      /--apply-existing-namespace-regex "\(open" is not a valid RE2 expression/,
    );
  });

  it('reads --lookup-kinds into typed kinds (default: workloads and ConfigMaps, no Secrets)', () => {
    const parsed = parseOperatorArgs([], {});
    const kinds = parsed.kind === 'config' ? parsed.config.lookupKinds : [];
    expect(kinds.map((k) => k.kind)).toEqual([
      'ConfigMap',
      'Deployment',
      'ReplicaSet',
      'StatefulSet',
      'DaemonSet',
      'Job',
      'CronJob',
    ]);
    const chosen = parseOperatorArgs(['--lookup-kinds', 'Secret@team=a'], {});
    expect(chosen.kind === 'config' && chosen.config.lookupKinds).toMatchObject([
      { kind: 'Secret', resource: 'secrets', labelSelector: 'team=a', metadataOnly: false },
    ]);
    expect(() => parseOperatorArgs(['--lookup-kinds', 'Widget'], {})).toThrow(
      /--lookup-kinds: entry "Widget": unknown kind/,
    );
  });
});
