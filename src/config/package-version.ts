/** The package's own version, read from package.json at the package root. */
import { readFileSync } from 'node:fs';
import { findPackageRoot } from './load-config.js';

export function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(`${findPackageRoot()}/package.json`, 'utf8')) as { version: string };
  return pkg.version;
}
