import { describe, expect, it } from 'vitest';
import { didYouMean, editDistance } from './did-you-mean.js';

const EXPECT_KEYS = ['patched', 'patch', 'noChange', 'rejections', 'failures', 'applied'];
const MEMBERS = [
  'resourceManifest',
  'modRules',
  'namespace',
  'operation',
  'syntheticRefs',
  'oldResourceManifest',
];

describe('didYouMean', () => {
  it.each([
    ['nochange', EXPECT_KEYS, 'noChange'],
    ['rejection', EXPECT_KEYS, 'rejections'],
    ['aplied', EXPECT_KEYS, 'applied'],
    ['failrues', EXPECT_KEYS, 'failures'],
    ['modrules', MEMBERS, 'modRules'],
    ['resourcemanifest', MEMBERS, 'resourceManifest'],
    ['synteticRefs', MEMBERS, 'syntheticRefs'],
    ['oldResource', MEMBERS, undefined],
    ['namespaces', MEMBERS, 'namespace'],
    ['xyz', EXPECT_KEYS, undefined],
    ['colour', EXPECT_KEYS, undefined],
    ['', EXPECT_KEYS, undefined],
  ])('%s → %s', (name, known, expected) => {
    expect(didYouMean(name, known)).toBe(expected);
  });

  it('does not compare very long names', () => {
    expect(didYouMean('a'.repeat(100), ['a'.repeat(100)])).toBeUndefined();
  });

  it.each([
    ['', '', 0],
    ['abc', 'abc', 0],
    ['abc', 'acb', 1],
    ['kitten', 'sitting', 3],
    ['', 'abc', 3],
  ])('editDistance(%j, %j) = %i', (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });
});
