// Runs on a runtime host's main thread (a live host's, and a line replay host's). Loads a user's
// program for `launch {kind: 'program'}`: a module exporting a main coroutine function, loaded
// with require() (.ts through program-transpiler.ts's choice), so it runs from an empty folder.
// One runtime: a program importing the public entry (`runtime/index`, `coroscope`) is handed the
// host's own runtime module, never a second copy; deep imports would load one.
//
// Invariants: a program is loaded afresh at each launch and each replay's start, with every module
// its loading loaded (their cache entries dropped first): module state starts as in a new
// process, so a replay runs as the recorded run did and an edit reloads; the aliasing hook is
// installed once and maps only those public-entry requests; errors say which file and export.

import Module, { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import * as runtimeIndex from '../../index';
import { isCoroutine, type Coroutine } from '../../task';
import { ensureTypeScript, TS_EXTENSIONS, type TranspilerChoice } from './program-transpiler';

export class ProgramLoadError extends Error {
  override readonly name = 'ProgramLoadError';
}

type LoadFn = (request: string, parent: unknown, isMain: boolean) => unknown;
type ResolveFn = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;
interface ModuleInternals {
  _load: LoadFn;
  _resolveFilename: ResolveFn;
}

let aliasInstalled = false;

/** For each program loaded, the modules its loading added to the require cache (dropped at its next load). */
const loadedWith = new Map<string, readonly string[]>();

/** True when this code runs from a bundle (dist/*.js) rather than from the TypeScript sources. */
function runningFromBundle(): boolean {
  return __filename.endsWith('.js');
}

/**
 * Whether a resolved module path is a Coroscope runtime's public entry: `…/runtime/index.ts`
 * (or .js) next to the runtime's `coroutine` module, or a build's `…/dist/runtime/index.js`.
 */
function isRuntimeEntry(path: string): boolean {
  if (/[\\/]dist[\\/]runtime[\\/]index\.js$/.test(path)) return true;
  const m = /^(.*[\\/]runtime)[\\/]index\.([cm]?[tj]s)$/.exec(path);
  if (m === null) return false;
  return ['coroutine.ts', 'coroutine.js'].some((f) => existsSync(join(m[1]!, f)));
}

/** Makes `require` of the runtime's public entry give the host's runtime (bundle mode only). */
function installRuntimeAlias(): void {
  if (aliasInstalled || !runningFromBundle()) return;
  aliasInstalled = true;
  const internals = Module as unknown as ModuleInternals;
  const originalLoad = internals._load;
  internals._load = function (this: unknown, request: string, parent: unknown, isMain: boolean): unknown {
    if (request === 'coroscope' || request === 'coroscope/runtime') return runtimeIndex;
    if (request.startsWith('.') || request.startsWith('/')) {
      try {
        const path = internals._resolveFilename(request, parent, isMain);
        if (isRuntimeEntry(path)) return runtimeIndex;
      } catch {
        // Not resolvable here: let the original loader report it.
      }
    }
    return originalLoad.call(this, request, parent, isMain);
  };
}

export interface LoadedProgram {
  readonly path: string;
  readonly exportName: string;
  /** The compiler that loaded a TypeScript program (null for JavaScript). */
  readonly transpiler: TranspilerChoice | null;
  /** Workspace compilers passed over because they failed to load, with why. */
  readonly passedOver: readonly string[];
  /** Calls the main coroutine function: the coroutine to run. */
  start(): Coroutine<unknown>;
}

/** Loads the program at `path` (relative to the current directory) and finds its main coroutine function. */
export function loadProgram(path: string, exportName = 'main'): LoadedProgram {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new ProgramLoadError(`program ${abs} does not exist`);
  let transpiler: TranspilerChoice | null = null;
  let passedOver: string[] = [];
  if (TS_EXTENSIONS.includes(extname(abs))) {
    try {
      ({ choice: transpiler, passedOver } = ensureTypeScript(abs));
    } catch (e) {
      throw new ProgramLoadError(
        `cannot load TypeScript program ${abs}: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
  installRuntimeAlias();
  const req = createRequire(abs);
  // A replay starts the program again in the same process: the modules it imports (a helper holding a counter
  // at its top level) must start as they did, or the past shows values the recorded run never had.
  for (const key of loadedWith.get(abs) ?? []) delete req.cache[key];
  try {
    delete req.cache[req.resolve(abs)];
  } catch {
    // Not cached yet.
  }
  const before = new Set(Object.keys(req.cache));
  let mod: unknown;
  try {
    mod = req(abs);
    loadedWith.set(
      abs,
      Object.keys(req.cache).filter((key) => !before.has(key) && !isRuntimeEntry(key)),
    );
  } catch (e) {
    // A syntax error the transpiler found names its file:line:column already.
    if (e instanceof Error && e.name === 'TranspileError')
      throw new ProgramLoadError(`cannot compile ${e.message}: fix it and launch again`);
    // An ES module's imports go through Node's ESM resolver, which the runtime's alias does not reach.
    if (
      e instanceof Error &&
      (e as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' &&
      /'coroscope'/.test(e.message)
    )
      throw new ProgramLoadError(
        `${abs} is an ES module (.mjs, or .js under "type": "module"), and an ES module cannot import 'coroscope' yet: write the program as TypeScript (.ts) or CommonJS (.cjs, or .js with require)`,
      );
    throw new ProgramLoadError(`loading ${abs} failed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  if (typeof mod !== 'object' && typeof mod !== 'function') throw new ProgramLoadError(`${abs} exports nothing`);
  const exports = mod as Record<string, unknown>;
  let main = exports[exportName];
  if (main === undefined && exportName === 'main' && typeof exports.default === 'function') main = exports.default;
  if (typeof main !== 'function') {
    const names = Object.keys(exports).filter((k) => typeof exports[k] === 'function');
    throw new ProgramLoadError(
      `${abs} has no export ${JSON.stringify(exportName)} that is a function (functions exported: ${names.length > 0 ? names.join(', ') : 'none'})`,
    );
  }
  const fn = main as () => unknown;
  return {
    path: abs,
    exportName,
    transpiler,
    passedOver,
    start(): Coroutine<unknown> {
      const coro = fn();
      if (!isCoroutine(coro)) {
        throw new ProgramLoadError(
          `${exportName}() of ${abs} did not return a coroutine (a generator object): write it as coroutine(function* ${exportName}() { ... })`,
        );
      }
      return coro;
    },
  };
}
