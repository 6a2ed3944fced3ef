/**
 * What must never reach a terminal raw, written out independently of terminal-text.ts: C0
 * controls but tab and line feed, DEL, C1 controls, line and paragraph separators, bidi controls.
 */
export const FORBIDDEN =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;
