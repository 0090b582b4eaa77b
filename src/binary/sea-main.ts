/**
 * Entry point of the single executable (`npm run build:binary` bundles it): prepare the carried
 * files first, then run the same command line as the npm path.
 */
import './sea-assets.js';
import { runCli } from '../cli/program.js';

void runCli(process.argv);
