import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { KubemodError } from '../../errors/catalog.js';
import { compileTemplate } from './index.js';
import { sampleContext } from './test-fixtures.js';

const templateAlphabet = fc.constantFrom(
  '{{',
  '}}',
  '{{-',
  '-}}',
  ' ',
  '.',
  '$',
  '$x',
  ':=',
  '=',
  '|',
  '(',
  ')',
  '"',
  '`',
  "'",
  'a',
  '1',
  '-2',
  '.Target',
  '.metadata',
  '.name',
  'if',
  'else',
  'end',
  'range',
  'with',
  'index',
  'printf',
  '"%d"',
  'len',
  'upper',
  'default',
  'and',
  'or',
  'eq',
  '/*',
  '*/',
  '#each',
  '/each',
  '#if',
  '/if',
  'this',
  '@root',
  '~',
  '\n',
  'nil',
  'true',
  '.#0',
  'constructor',
  '__proto__',
  'lookup',
  '>',
  '!',
  '{{{',
  '}}}',
);

const randomTemplate = fc.array(templateAlphabet, { maxLength: 30 }).map((parts) => parts.join(''));

describe('properties', () => {
  it('compileTemplate and render only ever throw KubemodErrors', () => {
    fc.assert(
      fc.property(fc.oneof(randomTemplate, fc.string({ maxLength: 60 })), (source) => {
        let template;
        try {
          template = compileTemplate(source);
        } catch (err) {
          expect(err).toBeInstanceOf(KubemodError);
          expect((err as KubemodError).kind).toBe('TEMPLATE_PARSE');
          return;
        }
        try {
          const out = template.render(sampleContext(), {
            maxOutputBytes: 10_000,
            maxIterations: 1_000,
          });
          expect(typeof out).toBe('string');
        } catch (err) {
          expect(err).toBeInstanceOf(KubemodError);
          expect(['TEMPLATE_RENDER', 'TEMPLATE_LIMIT']).toContain((err as KubemodError).kind);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('renders text without actions unchanged', () => {
    const text = fc.string({ maxLength: 200 }).filter((s) => !s.includes('{{'));
    fc.assert(
      fc.property(text, (source) => {
        const template = compileTemplate(source);
        expect(template.isStatic).toBe(true);
        expect(template.render(sampleContext())).toBe(source);
      }),
    );
  });

  it('prints any string value verbatim through {{ . }}', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 100 }), (value) => {
        const template = compileTemplate('<{{ .Value }}>');
        expect(template.render({ Value: value })).toBe(`<${value}>`);
      }),
    );
  });
});
