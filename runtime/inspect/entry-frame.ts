// The frame of a task that has not run yet (its first step is still scheduled: a launch held
// before its first tick, stopOnEntry): its coroutine function, at the line of the function's
// first statement, so the debugger's first stop shows where the program will begin instead
// of "no frames". The function comes from coroutine tracking (the lint collector keeps the
// function of each coroutine created and not started), its position from FunctionLocations.
//
// How the first statement is found (firstStatementLine): from the function's definition
// line, the first line that ends with `{` (the body's opening brace, after a parameter list
// that may span lines), then the first line after it that is not blank or a comment. A file
// that cannot be read gives the definition line itself.
//
// Invariant: reads no program state; one source read per file (bounded cache).

import { readFileSync } from 'node:fs';
import type { FrameInfo } from '../../protocol/host-protocol';
import { functionLocations } from './function-locations';

const MAX_FILES = 32;
const files = new Map<string, string[] | null>();

function linesOf(file: string): string[] | null {
  let lines = files.get(file);
  if (lines === undefined) {
    try {
      lines = readFileSync(file, 'utf8').split(/\r?\n/);
    } catch {
      lines = null;
    }
    if (files.size >= MAX_FILES) files.delete(files.keys().next().value!);
    files.set(file, lines);
  }
  return lines;
}

/**
 * The 1-based line of the first statement of the function defined at `line` (1-based) of `lines`; `line` when
 * none is found.
 */
export function firstStatementLine(lines: readonly string[], line: number): number {
  let open = -1;
  for (let i = line - 1; i < lines.length && i < line - 1 + 20; i++) {
    if (/\{\s*(?:\/\/.*)?$/.test(lines[i]!)) {
      open = i;
      break;
    }
  }
  if (open < 0) return line;
  let inBlockComment = false;
  for (let i = open + 1; i < lines.length; i++) {
    const text = lines[i]!.trim();
    if (inBlockComment) {
      if (text.includes('*/')) inBlockComment = false;
      continue;
    }
    if (text === '' || text.startsWith('//')) continue;
    if (text.startsWith('/*')) {
      inBlockComment = !text.includes('*/');
      continue;
    }
    return i + 1;
  }
  return line;
}

/** The frame a not-started task will begin in: `fn` at its first statement; null when V8 gives no position. */
export function entryFrameOf(fn: object): FrameInfo | null {
  const at = functionLocations().locationOf(fn);
  if (at === null) return null;
  const lines = linesOf(at.file);
  const line = lines === null ? at.line : firstStatementLine(lines, at.line);
  const indent = lines?.[line - 1]?.search(/\S/) ?? -1;
  const name = (fn as { name?: unknown }).name;
  return {
    index: 0,
    name: typeof name === 'string' && name !== '' ? name : '<anonymous>',
    position: { file: at.file, line, column: line === at.line ? at.column : indent + 1 },
    generated: null,
    locals: [],
  };
}
