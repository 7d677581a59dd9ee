// The moment the extension's bundle started to evaluate: imported first by extension.ts, so
// that the activation time it reports covers loading every module of the bundle as well as
// activate() itself.

export const loadStart = performance.now();
