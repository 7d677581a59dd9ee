// Runs on a runtime host's main thread (a live host's, and a line replay host's). Which
// TypeScript compiler loads a user's .ts program, registered as the require() hook; first found
// wins: the host's own (under tsx), the program's tsx, its TypeScript, else the bundled one
// (bundled-transpiler.ts). Every choice gives source maps, for the line debugger.
//
// Invariants: one hook per process (the first registration stays); a workspace compiler that
// fails to load falls through to the next, its reason kept for the log; the only error left is
// the bundled transpiler missing from the build, said once with what to do.

import Module, { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const TS_EXTENSIONS: readonly string[] = ['.ts', '.mts', '.cts', '.tsx'];

export type TranspilerKind = 'host' | 'tsx' | 'typescript' | 'bundled';

export interface TranspilerChoice {
  readonly kind: TranspilerKind;
  /** The module loaded for it: tsx's API or TypeScript resolved from the program, or the bundle. */
  readonly module: string | null;
}

export class TranspilerUnavailableError extends Error {
  override readonly name = 'TranspilerUnavailableError';
}

/** What the bundled transpiler's bundle (or its source, from source) exports. */
interface BundledTranspiler {
  transpileTypeScript(source: string, path: string): string;
}

/** The TypeScript API used, narrowed to transpileModule. */
interface TypeScriptApi {
  transpileModule(
    source: string,
    options: { fileName: string; compilerOptions: Record<string, unknown> },
  ): { outputText: string };
  ModuleKind: { CommonJS: number };
  ScriptTarget: { ES2022?: number; ESNext: number };
  JsxEmit?: { React?: number };
}

interface ModuleWithCompile {
  _compile(code: string, filename: string): unknown;
}

type Compile = (module: ModuleWithCompile, filename: string) => void;

let registered: TranspilerChoice | null = null;

/** True when this code runs from a bundle (dist/*.js) rather than from the TypeScript sources. */
function runningFromBundle(): boolean {
  return __filename.endsWith('.js');
}

function resolveFrom(from: string, request: string): string | null {
  try {
    return createRequire(from).resolve(request);
  } catch {
    return null;
  }
}

/** Where the bundled transpiler is: dist/typescript-transpiler.js beside the host's bundle. */
export function bundledTranspilerPath(): string {
  return runningFromBundle() ? join(__dirname, 'typescript-transpiler.js') : join(__dirname, 'bundled-transpiler.ts');
}

/**
 * The compiler for the program at `programPath` (absolute), without loading it: the host's
 * own when .ts is already registered, else the program's tsx, else its TypeScript, else the
 * bundled one. `hostCompilesTs` is given by tests; it defaults to this process's state.
 */
export function chooseTranspiler(
  programPath: string,
  hostCompilesTs = requireExtensions()['.ts'] !== undefined,
): TranspilerChoice {
  if (hostCompilesTs) return { kind: 'host', module: null };
  const tsx = resolveFrom(programPath, 'tsx/cjs/api');
  if (tsx !== null) return { kind: 'tsx', module: tsx };
  const typescript = resolveFrom(programPath, 'typescript');
  if (typescript !== null) return { kind: 'typescript', module: typescript };
  return { kind: 'bundled', module: bundledTranspilerPath() };
}

function requireExtensions(): Record<string, unknown> {
  return (Module as unknown as { _extensions: Record<string, unknown> })._extensions;
}

/** Makes the files of TS_EXTENSIONS require()-able through `compile`. */
function hookExtensions(transpile: (source: string, filename: string) => string): void {
  const extensions = requireExtensions();
  const compile: Compile = (module, filename) => {
    module._compile(transpile(readFileSync(filename, 'utf8'), filename), filename);
  };
  for (const ext of TS_EXTENSIONS) extensions[ext] = compile;
}

function registerTsx(api: string): void {
  const loaded: unknown = createRequire(__filename)(api);
  const register = (loaded as { register?: unknown }).register;
  if (typeof register !== 'function') throw new Error(`${api} has no register()`);
  (register as () => unknown)();
}

function registerTypeScript(path: string): void {
  const ts = createRequire(__filename)(path) as TypeScriptApi;
  if (typeof ts.transpileModule !== 'function') throw new Error(`${path} has no transpileModule()`);
  const compilerOptions: Record<string, unknown> = {
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2022 ?? ts.ScriptTarget.ESNext,
    esModuleInterop: true,
    inlineSourceMap: true,
    ...(ts.JsxEmit?.React !== undefined ? { jsx: ts.JsxEmit.React } : {}),
  };
  hookExtensions((source, fileName) => ts.transpileModule(source, { fileName, compilerOptions }).outputText);
}

function registerBundled(path: string): void {
  if (!existsSync(path)) {
    throw new TranspilerUnavailableError(
      `Coroscope's TypeScript transpiler ${path} is missing: rebuild (npm run build) or reinstall the extension, or give a .js program`,
    );
  }
  const bundled = createRequire(__filename)(path) as Partial<BundledTranspiler>;
  const transpile = bundled.transpileTypeScript;
  if (typeof transpile !== 'function')
    throw new TranspilerUnavailableError(
      `${path} exports no transpileTypeScript(): rebuild (npm run build) or reinstall the extension`,
    );
  hookExtensions(transpile);
}

/**
 * Makes .ts programs loadable, once per process: the chosen compiler, falling through to the
 * next when a workspace one fails to load. Returns what was registered and, when a workspace
 * compiler was passed over, why (for the log).
 */
export function ensureTypeScript(programPath: string): { choice: TranspilerChoice; passedOver: string[] } {
  if (registered !== null) return { choice: registered, passedOver: [] };
  const passedOver: string[] = [];
  let choice = chooseTranspiler(programPath);
  if (choice.kind === 'tsx' && choice.module !== null) {
    try {
      registerTsx(choice.module);
    } catch (e) {
      passedOver.push(`tsx (${choice.module}): ${firstLine(e)}`);
      const typescript = resolveFrom(programPath, 'typescript');
      choice =
        typescript !== null
          ? { kind: 'typescript', module: typescript }
          : { kind: 'bundled', module: bundledTranspilerPath() };
    }
  }
  if (choice.kind === 'typescript' && choice.module !== null) {
    try {
      registerTypeScript(choice.module);
    } catch (e) {
      passedOver.push(`typescript (${choice.module}): ${firstLine(e)}`);
      choice = { kind: 'bundled', module: bundledTranspilerPath() };
    }
  }
  if (choice.kind === 'bundled' && choice.module !== null) registerBundled(choice.module);
  registered = choice;
  return { choice, passedOver };
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '';
}
