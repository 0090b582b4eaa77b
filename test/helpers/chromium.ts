/**
 * Debian's Chromium (or `HEDGEROW_CHROMIUM`) for the browser tests, launched as they need it: as
 * root in a container, and without Chromium's calls home (the test machines have no network for them).
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { expect } from 'vitest';

const CHROMIUM = process.env.HEDGEROW_CHROMIUM ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  expect(
    existsSync(CHROMIUM),
    `Chromium not found at ${CHROMIUM}: install Debian's package (apt-get install chromium) or set HEDGEROW_CHROMIUM`,
  ).toBe(true);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
