/**
 * The look at the LMDB file before it is opened: files LMDB would crash on (SIGSEGV, SIGBUS) are
 * refused with a message; missing, empty and real ones pass.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/open-store.js';
import { checkStoreFile, StoreFileError } from '../../src/store/store-file-check.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'hedgerow-file-check-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A real data file with some pages in it, written and closed. */
async function realFile(): Promise<string> {
  const dataDir = path.join(dir, 'real');
  const dbs = openStore({ dataDir, sync: 'none' });
  await dbs.root.transaction(() => {
    for (let i = 0; i < 2000; i++) void dbs.meta.put(`key-${i}`, { value: 'x'.repeat(200), i });
  });
  await dbs.root.close();
  return path.join(dataDir, 'hedgerow.mdb');
}

function refusal(file: string): string {
  try {
    checkStoreFile(file);
  } catch (err) {
    expect(err).toBeInstanceOf(StoreFileError);
    return (err as Error).message;
  }
  throw new Error(`${file} was not refused`);
}

describe('checkStoreFile', () => {
  let real = '';
  beforeAll(async () => {
    real = await realFile();
  });

  it('passes a missing file, an empty one (LMDB creates both) and a real one', () => {
    expect(() => checkStoreFile(path.join(dir, 'missing.mdb'))).not.toThrow();
    writeFileSync(path.join(dir, 'empty.mdb'), '');
    expect(() => checkStoreFile(path.join(dir, 'empty.mdb'))).not.toThrow();
    expect(() => checkStoreFile(real)).not.toThrow();
  });

  it('refuses what is not an LMDB file, a directory, and copies cut short', () => {
    const bytes = readFileSync(real);
    expect(bytes.length).toBeGreaterThan(16 * 4096);

    writeFileSync(path.join(dir, 'garbage.mdb'), 'not lmdb');
    expect(refusal(path.join(dir, 'garbage.mdb'))).toMatch(/is not a Hedgerow data file \(no LMDB meta page\)$/);
    writeFileSync(path.join(dir, 'zeros.mdb'), Buffer.alloc(65536));
    expect(refusal(path.join(dir, 'zeros.mdb'))).toMatch(/no LMDB meta page/);
    mkdirSync(path.join(dir, 'directory.mdb'));
    expect(refusal(path.join(dir, 'directory.mdb'))).toMatch(/is not a file$/);

    writeFileSync(path.join(dir, 'one-page.mdb'), bytes.subarray(0, 4096));
    expect(refusal(path.join(dir, 'one-page.mdb'))).toMatch(/cut short: 4096 bytes, less than its two meta pages of 4096$/);
    writeFileSync(path.join(dir, 'four-pages.mdb'), bytes.subarray(0, 4 * 4096));
    expect(refusal(path.join(dir, 'four-pages.mdb'))).toMatch(/cut short: 16384 bytes, and its last commit's trees start at page \d+$/);

    // Its roots inside, pages of its trees past the end (as the newer meta says: page 0 here).
    const lastPageAt = 24 + 120;
    const pastTheEnd = Buffer.from(bytes);
    expect(pastTheEnd.readBigUInt64LE(24 + 128)).toBeGreaterThan(pastTheEnd.readBigUInt64LE(4096 + 24 + 128));
    pastTheEnd.writeBigUInt64LE(BigInt(bytes.length / 4096 + 3), lastPageAt);
    writeFileSync(path.join(dir, 'cut-end.mdb'), pastTheEnd);
    expect(refusal(path.join(dir, 'cut-end.mdb'))).toMatch(/cut short: \d+ bytes \(\d+ pages\), and its last commit uses pages up to \d+$/);

    copyFileSync(real, path.join(dir, 'copy.mdb'));
    expect(() => checkStoreFile(path.join(dir, 'copy.mdb'))).not.toThrow();
  });
});
