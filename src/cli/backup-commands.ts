/**
 * `hedgerow backup DEST` and `hedgerow restore SRC`: a consistent copy of the data directory made
 * while the daemon serves, and putting one in place (src/store/store-backup.ts says what a backup
 * holds). Progress on stderr when it is a terminal.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { STORE_FILE } from '../store/open-store.js';
import { BackupError, type BackupManifest, restoreBackup, writeBackup } from '../store/store-backup.js';
import { packageVersion } from '../config/package-version.js';
import { addCommandConfigFlags } from './config-flags.js';
import { EXIT_FAILED, fail } from './exit-codes.js';
import { cliConfig, openDataDir } from './open-data-dir.js';

const MIB = 1024 * 1024;

export function addBackupCommands(program: Command): void {
  addCommandConfigFlags(
    program
      .command('backup')
      .description('write a consistent copy of the data directory to DEST (a new or empty directory), also while the daemon serves')
      .argument('<dest>', 'directory to write the backup into')
      .option('--compact', 'leave out free pages (slower, smaller)'),
    ['dataDir'],
  ).action(async (dest: string, opts: Record<string, unknown>) => {
    const config = cliConfig(opts);
    const { dataDir } = config;
    const dbs = openDataDir(config, { readOnly: true });
    const started = Date.now();
    // The data file's size bounds the copy's (a compacted copy stays below it).
    const sourceMib = (statSync(path.join(dataDir, STORE_FILE)).size / MIB).toFixed(0);
    const progress = process.stderr.isTTY
      ? (bytes: number) => process.stderr.write(`\rcopied ${(bytes / MIB).toFixed(0)} of at most ${sourceMib} MiB`)
      : undefined;
    let manifest: BackupManifest;
    try {
      manifest = await writeBackup({
        dbs,
        dataDir,
        dest,
        compact: opts.compact === true,
        version: packageVersion(),
        ...(progress ? { onProgress: progress } : {}),
      });
    } catch (err) {
      if (progress) process.stderr.write('\n');
      // A BackupError refuses the destination before anything is written; anything else failed while copying.
      if (err instanceof BackupError) fail(err.message);
      fail(`backup failed: ${(err as Error).message}`, EXIT_FAILED);
    } finally {
      await dbs.root.close();
    }
    if (progress) process.stderr.write('\n');
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    const lines = manifest.files.map((f) => `  ${f.name}  ${f.bytes} bytes`);
    process.stdout.write(
      `wrote a backup of ${dataDir} to ${dest} in ${seconds} s${manifest.compacted ? ' (compacted)' : ''}:\n${lines.join('\n')}\n`,
    );
  });

  addCommandConfigFlags(
    program
      .command('restore')
      .description('put the backup in SRC in place as the data directory (which must be new or empty, and not served by a daemon)')
      .argument('<src>', 'a directory written by hedgerow backup'),
    ['dataDir'],
  ).action(async (src: string, opts: Record<string, unknown>) => {
    const { dataDir } = cliConfig(opts);
    let manifest: BackupManifest;
    try {
      manifest = await restoreBackup(src, dataDir);
    } catch (err) {
      if (err instanceof BackupError) fail(err.message);
      fail(`restore failed: ${(err as Error).message}`, EXIT_FAILED);
    }
    process.stdout.write(
      `restored the backup of ${manifest.created_at} (${manifest.source_data_dir}) into ${dataDir}: ${manifest.files.map((f) => f.name).join(', ')}\n`,
    );
  });
}
