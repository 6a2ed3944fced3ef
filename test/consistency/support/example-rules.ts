/** Every README example ModRule and every sample ModRule, as YAML text. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..', '..');

export interface RuleFile {
  /** File name to write it under. */
  readonly name: string;
  readonly yaml: string;
}

/** README blocks marked `<!-- example: NAME modrule -->`, then samples/modrules/*.yaml. */
export function exampleRules(): RuleFile[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const fromReadme = [
    ...readme.matchAll(/<!-- example: (\S+) modrule -->\n```yaml\n([\s\S]*?)```/g),
  ].map((m) => ({ name: `readme-${m[1] ?? ''}.yaml`, yaml: m[2] ?? '' }));
  const dir = join(ROOT, 'samples', 'modrules');
  const samples = readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .map((file) => ({ name: `sample-${file}`, yaml: readFileSync(join(dir, file), 'utf8') }));
  return [...fromReadme, ...samples];
}
