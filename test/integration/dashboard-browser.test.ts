/**
 * The usage dashboard page in a real browser: Debian's Chromium, headless, driven by
 * playwright-core. Flag calls are captured through posthog-node; the page opened from the API's
 * signed link must draw one line per variant and list the unique users per variant, and a
 * screenshot is saved to test-results/usage-dashboard.png.
 */
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../helpers/chromium.js';
import { PostHog } from 'posthog-node';
import { afterAll, describe, expect, it } from 'vitest';
import { apiClient } from '../helpers/api.js';
import { cleanupDaemons, REPO_ROOT, useDaemon } from '../helpers/daemon.js';
import { uniqueId, waitForPersons } from '../helpers/http.js';

const SCREENSHOT = path.join(REPO_ROOT, 'test-results', 'usage-dashboard.png');

let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  await cleanupDaemons();
});

describe('usage dashboard page in Chromium', () => {
  const d = useDaemon({ backend: 'uws' });

  it('renders the series of flag calls captured through posthog-node', async () => {
    const admin = apiClient(d, d.personalKey);
    const created = await admin.post('/api/projects/1/feature_flags/', {
      key: 'pricing-page',
      filters: {
        groups: [{ rollout_percentage: 100 }],
        multivariate: {
          variants: [
            { key: 'control', rollout_percentage: 34 },
            { key: 'cheaper', rollout_percentage: 33 },
            { key: 'annual', rollout_percentage: 33 },
          ],
        },
      },
    });
    expect(created.status, created.text).toBe(201);
    const flag = created.json as { usage_dashboard: number };

    const ph = new PostHog(d.projectKey, { host: d.baseUrl, flushAt: 5, fetchRetryCount: 0 });
    const perVariant = new Map<string, number>();
    for (let i = 0; i < 30; i++) {
      const variant = String(await ph.getFeatureFlag('pricing-page', uniqueId('visitor')));
      perVariant.set(variant, (perVariant.get(variant) ?? 0) + 1);
    }
    await ph.shutdown();
    await waitForPersons(d);

    const board = await admin.get(`/api/projects/1/dashboards/${flag.usage_dashboard}/`);
    expect(board.status, board.text).toBe(200);
    const url = (board.json as { hedgerow_page_url: string }).hedgerow_page_url;

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const response = await page.goto(url);
    expect(response?.status()).toBe(200);
    await expect(page.title()).resolves.toContain('Generated Dashboard: pricing-page Usage');

    const lines = page.locator('section[data-display="ActionsLineGraph"] polyline[data-series-label]');
    expect((await lines.evaluateAll((els) => els.map((e) => e.getAttribute('data-series-label')))).sort()).toEqual(
      [...perVariant.keys()].sort(),
    );
    const lastPointHeights = await lines.evaluateAll((els) => els.map((e) => (e.getAttribute('points') ?? '').trim().split(/\s+/).length));
    for (const points of lastPointHeights) expect(points).toBe(31);

    const rows = page.locator('section[data-display="ActionsTable"] tr[data-series-label]');
    const counts = await rows.evaluateAll((els) =>
      els.map((e) => [e.getAttribute('data-series-label'), Number(e.getAttribute('data-value'))] as const),
    );
    expect(new Map(counts)).toEqual(perVariant);
    for (const [variant, n] of perVariant) {
      await expect(page.locator(`tr[data-series-label="${variant}"]`).first().innerText()).resolves.toContain(String(n));
    }

    mkdirSync(path.dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
  }, 60_000);
});
