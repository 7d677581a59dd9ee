// Runs on a runtime host's main thread, from its own bundle (dist/typescript-transpiler.js),
// loaded only for a .ts program or an ES module. The TypeScript transpiler Coroscope brings when
// the program's folder has neither tsx nor TypeScript: Sucrase's TypeScript and ES-module transforms
// (why: docs/design/runs-and-programs.md). A program's own ES modules always get the latter alone, not
// the folder's compiler: it ships with us (they load alike anywhere) and keeps lines (maps as .ts).
//
// Invariants: the output is CommonJS with one generated line per source line; the map names
// the source by its file: URL and maps no line without code; a syntax error is thrown as
// TranspileError with the file, line and column, said once; what CommonJS cannot hold, as
// EsModuleError with its line.

import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseScript } from '../../inspect/sucrase-tokens';
import { esModuleSyntax } from './es-module-syntax';

/**
 * Sucrase's transform, narrowed to what is used. Required, not imported: esbuild bundles it
 * the same, and the source shipped in the .vsix (opened from a frame) needs no sucrase types.
 */
interface Sucrase {
  transform(
    code: string,
    options: {
      transforms: string[];
      filePath: string;
      sourceMapOptions: { compiledFilename: string };
      disableESTransforms: boolean;
    },
  ): {
    code: string;
    sourceMap?: { version: number; file: string; sources: string[]; names: string[]; mappings: string };
  };
}
const sucrase: unknown = require('sucrase');
const { transform } = sucrase as Sucrase;
/** The codec Sucrase writes its maps with. */
type Segment = number[];
const { decode, encode } = require('@jridgewell/sourcemap-codec') as {
  decode(mappings: string): Segment[][];
  encode(lines: Segment[][]): string;
};

export class TranspileError extends Error {
  override readonly name = 'TranspileError';
}

export class EsModuleError extends Error {
  override readonly name = 'EsModuleError';
}

/** The transpiled module: CommonJS JavaScript ending in an inline source map. */
export function transpileTypeScript(source: string, path: string): string {
  const jsx = path.endsWith('.tsx');
  return transpile(source, path, jsx ? ['typescript', 'imports', 'jsx'] : ['typescript', 'imports']);
}

/** A JavaScript ES module made CommonJS (its imports and exports only), ending in an inline source map. */
export function transpileEsModule(source: string, path: string): string {
  return transpile(source, path, ['imports']);
}

/** Whether the nearest package.json above `file` says "type": "module". */
function inModulePackage(file: string): boolean {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        return (JSON.parse(readFileSync(pkg, 'utf8')) as { type?: unknown } | null)?.type === 'module';
      } catch {
        return false;
      }
    }
    if (dirname(dir) === dir) return false;
  }
}

const INSTEAD = { 'top-level await': 'move it into main', 'import.meta': 'use __filename and __dirname instead' };

/**
 * A program's JavaScript file at `path` made CommonJS when it is an ES module (.mjs, a .js under "type":
 * "module", or with module syntax, as Node detects it); null when it is CommonJS.
 */
export function programModuleToCommonJs(source: string, path: string): string | null {
  const mustBe = path.endsWith('.mjs') || inModulePackage(path);
  let syntax: ReturnType<typeof esModuleSyntax>;
  try {
    syntax = esModuleSyntax(source, parseScript);
  } catch {
    // A module's syntax error is said by the transform; a CommonJS file's, by Node.
    return mustBe ? transpileEsModule(source, path) : null;
  }
  if (!mustBe && !syntax.isModule) return null;
  if (syntax.notCommonJs.length > 0)
    throw new EsModuleError(
      `${syntax.notCommonJs.map(({ what, line }) => `${what} at ${path}:${line}: ${INSTEAD[what]}`).join('; ')} (an ES module program is run as CommonJS)`,
    );
  return transpileEsModule(source, path);
}

function transpile(source: string, path: string, transforms: string[]): string {
  let result: ReturnType<Sucrase['transform']>;
  try {
    result = transform(source, {
      transforms,
      filePath: path,
      sourceMapOptions: { compiledFilename: path },
      // A `declare` field or a type-only import is dropped as tsc drops it.
      disableESTransforms: true,
    });
  } catch (e) {
    // Sucrase says "Error transforming FILE: Unexpected token (12:4)": the file's line and
    // column (1-based). Said once: FILE where an editor links it, then what is wrong.
    const text = e instanceof Error ? e.message : String(e);
    const at = /\((\d+):(\d+)\)\s*$/.exec(text);
    const where = at === null ? path : `${path}:${at[1]}:${at[2]}`;
    const what = text.replace(/^Error transforming .*?: /, '').replace(/\s*\(\d+:\d+\)\s*$/, '');
    throw new TranspileError(`${where}: ${what}`);
  }
  const map = result.sourceMap;
  if (map === undefined) return result.code;
  const payload = { ...map, mappings: withoutCodelessLines(map.mappings, source), sources: [pathToFileURL(path).href] };
  return `${result.code}\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(payload)).toString('base64')}\n`;
}

// The bundle is Coroscope's one copy of Sucrase: its parser serves the temporal dead zone's analysis too.
export { parseScript } from '../../inspect/sucrase-tokens';

/** `mappings` of `source` naming no line without code (Sucrase maps each line), so a breakpoint there moves on. */
export function withoutCodelessLines(mappings: string, source: string): string {
  let inComment = false;
  const codeless = source.split('\n').map((text) => {
    let rest = text.trimStart();
    for (;;) {
      if (inComment) {
        const end = rest.indexOf('*/');
        if (end < 0) return true;
        inComment = false;
        rest = rest.slice(end + 2).trimStart();
      }
      if (rest === '' || rest.startsWith('//')) return true;
      if (!rest.startsWith('/*')) return false;
      inComment = true;
      rest = rest.slice(2);
    }
  });
  return encode(decode(mappings).map((line) => line.map((s) => (codeless[s[2] ?? -1] === true ? [s[0]!] : s))));
}
