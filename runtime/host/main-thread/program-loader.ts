// Runs on a runtime host's main thread (a live host's, and a line replay host's). Loads a user's
// program for `launch {kind: 'program'}`: a module exporting a main coroutine function, loaded
// with require() (.ts through program-transpiler.ts's choice; its own ES modules, not its packages',
// by the transpiler's bundle: docs/design/runs-and-programs.md), so it runs from an empty folder.
// One runtime: a program importing the public entry (`runtime/index`, `coroscope`) is handed the
// host's own runtime module, never a second copy; deep imports would load one.
//
// Invariants: each load (a launch, each replay's start) has modules of its own: every module the
// program required, at its load or later, not the host's; none stays in the require cache, so module
// state starts as in a new process (a replay runs as recorded, an edit reloads) while a replay parked
// as a checkpoint keeps its own. The require hook is installed once; errors say which file and export.

import Module, { createRequire, isBuiltin } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import * as runtimeIndex from '../../index';
import { isCoroutine, type Coroutine } from '../../task';
import { bundledTranspilerPath, ensureTypeScript, TS_EXTENSIONS, type TranspilerChoice } from './program-transpiler';
import { asProgram, beginLooking, endLooking } from '../../outside-values';

export class ProgramLoadError extends Error {
  override readonly name = 'ProgramLoadError';
}

type LoadFn = (request: string, parent: unknown, isMain: boolean) => unknown;
type ResolveFn = (request: string, parent: unknown, isMain: boolean, options?: unknown) => string;
type LoadExtension = (
  this: unknown,
  m: { _compile(code: string, file: string, format?: string): unknown },
  file: string,
) => void;
interface ModuleInternals {
  _load: LoadFn;
  _resolveFilename: ResolveFn;
  _extensions: Record<string, LoadExtension | undefined>;
}

let hookInstalled = false;
/** How many program loads are under way (nested: a module a program requires while it loads). */
let loadsUnderWay = 0;
let toCommonJs: ((source: string, file: string) => string | null) | undefined;
/** True while a file is read for the hook: what loads meanwhile (the transpiler's bundle) is Node's. */
let reading = false;

/** The CommonJS of a program's own ES module file (.cjs, or .js saying none of import/export/await: not one). */
function esModuleToCommonJs(file: string): string | null {
  if (reading || loadsUnderWay === 0 || file.endsWith('.cjs') || /[\\/]node_modules[\\/]/.test(file)) return null;
  reading = true;
  try {
    const source = readFileSync(file, 'utf8');
    if (!file.endsWith('.mjs') && !/\b(?:import|export|await)\b/.test(source)) return null;
    toCommonJs ??= (
      createRequire(__filename)(bundledTranspilerPath()) as { programModuleToCommonJs: typeof toCommonJs }
    ).programModuleToCommonJs;
    return toCommonJs!(source, file);
  } finally {
    reading = false;
  }
}

/**
 * One load of a program: the modules it required, at its load or later (a `require` inside a coroutine), by
 * resolved path. They are its own: kept out of the require cache, so the next load (a replay's start) gets
 * fresh ones while a replay parked as a checkpoint goes on with its own (run-rewind.ts keeps several).
 */
interface ProgramLoad {
  readonly modules: Map<string, NodeJS.Module>;
}

/** The load each of a program's modules belongs to (a require from it resolves within that load). */
const loadOfModule = new WeakMap<object, ProgramLoad>();

/**
 * Runs `load` (a require) for `owner`: the modules it adds to the require cache become the owner's and leave
 * the cache (the runtime's entry excepted: one runtime for every load).
 */
function loadingFor<T>(owner: ProgramLoad, cache: NodeJS.Dict<NodeJS.Module>, load: () => T): T {
  const before = new Set(Object.keys(cache));
  loadsUnderWay++;
  // What the loader and transpiler read (their clocks) is not the program's; its modules' top levels are
  // (the _compile hook).
  beginLooking();
  try {
    return load();
  } finally {
    endLooking();
    loadsUnderWay--;
    for (const key of Object.keys(cache)) {
      const m = cache[key];
      if (before.has(key) || m === undefined || isRuntimeEntry(key)) continue;
      owner.modules.set(key, m);
      loadOfModule.set(m, owner);
      delete cache[key];
    }
  }
}

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

/**
 * Installs the require hook (once): in bundle mode `require` of the runtime's public entry gives the host's
 * runtime; a require from a program's module resolves within that module's load (ProgramLoad).
 */
function installLoadHook(): void {
  if (hookInstalled) return;
  hookInstalled = true;
  const internals = Module as unknown as ModuleInternals;
  const extensions = internals._extensions;
  // A module's code, run by _compile, is the program's: its reads of random numbers and clocks are (loadingFor).
  const proto = Module.prototype as unknown as { _compile(this: unknown, ...args: unknown[]): unknown };
  const compile = proto._compile;
  proto._compile = function (this: unknown, ...args: unknown[]): unknown {
    return asProgram(() => compile.apply(this, args));
  };
  const esModuleHook = (node: LoadExtension): LoadExtension =>
    function (m, file) {
      const code = esModuleToCommonJs(file);
      if (code === null) node.call(this, m, file);
      else m._compile(code, file, 'commonjs');
    };
  // Node 20 has no .mjs loader (its .js one refuses an .mjs); later ones may.
  extensions['.mjs'] = esModuleHook(extensions['.mjs'] ?? extensions['.js']!);
  extensions['.js'] = esModuleHook(extensions['.js']!);
  const originalLoad = internals._load;
  const bundle = runningFromBundle();
  internals._load = function (this: unknown, request: string, parent: unknown, isMain: boolean): unknown {
    if (bundle && (request === 'coroscope' || request === 'coroscope/runtime')) return runtimeIndex;
    const owner = typeof parent === 'object' && parent !== null ? loadOfModule.get(parent) : undefined;
    // A path to the runtime's entry (`../runtime/index`) is aliased in bundle mode; a bare name only as above.
    const aliasable = bundle && (request.startsWith('.') || request.startsWith('/'));
    if ((owner === undefined && !aliasable) || isBuiltin(request))
      return originalLoad.call(this, request, parent, isMain);
    let path: string | null = null;
    try {
      path = internals._resolveFilename(request, parent, isMain);
    } catch {
      // Not resolvable here: let the original loader report it.
    }
    if (path !== null && aliasable && isRuntimeEntry(path)) return runtimeIndex;
    if (path === null || owner === undefined || isRuntimeEntry(path))
      return originalLoad.call(this, request, parent, isMain);
    const own = owner.modules.get(path);
    if (own !== undefined) return own.exports;
    // Cached and no load's: the host's own (shared by every load). Else loaded afresh for this load.
    const cache = Module as unknown as { _cache: NodeJS.Dict<NodeJS.Module> };
    if (cache._cache[path] !== undefined) return originalLoad.call(this, request, parent, isMain);
    return loadingFor(owner, cache._cache, () => originalLoad.call(this, request, parent, isMain));
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
  installLoadHook();
  const req = createRequire(abs);
  // A replay starts the program again in the same process: the modules it requires (a helper holding a counter
  // at its top level) must start as they did, or the past shows values the recorded run never had. So each
  // load's modules are its own (ProgramLoad), never left in the require cache for the next load.
  let mod: unknown;
  try {
    mod = loadingFor({ modules: new Map() }, req.cache, () => req(abs));
  } catch (e) {
    // A syntax error the transpiler found names its file:line:column already.
    if (e instanceof Error && e.name === 'TranspileError')
      throw new ProgramLoadError(`cannot compile ${e.message}: fix it and launch again`);
    // What of an ES module CommonJS cannot hold: said with where and what to do.
    if (e instanceof Error && e.name === 'EsModuleError') throw new ProgramLoadError(e.message);
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
