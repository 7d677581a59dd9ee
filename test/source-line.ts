// Where a test's breakpoint goes: the 1-based line of a source file that contains a piece of
// text, so tests name lines by what they say and survive edits above them.
//
// Invariant: a needle that is not found fails the test at once (an assertion naming it and
// the file), never yields line 0.

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

/** The 1-based line of `file` whose text contains `needle`, the first at or after 0-based line `from`. */
export function lineOf(file: string, needle: string, from = 0): number {
  const lines = readFileSync(file, 'utf8').split('\n');
  const i = lines.findIndex((l, n) => n >= from && l.includes(needle));
  assert.ok(i >= 0, `${needle} in ${file}`);
  return i + 1;
}
