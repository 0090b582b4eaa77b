import { afterEach, describe, expect, it } from 'vitest';
import { BodyWatch, type WatchedBody } from '../../src/http/body-watch.js';

interface Body extends WatchedBody {
  name: string;
}

describe('BodyWatch', () => {
  let watch: BodyWatch<Body> | undefined;
  afterEach(() => watch?.close());

  function setup(idleMs: number, totalMs: number) {
    let now = 1000;
    const expired: string[] = [];
    const alive: string[] = [];
    watch = new BodyWatch<Body>({
      idleMs,
      totalMs,
      now: () => now,
      onExpired: (b, reason) => expired.push(`${b.name}:${reason}`),
      onAlive: (b) => alive.push(b.name),
      aliveEveryMs: 4000,
    });
    const body = (name: string): Body => ({ name, startedAt: now, lastDataAt: now, aliveAt: now });
    return { w: watch, expired, alive, body, advance: (ms: number) => (now += ms), at: () => now };
  }

  it('expires a body once no data has come for the idle time, not before', () => {
    const { w, expired, body, advance } = setup(1500, 300_000);
    const b = body('a');
    w.add(b);
    advance(1499);
    w.sweep();
    expect(expired).toEqual([]);
    advance(1);
    w.sweep();
    expect(expired).toEqual(['a:idle']);
    expect(w.size).toBe(0);
  });

  it('keeps a body whose data keeps coming, until its total time is up', () => {
    const { w, expired, body, advance, at } = setup(1500, 10_000);
    const b = body('steady');
    w.add(b);
    for (let t = 0; t < 9; t++) {
      advance(1000);
      b.lastDataAt = at();
      w.sweep();
    }
    expect(expired).toEqual([]);
    advance(1000);
    b.lastDataAt = at();
    w.sweep();
    expect(expired).toEqual(['steady:total']);
  });

  it('calls onAlive for a live body at most once per aliveEveryMs, and never for a removed one', () => {
    const { w, alive, body, advance, at } = setup(60_000, 300_000);
    const kept = body('kept');
    const gone = body('gone');
    w.add(kept);
    w.add(gone);
    w.delete(gone);
    for (let t = 0; t < 9; t++) {
      advance(1000);
      kept.lastDataAt = at();
      w.sweep();
    }
    expect(alive).toEqual(['kept', 'kept']); // at 4 s and 8 s
  });
});
