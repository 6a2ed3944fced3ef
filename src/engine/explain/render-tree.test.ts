import { describe, expect, it } from 'vitest';
import { renderExplainTree, type TreeNode } from './render-tree.js';

const leaf = (status: TreeNode['status'], label: string): TreeNode => ({
  status,
  label,
  children: [],
});

const doc: TreeNode = {
  status: 'applied',
  label: 'root',
  children: [
    {
      status: 'applied',
      label: 'rule one',
      children: [leaf('matched', 'item'), leaf('info', 'note')],
    },
    { status: 'skipped', label: 'rule two', children: [] },
    { status: 'failed', label: 'rule three', children: [leaf('not-evaluated', 'later item')] },
  ],
};

// eslint-disable-next-line no-control-regex -- ANSI escape sequences
const stripAnsi = (text: string): string => text.replace(/\u001b\[[0-9;]*m/g, '');

describe('renderExplainTree', () => {
  it('prints one line per node under box-drawing guides, plain without colour', () => {
    expect(renderExplainTree(doc, { color: false })).toBe(
      [
        '✓ root',
        '├─ ✓ rule one',
        '│  ├─ ✓ item',
        '│  └─ note',
        '├─ - rule two',
        '└─ ! rule three',
        '   └─ · later item',
        '',
      ].join('\n'),
    );
  });

  it('colours by status, and the same text remains once the colours are removed', () => {
    const coloured = renderExplainTree(doc, { color: true });
    expect(coloured).toContain('\u001b[32m✓ rule one\u001b[0m');
    expect(coloured).toContain('\u001b[31m! rule three\u001b[0m');
    expect(coloured).toContain('\u001b[2m- rule two\u001b[0m');
    expect(stripAnsi(coloured)).toBe(renderExplainTree(doc, { color: false }));
  });

  it('needs no stack for deep trees', () => {
    let node: TreeNode = leaf('info', 'bottom');
    for (let i = 0; i < 2_000; i++) node = { status: 'info', label: 'x', children: [node] };
    const text = renderExplainTree(node, { color: false });
    expect(text.split('\n')).toHaveLength(2_002);
  });
});
