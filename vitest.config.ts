import { defineConfig } from 'vitest/config';

// In CI, also write a JSON report so .ci/run can print a plain "N passed, N failed" summary.
const ci = process.env.CI === 'true';
const projectArg = process.argv.indexOf('--project');
const reportName =
  process.env.VITEST_REPORT_NAME ??
  (projectArg >= 0 ? process.argv[projectArg + 1] : undefined) ??
  'all';

export default defineConfig({
  test: {
    reporters: ci ? ['default', 'json'] : ['default'],
    outputFile: ci ? { json: `test-results/${reportName}.json` } : {},
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/unit/**/*.test.ts', 'test/hostile/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/unit/global-setup.ts'],
        },
      },
      {
        // Spins every core on purpose (the busy half): alone, so no other test runs beside it.
        test: {
          name: 'consistency',
          include: ['test/consistency/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/unit/global-setup.ts'],
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.browser.test.ts'],
          environment: 'node',
          testTimeout: 60_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.e2e.test.ts'],
          // The real-node files run in their own project (below), with a kubelet.
          exclude: ['test/e2e/**/real-node*.e2e.test.ts', '**/node_modules/**'],
          environment: 'node',
          globalSetup: ['test/e2e/global-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        // A control plane with one real node (containerd, kubelet, kube-proxy): root and Linux,
        // Debian's containerd (scripts/install-node-tools.sh). Opt-in so `e2e` stays as fast.
        test: {
          name: 'e2e-node',
          include: ['test/e2e/**/real-node*.e2e.test.ts'],
          // The fault scenarios run in their own project, on a cluster of their own (below).
          exclude: ['test/e2e/**/real-node-faults*.e2e.test.ts', '**/node_modules/**'],
          environment: 'node',
          globalSetup: ['test/e2e/real-node-global-setup.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
      {
        // Bounded load on the harness's API server under faults: rollout, upgrade, SIGKILL (under
        // each dragnet failurePolicy), leader killed during apply-to-existing, API server restart,
        // certificate Secret deleted (BENCHMARKS.md). In test:all after e2e-node: its own cluster,
        // so the faults it leaves behind (restarts, a second image) cannot reach the other files.
        test: {
          name: 'e2e-node-faults',
          include: ['test/e2e/**/real-node-faults*.e2e.test.ts'],
          environment: 'node',
          globalSetup: ['test/e2e/real-node-global-setup.ts'],
          testTimeout: 300_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
