/**
 * The first start's keys as an operator meets them at a terminal: a banner once the daemon is
 * ready, never a log line; shown again by the next start when the first stopped before it was
 * ready (its port in use), and never again after; a configured key never printed. And a data
 * directory holding another store's credentials file is refused before anything is made. (The
 * same without a terminal, and the credentials file itself, are in cli-lifecycle.test.ts.)
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupDaemons, makeTempDir, newPersonalKey, runCli, startDaemon } from '../helpers/daemon.js';
import { OK, postJson } from '../helpers/http.js';
import { serveInTerminal, stopTerminals, type TerminalRun } from '../helpers/terminal.js';

afterAll(async () => {
  await stopTerminals();
  await cleanupDaemons();
});

/** The banner is written at once, its last line naming the API. */
const BANNER_END = /feature_flags\/\n|To use them:\n.*posthog-node.*\n\n/;
const READY = /"msg":"ready"/;

function terminalEnv(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    HEDGEROW_HOST: '127.0.0.1',
    HEDGEROW_PORT: '0',
    HEDGEROW_WORKERS: '1',
    HEDGEROW_HTTP_BACKEND: 'node',
    HEDGEROW_DATA_DIR: dataDir,
    ...extra,
  };
}

function credentials(dataDir: string): { project_api_key: string; personal_api_key: string } {
  return JSON.parse(readFileSync(path.join(dataDir, 'bootstrap-credentials.json'), 'utf8')) as {
    project_api_key: string;
    personal_api_key: string;
  };
}

/** The log's JSON lines among what the terminal showed. */
function logLines(output: string): string[] {
  return output.split('\n').filter((l) => l.startsWith('{'));
}

function baseUrl(output: string): string {
  const port = /"msg":"listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(output)?.[1];
  if (port === undefined) throw new Error(`no listening line in:\n${output}`);
  return `http://127.0.0.1:${port}`;
}

/** Starts serve in a terminal, waits for it to be ready (and for a banner when one is expected), stops it. */
async function startAndStop(env: Record<string, string>, banner: boolean): Promise<{ run: TerminalRun; output: string }> {
  const run = serveInTerminal(env);
  await run.waitFor(banner ? BANNER_END : READY);
  expect(await run.stop()).toBe(0);
  return { run, output: run.output() };
}

function listeningServer(): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

describe('on a terminal', () => {
  it('the generated keys are a banner once the daemon is ready, usable as it says, and in no log line', async () => {
    const dataDir = makeTempDir();
    const run = serveInTerminal(terminalEnv(dataDir));
    const output = await run.waitFor(BANNER_END);
    const creds = credentials(dataDir);
    const file = path.join(dataDir, 'bootstrap-credentials.json');

    expect(output).toContain(`    project API key   ${creds.project_api_key}\n`);
    expect(output).toContain(`    personal API key  ${creds.personal_api_key}\n`);
    expect(output).toContain(`  They are kept in ${file} (readable by its owner only):\n`);
    // After the ready line: the keys work by then.
    expect(output.indexOf('Hedgerow is ready.')).toBeGreaterThan(output.search(READY));
    for (const line of logLines(output)) expect(line).not.toMatch(new RegExp(`${creds.project_api_key}|${creds.personal_api_key}`));
    const first = logLines(output).find((l) => l.includes('first start:'));
    expect(JSON.parse(first ?? '{}')).toMatchObject({
      level: 'warn',
      credentials_file: file,
      msg: expect.stringContaining(`not logged: shown on this terminal once the daemon is ready, and kept in ${file}`),
    });

    // As the banner says to use them.
    const url = baseUrl(output);
    const flags = await fetch(`${url}/api/projects/@current/feature_flags/`, {
      headers: { Authorization: `Bearer ${creds.personal_api_key}` },
    });
    expect(flags.status).toBe(200);
    const capture = await postJson({ baseUrl: url }, '/capture/', { api_key: creds.project_api_key, event: 'hello', distinct_id: 'me' });
    expect([capture.status, capture.json]).toEqual([200, OK]);
    expect(await run.stop()).toBe(0);

    // Never again: the next start only points to the file.
    const again = await startAndStop(terminalEnv(dataDir), false);
    expect(again.output).not.toContain('Hedgerow is ready.');
    expect(again.output).not.toContain(creds.personal_api_key);
    expect(again.output).toContain(
      `"msg":"the first start's keys are kept in ${file} (readable by its owner only); once they are stored elsewhere`,
    );
  });

  it('a first start that stops before it is ready shows no key; the next start shows them, once', async () => {
    const dataDir = makeTempDir();
    const taken = await listeningServer();
    const { port } = taken.address() as net.AddressInfo;
    let failed: TerminalRun;
    try {
      failed = serveInTerminal(terminalEnv(dataDir, { HEDGEROW_PORT: String(port) }));
      expect(await failed.exited).toBe(1);
    } finally {
      taken.close();
    }
    const creds = credentials(dataDir);
    const output = failed.output();
    expect(output).toContain(`hedgerow: cannot listen on 127.0.0.1:${port}: address in use\n`);
    expect(output).toContain('"msg":"first start: created the default organization');
    expect(output).not.toContain(creds.project_api_key);
    expect(output).not.toContain(creds.personal_api_key);
    // stdout is the terminal too: the stderr line says it, without a JSON copy.
    expect(output).not.toContain('"level":"fatal"');

    const second = await startAndStop(terminalEnv(dataDir), true);
    expect(second.output).toContain(`    personal API key  ${creds.personal_api_key}\n`);
    expect(second.output).toContain('the first start stopped before it was ready, so they are shown on this terminal once this one is');
    for (const line of logLines(second.output)) expect(line).not.toContain(creds.personal_api_key);

    const third = await startAndStop(terminalEnv(dataDir), false);
    expect(third.output).not.toContain('Hedgerow is ready.');
  });

  it('a configured key is named by its setting, never shown', async () => {
    const dataDir = makeTempDir();
    const personalKey = newPersonalKey();
    const { output } = await startAndStop(terminalEnv(dataDir, { HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY: personalKey }), true);
    expect(output).not.toContain(personalKey);
    expect(output).toContain('    personal API key  (configured: HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY)\n');
    expect(output).toContain(`    project API key   ${credentials(dataDir).project_api_key}\n`);
    expect(output).toContain('the project API key it generated is not logged');
  });
});

describe("another store's credentials file", () => {
  it('in a data directory without a store is refused before anything is made, and kept', async () => {
    const dataDir = makeTempDir();
    const file = path.join(dataDir, 'bootstrap-credentials.json');
    writeFileSync(file, '{"project_api_key":"phc_earlier"}\n', { mode: 0o600 });
    const r = await runCli(['serve'], { env: terminalEnv(dataDir) });
    expect([r.code, r.stderr]).toEqual([
      1,
      `hedgerow: the data directory ${dataDir} holds no store but holds bootstrap-credentials.json, the keys of an earlier one: move that file away, then start again\n`,
    ]);
    expect(readFileSync(file, 'utf8')).toBe('{"project_api_key":"phc_earlier"}\n');

    // Moved away, the next start makes the store and its own file.
    renameSync(file, path.join(dataDir, 'earlier-credentials.json'));
    const d = await startDaemon({ backend: 'node', dataDir });
    expect(existsSync(file)).toBe(true);
    expect(credentials(dataDir).project_api_key).toBe(d.projectKey);
    expect(await d.stop()).toBe(0);
  });
});
