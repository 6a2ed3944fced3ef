import { describe, expect, it } from 'vitest';
import { toYaml, unifiedYamlDiff } from './yaml-diff.js';

describe('unifiedYamlDiff', () => {
  it('is empty when nothing changed (whatever the member order)', () => {
    expect(unifiedYamlDiff({ b: 1, a: { y: 2, x: 1 } }, { a: { x: 1, y: 2 }, b: 1 })).toBe('');
  });

  it('shows the changed lines with stable key order', () => {
    const before = { metadata: { name: 'web', labels: { app: 'web' } }, kind: 'Pod' };
    const after = { kind: 'Pod', metadata: { labels: { app: 'web', team: 'a' }, name: 'web' } };
    expect(unifiedYamlDiff(before, after, 'pod/web')).toBe(
      [
        'Index: pod/web',
        '===================================================================',
        '--- pod/web\tbefore',
        '+++ pod/web\tafter',
        '@@ -2,4 +2,5 @@',
        ' metadata:',
        '   labels:',
        '     app: web',
        '+    team: a',
        '   name: web',
        '',
      ].join('\n'),
    );
  });

  it('quotes strings that YAML would read as other types', () => {
    expect(toYaml({ a: 'yes', b: '8080', c: 8080, d: null })).toBe(
      "a: 'yes'\nb: '8080'\nc: 8080\nd: null\n",
    );
  });
});
