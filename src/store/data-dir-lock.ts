/**
 * One daemon per data directory. Two would each run a person processor over the same event log
 * and apply every event twice (person versions, merges, usage counts). LMDB itself lets any
 * number of processes open the store, and the CLI's admin and export commands do so safely (they
 * process no events), so the lock is the daemon's own: a Unix socket in Linux's abstract
 * namespace named after the directory's real path. The kernel frees it when the process ends,
 * however it ends (a SIGKILL included), so there is never a stale lock to clear. Elsewhere than
 * Linux there is no abstract namespace and no lock.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, realpathSync } from 'node:fs';
import net from 'node:net';
import { StartError } from '../start-error.js';

export interface DataDirLock {
  release(): Promise<void>;
}

const NO_LOCK: DataDirLock = { release: () => Promise.resolve() };

/** The abstract socket name that stands for a data directory. */
function lockName(dataDir: string): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const digest = createHash('sha256').update(realpathSync(dataDir)).digest('hex').slice(0, 40);
  return `\0hedgerow-data-dir-${digest}`;
}

/** Takes the directory's lock; rejects when another daemon holds it. */
export function lockDataDir(dataDir: string): Promise<DataDirLock> {
  if (process.platform !== 'linux') return Promise.resolve(NO_LOCK);
  const name = lockName(dataDir);
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', (err: NodeJS.ErrnoException) => {
      reject(
        err.code === 'EADDRINUSE' ? new StartError(`another Hedgerow daemon is serving the data directory ${realpathSync(dataDir)}`) : err,
      );
    });
    server.listen({ path: name }, () => {
      server.unref(); // the lock never keeps the process alive by itself
      resolve({ release: () => new Promise((done) => server.close(() => done())) });
    });
  });
}
