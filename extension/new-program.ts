// What "Coroscope: New Coroutine Program" writes into a workspace folder, as data: the starter
// program, the tsconfig.json that resolves `import … from "coroscope"` to the types the
// extension ships (dist/types, built by build-types.mjs), and the launch configuration added
// to the folder's launch configurations without duplicating one already there.
// The command itself (new-program-command.ts) writes these and starts debugging.
//
// No vscode import: the command and the tests use this module alike.
//
// Invariants: the tsconfig's paths are absolute into the extension's install folder (a fresh
// folder has no node_modules); a launch configuration is added once (same name or same
// program: left as it is); `firstLine` is the 1-based line of main's first statement.

import { join } from 'node:path';

/** The program's file name in the folder: coroutines.ts, else coroutines-2.ts, … (the first not taken). */
export function starterFileName(taken: (name: string) => boolean): string {
  if (!taken('coroutines.ts')) return 'coroutines.ts';
  for (let i = 2; ; i++) if (!taken(`coroutines-${i}.ts`)) return `coroutines-${i}.ts`;
}

export const STARTER_PROGRAM = `// A coroutine program for Coroscope. F5 runs it in the debugger (the launch configuration
// "Coroscope: coroutines.ts" in .vscode/launch.json); its tasks are the Call Stack's threads.
//
// The runtime works as Python's asyncio, on generator functions:
// - coroutine(function* name() { ... }) makes a coroutine function (asyncio's \`async def\`);
// - \`yield*\` awaits (asyncio's \`await\`, Python's \`yield from\`): yield* sleep(0.05);
// - the debugger runs the exported \`main\` coroutine on its event loop.
import { coroutine, getRunningLoop, Lock, Queue, run, sleep, type Coroutine } from 'coroscope';

/** A cook takes orders from the queue until it gets null; the lock keeps one cook at the stove. */
const cook = coroutine(function* cook(name: string, orders: Queue<string | null>, stove: Lock): Coroutine<number> {
  let cooked = 0;
  for (;;) {
    const order = yield* orders.get(); // suspends while the queue is empty
    if (order === null) return cooked;
    yield* stove.acquire(); // suspends while the other cook holds the stove
    try {
      yield* sleep(0.05); // cooking: the other tasks run meanwhile
      cooked += 1;
      console.log(\`\${name} cooked \${order}\`);
    } finally {
      stove.release();
    }
  }
});

export const main = coroutine(function* main(): Coroutine<void> {
  const orders = new Queue<string | null>();
  const stove = new Lock();
  const loop = getRunningLoop();
  const cooks = ['ada', 'bob'].map((name) => loop.createTask(cook(name, orders, stove), { name }));
  for (const dish of ['soup', 'salad', 'bread', 'pie']) yield* orders.put(dish);
  for (let i = 0; i < cooks.length; i++) yield* orders.put(null); // one "stop" per cook
  for (const task of cooks) console.log(\`\${task.getName()} cooked \${yield* task} dishes\`);
});

// Run with plain Node instead of the debugger (a new loop, as asyncio.run does); the
// debugger loads this module without running this line.
if (require.main === module) void run(main());
`;

/** The 1-based line of main's first statement in STARTER_PROGRAM: where the command stops. */
export const STARTER_FIRST_LINE =
  STARTER_PROGRAM.split('\n').findIndex((l) => l.includes('const orders = new Queue')) + 1;

/**
 * The tsconfig.json of a folder without one: strict TypeScript for Node, `coroscope` mapped to
 * the runtime's declarations and Node's types taken from the extension (the folder has none).
 */
export function starterTsconfig(extensionPath: string): Record<string, unknown> {
  const types = join(extensionPath, 'dist', 'types');
  return {
    compilerOptions: {
      target: 'ES2022',
      module: 'commonjs',
      moduleResolution: 'node10',
      lib: ['ES2022'],
      strict: true,
      noEmit: true,
      esModuleInterop: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(types, 'node_modules', '@types')],
      paths: { coroscope: [join(types, 'coroscope', 'runtime', 'index.d.ts')] },
    },
  };
}

/** A launch configuration as launch.json holds it. */
export interface LaunchConfiguration {
  type: string;
  request: string;
  name: string;
  [attribute: string]: unknown;
}

/** The configuration that runs `fileName` of the folder. */
export function programLaunchConfiguration(fileName: string): LaunchConfiguration {
  return {
    type: 'coroscope',
    request: 'launch',
    name: `Coroscope: ${fileName}`,
    program: `\${workspaceFolder}/${fileName}`,
    stopOnEntry: false,
  };
}

/**
 * The folder's launch configurations with `config` added at the end, or null when one with its
 * name or its program is there already (nothing to write). Entries that are not objects are kept.
 */
export function withLaunchConfiguration(existing: unknown, config: LaunchConfiguration): unknown[] | null {
  const list = Array.isArray(existing) ? (existing as unknown[]) : [];
  const present = list.some((c) => {
    if (typeof c !== 'object' || c === null) return false;
    const r = c as Record<string, unknown>;
    return r.name === config.name || (r.type === config.type && r.program === config.program);
  });
  return present ? null : [...list, config];
}
