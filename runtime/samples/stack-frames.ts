// The function names of a stack trace, innermost first: how the samples print a trace in a
// form that does not depend on file paths (which differ between sources and bundles).

const FRAME = /^\s*at (.*?)(?: \(.*\))?$/;

/**
 * The frames that were on the stack when the error was made. V8 also appends `at async f`
 * lines for the async functions awaiting the failed one: they were not on the stack (they are
 * suspended awaiters, found through promises), so they are left out.
 */
export function frameNames(stack: string | undefined): string[] {
  if (stack === undefined) return [];
  const names: string[] = [];
  for (const line of stack.split('\n').slice(1)) {
    if (/^\s*at async /.test(line)) continue;
    const m = FRAME.exec(line);
    if (m === null) continue;
    const name = m[1]!;
    // A frame without a name is printed as its location alone; keep it visible but short.
    names.push(/^(?:file:|node:|\/|[A-Za-z]:\\)/.test(name) ? '<anonymous>' : name);
  }
  return names;
}

/** `a <- b <- c`, innermost first, dropping Node's own frames below the program's. */
export function formatFrames(names: readonly string[], max = 12): string {
  const own = names.filter((n) => !/^(?:process\.processTicksAndRejections|processTicksAndRejections|process\.processImmediate|listOnTimeout|Immediate\.<anonymous>)$/.test(n));
  const shown = own.slice(0, max);
  return shown.join(' <- ') + (own.length > max ? ' <- ...' : '');
}
