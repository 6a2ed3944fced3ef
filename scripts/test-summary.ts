// Prints the plain closing line CI reads ("N passed, N failed, N skipped") from the vitest JSON
// reports and the `go test -json` streams (*.gotest.jsonl) in test-results.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

interface GoTestEvent {
  Action?: string;
  Test?: string;
}

interface VitestJsonReport {
  numPassedTests?: number;
  numFailedTests?: number;
  numPendingTests?: number;
  numTodoTests?: number;
}

function main(dir: string): number {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  if (existsSync(dir)) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const report = JSON.parse(readFileSync(join(dir, file), 'utf8')) as VitestJsonReport;
      passed += report.numPassedTests ?? 0;
      failed += report.numFailedTests ?? 0;
      skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    }
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.gotest.jsonl'))) {
      for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
        if (line.trim() === '') continue;
        const event = JSON.parse(line) as GoTestEvent;
        if (event.Test === undefined) continue; // package-level events
        if (event.Action === 'pass') passed++;
        else if (event.Action === 'fail') failed++;
        else if (event.Action === 'skip') skipped++;
      }
    }
  }
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  return passed === 0 || failed > 0 ? 1 : 0;
}

process.exitCode = main(process.argv[2] ?? 'test-results');
