// The layer rules of docs/ARCHITECTURE.md ("Layers: imports only go downwards"), checked by
// dependency-cruiser on every `npm test` (script `lint:layers`), so CI fails on an import that
// breaks one. Each rule names the layer, what it must not import, and why.
/** @type {import('dependency-cruiser').IConfiguration} */

// The runtime core: the files directly in runtime/ (index.ts, the public face, re-exports
// the layers above it for programs and is exempt).
const CORE = '^runtime/[^/]+\\.ts$';
const CORE_PUBLIC_FACE = '^runtime/index\\.ts$';
const LIBRARIES = '^runtime/(http|crawler|samples|demo-site)/';
const INSPECTOR = '^runtime/(inspect|host|cli|record)/';
// The runtime host, split by where its code runs (docs/ARCHITECTURE.md, "The runtime host by
// place of execution"): a host's main thread, its line debugger's worker thread, the worker of
// a line replay host (a host started with --line-replay), and code more than one of them loads.
const HOST_MAIN_THREAD = '^runtime/host/main-thread/';
const HOST_MAIN_ENTRY = '^runtime/host/main-thread/main\\.ts$';
const HOST_WORKER = '^runtime/host/worker/';
const HOST_WORKER_ENTRY = '^runtime/host/worker/line-debug-worker\\.ts$';
const HOST_REPLAY = '^runtime/host/replay-host/';
const HOST_SHARED = '^runtime/host/shared/';

module.exports = {
  forbidden: [
    {
      name: 'core-stays-at-the-bottom',
      comment:
        'The runtime core (loop, futures, tasks, primitives, sockets, streams) imports only node built-ins and itself: the inspector reads it through runtime/inspection.ts, never the other way.',
      severity: 'error',
      from: { path: CORE, pathNot: CORE_PUBLIC_FACE },
      to: { path: '^(runtime/[^/]+/|protocol/|extension/|webview/)' },
    },
    {
      name: 'libraries-below-the-inspector',
      comment:
        'HTTP, the crawlers, the samples and the demo site build on the core only: no inspector, host, CLI or recorder.',
      severity: 'error',
      from: { path: LIBRARIES },
      to: { path: `${INSPECTOR}|^(extension|webview)/` },
    },
    {
      name: 'runtime-never-reaches-the-editor',
      comment: 'Nothing of runtime/ imports the extension, the webview or vscode: the runtime runs in its own process.',
      severity: 'error',
      from: { path: '^runtime/' },
      to: { path: '^(extension|webview)/|^vscode$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'protocol-is-types-and-pure-code',
      comment: 'protocol/ is shared by every side: it imports no runtime, extension, webview or vscode code.',
      severity: 'error',
      from: { path: '^protocol/' },
      to: { path: '^(runtime|extension|webview)/|^vscode$' },
    },
    {
      name: 'extension-talks-to-the-host',
      comment:
        'The extension reaches the runtime through the host protocol (a process of its own), never by importing runtime code.',
      severity: 'error',
      from: { path: '^extension/' },
      to: { path: '^(runtime|webview)/' },
    },
    {
      name: 'webview-is-a-browser-page',
      comment:
        'The webview runs in a browser frame: DOM and protocol types only, no node, vscode, runtime or extension code.',
      severity: 'error',
      from: { path: '^webview/' },
      to: { path: '^(runtime|extension)/|^vscode$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'host-main-thread-not-into-the-worker',
      comment:
        "A runtime host's main thread does not load its worker's code (nor a replay host's): the two threads share only shared/ and the protocol, talking over the bridge's messages. main.ts alone imports the worker's entry, because a host bundled without dist/line-debug-worker.js starts its worker on its own script.",
      severity: 'error',
      from: { path: HOST_MAIN_THREAD, pathNot: HOST_MAIN_ENTRY },
      to: { path: `${HOST_WORKER}|${HOST_REPLAY}` },
    },
    {
      name: 'host-worker-not-into-the-main-thread',
      comment:
        "The line debugger's worker thread (worker/, replay-host/) loads no main-thread code: its bundle (dist/line-debug-worker.js) holds only the line debugger and the protocol, and the main thread's run, recordings and program loading are asked for over the bridge.",
      severity: 'error',
      from: { path: `${HOST_WORKER}|${HOST_REPLAY}` },
      to: { path: HOST_MAIN_THREAD },
    },
    {
      name: 'host-replay-only-through-the-worker-entry',
      comment:
        "replay-host/ runs only in a line replay host's worker (the worker's replay role): only the worker's entry (line-debug-worker.ts, which takes that role on --line-replay) and replay-host/ itself import it, never a live host's main thread or the rest of the worker.",
      severity: 'error',
      from: { pathNot: `${HOST_REPLAY}|${HOST_WORKER_ENTRY}` },
      to: { path: HOST_REPLAY },
    },
    {
      name: 'host-shared-belongs-to-no-thread',
      comment:
        'runtime/host/shared/ is loaded by more than one place of execution, so it imports none of them (main-thread/, worker/, replay-host/).',
      severity: 'error',
      from: { path: HOST_SHARED },
      to: { path: `${HOST_MAIN_THREAD}|${HOST_WORKER}|${HOST_REPLAY}` },
    },
    {
      name: 'host-entries-are-not-imported',
      comment:
        "The host's process and worker entries (main-thread/main.ts, worker/line-debug-worker-main.ts) run on load: nothing imports them (esbuild bundles them, a client forks them).",
      severity: 'error',
      from: {},
      to: { path: '^runtime/host/(main-thread/main|worker/line-debug-worker-main)\\.ts$' },
    },
    {
      name: 'webview-no-node-builtins',
      comment: 'Node built-ins do not exist in a webview.',
      severity: 'error',
      from: { path: '^webview/' },
      to: { dependencyTypes: ['core'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test/e2e/setup)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
