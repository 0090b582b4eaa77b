/** The property table's value ids: as narrow as each column's dictionary allows, widened as it grows, never wrong. */
import { describe, expect, it } from 'vitest';
import { ABSENT_VALUE, PropertyTable, type PropertyColumn } from '../../src/blast-radius/property-table.js';

/** The value the column holds for `row` (undefined when absent). */
function valueAt(column: PropertyColumn, row: number): unknown {
  const ids = column.ids;
  const id = row < ids.length ? (ids[row] as number) : ABSENT_VALUE;
  return id === ABSENT_VALUE ? undefined : column.values[id];
}

describe('PropertyTable value ids', () => {
  it('keeps one byte per row for a few values, and widens to two and four bytes as values are added', () => {
    const table = new PropertyTable();
    const rows = 70_000;
    for (let i = 0; i < rows; i++) table.upsert(i + 1, { plan: ['free', 'pro', 'team'][i % 3], n: i, small: i % 300 });
    const plan = table.column('plan') as PropertyColumn;
    const small = table.column('small') as PropertyColumn;
    const n = table.column('n') as PropertyColumn;
    expect(plan.ids).toBeInstanceOf(Uint8Array);
    expect(small.ids).toBeInstanceOf(Uint16Array);
    expect(n.ids).toBeInstanceOf(Int32Array);
    for (let i = 0; i < rows; i += 997) {
      const row = table.rowOf(i + 1) as number;
      expect([valueAt(plan, row), valueAt(small, row), valueAt(n, row)]).toEqual([['free', 'pro', 'team'][i % 3], i % 300, i]);
    }
    const last = table.rowOf(rows) as number;
    expect(valueAt(n, last)).toBe(rows - 1);
  });

  it('widens a column that became dense while narrow, keeping the rows set before', () => {
    const table = new PropertyTable();
    for (let i = 0; i < 200; i++) table.upsert(i, { k: 'same' });
    expect((table.column('k') as PropertyColumn).ids).toBeInstanceOf(Uint8Array);
    // Rewrites with new values: the dictionary passes 256, then 65,536 values.
    for (let round = 0; round < 400; round++) table.upsert(round % 200, { k: `v${round}` });
    expect((table.column('k') as PropertyColumn).ids).toBeInstanceOf(Uint16Array);
    for (let i = 0; i < 200; i++) expect(valueAt(table.column('k') as PropertyColumn, table.rowOf(i) as number)).toBe(`v${200 + i}`);
    for (let v = 0; v < 66_000; v++) table.upsert(7, { k: v });
    const k = table.column('k') as PropertyColumn;
    expect(k.ids).toBeInstanceOf(Int32Array);
    expect(valueAt(k, table.rowOf(7) as number)).toBe(65_999);
    expect(valueAt(k, table.rowOf(8) as number)).toBe('v208');
    // A key the bag no longer has is absent, whatever the width.
    table.upsert(8, {});
    expect(valueAt(k, table.rowOf(8) as number)).toBeUndefined();
  });

  it('builds a sparse column ids as wide as its values need', () => {
    const table = new PropertyTable();
    for (let i = 0; i < 10_000; i++) table.upsert(i, i % 100 === 0 ? { rare: `r${i}`, common: 1 } : { common: 1 });
    for (let i = 0; i < 400; i++) table.upsert(20_000 + i * 50, { rare: `x${i}` });
    const rare = table.column('rare') as PropertyColumn;
    expect(rare.ids).toBeInstanceOf(Uint16Array);
    expect(valueAt(rare, table.rowOf(100) as number)).toBe('r100');
    expect(valueAt(rare, table.rowOf(20_000 + 399 * 50) as number)).toBe('x399');
    expect(valueAt(rare, table.rowOf(101) as number)).toBeUndefined();
  });
});
