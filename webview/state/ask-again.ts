// askAgain: a question to the extension asked again while no answer came (the panel's `ready`). An answer
// can be lost on the way: VS Code drops a message posted while it counts the panel hidden, and a webview
// reloaded meanwhile never hears the answer to its first document's question.
//
// Invariants: the first answer of any try is the result (later ones are ignored); a try that fails is
// not asked again (a refusal is an answer); at most `tries` questions go out, `everyMs` apart.

/** Asks `ask()`; while it has not answered, asks again every `everyMs` (at most `tries` in all). */
export function askAgain<T>(
  ask: () => Promise<T>,
  everyMs: number,
  tries: number,
  schedule: (f: () => void, ms: number) => void = (f, ms) => void setTimeout(f, ms),
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let asked = 0;
    const once = (): void => {
      if (settled) return;
      asked++;
      ask().then(
        (v) => {
          if (settled) return;
          settled = true;
          resolve(v);
        },
        (e: unknown) => {
          if (settled) return;
          settled = true;
          reject(e);
        },
      );
      if (asked < tries) schedule(once, everyMs);
    };
    once();
  });
}
