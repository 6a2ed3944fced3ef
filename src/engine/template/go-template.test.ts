import { describe, expect, it } from 'vitest';
import { KubemodError } from '../../errors/catalog.js';
import { compileTemplate } from './index.js';
import { sampleContext } from './test-fixtures.js';

const render = (source: string, context: Record<string, unknown> = sampleContext()): string =>
  compileTemplate(source).render(context);

describe('KubeMod examples', () => {
  it.each([
    ['{{ .Target.metadata.name }}', 'web-1'],
    ['{{ .Namespace }}', 'prod'],
    ['{{ .SelectedItem }}', 'map[image:docker.io/library/nginx:1.19 name:app]'],
    ['{{ index .SelectedItem "image" }}', 'docker.io/library/nginx:1.19'],
    [
      '{{ index .Target.syntheticRefs.node.metadata.labels "topology.kubernetes.io/region"}}',
      'eu-west-1',
    ],
    ['{{ regexReplaceAll "(.+)/(.*)" .SelectedItem.image "my-repo/${2}" }}', 'my-repo/nginx:1.19'],
    ['{{ regexReplaceAll "(.+)/(.*)" .SelectedItem.image "my-repo/$2" }}', 'my-repo/nginx:1.19'],
    [
      "'One or more of the following external IPs are not allowed {{ .Target.spec.externalIPs }}'",
      "'One or more of the following external IPs are not allowed [1.2.3.4 5.6.7.8]'",
    ],
    ['{{ .Target.metadata.name | upper | quote }}', '"WEB-1"'],
    ['{{ .X | default "foo" }}', 'foo'],
    ['{{ .Namespace | default "foo" }}', 'prod'],
    ['{{ printf "%s-%d" .Namespace (len .Target.spec.containers) }}', 'prod-2'],
    ['{{ .#0 }}/{{ .#1 }}', '1/env'],
    ['{{ range .Target.spec.containers }}{{ .#1 }}{{ end }}', 'envenv'],
  ])('%s', (source, expected) => {
    expect(render(source)).toBe(expected);
  });

  it('renders the jaeger sidecar value, leaving ${…} outside actions alone', () => {
    const source =
      'name: jaeger-agent\nimage: jaegertracing/jaeger-agent:1.18.1\nargs:\n- --jaeger.tags=deployment.name={{ .Target.metadata.name }},pod.namespace={{ .Namespace }},pod.id=${POD_ID:},host.ip=${HOST_IP:}\n- --reporter.grpc.host-port=dns:///jaeger-collector-headless.{{ .Namespace }}:14250\n';
    expect(render(source)).toBe(
      'name: jaeger-agent\nimage: jaegertracing/jaeger-agent:1.18.1\nargs:\n- --jaeger.tags=deployment.name=web-1,pod.namespace=prod,pod.id=${POD_ID:},host.ip=${HOST_IP:}\n- --reporter.grpc.host-port=dns:///jaeger-collector-headless.prod:14250\n',
    );
  });
});

describe('Go printing', () => {
  it.each([
    ['{{ .Target.spec.replicas }}', '3'],
    ['{{ .Target.spec.big }}', '1e+06'],
    ['{{ .Target.spec.ratio }}', '0.25'],
    ['{{ .Target.spec.enabled }}', 'true'],
    ['{{ .Target.metadata.labels }}', 'map[app:web tier:frontend]'],
    ['{{ .Target.metadata.empty }}', 'map[]'],
    ['{{ .Target.metadata.nothing }}', '<no value>'],
    ['{{ .Target.metadata.missing }}', '<no value>'],
    ['{{ .Target.metadata.missing.deeper }}', '<no value>'],
    ['{{ index .Target.metadata.labels "missing" }}', '<no value>'],
    ['{{ $x := .Target.metadata.missing }}{{ $x }}', '<no value>'],
    ['{{ printf "%v" .Target.metadata.missing }}', '<nil>'],
    [
      '{{ .Target.spec.containers }}',
      '[map[image:nginx:1.19 name:nginx ports:[map[containerPort:8080]]] map[image:envoy:1.0 name:sidecar ports:[]]]',
    ],
    [
      '{{ 42 }} {{ -7 }} {{ 1.5 }} {{ 0x1F }} {{ true }} {{ "s" }} {{ `raw\\n` }} {{ \'a\' }}',
      '42 -7 1.5 31 true s raw\\n 97',
    ],
    ['{{ len .Target.spec.big | printf "%d" }}', ''],
    ['{{ add 1000000 0 }}', '1000000'],
    ['{{ print 1 2 "a" "b" 3 }}', '1 2ab3'],
    ['{{ println "a" 1 }}', 'a 1\n'],
  ])('%s', (source, expected) => {
    if (source.startsWith('{{ len .Target.spec.big')) {
      expect(() => render(source)).toThrow(/len of type float64/);
      return;
    }
    expect(render(source)).toBe(expected);
  });
});

describe('printf', () => {
  it.each([
    [
      '{{ printf "%s|%d|%v|%q|%t" "a" 3 .Target.spec.externalIPs "x\\ty" true }}',
      'a|3|[1.2.3.4 5.6.7.8]|"x\\ty"|true',
    ],
    [
      '{{ printf "%f %.2f %e %g" 1.5 3.14159 1234.5678 0.000012 }}',
      '1.500000 3.14 1.234568e+03 1.2e-05',
    ],
    ['{{ printf "%x %X %o %b %c %U" 255 255 8 5 65 65 }}', 'ff FF 10 101 A U+0041'],
    ['{{ printf "%5d|%-5d|%05d|%+d" 42 42 42 42 }}', '   42|42   |00042|+42'],
    // Widths count characters (runes), not UTF-16 units: 😀 is one.
    ['{{ printf "%4s|%-3s|%2s|%1s" "😀x" "é" "😀😀" "abc" }}', '  😀x|é  |😀😀|abc'],
    ['{{ printf "%x" "hi" }}', '6869'],
    ['{{ printf "%d" .Target.spec.replicas }}', '%!d(float64=3)'],
    ['{{ printf "%s" 3 }}', '%!s(int=3)'],
    ['{{ printf "%d %d" 1 }}', '1 %!d(MISSING)'],
    ['{{ printf "%d" 1 2 }}', '1%!(EXTRA int=2)'],
    ['{{ printf "100%%" }}', '100%'],
    ['{{ printf "%v" .Target.metadata.labels }}', 'map[app:web tier:frontend]'],
  ])('%s', (source, expected) => {
    expect(render(source)).toBe(expected);
  });
});

describe('actions and control flow', () => {
  it.each([
    ['{{ if .X }}x{{ else if eq .Namespace "prod" }}p{{ else }}o{{ end }}', 'p'],
    ['{{ if .X }}x{{ else if eq .Namespace "dev" }}d{{ else }}o{{ end }}', 'o'],
    ['{{ if .Target.spec.replicas }}yes{{ end }}', 'yes'],
    ['{{ if .Target.metadata.empty }}yes{{ else }}no{{ end }}', 'no'],
    ['{{ if 0 }}yes{{ else }}no{{ end }}', 'no'],
    ['{{ if "" }}yes{{ else }}no{{ end }}', 'no'],
    ['{{ if .Target.metadata.nothing }}yes{{ else }}no{{ end }}', 'no'],
    ['{{ if not .X }}none{{ end }}', 'none'],
    ['{{ if and .Target .Namespace }}both{{ end }}', 'both'],
    ['{{ or .X "" "third" }}', 'third'],
    ['{{ and 1 0 2 }}', '0'],
    ['{{ if and .X (index .X 5) }}y{{ else }}n{{ end }}', 'n'],
    ['{{ if or .Namespace (index .X 5) }}y{{ end }}', 'y'],
    ['{{ range .Target.spec.containers }}{{ .name }},{{ end }}', 'nginx,sidecar,'],
    [
      '{{ range $i, $c := .Target.spec.containers }}{{ $i }}={{ $c.name }} {{ end }}',
      '0=nginx 1=sidecar ',
    ],
    ['{{ range $c := .Target.spec.containers }}{{ $c.image }};{{ end }}', 'nginx:1.19;envoy:1.0;'],
    [
      '{{ range $k, $v := .Target.metadata.labels }}{{ $k }}:{{ $v }} {{ end }}',
      'app:web tier:frontend ',
    ],
    [
      '{{ range .Target.spec.containers }}{{ $.Namespace }}/{{ .name }} {{ end }}',
      'prod/nginx prod/sidecar ',
    ],
    ['{{ range .X }}x{{ else }}empty{{ end }}', 'empty'],
    ['{{ range .Target.metadata.nothing }}x{{ end }}', ''],
    ['{{ range 3 }}{{ . }}{{ end }}', '012'],
    [
      '{{ range .Target.spec.containers }}{{ range .ports }}{{ .containerPort }}{{ end }}{{ end }}',
      '8080',
    ],
    ['{{ with .Target.metadata.labels }}{{ .app }}{{ end }}', 'web'],
    ['{{ with .X }}x{{ else }}none{{ end }}', 'none'],
    ['{{ with .X }}x{{ else with .Namespace }}{{ . }}{{ end }}', 'prod'],
    ['{{ with $l := .Target.metadata.labels }}{{ $l.tier }}{{ .app }}{{ end }}', 'frontendweb'],
    ['{{ if $n := .Namespace }}{{ $n }}{{ end }}', 'prod'],
    ['{{ $x := .Namespace }}{{ $x }}', 'prod'],
    ['{{ $x := 1 }}{{ range .Target.spec.containers }}{{ $x = add $x 1 }}{{ end }}{{ $x }}', '3'],
    ['{{ $x := "a" }}{{ if true }}{{ $x := "b" }}{{ $x }}{{ end }}{{ $x }}', 'ba'],
    ['{{ $ | kindOf }}', 'map'],
    ['{{ $.Namespace }}', 'prod'],
    ['{{ with .Target }}{{ $.Namespace }}-{{ .kind }}{{ end }}', 'prod-Pod'],
    ['{{ (index .Target.spec.containers 1).name }}', 'sidecar'],
    ['{{ (.Target.metadata).name }}', 'web-1'],
    ['a {{- " b " -}} c', 'a b c'],
    ['a\n  {{- /* comment */ -}}\n  b', 'ab'],
    ['x{{/* comment */}}y', 'xy'],
    ['{{ "a" }}  {{- "b" }}', 'ab'],
    ['{{- 3 }}', '3'],
    ['{{ index .Target.spec.containers 0 "ports" 0 "containerPort" }}', '8080'],
    ['{{ index .Target.spec.externalIPs 1 }}', '5.6.7.8'],
    [
      '{{ len .Target.metadata.labels }} {{ len "héllo" }} {{ len .Target.spec.externalIPs }}',
      '2 6 2',
    ],
    ['{{ slice .Target.spec.externalIPs 1 }}', '[5.6.7.8]'],
    ['{{ slice "abcdef" 1 3 }}', 'bc'],
    [
      '{{ eq 1 1 }} {{ eq "a" "b" "a" }} {{ ne 1 2 }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1 2 }}',
      'true true true true true true false',
    ],
    ['{{ eq .Target.spec.replicas 3 }}', 'true'],
    ['{{ eq .X nil }}', 'true'],
    ['{{ html "<a href=\'x\'>&</a>" }}', '&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;'],
    ['{{ urlquery "a b&c" }}', 'a+b%26c'],
    ['{{ js "it\'s <b>" }}', "it\\'s \\u003Cb\\u003E"],
  ])('%s', (source, expected) => {
    expect(render(source)).toBe(expected);
  });
});

function errorOf(fn: () => unknown): KubemodError {
  try {
    fn();
  } catch (err) {
    if (err instanceof KubemodError) return err;
    throw new Error(`expected a KubemodError, got ${String(err)}`, { cause: err });
  }
  throw new Error('expected an error');
}

describe('parse errors', () => {
  it.each([
    ['{{ nosuchfn .X }}', /nosuchfn/],
    ['{{ .X | nosuchfn }}', /nosuchfn/],
    ['{{ if .X }}unterminated', /missing \{\{end\}\}/],
    ['{{ end }}', /unexpected \{\{end\}\}/],
    ['{{ .X', /unclosed action/],
    ['{{ "abc }}', /unterminated quoted string/],
    ['{{ $undefined }}', /undefined variable "\$undefined"/],
    ['{{ $x = 1 }}', /undefined variable "\$x"/],
    ['{{ .X .Y }}', /can't give argument to non-function/],
    ['{{ .X | .Y }}', /non executable command/],
    ['{{ ( .X }}', /unclosed left paren/],
    ['{{ define "x" }}{{ end }}', /not supported/],
    ['{{ template "x" }}', /not supported/],
    ['{{ nil }}', /nil is not a command/],
    ['{{/* unclosed }}', /unclosed comment/],
    ['{{ /* not a comment */ }}', /unexpected "\/"/],
    ['{{ upperr .X }}', /function "upperr" not defined/],
    ['{{ if $x := 1 }}{{ end }}{{ $x }}', /undefined variable/],
    ['{{ range $i, $c := .X }}{{ end }}{{ $c }}', /undefined variable/],
    ['{{ 1 }', /unexpected "}"/],
    ['{{ 9999999999999999999999 | printf "%d" }}', undefined],
  ])('%s', (source, message) => {
    if (message === undefined) {
      expect(() => compileTemplate(source)).not.toThrow();
      return;
    }
    const err = errorOf(() => compileTemplate(source));
    expect(err.kind).toBe('TEMPLATE_PARSE');
    expect(err.message).toMatch(message);
  });
});

describe('render errors', () => {
  it.each([
    ['{{ index .Target.spec.containers 5 }}', /index out of range: 5/],
    ['{{ index .Target.spec.containers 5 }}', /\{\{ index \.Target\.spec\.containers 5 \}\}/],
    ['{{ .Target.metadata.nothing.x }}', /nil pointer evaluating/],
    ['{{ .Target.metadata.name.x }}', /can't evaluate field x in type string/],
    ['{{ fail "boom" }}', /fail: boom/],
    ['{{ upper 3 }}', /expected string; got int/],
    ['{{ upper .Nope }}', /upper/],
    ['{{ range "abc" }}{{ end }}', /range can't iterate over abc/],
    ['{{ div 1 0 }}', /integer divide by zero/],
    ['{{ upper "a" "b" }}', /wrong number of args for upper: want 1 got 2/],
    ['{{ lt "a" 1 }}', /incompatible types for comparison/],
    ['{{ eq .Target.metadata.labels 1 }}', /non-comparable type/],
    ['{{ regexMatch "(" "x" }}', /regexMatch/],
    ['{{ index .X 1 }}', /index of untyped nil/],
  ])('%s', (source, message) => {
    const template = compileTemplate(source);
    const err = errorOf(() => template.render(sampleContext()));
    expect(err.kind).toBe('TEMPLATE_RENDER');
    expect(err.message).toMatch(message);
  });
});

describe('compile once, render many', () => {
  it('reports static templates and returns them unchanged', () => {
    const template = compileTemplate('plain: ${VALUE} text');
    expect(template.isStatic).toBe(true);
    expect(template.render({})).toBe('plain: ${VALUE} text');
    expect(compileTemplate('{{/* only a comment */}}').isStatic).toBe(false);
  });

  it('renders the same compiled template against many contexts', () => {
    const template = compileTemplate('{{ .Namespace }}-{{ len .Target.spec.containers }}');
    expect(template.source).toBe('{{ .Namespace }}-{{ len .Target.spec.containers }}');
    for (const ns of ['a', 'b', 'c']) {
      expect(template.render({ ...sampleContext(), Namespace: ns })).toBe(`${ns}-2`);
    }
  });

  it('keeps variables isolated between renders', () => {
    const template = compileTemplate(
      '{{ $d := dict "k" .Namespace }}{{ $_ := set $d "n" 1 }}{{ keys $d }}',
    );
    expect(template.render({ Namespace: 'x' })).toBe('[k n]');
    expect(template.render({ Namespace: 'y' })).toBe('[k n]');
  });
});
