/**
 * The words a start failure is reported in: why a port could not be listened on, whichever backend
 * tried, and which failures to open a store are the operator's to fix (a StartError, reported in
 * one line) rather than a bug (which keeps its stack).
 */
import { describe, expect, it } from 'vitest';
import { listenError } from '../../src/http/listen-error.js';
import { StartError } from '../../src/start-error.js';
import { NewerSchemaError } from '../../src/store/open-store.js';
import { storeOpenError } from '../../src/store/store-open-error.js';
import { StoreFileError } from '../../src/store/store-file-check.js';

function errno(code: string | number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('listenError', () => {
  it.each([
    ['EADDRINUSE', 8000, 'address in use'],
    ['EACCES', 80, 'permission denied (ports below 1024 need privileges)'],
    ['EACCES', 8000, 'permission denied'],
    ['EADDRNOTAVAIL', 8000, 'no such address on this machine'],
    ['ENOTFOUND', 8000, 'no such host'],
    ['EAI_AGAIN', 8000, 'no such host'],
  ])('says %s on port %d as "%s"', (code, port, reason) => {
    const err = listenError('10.0.0.9', port, errno(code, `listen ${code}: whatever`));
    expect(err).toBeInstanceOf(StartError);
    expect(err.message).toBe(`cannot listen on 10.0.0.9:${port}: ${reason}`);
  });

  it("keeps the system's words for anything else", () => {
    expect(listenError('h', 1, errno('EINVAL', 'listen EINVAL: invalid argument')).message).toBe(
      'cannot listen on h:1: listen EINVAL: invalid argument',
    );
    expect(listenError('h', 1, 'odd').message).toBe('cannot listen on h:1: odd');
  });
});

describe('storeOpenError', () => {
  it.each([
    ['a damaged file', new StoreFileError('/d/hedgerow.mdb is cut short: 5000 bytes')],
    ['a newer store', new NewerSchemaError(99)],
    ['an errno', errno('EACCES', 'EACCES: permission denied, open')],
    ["LMDB's own code", errno(-30793, 'MDB_INVALID: File is not an LMDB file')],
  ])('names the directory for %s', (_what, err) => {
    const known = storeOpenError('/d', err);
    expect(known).toBeInstanceOf(StartError);
    expect(known?.message).toBe(`cannot open the data in /d: ${err.message}`);
  });

  it('leaves a bug alone, so that its stack is shown', () => {
    expect(storeOpenError('/d', new TypeError('x is not a function'))).toBeUndefined();
    expect(storeOpenError('/d', errno('HR_SOMETHING', 'not a system code'))).toBeUndefined();
    expect(storeOpenError('/d', 'a string')).toBeUndefined();
  });
});
