/**
 * A strict, small XML 1.0 reader for checking the JUnit report in tests: elements, attributes,
 * text and character/entity references; no DTD, comments, CDATA or namespaces (the report has
 * none). Anything not well-formed throws: unescaped `<` or `&`, an unknown entity, mismatched or
 * unclosed tags, duplicate attributes, characters XML cannot hold, content after the root.
 */
export interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: readonly (XmlElement | string)[];
}

const NAME = /[A-Za-z_:][-A-Za-z0-9_.:]*/y;
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const ENTITIES: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
};

export function parseXml(source: string): XmlElement {
  if (NOT_XML.test(source)) throw new Error('a character XML cannot hold');
  let pos = 0;
  const fail = (what: string): never => {
    throw new Error(
      `${what} at offset ${String(pos)}: ${JSON.stringify(source.slice(pos, pos + 30))}`,
    );
  };
  const skipSpace = (): void => {
    while (/\s/.test(source.charAt(pos))) pos++;
  };
  const name = (): string => {
    NAME.lastIndex = pos;
    const match = NAME.exec(source);
    if (match === null) return fail('expected a name');
    pos = NAME.lastIndex;
    return match[0];
  };
  const decode = (raw: string): string =>
    raw.replace(/&([^;&]*);|&/g, (whole, ref: string | undefined) => {
      if (ref === undefined) return fail('a bare &');
      if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
      if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
      const entity = ENTITIES[ref];
      return entity ?? fail(`unknown entity ${whole}`);
    });

  if (source.startsWith('<?xml')) {
    const end = source.indexOf('?>');
    if (end === -1) fail('unterminated declaration');
    pos = end + 2;
  }
  skipSpace();
  const stack: {
    name: string;
    attributes: Record<string, string>;
    children: (XmlElement | string)[];
  }[] = [];
  let root: XmlElement | undefined;
  while (pos < source.length) {
    const top = stack[stack.length - 1];
    if (top === undefined && root !== undefined) {
      skipSpace();
      if (pos < source.length) fail('content after the root element');
      break;
    }
    if (source.startsWith('</', pos)) {
      pos += 2;
      const closing = name();
      skipSpace();
      if (source.charAt(pos) !== '>') fail('expected >');
      pos++;
      const open = stack.pop();
      if (open?.name !== closing) fail(`</${closing}> closes <${open?.name ?? 'nothing'}>`);
      if (open !== undefined) {
        const parent = stack[stack.length - 1];
        if (parent === undefined) root = open;
        else parent.children.push(open);
      }
    } else if (source.charAt(pos) === '<') {
      pos++;
      const element = { name: name(), attributes: {} as Record<string, string>, children: [] };
      for (;;) {
        skipSpace();
        const c = source.charAt(pos);
        if (c === '>' || source.startsWith('/>', pos)) break;
        const attribute = name();
        skipSpace();
        if (source.charAt(pos) !== '=') fail('expected =');
        pos++;
        skipSpace();
        const quote = source.charAt(pos);
        if (quote !== '"' && quote !== "'") fail('expected a quoted value');
        const end = source.indexOf(quote, pos + 1);
        if (end === -1) fail('unterminated attribute');
        const raw = source.slice(pos + 1, end);
        if (raw.includes('<')) fail('< in an attribute value');
        if (attribute in element.attributes) fail(`duplicate attribute ${attribute}`);
        // Attribute-value normalization: literal white space becomes a space.
        element.attributes[attribute] = decode(raw.replace(/[\t\n\r]/g, ' '));
        pos = end + 1;
      }
      if (source.startsWith('/>', pos)) {
        pos += 2;
        const parent = stack[stack.length - 1];
        if (parent === undefined) root = element;
        else parent.children.push(element);
      } else {
        pos++;
        stack.push(element);
      }
    } else {
      if (top === undefined) fail('text outside the root element');
      const end = source.indexOf('<', pos);
      const raw = source.slice(pos, end === -1 ? source.length : end);
      if (raw.includes('>') && raw.includes(']]>')) fail(']]> in text');
      top?.children.push(decode(raw.replace(/\r\n?/g, '\n')));
      pos += raw.length;
    }
  }
  if (stack.length > 0 || root === undefined) fail('unclosed element');
  return root as XmlElement;
}

/** The child elements of `element` named `name`. */
export function childElements(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter(
    (child): child is XmlElement => typeof child !== 'string' && child.name === name,
  );
}

/** The text of an element (its text children joined). */
export function textOf(element: XmlElement): string {
  return element.children.filter((c): c is string => typeof c === 'string').join('');
}
