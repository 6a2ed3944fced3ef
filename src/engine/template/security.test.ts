import { describe, expect, it } from 'vitest';
import { KubemodError } from '../../errors/catalog.js';
import { compileTemplate } from './index.js';
import { sampleContext } from './test-fixtures.js';

function outcome(
  source: string,
  limits?: { maxOutputBytes?: number; maxIterations?: number },
): string {
  try {
    return `ok:${compileTemplate(source).render(sampleContext(), limits)}`;
  } catch (err) {
    if (err instanceof KubemodError) return err.kind;
    return `UNEXPECTED:${String(err)}`;
  }
}

describe('no way out of the sandbox', () => {
  it.each([
    ['{{ .Target.constructor }}', 'ok:<no value>'],
    ['{{ .constructor.constructor }}', 'ok:<no value>'],
    ['{{ .Target.__proto__ }}', 'ok:<no value>'],
    ['{{ .Target.metadata.name.constructor }}', 'TEMPLATE_RENDER'],
    ['{{ .Target.spec.containers.length }}', 'TEMPLATE_RENDER'],
    ['{{ index .Target "constructor" }}', 'ok:<no value>'],
    ['{{ index .Target "__proto__" }}', 'ok:<no value>'],
    ['{{ get .Target "constructor" }}', 'ok:'],
    ['{{ hasKey .Target "toString" }}', 'ok:false'],
    ['{{ $d := dict "__proto__" "x" }}{{ $d }}', 'ok:map[__proto__:x]'],
    [
      '{{ $d := dict }}{{ $_ := set $d "__proto__" (dict "polluted" 1) }}{{ keys $d }}',
      'ok:[__proto__]',
    ],
    ['{{ (fromJson "{\\"__proto__\\":{\\"p\\":1}}").p }}', 'ok:<no value>'],
    // `lookup` is the cluster lookup (four strings, docs/lookups.md), never handlebars' own.
    ['{{ lookup . "constructor" }}', 'TEMPLATE_RENDER'],
    ['{{ env "HOME" }}', 'TEMPLATE_PARSE'],
    ['{{ expandenv "$HOME" }}', 'TEMPLATE_PARSE'],
    ['{{ call .Target }}', 'TEMPLATE_PARSE'],
    ['{{ readFile "/etc/passwd" }}', 'TEMPLATE_PARSE'],
    ['{{ process }}', 'ok:'],
    ['{{ _field . "constructor" }}', 'TEMPLATE_PARSE'],
    // native handlebars
    ['{{#with (lookup this "constructor")}}{{this}}{{/with}}', 'TEMPLATE_RENDER'],
    ['{{ lookup "v1" "ConfigMap" "constructor" "__proto__" }}', 'LOOKUP_UNAVAILABLE'],
    ['{{constructor.constructor}}', 'ok:'],
    ['{{this.constructor}}', 'ok:'],
    ['{{#with this.__proto__}}x{{/with}}', 'ok:'],
    ['{{Target.__proto__.constructor}}', 'ok:'],
    ['{{#each Target.constructor}}x{{/each}}', 'ok:'],
    ['{{log "x"}}', 'TEMPLATE_PARSE'],
    ['{{> partial}}', 'TEMPLATE_PARSE'],
    ['{{#* inline "p"}}x{{/inline}}', 'TEMPLATE_PARSE'],
    ['{{#Target}}x{{/Target}}', 'TEMPLATE_PARSE'],
    ['{{#blockHelperMissing}}x{{/blockHelperMissing}}', 'TEMPLATE_PARSE'],
    ['{{helperMissing 1}}', 'TEMPLATE_PARSE'],
  ])('%s → %s', (source, expected) => {
    expect(outcome(source)).toBe(expected);
  });

  it('never mutates the render context', () => {
    const context = sampleContext();
    const template = compileTemplate(
      '{{ $_ := set .Target.metadata "name" "x" }}{{ $_ := merge .Target.metadata.labels (dict "z" 1) }}{{ .Target.metadata.name }}',
    );
    expect(template.render(context)).toBe('web-1');
    expect(context).toEqual(sampleContext());
  });

  it('does not pollute Object.prototype', () => {
    compileTemplate(
      '{{ $d := dict }}{{ $_ := set $d "__proto__" (dict "polluted" "yes") }}',
    ).render({});
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('output and iteration limits', () => {
  it.each([
    [
      '{{ range until 2000 }}{{ range until 2000 }}x{{ end }}{{ end }}',
      { maxIterations: 10_000_000 },
      'TEMPLATE_LIMIT',
    ],
    [
      '{{ range until 1000 }}{{ range until 1000 }}0123456789{{ end }}{{ end }}',
      { maxIterations: 10_000_000 },
      'TEMPLATE_LIMIT',
    ],
    [
      '{{ range until 1000 }}{{ range until 200 }}{{ $.Namespace }}{{ $.Target.spec.externalIPs }}{{ end }}{{ end }}',
      { maxIterations: 10_000_000 },
      'TEMPLATE_LIMIT',
    ],
    ['{{ repeat 2000000 "x" }}', undefined, 'TEMPLATE_LIMIT'],
    ['{{ repeat 100 "x" }}', { maxOutputBytes: 50 }, 'TEMPLATE_LIMIT'],
    ['{{ range until 100 }}x{{ end }}', { maxIterations: 50 }, 'TEMPLATE_LIMIT'],
    ['{{ until 100000000 }}', undefined, 'TEMPLATE_LIMIT'],
    [
      '{{ $s := "xxxxxxxxxxxxxxxx" }}{{ range until 40 }}{{ $s = cat $s $s }}{{ end }}',
      undefined,
      'TEMPLATE_LIMIT',
    ],
    [
      '{{ $s := "xxxxxxxxxxxxxxxx" }}{{ range until 40 }}{{ $s = printf "%s%s" $s $s }}{{ end }}',
      undefined,
      'TEMPLATE_LIMIT',
    ],
    ['{{ printf "%1000000000d" 1 }}', undefined, 'TEMPLATE_LIMIT'],
    [
      '{{#each Target.spec.containers}}{{#each ../Target.spec.containers}}{{name}}{{/each}}{{/each}}',
      { maxOutputBytes: 10 },
      'TEMPLATE_LIMIT',
    ],
    ['{{ range until 10 }}0123456789{{ end }}', { maxOutputBytes: 100 }, 'ok'],
    ['{{ range until 11 }}0123456789{{ end }}', { maxOutputBytes: 100 }, 'TEMPLATE_LIMIT'],
  ])('%s', (source, limits, expected) => {
    expect(outcome(source, limits).slice(0, expected.length)).toBe(expected);
  });
});

describe('native handlebars templates', () => {
  it.each([
    ['{{Target.metadata.name}}', 'web-1'],
    ['{{ Namespace }}', 'prod'],
    ['{{#if Target.spec.enabled}}on{{else}}off{{/if}}', 'on'],
    ['{{#unless Target.spec.missing}}none{{/unless}}', 'none'],
    [
      '{{#each Target.spec.containers}}{{@index}}:{{name}}{{#unless @last}},{{/unless}}{{/each}}',
      '0:nginx,1:sidecar',
    ],
    ['{{#each Target.metadata.labels}}{{@key}}={{this}};{{/each}}', 'app=web;tier=frontend;'],
    [
      '{{#each Target.spec.containers as |c i|}}{{i}}{{c.image}} {{/each}}',
      '0nginx:1.19 1envoy:1.0 ',
    ],
    ['{{#with Target.metadata}}{{name}}/{{../Namespace}}{{/with}}', 'web-1/prod'],
    ['{{Target.spec.externalIPs}}', '[1.2.3.4 5.6.7.8]'],
    ['{{upper Target.metadata.name}}', 'WEB-1'],
    ['{{join "," Target.spec.externalIPs}}', '1.2.3.4,5.6.7.8'],
    ['{{Target.missing}}|{{Target.metadata.nothing}}', '|'],
    ['{{!-- comment --}}x', 'x'],
    ['{{~ Namespace ~}}', 'prod'],
  ])('%s', (source, expected) => {
    expect(compileTemplate(source).render(sampleContext())).toBe(expected);
  });
});
