import { describe, expect, it } from 'vitest';
import { KubemodError } from '../../errors/catalog.js';
import type { JsonValue } from '../json.js';
import { parseYamlValue } from './yaml-value.js';

describe('parseYamlValue', () => {
  it.each([
    // numbers
    ['8080', 8080],
    ['-12', -12],
    ['+12', 12],
    ['1_000', 1000],
    ['0x1F', 31],
    ['0X1f', 31],
    ['0o17', 15],
    ['017', 15],
    ['0b101', 5],
    ['-0b101', -5],
    ['08', 8],
    ['0', 0],
    ['1.5', 1.5],
    ['-1.5e3', -1500],
    ['1e3', 1000],
    ['1.', 1],
    ['.5', 0.5],
    ['+.5', 0.5],
    ['9223372036854775807', 2 ** 63],
    ['18446744073709551615', 2 ** 64],
    ['1e999', '1e999'],
    ['0x', '0x'],
    ['1.5e', '1.5e'],
    ['1,000', '1,000'],
    ['._5', '._5'],
    ['0xFFFFFFFFFFFFFFFFFF', '0xFFFFFFFFFFFFFFFFFF'],
    ['12:30:00', '12:30:00'],
    // strings
    ['"8080"', '8080'],
    ["'8080'", '8080'],
    ['hello', 'hello'],
    ['hello world', 'hello world'],
    ['"yes"', 'yes'],
    ['2001-12-14', '2001-12-14'],
    ['2001-12-14T21:59:43.10-05:00', '2001-12-14T21:59:43.10-05:00'],
    ['nULL', 'nULL'],
    ['yEs', 'yEs'],
    ['TrUe', 'TrUe'],
    ['!!str 123', '123'],
    ['!custom 123', '123'],
    ['!!binary aGVsbG8=', 'hello'],
    ['|\n  line1\n  line2\n', 'line1\nline2\n'],
    // booleans
    ...['true', 'True', 'TRUE', 'yes', 'Yes', 'YES', 'y', 'Y', 'on', 'On', 'ON'].map(
      (text): [string, JsonValue] => [text, true],
    ),
    ...['false', 'False', 'FALSE', 'no', 'No', 'NO', 'n', 'N', 'off', 'Off', 'OFF'].map(
      (text): [string, JsonValue] => [text, false],
    ),
    ['!!bool yes', true],
    // null
    ['', null],
    ['   ', null],
    ['# just a comment', null],
    ['~', null],
    ['null', null],
    ['Null', null],
    ['NULL', null],
    ['---\n', null],
    // collections
    ['[1, "2", three, yes]', [1, '2', 'three', true]],
    ['{a: 1, b: on}', { a: 1, b: true }],
    ['- a\n- b', ['a', 'b']],
    ['b: 1\na: 2', { a: 2, b: 1 }],
    ['a: 1\na: 2', { a: 2 }],
    ['base: &b {x: 1}\nderived:\n  <<: *b\n  z: 2', { base: { x: 1 }, derived: { x: 1, z: 2 } }],
    // go-yaml v2 reads the key `y` (and `n`, `on`, `off`, …) as a boolean, so it becomes "true"
    ['y: 1\nx: 2', { true: 1, x: 2 }],
    ['!custom {a: 1}', { a: 1 }],
    ['first\n---\nsecond', 'first'],
    // non-string keys
    [
      '1: a\n2.5: b\ntrue: c\nno: d\n0x10: e',
      { '1': 'a', '2.5': 'b', true: 'c', false: 'd', '16': 'e' },
    ],
    ['1e6: x', { '1e+06': 'x' }],
    ['.inf: x', { '.inf': 'x' }],
    ['3.14159265358979: x', { '3.1415927': 'x' }],
  ] as const)('%j → %j', (text, expected) => {
    expect(parseYamlValue(text)).toEqual(expected);
  });

  it('reads the README jaeger-agent container as an object', () => {
    const text = [
      'name: jaeger-agent',
      'image: jaegertracing/jaeger-agent:1.19.2',
      'imagePullPolicy: IfNotPresent',
      'args:',
      '  - --reporter.grpc.host-port=dns:///jaeger-collector-headless.tracing:14250',
      'ports:',
      '  - containerPort: 5775',
      '    name: zk-compact-trft',
      '    protocol: UDP',
      '  - containerPort: 6831',
      '    name: jg-compact-trft',
      '    protocol: UDP',
      'resources:',
      '  limits:',
      '    cpu: "200m"',
      '    memory: 128Mi',
      '',
    ].join('\n');
    expect(parseYamlValue(text)).toEqual({
      name: 'jaeger-agent',
      image: 'jaegertracing/jaeger-agent:1.19.2',
      imagePullPolicy: 'IfNotPresent',
      args: ['--reporter.grpc.host-port=dns:///jaeger-collector-headless.tracing:14250'],
      ports: [
        { containerPort: 5775, name: 'zk-compact-trft', protocol: 'UDP' },
        { containerPort: 6831, name: 'jg-compact-trft', protocol: 'UDP' },
      ],
      resources: { limits: { cpu: '200m', memory: '128Mi' } },
    });
  });

  it('writes object members in sorted order (like Go encoding/json)', () => {
    expect(Object.keys(parseYamlValue('z: 1\na: 2\nm: 3') as object)).toEqual(['a', 'm', 'z']);
  });

  it('keeps __proto__ as an ordinary member', () => {
    const value = parseYamlValue('__proto__: {polluted: 1}') as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
  });

  it.each([
    ['a: [1', 'value is not valid YAML'],
    ['a: b: c', 'value is not valid YAML'],
    ['"unterminated', 'value is not valid YAML'],
    ['!!int abc', 'value is not valid YAML'],
    ['.inf', 'cannot be represented in JSON: +Inf'],
    ['-.Inf', 'cannot be represented in JSON: -Inf'],
    ['[.nan]', 'cannot be represented in JSON: NaN'],
    ['~: x', 'unsupported YAML map key null'],
    ['18446744073709551615: x', 'unsupported YAML map key 18446744073709551615'],
    ['? [a]\n: x', 'unsupported YAML map key (a sequence)'],
  ])('%j fails with PATCH_VALUE', (text, message) => {
    let caught: unknown;
    try {
      parseYamlValue(text);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(KubemodError);
    expect((caught as KubemodError).kind).toBe('PATCH_VALUE');
    expect((caught as KubemodError).message).toContain(message);
  });

  it('rejects alias bombs', () => {
    const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++) {
      lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
    }
    expect(() => parseYamlValue(lines.join('\n'))).toThrow(/YAML aliases expand to more than/);
  });
});
