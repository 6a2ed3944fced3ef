import { readdirSync, readFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { load, loadAll } from 'js-yaml';
import { formatFieldErrors } from '../../src/api/index.js';
import { validateModRule } from '../../src/engine/validate-modrule.js';
import { main } from '../../src/cli/main.js';

const root = join(import.meta.dirname, '..', '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** Fenced YAML blocks of the README, with the `<!-- example: NAME ROLE -->` marker above them. */
const blocks = [
  ...readme.matchAll(
    /(?:<!-- example: (\S+) (modrule|resource|output) -->\n)?```yaml\n([\s\S]*?)```/g,
  ),
].map((m) => ({ example: m[1], role: m[2], text: m[3] ?? '' }));
const examples = [...new Set(blocks.flatMap((b) => (b.example === undefined ? [] : [b.example])))];
const part = (example: string, role: string): string => {
  const block = blocks.find((b) => b.example === example && b.role === role);
  if (block === undefined) throw new Error(`README example ${example} has no ${role} block`);
  return block.text;
};

async function dryrun(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(['dryrun', ...args], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: {},
  });
  return { code, stdout, stderr };
}

const readmeModRules = blocks
  .flatMap((b) => loadAll(b.text))
  .filter((d) => (d as { kind?: string } | null)?.kind === 'ModRule');
const sampleDir = join(root, 'samples', 'modrules');
const sampleModRules = readdirSync(sampleDir).flatMap((f) =>
  loadAll(readFileSync(join(sampleDir, f), 'utf8')),
);

describe('README and samples', () => {
  it('has ModRules and worked examples to check', () => {
    expect(readmeModRules.length).toBeGreaterThanOrEqual(4);
    expect(examples.length).toBeGreaterThanOrEqual(3);
    expect(sampleModRules.length).toBeGreaterThanOrEqual(4);
  });

  it.each(
    [...readmeModRules, ...sampleModRules].map((doc) => [
      (doc as { metadata: { name: string } }).metadata.name,
      doc,
    ]),
  )('ModRule %s passes the operator validation', (_name, doc) => {
    const result = validateModRule(doc);
    expect(result.ok ? 'valid' : formatFieldErrors(result.errors)).toBe('valid');
  });

  it.each(examples.filter((e) => blocks.some((b) => b.example === e && b.role === 'output')))(
    'README example %s: dryrun prints the object the README shows',
    async (example) => {
      const dir = mkdtempSync(join(tmpdir(), 'readme-'));
      writeFileSync(join(dir, 'modrule.yaml'), part(example, 'modrule'));
      writeFileSync(join(dir, 'resource.yaml'), part(example, 'resource'));
      const result = await dryrun([
        '--modrule',
        join(dir, 'modrule.yaml'),
        '--resource',
        join(dir, 'resource.yaml'),
      ]);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(load(result.stdout)).toEqual(load(part(example, 'output')));
    },
  );

  it('README Reject example: the rejection reads as the README shows', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'readme-'));
    writeFileSync(join(dir, 'modrule.yaml'), part('no-external-ips', 'modrule'));
    writeFileSync(
      join(dir, 'svc.yaml'),
      'apiVersion: v1\nkind: Service\nmetadata: { name: s, namespace: shop }\nspec: { externalIPs: [1.2.3.4] }\n',
    );
    const result = await dryrun([
      '--modrule',
      join(dir, 'modrule.yaml'),
      '--resource',
      join(dir, 'svc.yaml'),
      '-o',
      'json',
    ]);
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { rejections: string[] }).rejections).toEqual([
      'shop/no-external-ips: "external IPs are not allowed here: [1.2.3.4]"',
    ]);
    expect(readme).toContain(
      'ModRule(s): shop/no-external-ips: "external IPs are not allowed here: [1.2.3.4]"',
    );
  });

  it('"Debugging a rule" shows what `dryrun --explain` really prints (piped, so plain)', async () => {
    const shown = /<!-- explain-output: (.+?) -->\n```text\n([\s\S]*?)```/.exec(readme);
    expect(shown).not.toBeNull();
    const args = (shown?.[1] ?? '')
      .split(' ')
      .map((arg) => (arg.startsWith('-') ? arg : join(root, arg)));
    const result = await dryrun(args);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(shown?.[2]);
    expect(readme).toContain(`kubemod-ts dryrun ${shown?.[1] ?? ''}`);
  });

  it('docs/explain.md: the example is what `dryrun --explain -o json` answers (abridged to its rules)', async () => {
    const docs = readFileSync(join(root, 'docs', 'explain.md'), 'utf8');
    const example = /## Example[\s\S]*?```json\n([\s\S]*?)```/.exec(docs)?.[1] ?? '';
    const shown = JSON.parse(example) as { children: { rule?: string }[] };
    const result = await dryrun([
      '--modrule',
      sampleDir,
      '--resource',
      join(root, 'samples', 'resources', 'deployment-latest.yaml'),
      '--explain',
      '-o',
      'json',
    ]);
    const { explain } = JSON.parse(result.stdout) as {
      explain: { children: { rule?: string }[] };
    };
    const kept = new Set(shown.children.map((c) => c.rule));
    expect(kept.size).toBeGreaterThan(0);
    expect(shown).toEqual({
      ...explain,
      children: explain.children.filter((c) => kept.has(c.rule)),
    });
  });

  it('samples: the sample rules patch and reject the sample Deployments as their comments say', async () => {
    const ok = await dryrun([
      '--modrule',
      sampleDir,
      '--resource',
      join(root, 'samples', 'resources', 'deployment.yaml'),
      '-o',
      'json',
    ]);
    expect(ok.code).toBe(0);
    const patched = JSON.parse(ok.stdout) as {
      patched: {
        metadata: { labels: Record<string, string> };
        spec: { template: { spec: { containers: { name: string }[]; securityContext?: unknown } } };
      };
      rejections: string[];
    };
    expect(patched.rejections).toEqual([]);
    expect(patched.patched.metadata.labels.owner).toBeDefined();
    expect(patched.patched.spec.template.spec.containers.map((c) => c.name)).toContain(
      'log-shipper',
    );
    const latest = await dryrun([
      '--modrule',
      sampleDir,
      '--resource',
      join(root, 'samples', 'resources', 'deployment-latest.yaml'),
      '-o',
      'json',
    ]);
    expect((JSON.parse(latest.stdout) as { rejections: string[] }).rejections).toEqual([
      expect.stringMatching(
        /^default\/reject-latest-images: "Deployment .* uses an image without a pinned tag"$/,
      ),
    ]);
  });
});
