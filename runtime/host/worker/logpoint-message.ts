// Runs on the line debugger's worker thread (a live host's and a line replay host's).
//
// A logpoint's message (DAP `logMessage`, `{expression}` parts evaluated in the frame) as the
// JavaScript a V8 breakpoint condition evaluates: the live line debugger prints it
// (line-debugger.ts), a search of the recorded past records it with each hit
// (past-hit-search.ts). One template for both, so the past prints the text the live run printed.
//
// Invariants: the text outside `{...}` is taken literally (backticks, backslashes and `$` are
// escaped); each `{expression}` is interpolated as a template literal does (String(value)); a
// message whose expression throws prints nothing, live (the condition throws: V8 does not
// pause, and console.log is not reached) and in the past (no hit recorded); with a hit condition
// it still counts, live (counted before the message) and in the past (loggedMessageCounted).

/**
 * Whether a breakpoint's condition or a logpoint message's `{expression}` parts may read a value from outside
 * the loop (a call, `new`, a tagged template): they are then evaluated as lookedAt(...). A property read (a
 * getter) is not told.
 */
export function mayReadOutside(condition: string | undefined, logMessage: string | undefined): boolean {
  const code = [condition ?? '', ...[...(logMessage ?? '').matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!)];
  return code.some((c) => /[(`]|\bnew\b/.test(c));
}

/**
 * `expression` evaluated as the debugger's (outside-values.ts beginLooking): its random numbers and clock
 * readings are neither written to a recording nor taken from it. Its own frame is eval'd code, as the
 * condition's, so what reads the stack from it (the field write trap) finds the program's frame below.
 */
export function lookedAt(expression: string): string {
  const line = 'globalThis.__coroscopeLine';
  return `(() => { ${line}.lookIn(); try { return ${expression}; } finally { ${line}.lookOut(); } })()`;
}

/** The message as the source of a JavaScript template literal, backticks included. */
export function logpointTemplate(logMessage: string): string {
  const body = logMessage
    .replace(/[`\\]/g, (c) => `\\${c}`)
    .replace(/\$(?!\{)/g, '\\$')
    .replace(/\{([^}]+)\}/g, '${$1}');
  return `\`${body}\``;
}

/** The message where the logpoint's `condition` holds, else false; it throws when an expression throws. */
export function loggedMessageOrThrow(logMessage: string, condition?: string): string {
  const held = condition === undefined || condition.trim() === '' ? 'true' : `!!(${condition})`;
  return `${held} && ${logpointTemplate(logMessage)}`;
}

/**
 * An expression evaluating to the message (a string), or to false when the logpoint's `condition` does not
 * hold or an expression throws: what a scan breakpoint passes on for the hit (hit-scan.ts).
 */
export function loggedMessageExpression(logMessage: string, condition?: string): string {
  return `(() => { try { return ${loggedMessageOrThrow(logMessage, condition)}; } catch { return false; } })()`;
}

/**
 * As loggedMessageExpression, for a logpoint with a hit condition: null where its condition held but an
 * expression of its message threw. The live logpoint counts that hit before its message throws, so the past
 * counts it too, and records nothing for it (hit-scan.ts).
 */
export function loggedMessageCounted(logMessage: string, condition?: string): string {
  const held = condition === undefined || condition.trim() === '' ? 'true' : `!!(${condition})`;
  return `(() => { try { if (!(${held})) return false; } catch { return false; } try { return ${logpointTemplate(logMessage)}; } catch { return null; } })()`;
}
