// Every string the panel shows (page titles, URLs, task names, values) is built into the DOM
// as text. This keeps it so: no HTML sink appears anywhere in the webview's sources.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

const root = join(__dirname, '..', '..', 'webview');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sources(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

describe('webview sources use no HTML sinks', () => {
  it('no innerHTML, outerHTML, insertAdjacentHTML, document.write, eval or Function()', () => {
    const sinks =
      /\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write|\beval\(|new Function\(|createContextualFragment|setAttribute\(\s*['"](on\w+|style|srcdoc)['"]/;
    const offenders: string[] = [];
    for (const file of sources(root)) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (sinks.test(line) && !line.trim().startsWith('//')) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
        });
    }
    assert.deepEqual(offenders, []);
  });
});
