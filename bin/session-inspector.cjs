#!/usr/bin/env node
'use strict';
// Launcher for the bundled command line (see scripts/build.mjs).
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const bundle = join(__dirname, '..', 'dist', 'cli.cjs');
if (!existsSync(bundle)) {
  // SPEC §8: exit 2 carries the error as JSON on stdout and a sentence on stderr.
  const message = 'Session Inspector is not built: run `npm run build` (npm ci runs it for you).';
  process.stdout.write(`${JSON.stringify({ error: { code: 'not_built', message } })}\n`);
  process.stderr.write(`${message}\n`);
  process.exit(2);
}
// Source maps are not turned on here: reading and parsing each chunk's map on every start cost more
// than the rest of a cold `check`. For TypeScript positions in a stack trace, run
// `SESSION_INSPECTOR_CODE_CACHE=0 node --enable-source-maps bin/session-inspector.cjs ...`.
require(bundle);
