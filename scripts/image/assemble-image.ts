// Writes the OCI layout and docker's manifest.json for one build and prints the manifest digest.
// Called by scripts/image/build-image.sh with a JSON file holding a BuildInfo.
//
// Usage: tsx scripts/image/assemble-image.ts <build-info.json>
import { readFileSync } from 'node:fs';
import { type BuildInfo, imageSpec } from './image-config.js';
import { writeOciLayout } from './write-oci-layout.js';

function main(argv: readonly string[]): void {
  const infoPath = argv[0];
  if (infoPath === undefined || argv.length !== 1) {
    throw new Error('usage: tsx scripts/image/assemble-image.ts <build-info.json>');
  }
  const info = JSON.parse(readFileSync(infoPath, 'utf8')) as BuildInfo;
  const architecture: string = info.architecture;
  if (architecture !== 'amd64' && architecture !== 'arm64') {
    throw new Error(`${infoPath}: architecture ${architecture}: expected amd64 or arm64`);
  }
  const manifest = writeOciLayout(imageSpec(info));
  process.stdout.write(`${manifest.digest}\n`);
}

main(process.argv.slice(2));
