// @ts-check
// A YAML code editor (CodeMirror 6): line numbers, highlighting, indentation kept on Enter (the
// YAML language's indentation), errors marked where they are. The keyboard is never trapped: Tab
// right after entering the editor with the keyboard (Tab or Shift+Tab) moves focus on, as it
// does through any other control; once the user types, moves the cursor or clicks, Tab indents,
// and Escape then Tab moves on (CodeMirror's tab focus mode). The page's hint says so.

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
 * @property {'error' | 'warning'} [severity] 'error' unless given
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

/** "Tab moves on" after a keyboard entry lasts until another key is pressed (this is a backstop). */
const TAB_LEAVES_MS = 24 * 60 * 60 * 1000;
/** A focus this soon after a Tab key press came from the keyboard. */
const KEYBOARD_FOCUS_MS = 1000;

/** When Tab was last pressed anywhere in the page (performance.now()). */
let lastTabAt = -Infinity;
let watchingTab = false;

/** Starts noting Tab presses (once, when the first editor is made). */
function watchTab() {
  if (watchingTab) return;
  watchingTab = true;
  document.addEventListener(
    'keydown',
    (event) => {
      if (event.key === 'Tab') lastTabAt = performance.now();
    },
    true,
  );
}

/**
 * Entered with the keyboard: Tab moves on until another key is pressed; entered with a pointer:
 * Tab indents.
 */
const tabLeavesAfterKeyboardEntry = EditorView.domEventHandlers({
  focus: (_event, view) => {
    if (performance.now() - lastTabAt < KEYBOARD_FOCUS_MS) view.setTabFocusMode(TAB_LEAVES_MS);
    return false;
  },
  mousedown: (_event, view) => {
    view.setTabFocusMode(false);
    return false;
  },
});

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
  watchTab();
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
        tabLeavesAfterKeyboardEntry,
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
          severity: item.severity ?? /** @type {const} */ ('error'),
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
