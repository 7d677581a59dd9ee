// Runs on a runtime host's main thread, from its own bundle (dist/typescript-transpiler.js),
// loaded only for a .ts program or a program's ES module. The TypeScript transpiler Coroscope brings
// when the program's folder has neither tsx nor TypeScript: Sucrase's TypeScript and ES-module
// transforms; the ES-module one alone for JavaScript (es-module-programs.ts). Why Sucrase:
// docs/design/runs-and-programs.md, "A user's program".
//
// Invariants: the output is CommonJS with one generated line per source line; the map names
// the source by its file: URL; a syntax error is thrown as TranspileError with the file, line
// and column, said once.

import { pathToFileURL } from 'node:url';
import { withoutCodelessLineStarts } from './codeless-lines';

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

export class TranspileError extends Error {
  override readonly name = 'TranspileError';
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

function transpile(source: string, path: string, transforms: string[]): string {
  let result: ReturnType<Sucrase['transform']>;
  try {
    result = transform(source, {
      transforms,
      filePath: path,
      sourceMapOptions: { compiledFilename: path },
      // A `declare` field or a type-only import is dropped as tsc drops it; JavaScript is left as written.
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
  // A blank or comment line maps nowhere, so a breakpoint there moves to the next line with code.
  const mappings = withoutCodelessLineStarts({ ...map, sourceRoot: '', sourcesContent: [] }, source);
  const payload = { ...map, mappings, sources: [pathToFileURL(path).href] };
  return `${result.code}\n//# sourceMappingURL=data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(payload)).toString('base64')}\n`;
}

// The bundle is Coroscope's one copy of Sucrase: its parser serves the temporal dead zone's analysis too.
export { parseScript } from '../../inspect/sucrase-tokens';
