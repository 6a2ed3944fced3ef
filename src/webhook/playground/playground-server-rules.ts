import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Request, RequestHandler, Response } from 'express';
import { describeError } from '../../errors/catalog.js';
import { parseDocuments } from '../../engine/load-rules.js';
import { MAX_DRYRUN_YAML_CHARS } from '../dryrun/dryrun-request.js';
import { PLAYGROUND_HEADERS } from './playground-route.js';

/** The answer of `GET /server-rules.json`: the server's ModRule files as one YAML text. */
export interface ServerRules {
  /** The rule files' documents, `---`-separated, in the order `serve` loads them. */
  readonly modrules: string;
  /** ModRule documents in `modrules`. */
  readonly count: number;
}

/** The path the page asks (a relative URL `server-rules.json` from `/`). */
export const SERVER_RULES_PATH = '/server-rules.json';

const RULE_FILE = /\.(ya?ml|json)$/i;

/**
 * The ModRule files of `serve --rules <dir>` as the playground offers them: every *.yaml, *.yml
 * and *.json file under the directory (recursively, in path order, as `serve` reads them), read
 * now so that the page sees the rules of the latest reload, joined with `---` and with comments
 * kept. Files stop being added once the text would exceed what one dry run reads
 * (MAX_DRYRUN_YAML_CHARS): the page sends the text as a dry run's `modRules`. `count` is the
 * number of ModRule documents the text holds (a file that is not valid YAML counts none).
 */
export async function readServerRules(dir: string): Promise<ServerRules> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile() && RULE_FILE.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
  const parts: string[] = [];
  let length = 0;
  let count = 0;
  for (const file of files) {
    const text = (await readFile(file, 'utf8')).trim();
    if (text === '') continue;
    if (length + text.length + 5 > MAX_DRYRUN_YAML_CHARS) break;
    parts.push(text);
    length += text.length + 5;
    count += parseDocuments(text, file).documents.filter(isModRule).length;
  }
  return { modrules: parts.length === 0 ? '' : `${parts.join('\n---\n')}\n`, count };
}

function isModRule(document: unknown): boolean {
  return typeof document === 'object' && document !== null && 'kind' in document
    ? document.kind === 'ModRule'
    : false;
}

/**
 * `GET /server-rules.json` for the playground (with the page's security headers, never cached):
 * the rules `read` returns, or a 500 `{error, code}` naming the reason when they cannot be read.
 * Other requests fall through.
 */
export function serverRulesHandler(read: () => Promise<ServerRules>): RequestHandler {
  return (req: Request, res: Response, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.path !== SERVER_RULES_PATH) {
      next();
      return;
    }
    read().then(
      (rules) => {
        res.status(200).set(PLAYGROUND_HEADERS).json(rules);
      },
      (err: unknown) => {
        res
          .status(500)
          .set(PLAYGROUND_HEADERS)
          .json({
            error: `the server's rules cannot be read: ${describeError(err)}`,
            code: 'KM0000',
          });
      },
    );
  };
}
