// @ts-check
// A YAML code editor (CodeMirror 6): line numbers, highlighting, indentation kept on Enter (the
// YAML language's indentation), errors marked where they are. Tab indents; as CodeMirror
// documents, Escape then Tab (or Tab right after focusing with the keyboard) moves focus on, so
// the editor never traps the keyboard.

import { indentWithTab } from '@codemirror/commands';
import { yaml } from '@codemirror/lang-yaml';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { keymap } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { basicSetup, EditorView } from 'codemirror';

/**
 * @typedef {object} EditorMark
 * @property {number} from offset in the text
 * @property {number} to offset in the text (>= from)
 * @property {string} message
 */

/**
 * @typedef {object} YamlEditor
 * @property {EditorView} view
 * @property {() => string} text
 * @property {(text: string) => void} setText
 * @property {(marks: readonly EditorMark[]) => void} mark replaces the error marks
 * @property {(offset: number) => void} reveal selects an offset, scrolls it to the middle, focuses
 */

/**
 * @typedef {object} EditorOptions
 * @property {HTMLElement} parent
 * @property {string} id the id of the editable element
 * @property {string} labelledBy the id of its label
 * @property {string} describedBy ids of its hint and error list
 * @property {() => void} onChange called after every change of the text
 * @property {() => void} [onRun] Ctrl/Cmd+Enter
 */

/**
 * YAML colours from the page's stylesheet (`--hl-*`), so that they follow its light and dark
 * schemes (CodeMirror's default colours are made for a light background).
 */
const yamlColours = HighlightStyle.define([
  { tag: [tags.definition(tags.propertyName), tags.propertyName], color: 'var(--hl-key)' },
  { tag: [tags.string, tags.special(tags.string)], color: 'var(--hl-string)' },
  { tag: [tags.number, tags.bool, tags.null, tags.atom], color: 'var(--hl-number)' },
  { tag: [tags.keyword, tags.typeName, tags.labelName], color: 'var(--hl-keyword)' },
  { tag: [tags.comment, tags.meta], color: 'var(--hl-comment)' },
]);

/**
 * The lint marks without the lint package's `data:` SVG images, which the page's policy
 * (`img-src 'self'`) refuses: a wavy underline and a round gutter marker drawn in CSS.
 */
const markTheme = EditorView.theme({
  '.cm-lintRange-error': {
    backgroundImage: 'none',
    textDecoration: 'underline wavy #d12d2d',
    textDecorationSkipInk: 'none',
    textUnderlineOffset: '3px',
  },
  '.cm-lint-marker-error': {
    content: 'normal',
    width: '0.7em',
    height: '0.7em',
    margin: '0.15em',
    borderRadius: '50%',
    backgroundColor: '#e5484d',
  },
});

/**
 * The nonce the server gave this page (on its stylesheet link; see playground-route.ts): the
 * policy admits CodeMirror's style elements only with it. '' from file:// and static hosts.
 * @returns {string}
 */
function styleNonce() {
  const link = document.querySelector('link[rel="stylesheet"]');
  const nonce = link instanceof HTMLLinkElement ? link.nonce : '';
  return nonce === undefined || nonce.startsWith('__') ? '' : nonce;
}

/**
 * @param {EditorOptions} options
 * @returns {YamlEditor}
 */
export function createEditor(options) {
  const view = new EditorView({
    parent: options.parent,
    state: EditorState.create({
      doc: '',
      extensions: [
        keymap.of([
          {
            key: 'Mod-Enter',
            run: () => {
              options.onRun?.();
              return true;
            },
          },
        ]),
        syntaxHighlighting(yamlColours),
        basicSetup,
        keymap.of([indentWithTab]),
        EditorState.tabSize.of(2),
        yaml(),
        lintGutter(),
        markTheme,
        EditorView.cspNonce.of(styleNonce()),
        EditorView.contentAttributes.of({
          id: options.id,
          'aria-labelledby': options.labelledBy,
          'aria-describedby': options.describedBy,
          'aria-multiline': 'true',
          spellcheck: 'false',
          autocapitalize: 'off',
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) options.onChange();
        }),
      ],
    }),
  });
  return {
    view,
    text: () => view.state.doc.toString(),
    setText: (text) => {
      if (text === view.state.doc.toString()) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    mark: (marks) => {
      const length = view.state.doc.length;
      const diagnostics = marks.map((item) => {
        const from = Math.max(0, Math.min(item.from, length));
        return {
          from,
          to: Math.max(from, Math.min(item.to, length)),
          severity: /** @type {const} */ ('error'),
          message: item.message,
        };
      });
      view.dispatch(setDiagnostics(view.state, diagnostics));
      view.contentDOM.setAttribute('aria-invalid', String(diagnostics.length > 0));
      if (diagnostics.length === 0) view.contentDOM.removeAttribute('aria-invalid');
    },
    reveal: (offset) => {
      const at = Math.max(0, Math.min(offset, view.state.doc.length));
      view.dispatch({
        selection: { anchor: at },
        effects: EditorView.scrollIntoView(at, { y: 'center' }),
      });
      view.focus();
    },
  };
}
