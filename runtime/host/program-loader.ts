// Loads a user's program for `launch {kind: 'program'}`: a module exporting a main coroutine
// function (`main`, or the export named), loaded with require(): .js/.cjs as is, .ts/.mts/
// .cts/.tsx through tsx's CommonJS API (`tsx/cjs/api` register()), found next to the host
// or next to the program.
//
// One runtime: the program must run on the host's runtime (its loop, Future and Task
// classes, its coroutine tracking). When the host runs from the bundle (dist/), a program
// importing the runtime's public entry (`runtime/index`, `dist/runtime/index.js`, or the
// package name `coroscope`) is handed the host's own runtime module instead of a second
// copy (any checkout's `runtime/index`, recognised by the runtime's coroutine module beside
// it). Deep imports of other runtime files would load a second copy: use the public entry.
// When the host runs from source (tsx), the program's imports are the host's modules anyway.
//
// Invariants: a program is loaded once per launch (its module cache entry is dropped first,
// so an edited program is reloaded); the aliasing hook is installed once and only maps
// those public-entry requests; errors say which file and which export went wrong.

import Module, { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import * as runtimeIndex from '../index';
import { isCoroutine, type Coroutine } from '../task';

export class ProgramLoadError extends Error {
  override readonly name = 'ProgramLoadError';
}

type LoadFn = (request: string, parent: unknown, isMain: boolean) => unknown;
type ResolveFn = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;
interface ModuleInternals {
  _load: LoadFn;
  _resolveFilename: ResolveFn;
}

const TS_EXTENSIONS = new Set(['.ts', '.mts', '.cts', '.tsx']);
let aliasInstalled = false;
let tsxRegistered = false;

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

/** Registers tsx's CommonJS loader unless .ts files can already be required (the host runs under tsx). */
function ensureTypeScript(programPath: string): void {
  if (tsxRegistered) return;
  const extensions = (createRequire(__filename) as NodeJS.Require).extensions;
  if (extensions['.ts'] !== undefined) {
    tsxRegistered = true;
    return;
  }
  const errors: string[] = [];
  for (const from of [__filename, programPath, join(process.cwd(), 'index.js')]) {
    try {
      const api: unknown = createRequire(from)('tsx/cjs/api');
      const register = (api as { register?: unknown }).register;
      if (typeof register !== 'function') throw new Error('tsx/cjs/api has no register()');
      (register as () => unknown)();
      tsxRegistered = true;
      return;
    } catch (e) {
      errors.push(e instanceof Error ? e.message.split('\n')[0]! : String(e));
    }
  }
  throw new ProgramLoadError(`cannot load TypeScript program ${programPath}: tsx is not available (${errors.join('; ')}); install tsx or give a .js file`);
}

export interface LoadedProgram {
  readonly path: string;
  readonly exportName: string;
  /** Calls the main coroutine function: the coroutine to run. */
  start(): Coroutine<unknown>;
}

/** Loads the program at `path` (relative to the current directory) and finds its main coroutine function. */
export function loadProgram(path: string, exportName = 'main'): LoadedProgram {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new ProgramLoadError(`program ${abs} does not exist`);
  if (TS_EXTENSIONS.has(extname(abs))) ensureTypeScript(abs);
  installRuntimeAlias();
  const req = createRequire(abs);
  try {
    delete req.cache[req.resolve(abs)];
  } catch {
    // Not cached yet.
  }
  let mod: unknown;
  try {
    mod = req(abs);
  } catch (e) {
    throw new ProgramLoadError(`loading ${abs} failed: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  if (typeof mod !== 'object' && typeof mod !== 'function') throw new ProgramLoadError(`${abs} exports nothing`);
  const exports = mod as Record<string, unknown>;
  let main = exports[exportName];
  if (main === undefined && exportName === 'main' && typeof exports.default === 'function') main = exports.default;
  if (typeof main !== 'function') {
    const names = Object.keys(exports).filter((k) => typeof exports[k] === 'function');
    throw new ProgramLoadError(`${abs} has no export ${JSON.stringify(exportName)} that is a function (functions exported: ${names.length > 0 ? names.join(', ') : 'none'})`);
  }
  const fn = main as () => unknown;
  return {
    path: abs,
    exportName,
    start(): Coroutine<unknown> {
      const coro = fn();
      if (!isCoroutine(coro)) {
        throw new ProgramLoadError(`${exportName}() of ${abs} did not return a coroutine (a generator object): write it as coroutine(function* ${exportName}() { ... })`);
      }
      return coro;
    },
  };
}
