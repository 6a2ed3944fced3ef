import { watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, KubemodError } from '../errors/catalog.js';
import { cachingCompilers } from '../engine/compilers.js';
import type { CompiledRule } from '../engine/rule.js';
import { RuleStore } from '../engine/store.js';
import type { Logger } from '../observability/logger.js';
import { readRuleFile, type ParsedRuleFile } from './rule-file.js';

/** Namespace of a rule file document without `metadata.namespace`. */
export const DIRECTORY_DEFAULT_NAMESPACE = 'default';
const RULE_FILE = /\.(ya?ml|json)$/i;

export interface DirectoryLoad {
  readonly store: RuleStore;
  /** Rule files read, relative to the directory, sorted. */
  readonly files: readonly string[];
  /** One line per refused file or document: `<file>: document <n> (ModRule <ns>/<name>): <field>: <reason>; …` */
  readonly errors: readonly string[];
  /**
   * The rules of each file (relative path) as last parsed: for a file that parsed this time its
   * valid rules, for one that did not the rules kept from before. The next load keeps these for a
   * file it cannot parse.
   */
  readonly lastGood: ReadonlyMap<string, readonly CompiledRule[]>;
  /** What each file that parsed gave, by its text's digest: the next load reuses unchanged files. */
  readonly parsed: ReadonlyMap<string, ParsedRuleFile>;
  /** Files that could not be read or parsed and whose last good rules were kept. */
  readonly kept: readonly string[];
}

export interface DirectoryLoadOptions {
  readonly clusterNamespace: string;
  /**
   * `lastGood` of the previous load. A file that cannot be read or parsed now (e.g. caught
   * half-written by an editor or a ConfigMap update) keeps these rules until it parses again; a
   * deleted file loses its rules; a file that parses loads its valid documents and reports the
   * invalid ones (an invalid document does not keep an older version of its rule).
   */
  readonly previous?: ReadonlyMap<string, readonly CompiledRule[]>;
  /** `parsed` of the previous load: files whose text has not changed are not compiled again. */
  readonly previousParsed?: ReadonlyMap<string, ParsedRuleFile>;
}

/**
 * Reads every *.yaml, *.yml and *.json file under `dir` (recursively, in path order) into a fresh
 * store. Invalid files and documents are reported and skipped; the rest load. A rule defined
 * twice (same namespace/name) keeps its first definition.
 */
export async function loadRuleDirectory(
  dir: string,
  options: DirectoryLoadOptions,
): Promise<DirectoryLoad> {
  let files: string[];
  try {
    files = (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((entry) => entry.isFile() && RULE_FILE.test(entry.name))
      .map((entry) =>
        join(entry.parentPath, entry.name)
          .slice(dir.length)
          .replace(/^[\\/]+/, ''),
      )
      .sort();
  } catch (err) {
    throw new KubemodError(
      'INPUT_UNREADABLE',
      `cannot read the rules directory ${dir}: ${describeError(err)}`,
      undefined,
      { cause: err },
    );
  }
  const store = new RuleStore({ clusterNamespace: options.clusterNamespace });
  const compilers = cachingCompilers();
  const errors: string[] = [];
  const lastGood = new Map<string, readonly CompiledRule[]>();
  const parsed = new Map<string, ParsedRuleFile>();
  const kept: string[] = [];
  for (const file of files) {
    const source = join(dir, file);
    const read = await readRuleFile(
      source,
      {
        defaultNamespace: DIRECTORY_DEFAULT_NAMESPACE,
        clusterNamespace: options.clusterNamespace,
        compilers,
      },
      options.previousParsed?.get(file),
    );
    let rules: readonly CompiledRule[];
    if (read.kind === 'gone') continue;
    if (read.kind === 'unusable') {
      const previous = options.previous?.get(file);
      if (previous === undefined) {
        errors.push(read.error);
        continue;
      }
      errors.push(
        `${read.error}; keeping its last good ModRule(s) (${String(previous.length)}) until it parses again`,
      );
      kept.push(file);
      rules = previous;
    } else {
      errors.push(...read.errors);
      rules = read.rules;
      parsed.set(file, read);
    }
    lastGood.set(file, rules);
    for (const rule of rules) {
      if (store.get(rule.namespace, rule.name) !== undefined) {
        errors.push(
          `${source}: ModRule ${rule.key} is already defined by an earlier file; ignored`,
        );
        continue;
      }
      store.put(rule);
    }
  }
  return { store, files, errors, lastGood, parsed, kept };
}

export interface DirectoryRuleSourceOptions {
  readonly dir: string;
  readonly clusterNamespace: string;
  readonly logger: Logger;
  /** Quiet period after the last file change before reloading (default 200 ms). */
  readonly debounceMs?: number;
  /** Called after every load (initial and reloads). */
  readonly onLoad?: (load: DirectoryLoad) => void;
}

/** A rule source backed by a directory, reloaded whole and swapped atomically on change. */
export interface DirectoryRuleSource {
  /** The current store (an empty one before the initial load). */
  store(): RuleStore;
  /** True once the initial load has completed. */
  ready(): boolean;
  /** Initial load, then watching. Rejects when the directory cannot be read. */
  start(): Promise<DirectoryLoad>;
  /** Loads the directory again now (also what the watcher does). */
  reload(): Promise<DirectoryLoad>;
  close(): void;
}

export function createDirectoryRuleSource(
  options: DirectoryRuleSourceOptions,
): DirectoryRuleSource {
  const { dir, logger } = options;
  let current = new RuleStore({ clusterNamespace: options.clusterNamespace });
  let loaded = false;
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<DirectoryLoad> | undefined;
  let again = false;

  let lastGood: ReadonlyMap<string, readonly CompiledRule[]> = new Map();
  let parsed: ReadonlyMap<string, ParsedRuleFile> = new Map();

  const loadOnce = async (): Promise<DirectoryLoad> => {
    const load = await loadRuleDirectory(dir, {
      clusterNamespace: options.clusterNamespace,
      previous: lastGood,
      previousParsed: parsed,
    });
    current = load.store;
    lastGood = load.lastGood;
    parsed = load.parsed;
    loaded = true;
    for (const error of load.errors) logger.error({ dir }, `invalid rule file: ${error}`);
    logger.info(
      {
        dir,
        files: load.files.length,
        rules: load.store.size,
        invalid: load.errors.length,
        kept: load.kept,
        namespaces: Object.fromEntries(load.store.countsByNamespace()),
      },
      'ModRules loaded',
    );
    options.onLoad?.(load);
    return load;
  };

  const reload = (): Promise<DirectoryLoad> => {
    if (running !== undefined) {
      again = true;
      return running;
    }
    const run = loadOnce().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        void reload().catch((err: unknown) => {
          logger.error({ dir, err }, 'reloading ModRules failed; keeping the previous rules');
        });
      }
    });
    running = run;
    return run;
  };

  const schedule = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      reload().catch((err: unknown) => {
        logger.error({ dir, err }, 'reloading ModRules failed; keeping the previous rules');
      });
    }, options.debounceMs ?? 200);
  };

  return {
    store: () => current,
    ready: () => loaded,
    async start(): Promise<DirectoryLoad> {
      const load = await reload();
      watcher = openWatcher(dir, schedule, logger);
      return load;
    },
    reload,
    close(): void {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      watcher?.close();
      watcher = undefined;
    },
  };
}

function openWatcher(dir: string, onChange: () => void, logger: Logger): FSWatcher {
  let watcher: FSWatcher;
  try {
    watcher = watch(dir, { recursive: true, persistent: false }, onChange);
  } catch {
    watcher = watch(dir, { persistent: false }, onChange);
  }
  watcher.on('error', (err) => {
    logger.error({ dir, err }, 'watching the rules directory failed');
  });
  return watcher;
}
