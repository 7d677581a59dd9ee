// Writes the debugger's contributions into package.json (package-contributions.ts says which
// keys): read, modify, write at once, so that edits others make to other keys meanwhile are
// kept. Usage: node --import tsx extension/debug/write-contributions.ts

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyDebugContributions } from './package-contributions';

const path = join(__dirname, '..', '..', 'package.json');
const text = readFileSync(path, 'utf8');
const pkg = JSON.parse(text) as Record<string, unknown>;
const next = `${JSON.stringify(applyDebugContributions(pkg), null, 2)}\n`;
if (next === text) {
  console.log('package.json: the debugger contributions are up to date');
} else {
  writeFileSync(path, next);
  console.log('package.json: wrote the debugger contributions');
}
