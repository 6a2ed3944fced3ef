import type { FieldReader } from '../../api/field-reader.js';
import { describe } from '../../api/field-reader.js';
import { describeError } from '../../errors/catalog.js';
import { readRuleSources } from '../read-inputs.js';
import type { RuleEntry } from './rule-set.js';
import { documentCount, isRecord, nonEmptyList } from './test-file-checks.js';
import { TEST_FILE_LIMITS } from './test-file.js';

/**
 * A test file's `rules`: paths of ModRule files or directories (resolved by `resolve`, relative
 * to the test file) and inline ModRules. Problems go on `r`; none are compiled here.
 */
export function readRuleEntries(
  value: unknown,
  r: FieldReader,
  resolve: (path: string) => string,
): RuleEntry[] {
  const items = nonEmptyList(value, 'rules', r, 'ModRule file, directory or inline ModRule');
  if (items === undefined) return [];
  const entries: RuleEntry[] = [];
  let count = 0;
  items.forEach((item, i) => {
    const field = `rules[${String(i)}]`;
    if (typeof item === 'string' && item !== '') {
      const path = resolve(item);
      try {
        const read = readRuleSources([path]);
        for (const error of read.errors) r.fail(field, error);
        const documents = read.sources.reduce((n, s) => n + documentCount(s.documents), 0);
        if (documents === 0 && read.errors.length === 0) r.fail(field, `${path}: holds no ModRule`);
        count += documents;
        entries.push({ kind: 'files', field, sources: read.sources });
      } catch (err) {
        r.fail(field, describeError(err));
      }
    } else if (isRecord(item)) {
      count += 1;
      entries.push({ kind: 'inline', field, document: item });
    } else {
      r.fail(field, `must be a file or directory path or an inline ModRule, got ${describe(item)}`);
    }
  });
  if (count > TEST_FILE_LIMITS.maxRules) {
    r.fail(
      'rules',
      `hold ${String(count)} ModRules; a test file takes at most ${String(TEST_FILE_LIMITS.maxRules)}`,
    );
    return [];
  }
  return entries;
}
