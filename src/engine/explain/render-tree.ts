import { terminalText } from '../terminal-text.js';
import type { ExplainStatus } from './schema.js';

/** The members of a node a generic renderer needs (every explain node has them). */
export interface TreeNode {
  readonly status: ExplainStatus;
  readonly label: string;
  readonly children: readonly TreeNode[];
}

export interface TreeStyle {
  /** ANSI colours (a terminal); false gives plain text (a pipe, a file, NO_COLOR). */
  readonly color: boolean;
}

const GLYPHS: Record<ExplainStatus, string> = {
  applied: '✓',
  matched: '✓',
  rejected: '⊘',
  failed: '!',
  'not-matched': '✗',
  'not-applied': '✗',
  skipped: '-',
  'not-evaluated': '·',
  info: '',
};

const COLORS: Record<ExplainStatus, string> = {
  applied: '32',
  matched: '32',
  rejected: '31',
  failed: '31',
  'not-matched': '33',
  'not-applied': '33',
  skipped: '2',
  'not-evaluated': '2',
  info: '',
};

/**
 * Prints an explain document (or any of its nodes) as a tree: one line per node, its status glyph
 * and label, children indented under box-drawing guides. Knows nothing of node kinds: it reads
 * only `status`, `label` and `children`, as any generic renderer of the schema can. Iterative, so
 * the depth of the document costs no stack.
 */
export function renderExplainTree(root: TreeNode, style: TreeStyle): string {
  const lines: string[] = [line(root, style)];
  // Each entry: a node and the guide prefix of its line; pushed in reverse to print in order.
  const stack: { node: TreeNode; prefix: string; last: boolean }[] = [];
  const pushChildren = (node: TreeNode, prefix: string): void => {
    for (let i = node.children.length - 1; i >= 0; i--) {
      const child = node.children[i];
      if (child !== undefined)
        stack.push({ node: child, prefix, last: i === node.children.length - 1 });
    }
  };
  pushChildren(root, '');
  for (let entry = stack.pop(); entry !== undefined; entry = stack.pop()) {
    const { node, prefix, last } = entry;
    const guide = style.color ? dim(last ? '└─ ' : '├─ ') : last ? '└─ ' : '├─ ';
    lines.push(`${prefix}${guide}${line(node, style)}`);
    pushChildren(
      node,
      `${prefix}${style.color ? dim(last ? '   ' : '│  ') : last ? '   ' : '│  '}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function line(node: TreeNode, style: TreeStyle): string {
  const glyph = GLYPHS[node.status];
  // Labels quote rule and object text; whatever controls they hold must not act on the terminal.
  const label = terminalText(node.label);
  const text = glyph === '' ? label : `${glyph} ${label}`;
  const color = COLORS[node.status];
  return style.color && color !== '' ? `\u001b[${color}m${text}\u001b[0m` : text;
}

function dim(text: string): string {
  return `\u001b[2m${text}\u001b[0m`;
}
