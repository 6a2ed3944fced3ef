import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';

// The structure of the GitHub workflows that the supply-chain controls rely on (issue 37, finding
// 9; docs/threat-model.md): no job that can push, sign or publish runs npm, and every npm install
// anywhere runs no install scripts. The workflows are parsed as YAML, as GitHub reads them.

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const workflowsDir = join(repoRoot, '.github/workflows');

interface Step {
  readonly name?: string;
  readonly run?: string;
  readonly uses?: string;
}
interface Job {
  readonly permissions?: Record<string, string>;
  readonly steps?: readonly Step[];
}
interface Workflow {
  readonly permissions?: Record<string, string> | string;
  readonly jobs: Record<string, Job>;
}

function workflows(): [string, Workflow][] {
  return readdirSync(workflowsDir)
    .filter((file) => file.endsWith('.yml'))
    .map((file) => [file, load(readFileSync(join(workflowsDir, file), 'utf8')) as Workflow]);
}

function jobs(): { where: string; job: Job }[] {
  return workflows().flatMap(([file, workflow]) =>
    Object.entries(workflow.jobs).map(([name, job]) => ({ where: `${file} job ${name}`, job })),
  );
}

/** Permissions that let a job's code publish or sign something. */
const WRITE_SCOPES = ['id-token', 'packages', 'contents', 'attestations', 'pages', 'actions'];

function writes(job: Job): string[] {
  return Object.entries(job.permissions ?? {})
    .filter(([scope, level]) => WRITE_SCOPES.includes(scope) && level === 'write')
    .map(([scope]) => scope);
}

/** Commands that run package-manager code (install scripts, bins from the registry). */
const PACKAGE_MANAGER = /(^|[\s;&|(])(npm|npx|yarn|pnpm|corepack)(\s|$)/m;
const INSTALL = /\bnpm\s+(ci|install|i|add)\b[^\n]*/g;

describe('.github/workflows', () => {
  it('has the release jobs that sign and publish, with write permissions only there', () => {
    const release = workflows().find(([file]) => file === 'release.yml')?.[1];
    expect(release?.permissions).toEqual({});
    const signing = Object.entries(release?.jobs ?? {}).filter(([, job]) =>
      writes(job).includes('id-token'),
    );
    expect(signing.map(([name]) => name)).toEqual(['publish']);
    const steps = signing[0]?.[1].steps ?? [];
    expect(steps.some((step) => step.run?.includes('cosign sign') === true)).toBe(true);
  });

  it.each(jobs().filter(({ job }) => writes(job).length > 0))(
    '$where (write permissions) runs no npm and sets up no Node',
    ({ job }) => {
      for (const step of job.steps ?? []) {
        expect(step.uses ?? '', step.name).not.toMatch(/^actions\/setup-node@/);
        expect(step.run ?? '', step.name).not.toMatch(PACKAGE_MANAGER);
      }
    },
  );

  it.each(jobs())('$where installs npm packages only with --ignore-scripts', ({ job }) => {
    for (const step of job.steps ?? []) {
      for (const install of (step.run ?? '').matchAll(INSTALL)) {
        expect(install[0], step.name).toContain('--ignore-scripts');
      }
    }
  });

  it('compiles re2 explicitly where the tests need it', () => {
    const release = workflows().find(([file]) => file === 'release.yml')?.[1];
    const prepare = release?.jobs['prepare']?.steps ?? [];
    expect(
      prepare.some((step) => step.run?.includes('scripts/release/build-re2.sh') === true),
    ).toBe(true);
  });

  it('installs the Debian archive keyring in the job that builds the image', () => {
    const release = workflows().find(([file]) => file === 'release.yml')?.[1];
    const runs = (release?.jobs['image']?.steps ?? []).map((step) => step.run ?? '').join('\n');
    expect(runs).toMatch(/apt-get install[^\n]*\\?\n?[^\n]*debian-archive-keyring/);
    expect(runs.indexOf('debian-archive-keyring')).toBeLessThan(runs.indexOf('npm run image'));
  });
});

describe('scripts the release runs', () => {
  const read = (path: string): string => readFileSync(join(repoRoot, path), 'utf8');

  it.each([
    'scripts/build-artifact.sh',
    'scripts/image/build-image.sh',
    'scripts/release/assemble.sh',
    'scripts/release/dry-run.sh',
  ])('%s installs npm packages only with --ignore-scripts', (path) => {
    const code = read(path)
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('#'))
      .join('\n');
    for (const install of code.matchAll(INSTALL)) {
      expect(install[0]).toContain('--ignore-scripts');
    }
  });

  it('passes the Debian archive keyring to mmdebstrap, as --keyring and signed-by', () => {
    const script = read('scripts/image/build-image.sh').replace(/\s*\\\n\s*/g, ' ');
    const keyring = /^DEBIAN_KEYRING=(\S+)/m.exec(script)?.[1];
    expect(keyring).toBe('/usr/share/keyrings/debian-archive-keyring.gpg');
    const call = script.split('\n').find((line) => /^\s*mmdebstrap\s/.test(line)) ?? '';
    expect(call).toContain('--keyring="$DEBIAN_KEYRING"');
    expect(call).toContain('[signed-by=$DEBIAN_KEYRING]');
    expect(read('scripts/image/install-tools.sh')).toMatch(
      /debian-archive-keyring\.gpg \] \|\| missing\+=\(debian-archive-keyring\)/,
    );
  });
});
