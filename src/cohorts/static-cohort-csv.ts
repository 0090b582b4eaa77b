/**
 * The IDs in a CSV uploaded to a static cohort, read as PostHog's CohortSerializer reads them
 * (`posthog/api/cohort.py`, `_calculate_static_by_csv`):
 *
 * - the first non-empty row decides the format. With at most one non-blank cell it is a
 *   single-column file: a `person_id` or `email` header names the column, anything else is the
 *   legacy format where every row, the first included, is a distinct id;
 * - otherwise it is a header row, and the ID column is the first `person_id` header, else the
 *   first `distinct_id`, else the first `email` (case-insensitive, trimmed); rows too short to
 *   reach that column are skipped;
 * - values are trimmed and blank ones skipped; an empty file, a multi-column file without an ID
 *   header, a file without any ID, invalid UTF-8 and an over-long field are refused (attr `csv`).
 *
 * One difference: a leading UTF-8 byte order mark is dropped, where Python's `utf-8` codec keeps
 * it and PostHog then misses a `distinct_id` header saved by Excel (or stores the mark in an ID).
 */

import { catalogueError, HedgerowError } from '../errors.js';
import { pythonStrip } from '../compat/python-repr.js';
import { MAX_DISTINCT_ID_CHARS } from '../limits.js';
import { pythonCsvRows, pythonSplitLines } from '../compat/python-csv.js';

type CsvIdType = 'person_id' | 'distinct_id' | 'email';

export interface StaticCohortCsv {
  /** What the IDs are: distinct ids, person UUIDs or email addresses. */
  readonly idType: CsvIdType;
  /** Trimmed, non-blank, in file order, duplicates kept. */
  readonly ids: readonly string[];
}

/**
 * At most this many IDs per upload: each member is one synchronous LMDB put (about 5 µs measured
 * on this machine type), so one upload holds the event loop for at most about half a second.
 * Longer lists go in several uploads (a PATCH with a CSV adds members).
 */
export const MAX_STATIC_COHORT_CSV_IDS = 100_000;

/** Headers in PostHog's order of preference, compared lower-cased and trimmed. */
const ID_HEADERS: ReadonlyArray<readonly [CsvIdType, readonly string[]]> = [
  ['person_id', ['person_id', 'person-id', 'person .id']],
  ['distinct_id', ['distinct_id', 'distinct-id']],
  ['email', ['email', 'e-mail']],
];

/** Reads the uploaded file; throws a catalogued `HR_COHORT_CSV_*` error when PostHog refuses it. */
export function readStaticCohortCsv(bytes: Uint8Array): StaticCohortCsv {
  const rows = pythonCsvRows(pythonSplitLines(decodeUtf8(bytes)));
  // Not `for...of` with `break`: that would close the generator, and the rows after the first
  // are read below.
  let first: string[] | undefined;
  for (let next = rows.next(); !next.done; next = rows.next()) {
    if (next.value.length > 0) {
      first = next.value;
      break;
    }
  }
  if (first === undefined) throw new HedgerowError('HR_COHORT_CSV_EMPTY');

  const ids: string[] = [];
  const take = (cell: string | undefined) => {
    const id = pythonStrip(cell ?? '');
    if (id === '') return;
    if (ids.length === MAX_STATIC_COHORT_CSV_IDS) {
      throw catalogueError('HR_COHORT_CSV_TOO_MANY_IDS', { max_ids: MAX_STATIC_COHORT_CSV_IDS });
    }
    ids.push(id);
  };

  let idType: CsvIdType;
  if (first.filter((cell) => pythonStrip(cell) !== '').length <= 1) {
    const header = headerType(first[0] ?? '');
    idType = header === 'person_id' || header === 'email' ? header : 'distinct_id';
    if (idType === 'distinct_id') take(first[0]);
    for (const row of rows) take(row[0]);
  } else {
    const found = idColumn(first);
    if (found === undefined) {
      const columns = first.filter((cell) => pythonStrip(cell) !== '').join(', ');
      throw catalogueError('HR_COHORT_CSV_NO_ID_COLUMN', { columns });
    }
    idType = found.type;
    for (const row of rows) if (row.length > found.index) take(row[found.index]);
  }
  if (ids.length === 0) throw new HedgerowError('HR_COHORT_CSV_NO_IDS');
  return { idType, ids };
}

function headerType(cell: string): CsvIdType | undefined {
  const name = pythonStrip(cell).toLowerCase();
  return ID_HEADERS.find(([, names]) => names.includes(name))?.[0];
}

function idColumn(headers: readonly string[]): { type: CsvIdType; index: number } | undefined {
  const types = headers.map(headerType);
  for (const [type] of ID_HEADERS) {
    const index = types.indexOf(type);
    if (index !== -1) return { type, index };
  }
  return undefined;
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HedgerowError('HR_COHORT_CSV_ENCODING');
  }
}

/**
 * The distinct ids a file of distinct ids makes members (files of person UUIDs or emails are
 * resolved through the stored persons by the cohorts API). Hedgerow keeps members by distinct id,
 * so an id whose person the processor has not created yet still counts once it exists (PostHog
 * resolves each ID to a person at upload and skips the rest); ids capture could never have
 * recorded (longer than it keeps, or holding NUL, which it replaces) are skipped.
 */
export function memberDistinctIds(distinctIds: readonly string[]): string[] {
  return distinctIds.filter((id) => !id.includes('\0') && codePoints(id) <= MAX_DISTINCT_ID_CHARS);
}

function codePoints(s: string): number {
  return s.length <= MAX_DISTINCT_ID_CHARS ? s.length : [...s].length;
}
