/**
 * "Did you mean …?" for a misspelt name: the known name nearest to `name` by edit distance
 * (insertions, deletions, substitutions and swaps of two neighbouring letters, ignoring case),
 * when it is near enough to be a slip rather than another word: at most one edit for names of up
 * to four letters, else at most a third of the name's length. Ties go to the earlier known name.
 * Bounded: names longer than MAX_NAME_CHARS are not compared.
 */
export function didYouMean(name: string, known: readonly string[]): string | undefined {
  if (name.length === 0 || name.length > MAX_NAME_CHARS) return undefined;
  const wanted = name.toLowerCase();
  const limit = name.length <= 4 ? 1 : Math.floor(name.length / 3);
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of known) {
    if (candidate === name || candidate.length > MAX_NAME_CHARS) continue;
    if (Math.abs(candidate.length - name.length) >= bestDistance) continue;
    const distance = editDistance(wanted, candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Longest name compared (keys and member names are short; this bounds the work). */
export const MAX_NAME_CHARS = 64;

/** Optimal string alignment distance (Levenshtein plus adjacent transpositions). */
export function editDistance(a: string, b: string): number {
  let beforePrevious: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (beforePrevious[j - 2] ?? 0) + 1);
      }
      current.push(value);
    }
    beforePrevious = previous;
    previous = current;
  }
  return previous[b.length] ?? 0;
}
