// Runs on a runtime host's main thread (a live host's, a line replay host's, the CLI's). Makes a program's own
// ES modules require()-able, as CommonJS: a .mjs file, a .js under "type": "module", a .js of no package type
// with module syntax (es-module-syntax.ts, as Node detects it). Each is made CommonJS by the bundled Sucrase
// (bundled-transpiler.ts, its imports transform alone), never the folder's tsx or TypeScript: it ships with
// Coroscope, so a program loads alike in any folder; it keeps every line where it was and gives an inline map,
// so breakpoints and steps map as for a .ts program; and required, `coroscope` resolves to the host's runtime.
//
// Invariants: only files the program loader's predicate claims (a program's, outside node_modules) are
// transpiled; every other file, CommonJS ones (.cjs, .js of "type": "commonjs" or with no module syntax)
// included, loads as Node loads it; what CommonJS cannot hold is refused as EsModuleError (what, where, what
// to do), never run half-converted; the hooks are installed once.

import Module, { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { ParseScript } from '../../inspect/lexical-bindings';
import { esModuleSyntax, type NotCommonJs } from './es-module-syntax';
import { bundledTranspilerPath, TranspilerUnavailableError } from './program-transpiler';

export class EsModuleError extends Error {
  override readonly name = 'EsModuleError';
}

/** What the transpiler bundle (or its source, run from source) exports for ES modules. */
interface EsModuleTranspiler {
  transpileEsModule(source: string, path: string): string;
  parseScript: ParseScript;
}

interface CompilingModule {
  _compile(code: string, filename: string, format?: string): unknown;
}

type LoadExtension = (this: unknown, module: CompilingModule, filename: string) => void;

let installed = false;
let transpiler: EsModuleTranspiler | null = null;
/** True while a hook reads or transpiles: a module required meanwhile (the transpiler's bundle) is Node's. */
let busy = false;

/** What to do instead of each construct CommonJS cannot hold. */
const INSTEAD: Record<NotCommonJs['what'], string> = {
  'top-level await': 'move it into main (a coroutine function)',
  'import.meta': 'use __filename and __dirname instead',
};

function loadTranspiler(): EsModuleTranspiler {
  if (transpiler !== null) return transpiler;
  const path = bundledTranspilerPath();
  if (!existsSync(path))
    throw new TranspilerUnavailableError(
      `Coroscope's transpiler ${path} is missing, so an ES module cannot be loaded: rebuild (npm run build) or reinstall the extension, or write the program as CommonJS`,
    );
  const loaded = createRequire(__filename)(path) as Partial<EsModuleTranspiler>;
  if (typeof loaded.transpileEsModule !== 'function' || typeof loaded.parseScript !== 'function')
    throw new TranspilerUnavailableError(
      `${path} exports no transpileEsModule(): rebuild (npm run build) or reinstall the extension`,
    );
  transpiler = { transpileEsModule: loaded.transpileEsModule, parseScript: loaded.parseScript };
  return transpiler;
}

/** The "type" of the nearest package.json above `file` ('module', 'commonjs'), null when it names none. */
export function packageTypeOf(file: string): 'module' | 'commonjs' | null {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      let type: unknown;
      try {
        const data: unknown = JSON.parse(readFileSync(pkg, 'utf8'));
        type = typeof data === 'object' && data !== null ? (data as { type?: unknown }).type : undefined;
      } catch {
        return null;
      }
      return type === 'module' || type === 'commonjs' ? type : null;
    }
    if (dirname(dir) === dir) return null;
  }
}

/**
 * The CommonJS of the ES module at `filename` (its `source`), or null when it is CommonJS already (a .js of no
 * package type without module syntax). Throws EsModuleError for what CommonJS cannot hold.
 */
export function commonJsOf(filename: string, source: string): string | null {
  const mustBeModule = filename.endsWith('.mjs') || packageTypeOf(filename) === 'module';
  // Most CommonJS files say none of these words: they need no parse (nor the transpiler's bundle).
  if (!mustBeModule && !/\b(?:import|export|await)\b/.test(source)) return null;
  const { transpileEsModule, parseScript } = loadTranspiler();
  let syntax: ReturnType<typeof esModuleSyntax>;
  try {
    syntax = esModuleSyntax(source, parseScript);
  } catch {
    // A CommonJS file Sucrase cannot parse is left to Node; a module's syntax error is said by the transform.
    if (!mustBeModule) return null;
    return transpileEsModule(source, filename);
  }
  if (!mustBeModule && !syntax.isModule) return null;
  if (syntax.notCommonJs.length > 0) {
    const said = syntax.notCommonJs.map(({ what, line }) => `${what} at ${filename}:${line}: ${INSTEAD[what]}`);
    throw new EsModuleError(
      `${said.join('; ')} (Coroscope loads an ES module program as CommonJS, which cannot hold ${syntax.notCommonJs.map((n) => n.what).join(' or ')})`,
    );
  }
  return transpileEsModule(source, filename);
}

/**
 * Installs the .js and .mjs hooks (once): a file `claims` accepts is loaded through commonJsOf; any other, or
 * one commonJsOf leaves as it is, as Node would load it.
 */
export function installEsModuleLoading(claims: (filename: string) => boolean): void {
  if (installed) return;
  installed = true;
  const extensions = (Module as unknown as { _extensions: Record<string, LoadExtension | undefined> })._extensions;
  const nodeJs = extensions['.js']!;
  // Node 20 has no .mjs loader (require() of one goes to .js, which refuses it); later ones may.
  const nodeMjs = extensions['.mjs'] ?? nodeJs;
  const hook = (node: LoadExtension): LoadExtension =>
    function (this: unknown, module: CompilingModule, filename: string): void {
      if (busy || filename.endsWith('.cjs') || !claims(filename)) return node.call(this, module, filename);
      let code: string | null;
      busy = true;
      try {
        code = commonJsOf(filename, readFileSync(filename, 'utf8'));
      } finally {
        busy = false;
      }
      if (code === null) return node.call(this, module, filename);
      module._compile(code, filename, 'commonjs');
    };
  extensions['.js'] = hook(nodeJs);
  extensions['.mjs'] = hook(nodeMjs);
}
