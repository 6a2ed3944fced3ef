// npm run playground:build [-- <out dir>]: the static playground page (dist/playground by default).
import { resolve } from 'node:path';
import { buildPlaygroundPage, DEFAULT_PAGE_OUT_DIR } from './build-page.js';

const outDir = process.argv[2] === undefined ? DEFAULT_PAGE_OUT_DIR : resolve(process.argv[2]);
const files = await buildPlaygroundPage(outDir);
process.stdout.write(`playground page built in ${outDir}: ${files.join(', ')}\n`);
