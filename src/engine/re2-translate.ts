/**
 * The JavaScript-to-RE2 pattern translation the native `re2` addon applies before RE2 sees a
 * pattern (node-re2's lib/pattern.cc, translateRegExp), so that re2js reads every pattern as the
 * server does: `\cX` becomes `\xNN`, `\uXXXX` (1 to 4 hex digits) `\x{XXXX}`, `\u{…}` `\x{…}`,
 * `\p{Letter}`-style long Unicode class names their short names (`Script=` and `sc=` dropped),
 * `/` is escaped, `(?<name>` becomes `(?P<name>`, and an empty pattern `(?:)`.
 */
export function translatePattern(pattern: string): string {
  if (pattern === '') return '(?:)';
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern.charAt(i);
    if (ch === '\\' && i + 1 < pattern.length) {
      const next = pattern.charAt(i + 1);
      const translated = translateEscape(pattern, i, next);
      out += translated.text;
      i = translated.next;
      continue;
    }
    if (ch === '/') {
      out += '\\/';
      i += 1;
      continue;
    }
    if (
      ch === '(' &&
      pattern.startsWith('?<', i + 1) &&
      pattern.charAt(i + 3) !== '=' &&
      pattern.charAt(i + 3) !== '!'
    ) {
      out += '(?P<';
      i += 3;
      continue;
    }
    out += ch;
    i += 1;
  }
  return out;
}

function translateEscape(
  pattern: string,
  at: number,
  next: string,
): { text: string; next: number } {
  switch (next) {
    case 'c': {
      const letter = pattern.charAt(at + 2);
      if (/^[A-Z]$/.test(letter)) {
        const code = letter.charCodeAt(0) - 64;
        return { text: `\\x${hexDigit(code >> 4)}${hexDigit(code)}`, next: at + 3 };
      }
      return { text: '\\c', next: at + 2 };
    }
    case 'u': {
      const first = pattern.charAt(at + 2);
      if (isHex(first)) {
        let digits = first;
        let i = at + 3;
        while (digits.length < 4 && i < pattern.length && isHex(pattern.charAt(i))) {
          digits += pattern.charAt(i);
          i += 1;
        }
        return { text: `\\x{${digits}}`, next: i };
      }
      if (first === '{') return { text: '\\x', next: at + 2 };
      return { text: '\\u', next: at + 2 };
    }
    case 'p':
    case 'P': {
      if (pattern.charAt(at + 2) === '{') {
        const close = pattern.indexOf('}', at + 3);
        if (close !== -1) {
          const name = shortClassName(pattern.slice(at + 3, close));
          return {
            text: name.length === 1 ? `\\${next}${name}` : `\\${next}{${name}}`,
            next: close + 1,
          };
        }
      }
      return { text: `\\${next}`, next: at + 2 };
    }
    default: {
      // One code point after the backslash, kept as it is (a surrogate pair is two units).
      const code = pattern.codePointAt(at + 1) ?? 0;
      const width = code > 0xffff ? 2 : 1;
      return { text: pattern.slice(at, at + 1 + width), next: at + 1 + width };
    }
  }
}

const UNICODE_CLASSES: Readonly<Record<string, string>> = {
  Uppercase_Letter: 'Lu',
  Lowercase_Letter: 'Ll',
  Titlecase_Letter: 'Lt',
  Cased_Letter: 'LC',
  Modifier_Letter: 'Lm',
  Other_Letter: 'Lo',
  Letter: 'L',
  Nonspacing_Mark: 'Mn',
  Spacing_Mark: 'Mc',
  Enclosing_Mark: 'Me',
  Mark: 'M',
  Decimal_Number: 'Nd',
  Letter_Number: 'Nl',
  Other_Number: 'No',
  Number: 'N',
  Connector_Punctuation: 'Pc',
  Dash_Punctuation: 'Pd',
  Open_Punctuation: 'Ps',
  Close_Punctuation: 'Pe',
  Initial_Punctuation: 'Pi',
  Final_Punctuation: 'Pf',
  Other_Punctuation: 'Po',
  Punctuation: 'P',
  Math_Symbol: 'Sm',
  Currency_Symbol: 'Sc',
  Modifier_Symbol: 'Sk',
  Other_Symbol: 'So',
  Symbol: 'S',
  Space_Separator: 'Zs',
  Line_Separator: 'Zl',
  Paragraph_Separator: 'Zp',
  Separator: 'Z',
  Control: 'Cc',
  Format: 'Cf',
  Surrogate: 'Cs',
  Private_Use: 'Co',
  Unassigned: 'Cn',
  Other: 'C',
};

function shortClassName(name: string): string {
  if (Object.hasOwn(UNICODE_CLASSES, name)) return UNICODE_CLASSES[name] ?? name;
  if (name.length > 7 && name.startsWith('Script=')) return name.slice(7);
  if (name.length > 3 && name.startsWith('sc=')) return name.slice(3);
  return name;
}

function isHex(ch: string): boolean {
  return /^[0-9A-Fa-f]$/.test(ch);
}

function hexDigit(value: number): string {
  return '0123456789ABCDEF'.charAt(value & 15);
}
