/**
 * An in-memory, dictionary-encoded columnar table of property bags: one row per person (or per
 * group of one type), kept up to date by its owner, read column-wise by the blast-radius counter
 * (`count-matching.ts`).
 *
 * Each property key has a column: a dictionary of the distinct values seen under that key, and a
 * typed array holding one value id per row, as narrow as the dictionary allows (`ValueIds`). Value
 * id 0 means "absent" (the row's bag does not have the key); rows at or past the end of a column's
 * `ids` are absent too. A present `null` is an ordinary value, distinct from absent. Values are
 * told apart the way the flag matchers can tell them apart: scalars by identity (`1` and `"1"`
 * differ; `-0` and `0` share an id, as no matcher distinguishes them), arrays and objects by a
 * canonical JSON text (object keys sorted, non-JSON leaves printed as `null`, which is also how
 * the matchers print them). A copy of the first value seen for a text is the one kept and handed
 * to matchers (`detachedCopy`: a decoded string can hold its whole event's text alive).
 *
 * Costs: an upsert or remove touches every dense column once (to clear the row) and the sparse
 * columns the row holds, plus one dictionary lookup per key of the new bag whose value differs
 * from the row's current one (a person rewritten by an event mostly keeps its values: those keep
 * their ids without a lookup). A column starts sparse (a map of the rows holding the key) and
 * turns dense (1, 2 or 4 bytes per row up to the highest row holding the key, grown by doubling)
 * once at least one row in 16 up to its highest holds the key: a client's event of thousands of
 * made-up keys on a person far down the table costs those keys' entries, not thousands of arrays
 * of every row (one 99 KB `$set` took 625 MB), nor a pass over them at every later upsert. A
 * sparse column's `ids` are built when a count reads them. Dictionaries only grow: a value no
 * longer held by any row stays until the table is rebuilt (a column of ever-changing values, such
 * as a current URL, grows with every value it has seen). A column whose values are nearly all
 * different (a `$creator_event_uuid` per person) stops looking scalars up (`idOf`): each new value
 * takes a new id, so an equal value may hold several, which the counter matches each in turn.
 */

import { detachedCopy } from '../util/detached-copy.js';

/** Row identifiers as the owner knows them (`1` and `"1"` are different rows). */
export type RowId = number | string;

/** Value id of "the row does not have this key". */
export const ABSENT_VALUE = 0;

/**
 * Value ids by row: one byte each while a column has fewer than 256 values (most have a handful:
 * browsers, countries, plans), two below 65,536, then four. Persons with posthog-node's 15
 * properties took 216 bytes each in a table of 4-byte ids, 91 of them in id arrays; 26 with these.
 */
type ValueIds = Uint8Array | Uint16Array | Int32Array;

/** One property key's values, as the counter reads them. */
export interface PropertyColumn {
  /** Distinct values by value id; entry 0 (`ABSENT_VALUE`) is a placeholder for "absent". */
  readonly values: readonly unknown[];
  /** Value id per row; rows at or past its length are absent. Replaced when it grows or widens (read it once per use). */
  readonly ids: ValueIds;
}

/** An id array of `length` rows wide enough for ids below `valueCount`. */
function idArray(length: number, valueCount: number): ValueIds {
  if (valueCount <= 0x100) return new Uint8Array(length);
  if (valueCount <= 0x10000) return new Uint16Array(length);
  return new Int32Array(length);
}

/** Whether `ids` can hold `id`. */
function holds(ids: ValueIds, id: number): boolean {
  return ids instanceof Int32Array || id < (ids instanceof Uint8Array ? 0x100 : 0x10000);
}

const INITIAL_ROWS = 16;

/** Length at least `needed`, doubling from `current`. */
function grownLength(current: number, needed: number): number {
  let length = Math.max(current, INITIAL_ROWS);
  while (length < needed) length *= 2;
  return length;
}

/** Text that is equal for two arrays/objects only when no property matcher can tell them apart. */
function canonicalJson(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : 'null';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(record[k])}`).join(',')}}`;
  }
  return 'null'; // null, undefined, and values JSON cannot hold
}

/** A sparse column turns dense once it holds this many rows and one row in DENSE_FILL up to its highest. */
const DENSE_FROM_ROWS = 64;
const DENSE_FILL = 16;

/**
 * Scalar lookups are judged in windows of this many: a window in which at least 15 in 16 values
 * were new ends them. Their map cost ~30 of the ~120 bytes a person with a unique
 * `$creator_event_uuid` took in the table.
 */
const DEDUPE_WINDOW = 4096;

class Column implements PropertyColumn {
  readonly values: unknown[] = [undefined];
  /** Value id per row once dense; until then undefined and `sparse` holds the rows. */
  private dense: ValueIds | undefined;
  /** Row → value id (never absent) while sparse. */
  private sparse: Map<number, number> | undefined = new Map();
  private highestRow = -1;
  /** The upsert that last gave this column a value for its row (`PropertyTable.upsert`). */
  touchedBy = 0;
  /** Scalars (and anything not an object) by SameValueZero; undefined once they stop being looked up. */
  private scalarIds: Map<unknown, number> | undefined = new Map();
  /** Scalar lookups in the current window, and how many found nothing. */
  private lookups = 0;
  private misses = 0;
  /** Arrays and objects by canonical JSON text. */
  private readonly compositeIds = new Map<string, number>();

  /** The value id of `value`, added to the dictionary when new. */
  idOf(value: unknown): number {
    const composite = typeof value === 'object' && value !== null;
    if (composite) {
      const text = canonicalJson(value);
      const known = this.compositeIds.get(text);
      if (known !== undefined) return known;
      const id = this.add(value);
      this.compositeIds.set(text, id);
      return id;
    }
    const scalars = this.scalarIds;
    if (scalars === undefined) return this.add(value);
    const known = scalars.get(value);
    this.lookups++;
    if (known !== undefined) return known;
    this.misses++;
    const id = this.add(value);
    scalars.set(this.values[id], id);
    if (this.lookups >= DEDUPE_WINDOW) this.judgeWindow();
    return id;
  }

  /** A copy of `value` that holds no other decoded text alive (detached-copy.ts), as the next value id. */
  private add(value: unknown): number {
    this.values.push(detachedCopy(value));
    return this.values.length - 1;
  }

  /** Ends scalar lookups after a window of nearly all new values; else starts the next window. */
  private judgeWindow(): void {
    if (this.misses * 16 >= this.lookups * 15) this.scalarIds = undefined;
    this.lookups = 0;
    this.misses = 0;
  }

  /**
   * The row's value id when it holds `value` itself (an equal scalar, or the very object kept for
   * its id); otherwise undefined, and `idOf` decides.
   */
  sameValueId(row: number, value: unknown): number | undefined {
    const id = this.idAt(row);
    return id !== ABSENT_VALUE && this.values[id] === value ? id : undefined;
  }

  get isSparse(): boolean {
    return this.sparse !== undefined;
  }

  /** The value ids by row; for a sparse column, built now (as large as its highest row). */
  get ids(): ValueIds {
    if (this.dense !== undefined) return this.dense;
    const ids = idArray(this.highestRow + 1, this.values.length);
    for (const [row, id] of this.sparse as Map<number, number>) ids[row] = id;
    return ids;
  }

  set(row: number, id: number): void {
    const sparse = this.sparse;
    if (sparse === undefined) {
      let dense = this.dense as ValueIds;
      if (row >= dense.length || !holds(dense, id)) {
        // Grown by doubling, widened once the dictionary outgrows the width (twice at most).
        const wider = idArray(grownLength(dense.length, row + 1), this.values.length);
        wider.set(dense);
        this.dense = dense = wider;
      }
      dense[row] = id;
      return;
    }
    sparse.set(row, id);
    if (row > this.highestRow) this.highestRow = row;
  }

  /** A sparse column holding enough of its rows to be cheaper dense. */
  get fullEnough(): boolean {
    const size = this.sparse?.size ?? 0;
    return size >= DENSE_FROM_ROWS && size * DENSE_FILL >= this.highestRow + 1;
  }

  turnDense(): void {
    this.dense = this.ids;
    this.sparse = undefined;
  }

  clear(row: number): void {
    if (this.sparse !== undefined) this.sparse.delete(row);
    else if (row < (this.dense as ValueIds).length) (this.dense as ValueIds)[row] = ABSENT_VALUE;
  }

  /** The rows a sparse column holds (none once dense). */
  sparseRows(): Iterable<number> {
    return this.sparse?.keys() ?? [];
  }

  private idAt(row: number): number {
    if (this.sparse !== undefined) return this.sparse.get(row) ?? ABSENT_VALUE;
    const dense = this.dense as ValueIds;
    return row < dense.length ? (dense[row] as number) : ABSENT_VALUE;
  }
}

/**
 * Rows by id. Person ids are integers counted up from 1 per project, so they index a typed array
 * (4 bytes each, grown by doubling, where a Map entry took ~40); any other id (group keys, an
 * integer far past the ones held) goes to a Map. An integer id is looked for in the array first,
 * then in the Map, so one placed in either is found however the array grew since.
 */
class RowIndex {
  /** Row + 1 by integer id; 0: not here. */
  private byInteger = new Int32Array(0);
  private readonly others = new Map<RowId, number>();
  private integers = 0;

  get(id: RowId): number | undefined {
    if (typeof id === 'number' && id >= 0 && id < this.byInteger.length && Number.isInteger(id)) {
      const row = this.byInteger[id] as number;
      if (row !== 0) return row - 1;
    }
    return this.others.size === 0 ? undefined : this.others.get(id);
  }

  set(id: RowId, row: number): void {
    if (this.fitsArray(id)) {
      const n = id as number;
      if (n >= this.byInteger.length) {
        const grown = new Int32Array(grownLength(this.byInteger.length, n + 1));
        grown.set(this.byInteger);
        this.byInteger = grown;
      }
      if (this.byInteger[n] === 0) this.integers++;
      this.byInteger[n] = row + 1;
      this.others.delete(id);
    } else {
      // A group key decoded from an event: kept as a copy, as values are (detachedCopy).
      this.others.set(detachedCopy(id), row);
    }
  }

  delete(id: RowId): void {
    if (typeof id === 'number' && id >= 0 && id < this.byInteger.length && Number.isInteger(id) && this.byInteger[id] !== 0) {
      this.byInteger[id] = 0;
      this.integers--;
    }
    this.others.delete(id);
  }

  /** An integer id within a few times the integer ids held (so a stray huge id cannot size the array). */
  private fitsArray(id: RowId): boolean {
    return typeof id === 'number' && Number.isInteger(id) && id >= 0 && id < Math.max(4096, 4 * (this.integers + 1), this.byInteger.length);
  }
}

export class PropertyTable {
  private readonly columnsByKey = new Map<string, Column>();
  /** The dense columns: every upsert clears its row in those it does not set. */
  private readonly denseColumns: Column[] = [];
  /** Row → the sparse columns holding it: an upsert clears those it does not set. */
  private readonly sparseColumnsOfRow = new Map<number, Set<Column>>();
  private readonly rowById = new RowIndex();
  /** Rows freed by `remove`, reused (last freed first) before new rows are added. */
  private readonly freeRows: number[] = [];
  private live = new Uint8Array(INITIAL_ROWS);
  private rowsUsed = 0;
  private liveRows = 0;
  private upserts = 0;

  /** Number of live rows. */
  get size(): number {
    return this.liveRows;
  }

  /** Every row index is below this: rows ever allocated, freed ones included. */
  get rowLimit(): number {
    return this.rowsUsed;
  }

  /** 1 for live rows, 0 for freed ones; its length may exceed `rowLimit` (read below it only). */
  get liveMask(): Uint8Array {
    return this.live;
  }

  /** The row of a live id. */
  rowOf(id: RowId): number | undefined {
    return this.rowById.get(id);
  }

  /** The column of a property key, if any row ever had it. */
  column(key: string): PropertyColumn | undefined {
    return this.columnsByKey.get(key);
  }

  /** Inserts the row of `id`, or replaces its properties (keys not in `properties` become absent). */
  upsert(id: RowId, properties: Readonly<Record<string, unknown>>): void {
    let row = this.rowById.get(id);
    const added = row === undefined;
    if (row === undefined) {
      row = this.allocateRow();
      this.rowById.set(id, row);
    }
    const upsert = ++this.upserts;
    for (const key of Object.keys(properties)) {
      const column = this.columnFor(key);
      const value = properties[key];
      column.set(row, (added ? undefined : column.sameValueId(row, value)) ?? column.idOf(value));
      if (column.isSparse) {
        this.sparseOfRow(row).add(column);
        if (column.fullEnough) this.turnDense(column);
      }
      column.touchedBy = upsert;
    }
    if (added) return;
    // Keys the row had and the new bag lacks become absent.
    const columns = this.denseColumns;
    for (let i = 0; i < columns.length; i++) {
      const column = columns[i] as Column;
      if (column.touchedBy !== upsert) column.clear(row);
    }
    const sparse = this.sparseColumnsOfRow.get(row);
    if (sparse === undefined) return;
    for (const column of sparse) {
      if (column.touchedBy === upsert) continue;
      column.clear(row);
      sparse.delete(column);
    }
    if (sparse.size === 0) this.sparseColumnsOfRow.delete(row);
  }

  /** Removes the row of `id` (its row is cleared and reused later); false when there was none. */
  remove(id: RowId): boolean {
    const row = this.rowById.get(id);
    if (row === undefined) return false;
    this.rowById.delete(id);
    this.clearRow(row);
    this.live[row] = 0;
    this.liveRows--;
    this.freeRows.push(row);
    return true;
  }

  private allocateRow(): number {
    const row = this.freeRows.pop() ?? this.rowsUsed++;
    if (row >= this.live.length) {
      const grown = new Uint8Array(grownLength(this.live.length, row + 1));
      grown.set(this.live);
      this.live = grown;
    }
    this.live[row] = 1;
    this.liveRows++;
    return row;
  }

  private clearRow(row: number): void {
    const columns = this.denseColumns;
    for (let i = 0; i < columns.length; i++) (columns[i] as Column).clear(row);
    for (const column of this.sparseColumnsOfRow.get(row) ?? []) column.clear(row);
    this.sparseColumnsOfRow.delete(row);
  }

  private columnFor(key: string): Column {
    let column = this.columnsByKey.get(key);
    if (column === undefined) {
      column = new Column();
      this.columnsByKey.set(detachedCopy(key), column);
    }
    return column;
  }

  private sparseOfRow(row: number): Set<Column> {
    let columns = this.sparseColumnsOfRow.get(row);
    if (columns === undefined) this.sparseColumnsOfRow.set(row, (columns = new Set()));
    return columns;
  }

  /** A column turning dense leaves its rows' sparse sets for the dense list. */
  private turnDense(column: Column): void {
    for (const row of column.sparseRows()) {
      const columns = this.sparseColumnsOfRow.get(row);
      if (columns?.delete(column) && columns.size === 0) this.sparseColumnsOfRow.delete(row);
    }
    column.turnDense();
    this.denseColumns.push(column);
  }
}
