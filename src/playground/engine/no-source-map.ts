/**
 * Stands in for the `source-map` package in the page's bundle. Handlebars' code generator uses
 * its SourceNode only when the package loads. Without it, handlebars builds the same template
 * code with a small internal stand-in, so leaving the package out (about 27 KB) changes nothing
 * the page can observe.
 */
export const SourceNode = undefined;
