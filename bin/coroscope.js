#!/usr/bin/env node
// The `coroscope` command: runs the bundled CLI (built by `npm run build`, which npm runs on install).
'use strict';
const path = require('node:path');
const fs = require('node:fs');
const cli = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(cli)) {
  process.stderr.write('coroscope: dist/cli.js is missing; run `npm run build` in ' + path.join(__dirname, '..') + '\n');
  process.exit(1);
}
require(cli);
