#!/usr/bin/env node
// The `coroscope` command: runs the bundled CLI (built by `npm run build`, which npm runs on install).
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const dist = path.join(__dirname, '..', 'dist');
const cli = path.join(dist, 'cli.js');
// A replay with --log has a small entry of its own: its line replay host is forked without waiting for the
// whole CLI to load (runtime/cli/replay-log-main.ts). It answers as the CLI would.
const args = process.argv.slice(2);
const logOnly = path.join(dist, 'cli-replay-log.js');
if (args[0] === 'replay' && args.some((a) => a === '--log' || a.startsWith('--log=')) && fs.existsSync(logOnly)) {
  require(logOnly);
  return;
}
if (!fs.existsSync(cli)) {
  process.stderr.write('coroscope: dist/cli.js is missing; run `npm run build` in ' + path.join(__dirname, '..') + '\n');
  process.exit(1);
}
require(cli);
