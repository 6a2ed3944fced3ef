import type { Page } from 'puppeteer-core';

/** A text element whose colour is below a contrast ratio. */
export interface LowContrast {
  readonly text: string;
  readonly ratio: number;
}

/**
 * The visible text in `selector`'s elements whose contrast with what is behind it is below
 * `minimum` (WCAG AA: 4.5), as axe-core's color-contrast rule measures it: the text colour, with
 * its alpha and the opacity of it and its ancestors, over the nearest backgrounds composited.
 */
export async function lowContrast(
  page: Page,
  selector: string,
  minimum = 4.5,
): Promise<LowContrast[]> {
  return page.$$eval(
    selector,
    (roots, min) => {
      type Rgba = [number, number, number, number];
      const parse = (colour: string): Rgba => {
        const parts =
          /rgba?\(([^)]+)\)/
            .exec(colour)?.[1]
            ?.split(/[\s,/]+/)
            .filter(Boolean) ?? [];
        const [r = 0, g = 0, b = 0, a = 1] = parts.map(Number);
        return [r, g, b, a];
      };
      const over = (top: Rgba, below: Rgba): Rgba => [
        top[0] * top[3] + below[0] * (1 - top[3]),
        top[1] * top[3] + below[1] * (1 - top[3]),
        top[2] * top[3] + below[2] * (1 - top[3]),
        1,
      ];
      const luminance = ([r, g, b]: Rgba): number => {
        const channel = (c: number): number => {
          const s = c / 255;
          return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
        };
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
      };
      const background = (element: Element): Rgba => {
        const layers: Rgba[] = [];
        for (let at: Element | null = element; at !== null; at = at.parentElement) {
          const colour = parse(getComputedStyle(at).backgroundColor);
          if (colour[3] > 0) layers.push(colour);
          if (colour[3] >= 1) break;
        }
        return layers.reduceRight<Rgba>((below, top) => over(top, below), [255, 255, 255, 1]);
      };
      const found: { text: string; ratio: number }[] = [];
      for (const root of roots) {
        for (const element of [root, ...root.querySelectorAll('*')]) {
          const own = [...element.childNodes]
            .filter((node) => node.nodeType === Node.TEXT_NODE)
            .map((node) => node.textContent ?? '')
            .join('')
            .trim();
          if (own === '' || element.getClientRects().length === 0) continue;
          const style = getComputedStyle(element);
          if (style.visibility === 'hidden') continue;
          let opacity = 1;
          for (let at: Element | null = element; at !== null; at = at.parentElement) {
            opacity *= Number(getComputedStyle(at).opacity);
          }
          const behind = background(element);
          const text = parse(style.color);
          const seen = over([text[0], text[1], text[2], text[3] * opacity], behind);
          const [light, dark] = [luminance(seen), luminance(behind)].sort((a, b) => b - a);
          const ratio = ((light ?? 0) + 0.05) / ((dark ?? 0) + 0.05);
          if (ratio < min)
            found.push({ text: own.slice(0, 60), ratio: Math.round(ratio * 100) / 100 });
        }
      }
      return found;
    },
    minimum,
  );
}
