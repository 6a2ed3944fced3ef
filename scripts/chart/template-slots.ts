// Turns a parsed Kubernetes object into Helm template text. The chart generator edits the parsed
// object (scripts/chart/parameterise.ts) and puts a slot token where a template expression goes;
// dumping the object as YAML and then swapping each token for its expression gives the template.
// The tokens are the generator's own unique strings, so the swap never touches config/ text.
import { dump } from 'js-yaml';

/** An expression written after `key: ` on the same line. */
interface InlineSlot {
  readonly kind: 'inline';
  readonly text: string;
}

/**
 * Lines written under `key:`; `render` gets the column where the value's lines start (the key's
 * column plus two) and returns text starting with a newline.
 */
interface BlockSlot {
  readonly kind: 'block';
  readonly render: (indent: number) => string;
}

type Slot = InlineSlot | BlockSlot;

/** Collects the slots of one template file. */
export interface TemplateSlots {
  /** A token standing for `text` as the value of a mapping key. */
  inline(text: string): string;
  /** A token standing for the lines `render(indent)` as the value of a mapping key. */
  block(render: (indent: number) => string): string;
  /** The object as template text: YAML with every token replaced. */
  emit(object: unknown): string;
}

const TOKEN_PREFIX = '__KUBEMOD_CHART_SLOT_';

/** Dumps YAML the way the chart templates are written (block style, no line folding). */
export function dumpYaml(value: unknown): string {
  return dump(value, { lineWidth: -1, noRefs: true, quoteStyle: 'single' });
}

/** `text` with every line indented by `indent` spaces, after a leading newline. */
export function indented(text: string, indent: number): string {
  const pad = ' '.repeat(indent);
  return text
    .trimEnd()
    .split('\n')
    .map((line) => `\n${pad}${line}`)
    .join('');
}

export function createTemplateSlots(): TemplateSlots {
  const slots = new Map<string, Slot>();
  const add = (slot: Slot): string => {
    const token = `${TOKEN_PREFIX}${String(slots.size)}__`;
    slots.set(token, slot);
    return token;
  };
  return {
    inline: (text) => add({ kind: 'inline', text }),
    block: (render) => add({ kind: 'block', render }),
    emit(object) {
      const used = new Set<string>();
      const lines = dumpYaml(object)
        .trimEnd()
        .split('\n')
        .map((line) => {
          const match = /^(\s*(?:- )?)([^\s:]+): (__KUBEMOD_CHART_SLOT_\d+__)$/.exec(line);
          const [, prefix = '', key = '', token = ''] = match ?? [];
          const slot = slots.get(token);
          if (slot === undefined) {
            if (line.includes(TOKEN_PREFIX)) {
              throw new Error(`chart template: slot token in an unsupported place: ${line}`);
            }
            return line;
          }
          used.add(token);
          if (slot.kind === 'inline') return `${prefix}${key}: ${slot.text}`;
          return `${prefix}${key}:${slot.render(prefix.length + 2)}`;
        });
      const unused = [...slots.keys()].filter((token) => !used.has(token));
      if (unused.length > 0) {
        throw new Error(
          `chart template: ${String(unused.length)} slot(s) did not reach the output`,
        );
      }
      return `${lines.join('\n')}\n`;
    },
  };
}
