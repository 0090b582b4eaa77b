/**
 * One daemon per data directory: a second `hedgerow serve` on the same directory (on another
 * port) refuses to start, since two person processors would apply every event twice; the CLI
 * still works beside the daemon; the lock goes with the process, even a SIGKILLed one.
 */
import { realpathSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { cleanupDaemons, restartDaemon, runCli, startDaemon } from '../helpers/daemon.js';
import { send } from '../helpers/http.js';

afterAll(cleanupDaemons);

describe('the data directory lock', () => {
  it('refuses a second daemon on the same directory, and is freed when the first one ends', async () => {
    const first = await startDaemon({ backend: 'uws' });
    const env = { HEDGEROW_DATA_DIR: first.dataDir, HEDGEROW_PORT: '0', HEDGEROW_HOST: '127.0.0.1' };
    const second = await runCli(['serve'], { env });
    const refusal = `another Hedgerow daemon is serving the data directory ${realpathSync(first.dataDir)}`;
    expect([second.code, second.stderr]).toEqual([1, `hedgerow: ${refusal}\n`]);
    // Its log (not a terminal here) says it once more as one JSON line, without a stack.
    expect(JSON.parse(second.stdout.trimEnd().split('\n').at(-1)!)).toMatchObject({
      level: 'fatal',
      msg: `failed to start: ${refusal}`,
      exit_code: 1,
    });
    expect(second.stdout).not.toContain('stack');
    expect((await send(first, '/_readyz')).status).toBe(200);

    const listed = await runCli(['admin', 'projects', 'list', '--data-dir', first.dataDir]);
    expect(listed.code).toBe(0);

    await first.kill(); // SIGKILL: the kernel frees the lock with the process
    const again = await restartDaemon(first);
    expect((await send(again, '/_readyz')).status).toBe(200);
    expect(await again.stop('SIGTERM')).toBe(0);
    const third = await restartDaemon(again);
    expect((await send(third, '/_readyz')).status).toBe(200);
  });
});
