import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/schema.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const defaults = JSON.parse(readFileSync(new URL('../../config/default.json', import.meta.url), 'utf8')) as Record<string, unknown>;

/** A default as the tables show it: text in backticks, an empty one as "(none)", a number as is. */
const shownDefault = (d: unknown): string => (d === '' ? ' (none) ' : typeof d === 'string' ? `\`${d}\`` : ` ${String(d)} `);

describe('README', () => {
  it.each(SETTINGS.map((s) => [s.env, s] as const))('documents %s with its flag, default and what it does', (_env, s) => {
    const row = readme.split('\n').find((line) => line.startsWith(`| \`${s.env}\` |`));
    expect(row, `no configuration row for ${s.env}`).toBeDefined();
    expect(row).toContain(`\`${s.flag}\``);
    expect(row, `the row of ${s.env} must say what src/config/schema.ts says it does`).toContain(` ${s.doc} `);
    if (!s.path.startsWith('bootstrap.')) expect(row).toContain(shownDefault(defaults[s.path]));
  });

  it('shows the two commands and the test command', () => {
    for (const cmd of ['npm install', 'npm start', 'npm test']) expect(readme).toContain(cmd);
  });
});

describe('docs/operations.md', () => {
  const operations = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');

  it.each(SETTINGS.map((s) => [s.env, s] as const))('describes %s in depth with its flag and default', (_env, s) => {
    const row = operations.split('\n').find((line) => line.startsWith(`| \`${s.env}\` |`));
    expect(row, `no configuration row for ${s.env} in docs/operations.md`).toBeDefined();
    expect(row).toContain(`\`${s.flag}\``);
    if (!s.path.startsWith('bootstrap.')) expect(row).toContain(shownDefault(defaults[s.path]));
  });
});
