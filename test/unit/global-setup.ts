import { buildPlaygroundPage } from '../../scripts/playground/build-page.js';

/** Unit tests serve the built playground page (dist/playground): build it once per run. */
export default async function setup(): Promise<void> {
  await buildPlaygroundPage();
}
