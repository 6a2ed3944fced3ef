import { describe, expect, it } from 'vitest';
import { DEFAULT_WORK_LIMITS } from '../engine/work-limits.js';
import { parseServeArgs } from './serve-config.js';
import { runServe } from './serve-command.js';

describe('parseServeArgs', () => {
  it('applies defaults and reads flags once into a typed config', () => {
    expect(parseServeArgs(['--rules', 'r'], {})).toEqual({
      kind: 'config',
      config: {
        rulesDir: 'r',
        // Issue 37: only this machine, unless --host says otherwise.
        host: '127.0.0.1',
        port: 8443,
        healthPort: undefined,
        certDir: undefined,
        refsPath: undefined,
        clusterPaths: [],
        clusterNamespace: 'kubemod-system',
        logLevel: 'info',
        bodyLimitBytes: 3 * 1024 * 1024,
        deadlineMs: 8000,
        templateMaxOutputBytes: undefined,
        work: DEFAULT_WORK_LIMITS,
        debounceMs: 200,
        shutdownGraceMs: 10000,
        ui: true,
        helperThreadNice: 15,
      },
    });
    const args = parseServeArgs(
      [
        '--rules=r',
        '--port',
        '0',
        '--cert-dir',
        'c',
        '--body-limit',
        '1024',
        '--template-max-output',
        '500',
        '--rule-work-units',
        '5000',
        '--request-time-ms',
        '100',
        '--helper-thread-nice',
        '0',
        '--health-port',
        '9090',
      ],
      { KUBEMOD_LOG_LEVEL: 'debug' },
    );
    expect(args.kind === 'config' && args.config).toMatchObject({
      port: 0,
      healthPort: 9090,
      certDir: 'c',
      bodyLimitBytes: 1024,
      templateMaxOutputBytes: 500,
      logLevel: 'debug',
      work: { ...DEFAULT_WORK_LIMITS, ruleUnits: 5000, requestMillis: 100 },
      helperThreadNice: 0,
    });
  });

  it('refuses bad flags with the flag name', () => {
    expect(() => parseServeArgs([], {})).toThrow('--rules <dir> is required');
    expect(() => parseServeArgs(['--rules', 'r', '--helper-thread-nice', '20'], {})).toThrow(
      '--helper-thread-nice must be an integer between 0 and 19, got "20"',
    );
    expect(() => parseServeArgs(['--rules', 'r', '--port', '70000'], {})).toThrow(
      '--port must be an integer between 0 and 65535, got "70000"',
    );
    expect(() => parseServeArgs(['--rules', 'r', '--health-port', '65536'], {})).toThrow(
      '--health-port must be an integer between 0 and 65535, got "65536"',
    );
    expect(() => parseServeArgs(['--rules', 'r', '--log-level', 'loud'], {})).toThrow(
      /--log-level must be one of/,
    );
    expect(() => parseServeArgs(['--rules', 'r', '--bogus'], {})).toThrow(/bogus/);
    expect(() => parseServeArgs(['--rules', 'r', '--rule-time-ms', '0'], {})).toThrow(
      '--rule-time-ms must be an integer between 1 and 30000, got "0"',
    );
  });
});

describe('runServe', () => {
  it('prints help and exits 0; exits 2 on bad flags and 1 when the rules cannot be read', async () => {
    const out: string[] = [];
    const io = {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => out.push(t) },
      env: {},
    };
    expect(await runServe(['--help'], io)).toBe(0);
    expect(out.join('')).toContain('Usage: kubemod-ts serve --rules <dir>');
    out.length = 0;
    expect(await runServe(['--port', 'x'], io)).toBe(2);
    expect(out.join('')).toContain('kubemod-ts serve: --rules <dir> is required');
    out.length = 0;
    expect(
      await runServe(['--rules', '/nonexistent/rules', '--port', '0', '--log-level', 'silent'], io),
    ).toBe(1);
    expect(out.join('')).toContain('cannot read the rules directory /nonexistent/rules');
  });
});
