// @ts-check
// The notice above the editors: what just replaced them (an example, a shared link) and the
// buttons that take it back (Undo, Restore my draft). A button hides the notice and runs.

import { byId, el, replace } from './dom.js';

/**
 * @param {string} text
 * @param {readonly { label: string, run: () => void }[]} [actions]
 * @param {boolean} [untilEdit] hidden at the user's next edit (an Undo that would throw the edit
 *   away must not outlive it)
 */
export function showNotice(text, actions = [], untilEdit = false) {
  const notice = byId('notice', HTMLElement);
  notice.dataset.untilEdit = String(untilEdit);
  const buttons = actions.map(({ label, run }) => {
    const button = el('button', 'notice-action', label);
    button.type = 'button';
    button.addEventListener('click', () => {
      notice.hidden = true;
      run();
    });
    return button;
  });
  replace(notice, el('span', undefined, text), ...buttons);
  notice.hidden = false;
}

/** The user edited: a notice shown until then goes. */
export function noticeEdited() {
  const notice = byId('notice', HTMLElement);
  if (notice.dataset.untilEdit === 'true') notice.hidden = true;
}
