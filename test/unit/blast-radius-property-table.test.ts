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
    // Repeated values keep one id each; a column of new values only stops looking them up.
    expect([plan.values.length, small.values.length, n.values.length]).toEqual([4, 301, rows + 1]);
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

describe('PropertyTable rows by id', () => {
  it('finds rows by integer ids (small, huge, negative, fractional) and by string ids, told apart', () => {
    const table = new PropertyTable();
    const ids = [1, 2, 3, 5000, 1e12, -1, 2.5, '1', 'group-a', 0];
    ids.forEach((id, i) => table.upsert(id, { i }));
    expect(table.size).toBe(ids.length);
    ids.forEach((id, i) => {
      const row = table.rowOf(id);
      expect(row, String(id)).toBeDefined();
      expect(valueAt(table.column('i') as PropertyColumn, row as number)).toBe(i);
    });
    expect(table.rowOf(4)).toBeUndefined();
    expect(table.rowOf('2')).toBeUndefined();
    expect(table.rowOf(1)).not.toBe(table.rowOf('1'));
  });

  it('forgets removed ids and reuses their rows, with ids placed before and after the index grew', () => {
    const table = new PropertyTable();
    table.upsert(100_000, { k: 'early' }); // far past the ids held: kept aside
    for (let id = 1; id <= 50_000; id++) table.upsert(id, { k: id });
    table.upsert(100_000, { k: 'again' }); // the index has grown past it meanwhile
    expect(valueAt(table.column('k') as PropertyColumn, table.rowOf(100_000) as number)).toBe('again');
    expect(table.size).toBe(50_001);
    const freed = [table.rowOf(7) as number, table.rowOf(100_000) as number];
    expect(table.remove(7)).toBe(true);
    expect(table.remove(7)).toBe(false);
    expect(table.remove(100_000)).toBe(true);
    expect(table.rowOf(7)).toBeUndefined();
    expect(table.rowOf(100_000)).toBeUndefined();
    table.upsert(100_000, { k: 'third' });
    expect(freed).toContain(table.rowOf(100_000)); // a freed row, not a new one
    expect(valueAt(table.column('k') as PropertyColumn, table.rowOf(100_000) as number)).toBe('third');
    expect(table.size).toBe(50_000);
  });
});
