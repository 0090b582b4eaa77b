import { describe, expect, it } from 'vitest';
import { TurnMemo } from '../../src/util/turn-memo.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('TurnMemo', () => {
  it('reads once per key and turn, and again in the next turn', async () => {
    const memo = new TurnMemo<string, number>();
    let reads = 0;
    let stored = 1;
    const read = () => {
      reads++;
      return stored;
    };
    expect([memo.get('v', read), memo.get('v', read)]).toEqual([1, 1]);
    expect(reads).toBe(1);
    stored = 2;
    expect(memo.get('v', read)).toBe(1);
    await nextTurn();
    expect(memo.get('v', read)).toBe(2);
    expect(reads).toBe(2);
  });

  it('keeps keys apart and forgets on demand', () => {
    const memo = new TurnMemo<number, string>();
    expect(memo.get(1, () => 'a')).toBe('a');
    expect(memo.get(2, () => 'b')).toBe('b');
    memo.forget();
    expect(memo.get(1, () => 'c')).toBe('c');
  });
});
