// Tests of which JavaScript parser the local readers use (runtime/inspect/script-parser.ts), run from source:
// Sucrase's parser of sucrase-tokens.ts (the same function every time), nothing said on stderr; it tells a
// block-scoped declaration's name. Not covered: the bundles' candidates (dist/typescript-transpiler.js) and
// the missing-parser notice, which only a bundled build reaches.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { scriptParser } from '../../../runtime/inspect/script-parser';
import { parseScript } from '../../../runtime/inspect/sucrase-tokens';

test("run from source: sucrase-tokens.ts's parser, the same each time, nothing said", () => {
  const said: string[] = [];
  const write = process.stderr.write;
  process.stderr.write = ((chunk: unknown) => {
    said.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  let first: ReturnType<typeof scriptParser>;
  let second: ReturnType<typeof scriptParser>;
  try {
    first = scriptParser();
    second = scriptParser();
  } finally {
    process.stderr.write = write;
  }
  assert.equal(first, parseScript);
  assert.equal(second, first);
  assert.deepEqual(said, []);
  const code = 'let answer = 42;';
  const declared = first?.(code)
    .tokens.filter((t) => t.declares)
    .map((t) => code.slice(t.start, t.end));
  assert.deepEqual(declared, ['answer']);
});
