import { describe, expect, it } from 'vitest';
import { parseDocuments } from './load-rules.js';
import { unquotedTemplateHint } from './yaml-template-hint.js';

const RULE = (value: string): string =>
  [
    'apiVersion: api.kubemod.io/v1beta1',
    'kind: ModRule',
    'metadata:',
    '  name: owner',
    'spec:',
    '  type: Patch',
    '  patch:',
    '    - op: add',
    '      path: /metadata/labels/owner',
    `      value: ${value}`,
    '',
  ].join('\n');

describe('unquoted templates in ModRule YAML (issue 39)', () => {
  it.each([
    [
      '{{ .Target.metadata.name }}',
      "write it quoted: value: '{{ .Target.metadata.name }}' (10:14)",
    ],
    [
      '{{ .Target.metadata.labels.team | default "platform" }}',
      `value: '{{ .Target.metadata.labels.team | default "platform" }}' (10:14)`,
    ],
    ["{{ printf '%s' .Target.kind }}", `value: "{{ printf '%s' .Target.kind }}" (10:14)`],
    ['{{ .Target.kind }}  # a comment', "value: '{{ .Target.kind }}' (10:14)"],
  ])('%s is named at its line with the quoted value', (value, expected) => {
    const { errors } = parseDocuments(RULE(value), 'rules.yaml');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('rules.yaml: not valid YAML: line 10: the template');
    expect(errors[0]).toContain('is not quoted');
    expect(errors[0]?.endsWith(expected)).toBe(true);
  });

  it('finds a template in a list item and after earlier documents', () => {
    const text = `${RULE("'{{ .Target.kind }}'")}---\nitems:\n  - {{ .Target.kind }}\n`;
    const { errors } = parseDocuments(text, 'x');
    expect(errors[0]).toMatch(
      /line 13: .* write it quoted: - '\{\{ \.Target\.kind \}\}' \(13:5\)$/,
    );
  });

  it.each([
    ["'{{ .Target.kind }}'", 'quoted'],
    ['"{{ .Target.kind }}"', 'double-quoted'],
    ['{ a: 1 }', 'a flow map'],
  ])('leaves %s (%s) alone', (value) => {
    expect(parseDocuments(RULE(value), 'x').errors).toEqual([]);
  });

  it('keeps the parser reason for other errors', () => {
    const { errors } = parseDocuments('a: [1\nb: 2\n', 'x');
    expect(errors[0]).toMatch(/^x: not valid YAML: /);
    expect(errors[0]).not.toContain('template');
    expect(unquotedTemplateHint('a: {{ x }}\n', 'bad indentation of a sequence entry')).toBe(
      undefined,
    );
  });
});
