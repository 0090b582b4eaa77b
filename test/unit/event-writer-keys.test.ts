/**
 * Event-log keys only grow. The person processor reads the blocks after its cursor, so a block
 * keyed below the log's last key (a restart with the clock stepped back) was never processed.
 */
import { describe, expect, it } from 'vitest';
import { EventWriter } from '../../src/store/event-log.js';
import { openStore, type EventKey } from '../../src/store/open-store.js';
import { useTempDirs } from '../helpers/temp-dirs.js';

const tempDir = useTempDirs('hedgerow-keys-');

describe('EventWriter keys', () => {
  it('continue after the last key in the log when the clock is behind it', async () => {
    const dbs = openStore({ dataDir: tempDir(), sync: 'none' });
    // A block written an hour ahead of this clock, as by a run before the clock was stepped back.
    const ahead: EventKey = [(Date.now() + 3_600_000) * 1000, 1, 0];
    await dbs.events.put(ahead, Buffer.from([0x90]));

    const writer = new EventWriter(dbs); // as at the next start
    const first = await writer.append(Buffer.from([0x90]));
    const second = await writer.append(Buffer.from([0x90]));
    expect(first[0]).toBeGreaterThan(ahead[0]);
    expect(second[0]).toBeGreaterThan(first[0]);
    expect([...dbs.events.getKeys({ start: ahead, limit: 10 })].slice(1)).toEqual([first, second]);
    await dbs.root.close();
  });
});
