// What makes a JavaScript file an ES module, and what of it CommonJS cannot hold
// (runtime/host/main-thread/es-module-syntax.ts), read with the parser the host loads (Sucrase's).

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { esModuleSyntax } from '../../../../runtime/host/main-thread/es-module-syntax';
import { parseScript } from '../../../../runtime/inspect/sucrase-tokens';

const read = (source: string) => esModuleSyntax(source, parseScript);

test('an import declaration, an export or import.meta make a module; a dynamic import() does not', () => {
  assert.equal(read("import { sleep } from 'coroscope';\n").isModule, true);
  assert.equal(read("import 'side-effect';\n").isModule, true);
  assert.equal(read('const a = 1;\nexport { a };\n').isModule, true);
  assert.equal(read('export default 1;\n').isModule, true);
  assert.equal(read("const { sleep } = require('coroscope');\nconst later = import('./x.mjs');\n").isModule, false);
  assert.equal(read('module.exports = { main: 1 };\n').isModule, false);
  // `await` as a name: a member, a key, a method, a field, a CommonJS variable.
  const names = 'x.await = 1; x?.await; o = { await: 1, await() {} };\nclass A { static await() {} await = 2 }\n';
  assert.deepEqual(read(names), { isModule: false, notCommonJs: [] });
});

test('a top-level await (for await too) and import.meta are named at their first line; an await in a function is not', () => {
  const source = [
    "import { sleep } from 'coroscope';",
    'async function later() {',
    '  await sleep(0);',
    '  for await (const x of []) {}',
    '}',
    'const f = async () => await later();',
    'const here = import.meta.url;',
    'await later();',
    'for await (const y of []) {}',
    '',
  ].join('\n');
  assert.deepEqual(read(source), {
    isModule: true,
    notCommonJs: [
      { what: 'import.meta', line: 7 },
      { what: 'top-level await', line: 8 },
    ],
  });
  assert.deepEqual(read('for await (const y of []) {}\n').notCommonJs, [{ what: 'top-level await', line: 1 }]);
  assert.deepEqual(
    read("import { sleep } from 'coroscope';\nasync function f() { await sleep(0); }\n").notCommonJs,
    [],
  );
});
