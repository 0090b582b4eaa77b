/**
 * The data directory, made (owner-only) when missing and checked before anything opens it, so
 * that a path naming a file, or a directory this user cannot write, is refused as a bad setting
 * rather than failing later inside LMDB or the lock with no name for it.
 */
import { accessSync, constants, mkdirSync, statSync } from 'node:fs';

/** Returns undefined when `dir` is usable, else why not. */
export function dataDirProblem(dir: string): string | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!statSync(dir).isDirectory()) return 'is not a directory';
    accessSync(dir, constants.R_OK | constants.W_OK | constants.X_OK);
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') return 'is not a directory (a file is in its place)';
    if (code === 'EACCES' || code === 'EPERM') return 'cannot be created or written by this user';
    return (err as Error).message;
  }
}
