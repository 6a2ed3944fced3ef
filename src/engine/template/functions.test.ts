import { describe, expect, it } from 'vitest';
import { compileTemplate } from './index.js';
import { sampleContext } from './test-fixtures.js';

const render = (source: string): string => compileTemplate(source).render(sampleContext());

describe('Sprig string functions', () => {
  it.each([
    ['{{ trim "  a b  " }}', 'a b'],
    ['{{ trimAll "$" "$$5.00$" }}', '5.00'],
    ['{{ trimPrefix "docker.io/" .SelectedItem.image }}', 'library/nginx:1.19'],
    ['{{ trimSuffix ":1.19" .SelectedItem.image }}', 'docker.io/library/nginx'],
    ['{{ upper "abc" }}{{ lower "DEF" }}', 'ABCdef'],
    ['{{ title "hello big world" }}', 'Hello Big World'],
    ['{{ untitle "Hello World" }}', 'hello world'],
    ['{{ repeat 3 "ab" }}', 'ababab'],
    ['{{ substr 1 4 "abcdef" }}', 'bcd'],
    ['{{ nospace "a b\tc" }}', 'abc'],
    ['{{ trunc 3 "abcdef" }}|{{ trunc -2 "abcdef" }}', 'abc|ef'],
    ['{{ abbrev 6 "hello world" }}', 'hel...'],
    [
      '{{ contains "ell" "hello" }} {{ hasPrefix "he" "hello" }} {{ hasSuffix "lo" "hello" }}',
      'true true true',
    ],
    ['{{ quote "a" 1 nil }}', '"a" "1"'],
    ['{{ squote "a" "b" }}', "'a' 'b'"],
    ['{{ cat "a" 1 nil "b" }}', 'a 1 b'],
    ['{{ indent 2 "a\\nb" }}', '  a\n  b'],
    ['{{ nindent 2 "a" }}', '\n  a'],
    ['{{ replace "-" "_" "a-b-c" }}', 'a_b_c'],
    ['{{ plural "item" "items" 1 }} {{ plural "item" "items" 2 }}', 'item items'],
    [
      '{{ snakecase "FirstName" }} {{ kebabcase "FirstName" }} {{ camelcase "http_server" }}',
      'first_name first-name HttpServer',
    ],
    ['{{ split "." "a.b.c" }}', 'map[_0:a _1:b _2:c]'],
    ['{{ (split "." "a.b.c")._1 }}', 'b'],
    ['{{ splitList "," "a,b" }}', '[a b]'],
    ['{{ join "," .Target.spec.externalIPs }}', '1.2.3.4,5.6.7.8'],
    ['{{ list "b" "a" "c" | sortAlpha }}', '[a b c]'],
    ['{{ toString 3 }}{{ toString .Target.spec.big }}', '31e+06'],
    ['{{ wrap 5 "aaa bbb ccc" }}', 'aaa\nbbb\nccc'],
    ['{{ .Target.metadata.name | upper | repeat 2 }}', 'WEB-1WEB-1'],
  ])('%s', (source, expected) => {
    expect(render(source)).toBe(expected);
  });
});

describe('Sprig regex functions (RE2, Go Expand syntax)', () => {
  it.each([
    ['{{ regexMatch "^web-\\\\d+$" .Target.metadata.name }}', 'true'],
    ['{{ regexFind "[0-9]+" "abc123def456" }}', '123'],
    ['{{ regexFindAll "[0-9]+" "a1b22c333" -1 }}', '[1 22 333]'],
    ['{{ regexFindAll "[0-9]+" "a1b22c333" 2 }}', '[1 22]'],
    ['{{ regexReplaceAll "a(x*)b" "-ab-axxb-" "${1}W" }}', '-W-xxW-'],
    ['{{ regexReplaceAll "a(x*)b" "-ab-axxb-" "$1W" }}', '---'],
    [
      '{{ regexReplaceAll "(?P<first>\\\\w+) (?P<last>\\\\w+)" "John Smith" "$last, $first" }}',
      'Smith, John',
    ],
    ['{{ regexReplaceAll "a" "banana" "$$" }}', 'b$n$n$'],
    ['{{ regexReplaceAllLiteral "a(x*)b" "-ab-axxb-" "${1}" }}', '-${1}-${1}-'],
    ['{{ regexSplit "z+" "pizza" -1 }}', '[pi a]'],
    ['{{ regexSplit "z+" "pizza" 1 }}', '[pizza]'],
    ['{{ regexReplaceAll "x*" "abc" "-" }}', '-a-b-c-'],
  ])('%s', (source, expected) => {
    expect(render(source)).toBe(expected);
  });
});

describe('Sprig defaults, flow and type functions', () => {
  it.each([
    [
      '{{ default "d" "" }} {{ default "d" "v" }} {{ default "d" 0 }} {{ default "d" .Nope }}',
      'd v d d',
    ],
    ['{{ empty "" }} {{ empty .Target.metadata.empty }} {{ empty 1 }}', 'true true false'],
    ['{{ coalesce .Nope "" "x" }}', 'x'],
    ['{{ ternary "yes" "no" true }} {{ true | ternary "yes" "no" }}', 'yes yes'],
    [
      '{{ kindOf "a" }} {{ kindOf 1 }} {{ kindOf .Target.spec.replicas }} {{ kindOf .Target.spec.containers }} {{ kindOf .Target }} {{ kindOf nil }}',
      'string int float64 slice map invalid',
    ],
    [
      '{{ typeOf .Target.spec.containers }} {{ typeOf .Target }}',
      '[]interface {} map[string]interface {}',
    ],
    ['{{ kindIs "map" .Target }} {{ typeIs "string" .Namespace }}', 'true true'],
    [
      '{{ deepEqual (list 1 2) (list 1 2) }} {{ deepEqual (dict "a" 1) (dict "a" 2) }}',
      'true false',
    ],
  ])('%s', (source, expected) => {
    expect(render(source)).toBe(expected);
  });
});

describe('Sprig lists and dicts', () => {
  it.each([
    ['{{ list 1 "a" 2.5 }}', '[1 a 2.5]'],
    ['{{ first .Target.spec.externalIPs }} {{ last .Target.spec.externalIPs }}', '1.2.3.4 5.6.7.8'],
    ['{{ rest (list 1 2 3) }} {{ initial (list 1 2 3) }}', '[2 3] [1 2]'],
    [
      '{{ append (list 1) 2 }} {{ prepend (list 1) 0 }} {{ concat (list 1) (list 2 3) }}',
      '[1 2] [0 1] [1 2 3]',
    ],
    [
      '{{ reverse (list 1 2 3) }} {{ uniq (list 1 1 2) }} {{ compact (list 1 "" 0 nil 2) }}',
      '[3 2 1] [1 2] [1 2]',
    ],
    ['{{ has "1.2.3.4" .Target.spec.externalIPs }} {{ without (list 1 2 3) 2 }}', 'true [1 3]'],
    ['{{ slice (list 1 2 3 4) 1 3 }}', '[2 3]'],
    ['{{ until 3 }} {{ untilStep 0 10 4 }}', '[0 1 2] [0 4 8]'],
    ['{{ dict "b" 2 "a" 1 }}', 'map[a:1 b:2]'],
    ['{{ get .Target.metadata.labels "app" }}|{{ get .Target.metadata.labels "nope" }}', 'web|'],
    ['{{ $d := dict "a" 1 }}{{ $_ := set $d "b" 2 }}{{ $d }}', 'map[a:1 b:2]'],
    ['{{ $d := dict "a" 1 "b" 2 }}{{ $_ := unset $d "a" }}{{ $d }}', 'map[b:2]'],
    [
      '{{ hasKey .Target.metadata.labels "app" }} {{ hasKey .Target.metadata.labels "constructor" }}',
      'true false',
    ],
    [
      '{{ keys .Target.metadata.labels }} {{ values .Target.metadata.labels }}',
      '[app tier] [web frontend]',
    ],
    [
      '{{ pick .Target.metadata.labels "app" }} {{ omit .Target.metadata.labels "app" }}',
      'map[app:web] map[tier:frontend]',
    ],
    [
      '{{ merge (dict "a" 1 "n" (dict "x" 1)) (dict "a" 2 "b" 3 "n" (dict "y" 2)) }}',
      'map[a:1 b:3 n:map[x:1 y:2]]',
    ],
    ['{{ mergeOverwrite (dict "a" 1) (dict "a" 2) }}', 'map[a:2]'],
    [
      '{{ dig "metadata" "labels" "app" "none" .Target }} {{ dig "metadata" "x" "none" .Target }}',
      'web none',
    ],
    [
      '{{ $_ := set .Target.metadata.labels "app" "changed" }}{{ .Target.metadata.labels.app }}',
      'web',
    ],
  ])('%s', (source, expected) => {
    expect(render(source)).toBe(expected);
  });
});

describe('Sprig encoding and math', () => {
  it.each([
    ['{{ b64enc "hello" }} {{ b64dec "aGVsbG8=" }}', 'aGVsbG8= hello'],
    ['{{ b64dec "%%%" }}', 'illegal base64 data at input byte 0'],
    ['{{ toJson .Target.metadata.labels }}', '{"app":"web","tier":"frontend"}'],
    [
      '{{ toJson (dict "h" "<a&b>" "n" 1 "f" 1.5 "l" (list true nil)) }}',
      '{"f":1.5,"h":"\\u003ca\\u0026b\\u003e","l":[true,null],"n":1}',
    ],
    ['{{ toPrettyJson (dict "a" (list 1)) }}', '{\n  "a": [\n    1\n  ]\n}'],
    ['{{ toRawJson (dict "h" "<a>") }}', '{"h":"<a>"}'],
    ['{{ (fromJson "{\\"a\\":[1,2]}").a }}', '[1 2]'],
    ['{{ fromJson "not json" }}', '<no value>'],
    ['{{ toYaml .Target.metadata.labels }}', 'app: web\ntier: frontend'],
    ['{{ (fromYaml "a: 1\\nb: [x]").b }}', '[x]'],
    ['{{ sha256sum "abc" }}', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      '{{ add 1 2 3 }} {{ sub 5 2 }} {{ mul 2 3 }} {{ div 7 2 }} {{ mod 7 3 }} {{ add1 1 }}',
      '6 3 6 3 1 2',
    ],
    ['{{ max 1 5 3 }} {{ min 4 2 8 }}', '5 2'],
    ['{{ floor 1.7 }} {{ ceil 1.2 }} {{ round 3.14159 2 }}', '1 2 3.14'],
    [
      '{{ int "42" }} {{ int64 3.9 }} {{ float64 "1.5" }} {{ atoi "12" }} {{ atoi "x" }}',
      '42 3 1.5 12 0',
    ],
    ['{{ add .Target.spec.replicas 1 }}', '4'],
    ['{{ addf 1.5 1 }} {{ mulf 1.5 2 }} {{ divf 1 4 }}', '2.5 3 0.25'],
  ])('%s', (source, expected) => {
    expect(render(source)).toBe(expected);
  });
});
