// @ts-check
// DOM building from text only. Every string the page shows (rule names, messages, values from the
// server or the editors) goes through text nodes: nothing is ever parsed as HTML.

/**
 * @typedef {string | Node | null | undefined | false} Child
 */

/**
 * An element with a class (optional) and children: strings become text nodes.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {string} [className]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, className, ...children) {
  const element = document.createElement(tag);
  if (className !== undefined && className !== '') element.className = className;
  append(element, children);
  return element;
}

/**
 * @param {Element} parent
 * @param {readonly Child[]} children
 */
export function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/**
 * Replaces an element's children.
 * @param {Element} parent
 * @param {...Child} children
 */
export function replace(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
}

/**
 * The element with an id, which the page is known to have.
 * @template {HTMLElement} T
 * @param {string} id
 * @param {new () => T} type
 * @returns {T}
 */
export function byId(id, type) {
  const element = document.getElementById(id);
  if (!(element instanceof type)) throw new Error(`the page has no ${type.name} #${id}`);
  return element;
}
