/**
 * Reads `serve`'s JSON log on its stdout for the HTTP benchmarks: the listening port, and the
 * lines about rule (re)loads and errors with the time the bench saw them. Every other line is
 * dropped after a cheap substring test, so a chatty server never blocks on a full pipe.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface LogEvent {
  /** performance.now() of the bench when the line arrived. */
  readonly at: number;
  /** `backstop`: a rule or request stopped by the work meter's time backstop, not its units. */
  readonly kind: 'loaded' | 'invalid' | 'error' | 'backstop';
  readonly text: string;
}

export interface ServerLog {
  /** Resolves with the port of "webhook server listening"; rejects if the server exits first. */
  readonly port: Promise<number>;
  /**
   * Resolves with the port of "health server listening" (serve --health-port, where /metrics
   * is); rejects if the server exits first.
   */
  readonly healthPort: Promise<number>;
  /** Load, invalid-file and error/fatal lines so far. */
  readonly events: LogEvent[];
}

const LEVEL_ERROR = 50;

/** pino levels, as numbers or (this project's formatter) as labels. */
function isError(level: unknown): boolean {
  return typeof level === 'number' ? level >= LEVEL_ERROR : level === 'error' || level === 'fatal';
}

interface Entry {
  readonly msg?: unknown;
  readonly port?: unknown;
  readonly level?: unknown;
  readonly rules?: unknown;
  readonly invalid?: unknown;
  readonly files?: unknown;
}

export function watchServerLog(child: ChildProcess): ServerLog {
  const events: LogEvent[] = [];
  let healthListening = false;
  let healthListens: (port: number) => void = () => undefined;
  let healthFails: (err: Error) => void = () => undefined;
  const healthPort = new Promise<number>((resolve, reject) => {
    healthListens = resolve;
    healthFails = reject;
  });
  healthPort.catch(() => undefined); // a bench that does not wait for it must not crash on exit
  const port = new Promise<number>((resolve, reject) => {
    if (child.stdout === null) {
      reject(new Error('server has no stdout'));
      return;
    }
    let listening = false;
    const lines = createInterface({ input: child.stdout });
    lines.on('line', (line) => {
      // V8's --trace-gc lines (BENCH_SERVER_NODE_ARGS), passed on for diagnosis.
      if (line.startsWith('[') && line.includes('ms:')) process.stderr.write(`${line}\n`);
      // The meter's words for its time backstop (work-meter.ts): units should stop everything.
      const backstop = line.includes(' ms time budget');
      const interesting =
        backstop ||
        line.includes('"level":"error"') ||
        line.includes('"level":"fatal"') ||
        line.includes('"level":50') ||
        line.includes('"level":60') ||
        line.includes('ModRules loaded') ||
        (!listening && line.includes('webhook server listening')) ||
        (!healthListening && line.includes('health server listening'));
      if (!interesting) return;
      let entry: Entry;
      try {
        entry = JSON.parse(line) as Entry;
      } catch {
        return;
      }
      const msg = typeof entry.msg === 'string' ? entry.msg : '';
      if (msg === 'webhook server listening' && typeof entry.port === 'number') {
        listening = true;
        resolve(entry.port);
        return;
      }
      if (msg === 'health server listening' && typeof entry.port === 'number') {
        healthListening = true;
        healthListens(entry.port);
        return;
      }
      const at = performance.now();
      if (backstop) {
        events.push({ at, kind: 'backstop', text: line.slice(0, 240) });
      } else if (msg === 'ModRules loaded') {
        events.push({
          at,
          kind: 'loaded',
          text: `${String(entry.rules)} rules from ${String(entry.files)} files, ${String(entry.invalid)} invalid`,
        });
      } else if (isError(entry.level)) {
        events.push({
          at,
          kind: msg.startsWith('invalid rule file') ? 'invalid' : 'error',
          text: msg.slice(0, 240),
        });
      }
    });
    child.once('exit', (code, signal) => {
      if (!listening)
        reject(new Error(`server exited with ${String(code ?? signal)} before listening`));
      if (!healthListening)
        healthFails(
          new Error(`server exited with ${String(code ?? signal)} before its health port listened`),
        );
    });
  });
  return { port, healthPort, events };
}
