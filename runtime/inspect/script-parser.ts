// Runs in any runtime process that reads locals (a host's main thread or worker, a replay host, the CLI).
//
// The JavaScript parser lexical-bindings.ts uses: Sucrase's (sucrase-tokens.ts), loaded on first use from the
// transpiler's bundle beside this code (dist/typescript-transpiler.js, which the .vsix ships anyway) or, run
// from source, from sucrase-tokens.ts itself. Invariants: loaded once per process, by path (so no bundle but the
// transpiler's carries Sucrase); missing, it is null and said once on stderr, and no binding is judged.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ParseScript } from './lexical-bindings';

let loaded: ParseScript | null | undefined;

function candidates(): string[] {
  if (!__filename.endsWith('.js')) return [join(__dirname, 'sucrase-tokens.ts')];
  // dist/runtime-host.js, dist/line-debug-worker.js, dist/cli.js; the library's dist/runtime/index.js.
  return [join(__dirname, 'typescript-transpiler.js'), join(__dirname, '..', 'typescript-transpiler.js')];
}

/** Sucrase's parser as lexical-bindings.ts reads it, or null when this build has none. */
export function scriptParser(): ParseScript | null {
  if (loaded !== undefined) return loaded;
  loaded = null;
  for (const path of candidates()) {
    if (!existsSync(path)) continue;
    try {
      const m = require(path) as { parseScript?: unknown };
      if (typeof m.parseScript === 'function') {
        loaded = m.parseScript as ParseScript;
        return loaded;
      }
    } catch {
      // Tried the next one.
    }
  }
  process.stderr.write(
    `coroscope: no JavaScript parser (${candidates().join(', ')}): uninitialized bindings read as undefined\n`,
  );
  return loaded;
}
