/**
 * Reading a static cohort's CSV upload as PostHog does (posthog/api/cohort.py `_calculate_static_by_csv`
 * over Python's `csv.reader(text.splitlines())`), and which rows Hedgerow can make members.
 */
import { describe, expect, it } from 'vitest';
import { PYTHON_CSV_FIELD_LIMIT, pythonCsvRows, pythonSplitLines } from '../../src/compat/python-csv.js';
import {
  MAX_STATIC_COHORT_CSV_IDS,
  memberDistinctIds,
  readStaticCohortCsv,
  type StaticCohortCsv,
} from '../../src/cohorts/static-cohort-csv.js';
import { HedgerowError } from '../../src/errors.js';

const read = (text: string): StaticCohortCsv => readStaticCohortCsv(Buffer.from(text, 'utf8'));
const lines = (text: string): string[] => [...pythonSplitLines(text)];
const rows = (text: string): string[][] => [...pythonCsvRows(pythonSplitLines(text))];

function refusal(fn: () => unknown): { code: string; detail: string; attr: string | null } {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof HedgerowError)) throw err;
    const body = err.toBody();
    return { code: err.hedgerowCode, detail: body.detail, attr: body.attr };
  }
  throw new Error('expected a refusal');
}

describe('Python str.splitlines() and csv.reader', () => {
  it('splits on every Python line boundary, without an empty last line', () => {
    expect(lines('')).toEqual([]);
    expect(lines('a\n')).toEqual(['a']);
    expect(lines('a\n\nb')).toEqual(['a', '', 'b']);
    expect(lines('a\r\nb\rc\vd\fe\x1cf\x85g\u2028h\u2029i')).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']);
  });

  it('reads quoted fields, doubled quotes, empty fields and blank lines as Python does', () => {
    expect(rows('a,"b,c",d\n"x""y",,\n\n  z  ')).toEqual([['a', 'b,c', 'd'], ['x"y', '', ''], [], ['  z  ']]);
  });

  it('keeps stray quotes as text and drops line breaks inside quoted fields', () => {
    expect(rows('ab"c,"d"e\n"multi\nline",x')).toEqual([
      ['ab"c', 'de'],
      ['multiline', 'x'],
    ]);
  });

  it('runs an unterminated quoted field to the end of the file', () => {
    expect(rows('a,"open\nstill open')).toEqual([['a', 'openstill open']]);
  });

  it('refuses a field longer than csv.field_size_limit() as a format error', () => {
    expect(rows('x'.repeat(PYTHON_CSV_FIELD_LIMIT))[0]![0]).toHaveLength(PYTHON_CSV_FIELD_LIMIT);
    expect(refusal(() => rows('x'.repeat(PYTHON_CSV_FIELD_LIMIT + 1)))).toEqual({
      code: 'HR_COHORT_CSV_FORMAT',
      detail: 'CSV file format is invalid. Please check your file format and try again.',
      attr: 'csv',
    });
  });
});

describe('readStaticCohortCsv: formats', () => {
  it('legacy single column: every row is a distinct id, the first included', () => {
    expect(read('legacy_user\nanother_user\n')).toEqual({ idType: 'distinct_id', ids: ['legacy_user', 'another_user'] });
    // PostHog's own end-to-end test file: a blank first line, then "User ID", an email and ids.
    expect(read('\nUser ID\nemail@example.org\n123\n0\n').ids).toEqual(['User ID', 'email@example.org', '123', '0']);
    // A header named distinct_id is not special in a single-column file.
    expect(read('distinct_id\nu1').ids).toEqual(['distinct_id', 'u1']);
  });

  it('a first row with one non-blank cell is single-column, whatever follows', () => {
    expect(read('User ID,\nemail@example.org,\n123').ids).toEqual(['User ID', 'email@example.org', '123']);
    // Only the first cell of each row is read.
    expect(read('a\nb,c\n,d\n  e  ').ids).toEqual(['a', 'b', 'e']);
  });

  it('single column with a person_id or email header names the ID type and skips the header', () => {
    expect(read('person_id\n0188a0a6-0000-0000-0000-000000000001\n')).toEqual({
      idType: 'person_id',
      ids: ['0188a0a6-0000-0000-0000-000000000001'],
    });
    expect(read(' Person .ID \nabc').idType).toBe('person_id');
    expect(read('E-Mail\nann@example.com')).toEqual({ idType: 'email', ids: ['ann@example.com'] });
  });

  it('multi-column: picks the ID column by header, person_id before distinct_id before email', () => {
    expect(read('name,distinct-id,email\nJohn,user123,j@x.com\nZero,0,z@x.com')).toEqual({
      idType: 'distinct_id',
      ids: ['user123', '0'],
    });
    expect(read('email,Distinct_ID\nj@x.com,u1').idType).toBe('distinct_id');
    expect(read('name,person_id,distinct_id,email\nJ,p1,d1,e1')).toEqual({ idType: 'person_id', ids: ['p1'] });
    expect(read('name,e-mail\nJ,j@x.com')).toEqual({ idType: 'email', ids: ['j@x.com'] });
  });

  it('multi-column: trims values, skips blank ones and rows too short to reach the column', () => {
    expect(read('name,distinct_id,email\nJohn,  user123  ,j\nJane,\tuser456\t,k\nEmpty,,e\nBlank,   ,b').ids).toEqual([
      'user123',
      'user456',
    ]);
    expect(read('email,distinct_id\nme@x.com,user123\nincomplete\nyou@x.com,user456\nuser789\n').ids).toEqual(['user123', 'user456']);
  });

  it('multi-column: quoted IDs may hold commas and quotes', () => {
    expect(read('name,distinct_id\n"John","user,123"\n"Jane","user""special""456"').ids).toEqual(['user,123', 'user"special"456']);
  });

  it('skips blank lines before the first row and keeps duplicates (the store dedupes)', () => {
    expect(read('\n\n\nu1\nu1\n').ids).toEqual(['u1', 'u1']);
  });

  it('drops a leading UTF-8 byte order mark (PostHog keeps it, and then misses the header)', () => {
    expect(readStaticCohortCsv(Buffer.from('\uFEFFdistinct_id,name\nu1,Ann', 'utf8'))).toEqual({
      idType: 'distinct_id',
      ids: ['u1'],
    });
  });
});

describe('readStaticCohortCsv: refusals (validation_error, attr csv)', () => {
  it('an empty file, or one of blank lines', () => {
    for (const text of ['', '\n\n', '\r\n']) {
      expect(refusal(() => read(text))).toEqual({
        code: 'HR_COHORT_CSV_EMPTY',
        detail: 'CSV file is empty. Please upload a CSV file with at least one row of data.',
        attr: 'csv',
      });
    }
  });

  it('a multi-column file without an ID header names the columns it found', () => {
    expect(refusal(() => read('name,age\nJohn Doe,30\n'))).toEqual({
      code: 'HR_COHORT_CSV_NO_ID_COLUMN',
      detail:
        "Multi-column CSV must contain at least one column with a supported ID header: 'person_id', 'Person .id' " +
        "(PostHog export format), 'distinct_id', 'distinct-id', or 'email'. Found columns: name, age",
      attr: 'csv',
    });
    expect(refusal(() => read('name,,  age \nx,y,z')).detail).toMatch(/Found columns: name, {3}age $/);
  });

  it('a file without any ID', () => {
    for (const text of [',,,\n,\n,\n', 'distinct_id,name\n,Ann\n', 'person_id\n\n  \n']) {
      expect(refusal(() => read(text))).toMatchObject({ code: 'HR_COHORT_CSV_NO_IDS', attr: 'csv' });
    }
    expect(refusal(() => read(',,,')).detail).toBe(
      'CSV file contains no valid person IDs, distinct IDs, or email addresses. Please ensure your file has data rows with person IDs, distinct IDs, or email addresses.',
    );
  });

  it('a file that is not UTF-8', () => {
    expect(refusal(() => readStaticCohortCsv(Buffer.from([0x75, 0x31, 0x0a, 0xff, 0xfe, 0x0a])))).toEqual({
      code: 'HR_COHORT_CSV_ENCODING',
      detail: 'CSV file encoding is not supported. Please save your file as UTF-8 and try again.',
      attr: 'csv',
    });
  });

  it(`more than ${MAX_STATIC_COHORT_CSV_IDS} IDs (Hedgerow's cap)`, () => {
    const ids = Array.from({ length: MAX_STATIC_COHORT_CSV_IDS }, (_, i) => `u${i}`);
    expect(read(ids.join('\n')).ids).toHaveLength(MAX_STATIC_COHORT_CSV_IDS);
    expect(refusal(() => read([...ids, 'one-more'].join('\n')))).toMatchObject({
      code: 'HR_COHORT_CSV_TOO_MANY_IDS',
      attr: 'csv',
    });
  });
});

describe('memberDistinctIds', () => {
  it('distinct ids become members; ones capture could never record are skipped', () => {
    const long = 'é'.repeat(201);
    expect(memberDistinctIds(['u1', 'x'.repeat(200), long, 'nul\0id', '😀'.repeat(200)])).toEqual([
      'u1',
      'x'.repeat(200),
      '😀'.repeat(200),
    ]);
  });
});
