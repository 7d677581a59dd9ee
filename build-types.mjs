// Builds the types the extension ships (dist/types/, in the .vsix), for two readers:
// - a user's program: `import … from "coroscope"` resolves to dist/types/coroscope/runtime/
//   index.d.ts (tsc's declaration emit of the runtime's public entry, tsconfig.types.json)
//   through the `paths` of the tsconfig "Coroscope: New Coroutine Program" writes;
// - the runtime sources shipped beside dist/ (opened when a frame is clicked): tsconfig.json's
//   typeRoots and paths find Node's types and htmlparser2's in dist/types/node_modules/ when
//   the extension's folder has no node_modules.
// dist/types/node_modules/ holds the declaration files (and package.json, licence) of
// @types/node and the packages the runtime's types import, copied from node_modules/.
// Run by `npm run build:types` and `npm run package`.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const TYPE_PACKAGES = [
  '@types/node',
  'undici-types',
  'htmlparser2',
  'domhandler',
  'domelementtype',
  'domutils',
  'entities',
  'dom-serializer',
];
const DECLARATION = /\.d\.[cm]?ts$/;
const KEPT = /^(package\.json|LICEN[CS]E(\.\w+)?)$/i;

rmSync('dist/types', { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const emitted = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.types.json'], { stdio: 'inherit' });
if (emitted.status !== 0) process.exit(emitted.status ?? 1);

let files = 0;
function copyTypes(from, to) {
  for (const name of readdirSync(from)) {
    const source = join(from, name);
    if (statSync(source).isDirectory()) {
      if (name !== 'node_modules') copyTypes(source, join(to, name));
    } else if (DECLARATION.test(name) || KEPT.test(name)) {
      mkdirSync(to, { recursive: true });
      copyFileSync(source, join(to, name));
      files++;
    }
  }
}
for (const pkg of TYPE_PACKAGES) {
  const root = join('node_modules', pkg);
  if (!existsSync(root)) throw new Error(`build-types: ${root} is missing: npm ci first`);
  copyTypes(root, join('dist', 'types', 'node_modules', pkg));
}
console.log(
  `build-types: dist/types/coroscope (declarations of runtime/index.ts), ${files} files of ${TYPE_PACKAGES.length} type packages in dist/types/node_modules`,
);
