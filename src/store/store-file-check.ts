/**
 * A look at the LMDB file before opening it. LMDB trusts its meta pages: opening a file that is
 * not one (a stray file under the name, a copy cut short before its meta pages, a directory)
 * ended the process by SIGSEGV or SIGBUS with no message. This refuses those with one. It cannot
 * vouch for the pages after the meta pages.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** LMDB's `MDB_MAGIC` and `MDB_DATA_VERSION`, and where lmdb-js's build puts them in page 0. */
const MDB_MAGIC = 0xbeefc0de;
const MDB_DATA_VERSION = 2;
/**
 * Offsets in a meta page: the page header (`PAGEHDRSZ`), then `MDB_meta`: magic, version, address,
 * map size, the free and main DBs' `MDB_db` (48 bytes each: the free DB's `md_pad` is the page
 * size, `md_root` is at 40), the last page and the txnid.
 */
const META_OFFSET = 24;
const PAGE_SIZE_OFFSET = META_OFFSET + 24;
const FREE_ROOT_OFFSET = META_OFFSET + 24 + 40;
const MAIN_ROOT_OFFSET = META_OFFSET + 24 + 48 + 40;
const LAST_PAGE_OFFSET = META_OFFSET + 120;
const TXNID_OFFSET = META_OFFSET + 128;
const META_BYTES = TXNID_OFFSET + 8;
/** `P_INVALID`: the root of an empty tree. */
const NO_PAGE = 0xffffffffffffffffn;

export class StoreFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StoreFileError';
  }
}

/**
 * Throws StoreFileError when `file` exists and LMDB could not open it safely; a missing or empty
 * file is created by LMDB. Says which it found.
 */
export function checkStoreFile(file: string): 'absent' | 'empty' | 'ok' {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return 'absent';
    throw new StoreFileError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    if (!fstatSync(fd).isFile()) throw new StoreFileError(`${file} is not a file`);
    const first = readAt(fd, 0);
    if (first === undefined && fstatSync(fd).size === 0) return 'empty';
    const isLmdb =
      first !== undefined && first.readUInt32LE(META_OFFSET) === MDB_MAGIC && first.readUInt32LE(META_OFFSET + 4) === MDB_DATA_VERSION;
    if (!isLmdb) throw new StoreFileError(`${file} is not a Hedgerow data file (no LMDB meta page)`);
    const pageSize = first.readUInt32LE(PAGE_SIZE_OFFSET);
    const second = pageSize > 0 ? readAt(fd, pageSize) : undefined;
    // The size is taken after the meta pages are read: a daemon serving the file (a backup, a
    // command beside it) grows it with every commit, and writes a commit's pages before the meta
    // that names them, so a size taken first could be older than the meta read after it.
    const size = fstatSync(fd).size;
    if (second === undefined || size < 2 * pageSize) {
      throw new StoreFileError(`${file} is cut short: ${size} bytes, less than its two meta pages of ${pageSize}`);
    }
    // The newer meta's trees must start inside the file (a copy cut short loses them).
    const meta = second.readBigUInt64LE(TXNID_OFFSET) > first.readBigUInt64LE(TXNID_OFFSET) ? second : first;
    const pages = BigInt(Math.floor(size / pageSize));
    for (const root of [meta.readBigUInt64LE(FREE_ROOT_OFFSET), meta.readBigUInt64LE(MAIN_ROOT_OFFSET)]) {
      if (root !== NO_PAGE && root >= pages) {
        throw new StoreFileError(`${file} is cut short: ${size} bytes, and its last commit's trees start at page ${root}`);
      }
    }
    // A copy cut a few pages short may keep its roots but lose pages of its trees: LMDB then
    // failed an assertion, or the process got SIGBUS, after the daemon was up. LMDB opens the
    // newer meta of the two (lmdb-js's half-page meta is read only with `usePreviousSnapshot`).
    const lastPage = meta.readBigUInt64LE(LAST_PAGE_OFFSET);
    if (lastPage >= pages) {
      throw new StoreFileError(`${file} is cut short: ${size} bytes (${pages} pages), and its last commit uses pages up to ${lastPage}`);
    }
    return 'ok';
  } finally {
    closeSync(fd);
  }
}

/** The meta fields of the page at `position`, or undefined past the end of the file. */
function readAt(fd: number, position: number): Buffer | undefined {
  const bytes = Buffer.alloc(META_BYTES);
  return readSync(fd, bytes, 0, META_BYTES, position) === META_BYTES ? bytes : undefined;
}
