import { buildPlaygroundPage } from '../../scripts/playground/build-page.js';
import { useRunTmpdir } from './run-tmpdir.js';

/**
 * Unit tests serve the built playground page (dist/playground): build it once per run. Their
 * temporary files go under one directory, removed when the run ends (useRunTmpdir).
 */
export default async function setup(): Promise<() => void> {
  const removeTmpdir = useRunTmpdir('kubemod-ts-tests-');
  await buildPlaygroundPage();
  return removeTmpdir;
}
