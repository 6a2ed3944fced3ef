import {
  DEFAULT_SCALAR_STYLE_RULES,
  dump,
  SCALAR_STYLE,
  type ScalarLayout,
  type ScalarStyleRule,
} from 'js-yaml';

/**
 * JSON and YAML outputs that read the same to a program and cannot act on a terminal they are
 * printed to. JSON.stringify escapes the C0 controls but writes C1 controls, DEL, the line
 * separators and bidi controls as they are; js-yaml escapes every control (it double-quotes such
 * strings) but writes bidi controls raw, which reorder what a terminal shows. Here each of them
 * is written as a `\uXXXX` escape instead: the same value for any parser, the same text as before
 * for any document without them.
 */

/** What JSON.stringify leaves raw and a terminal would act on (C0 controls it escapes itself). */
const JSON_RAW = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/** What js-yaml leaves raw in a double-quoted scalar and a terminal would act on. */
const YAML_RAW = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

function unicodeEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * JSON.stringify(value, null, indent) with the characters of JSON_RAW escaped. Outside strings,
 * JSON text is ASCII, so every one of them is inside a string, where `\uXXXX` means the same.
 */
export function safeJson(value: unknown, indent = 2): string {
  return JSON.stringify(value, null, indent).replace(JSON_RAW, unicodeEscape);
}

/** A scalar holding a bidi control is double-quoted, the only style where it can be escaped. */
const doubleQuoteBidi: ScalarStyleRule = (layout: ScalarLayout): void => {
  YAML_RAW.lastIndex = 0;
  if (YAML_RAW.test(layout.node.value)) layout.style = SCALAR_STYLE.DOUBLE_QUOTED;
};

const RULES: readonly ScalarStyleRule[] = [
  ...Object.values(DEFAULT_SCALAR_STYLE_RULES),
  doubleQuoteBidi,
];

/**
 * js-yaml's dump of `value` (line width unlimited, no anchors) with bidi controls escaped: every
 * scalar holding one is double-quoted, so each one left in the text is inside double quotes,
 * where `\uXXXX` means the same character.
 */
export function safeYaml(value: unknown): string {
  return dump(value, { lineWidth: -1, noRefs: true, scalarStyleRules: RULES }).replace(
    YAML_RAW,
    unicodeEscape,
  );
}
