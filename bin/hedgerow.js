#!/usr/bin/env node
// Entry point of the `hedgerow` command: runs the compiled CLI (npm run build compiles it).
import { existsSync } from 'node:fs';
const main = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('hedgerow: not built yet; run `npm run build` (npm install does it) first\n');
  process.exit(2);
}
await import(main.href);
