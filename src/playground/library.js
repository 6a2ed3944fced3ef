// @ts-check
// The examples library: the built-in example, the recipes of samples/recipes (bundled at build
// time through `virtual:recipes`) and, when the page is served by `kubemod-ts serve --rules`, the
// server's own ModRules (GET server-rules.json; from file:// or a static host that fetch fails
// and the entry is simply not offered).

import { RECIPES } from 'virtual:recipes';
import { byId, el, replace } from './dom.js';
import { EXAMPLE } from './example.js';

/** @typedef {import('./share.js').PlaygroundState} PlaygroundState */

/**
 * @typedef {object} LibraryEntry
 * @property {string} id
 * @property {string} title
 * @property {string} group
 * @property {string} description
 * @property {(current: PlaygroundState) => PlaygroundState} apply the editors after loading it
 */

/** Largest server-rules.json body read, in characters. */
const MAX_SERVER_RULES_CHARS = 1024 * 1024;

/** @returns {LibraryEntry[]} the built-in example and the recipes */
export function bundledEntries() {
  /** @type {LibraryEntry[]} */
  const entries = [
    {
      id: 'builtin',
      title: 'Owner label and pinned images (built in)',
      group: 'Examples',
      description: 'A Patch rule adding an owner label and a Reject rule for unpinned images.',
      apply: () => EXAMPLE,
    },
  ];
  for (const recipe of RECIPES) {
    const operation =
      recipe.operation === 'UPDATE' || recipe.operation === 'DELETE' ? recipe.operation : 'CREATE';
    entries.push({
      id: `recipe:${recipe.name}`,
      title: recipe.title,
      group: recipe.category,
      description: recipe.description,
      apply: () => ({
        rules: recipe.modrules,
        resource: recipe.resource,
        namespace: '',
        operation,
        namespaceManifest: recipe.refs === undefined ? '' : refPart(recipe.refs, 'namespace'),
        nodeManifest: recipe.refs === undefined ? '' : refPart(recipe.refs, 'node'),
        old: recipe.old ?? '',
        cluster: recipe.cluster ?? '',
      }),
    });
  }
  return entries;
}

/**
 * The server's rules as an entry (replacing only the ModRules), or undefined when there are none
 * or the page is not served by kubemod-ts.
 * @returns {Promise<LibraryEntry | undefined>}
 */
export async function serverRulesEntry() {
  // From disk there is no server to ask (and the browser would log the refused request).
  if (location.protocol === 'file:') return undefined;
  /** @type {unknown} */
  let body;
  try {
    const response = await fetch('server-rules.json', { headers: { accept: 'application/json' } });
    if (!response.ok) return undefined;
    const text = await response.text();
    if (text.length > MAX_SERVER_RULES_CHARS) return undefined;
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null) return undefined;
  const { modrules, count } = /** @type {Record<string, unknown>} */ (body);
  if (typeof modrules !== 'string' || typeof count !== 'number' || count < 1) return undefined;
  return {
    id: 'server',
    title: `This server's rules (${String(count)})`,
    group: 'This server',
    description: 'The ModRules kubemod-ts serve was started with (--rules); the other inputs stay.',
    apply: (current) => ({ ...current, rules: modrules }),
  };
}

/**
 * Fills the picker with the entries, grouped.
 * @param {HTMLSelectElement} select
 * @param {readonly LibraryEntry[]} entries
 */
export function fillPicker(select, entries) {
  const chosen = select.value;
  /** @type {Map<string, HTMLOptGroupElement>} */
  const groups = new Map();
  for (const entry of entries) {
    let group = groups.get(entry.group);
    if (group === undefined) {
      group = el('optgroup');
      group.label = entry.group;
      groups.set(entry.group, group);
    }
    const option = el('option', undefined, entry.title);
    option.value = entry.id;
    option.title = entry.description;
    group.append(option);
  }
  replace(select, ...groups.values());
  if (entries.some((entry) => entry.id === chosen)) select.value = chosen;
}

/**
 * Shows the chosen entry's description under the picker (visible, not only a tooltip: it is
 * what says what an example shows).
 * @param {HTMLSelectElement} select
 * @param {readonly LibraryEntry[]} entries
 */
export function describeEntry(select, entries) {
  const entry = entries.find((candidate) => candidate.id === select.value);
  replace(byId('library-description', HTMLElement), entry?.description ?? '');
}

/**
 * One document of refs.yaml (`namespace:` / `node:` holding a manifest) as YAML text: the lines
 * under the key, de-indented. Recipes keep refs.yaml in that simple block form.
 * @param {string} refs
 * @param {'namespace' | 'node'} key
 * @returns {string}
 */
export function refPart(refs, key) {
  const lines = refs.split('\n');
  const start = lines.findIndex((line) => line === `${key}:`);
  if (start < 0) return '';
  /** @type {string[]} */
  const block = [];
  for (const line of lines.slice(start + 1)) {
    if (line !== '' && !/^\s/.test(line)) break;
    block.push(line);
  }
  const indent = Math.min(
    ...block.filter((line) => line.trim() !== '').map((line) => /^\s*/.exec(line)?.[0].length ?? 0),
  );
  const text = block.map((line) => line.slice(Number.isFinite(indent) ? indent : 0)).join('\n');
  return text.trim() === '' ? '' : `${text.trimEnd()}\n`;
}
