#!/usr/bin/env node
/** Entry point of the `hedgerow` command on the npm path (`npm start`, `npx hedgerow`). */
import { runCli } from './program.js';

await runCli(process.argv);
