// Stops the dev cluster started by `npm run cluster:up` and removes its temp dir.
// Usage: npm run cluster:down
import { readDevClusterState, stopDevCluster } from '../test/cluster/dev-cluster.js';

async function main(): Promise<void> {
  const state = readDevClusterState();
  if (state === undefined) {
    console.log('No dev cluster state found; nothing to stop.');
    return;
  }
  const stopped = await stopDevCluster(state);
  console.log(
    stopped.length > 0 ? `Stopped ${stopped.join(', ')}.` : 'Processes were already gone.',
  );
  console.log(`Removed ${state.dir}.`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
