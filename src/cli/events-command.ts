/**
 * `hedgerow events export`: every stored event as NDJSON on stdout (as the events API shows it,
 * `$group_<index>` added), streamed with backpressure so any size of log works; progress on
 * stderr when stderr is a terminal; a reader that closes the pipe early ends it quietly.
 */
import type { Command } from 'commander';
import { withGroupIndexes } from '../persons/group-event.js';
import { isoparseMs } from '../compat/dateutil-isoparse.js';
import { PRUNE_SLICE_BLOCKS } from '../processing/retention-schedule.js';
import { EventReader } from '../store/event-log.js';
import { processorCursor, pruneSlice } from '../store/event-retention.js';
import { GroupReader } from '../store/group-store.js';
import { addCommandConfigFlags } from './config-flags.js';
import { EXIT_FAILED, fail } from './exit-codes.js';
import { cliConfig, openDataDir } from './open-data-dir.js';

export function addEventsCommands(program: Command): void {
  const events = program.command('events').description('read the event log, and remove old events from it');
  addCommandConfigFlags(
    events
      .command('prune')
      .description(
        'remove events received before a time from the event log, as HEDGEROW_RETENTION_DAYS does (only those the person processor has applied; persons, groups, flags and usage rollups stay); safe while the daemon runs',
      )
      .requiredOption('--before <time>', 'remove events received before this ISO-8601 date-time (UTC unless it names a zone)'),
    ['dataDir'],
  ).action((opts: Record<string, unknown>) => {
    // Read as the events API reads `before`: a time without a zone is UTC, never local time.
    const beforeMs = isoparseMs(String(opts.before));
    if (beforeMs === undefined) fail('--before must be an ISO-8601 date-time, e.g. 2026-06-01 or 2026-06-01T00:00:00Z');
    const dbs = openDataDir(cliConfig(opts));
    let blocks = 0;
    let removed = 0;
    let waiting = false;
    try {
      for (;;) {
        const slice = pruneSlice(dbs, beforeMs * 1000, processorCursor(dbs), PRUNE_SLICE_BLOCKS, { countEvents: true });
        blocks += slice.blocks;
        removed += slice.events ?? 0;
        waiting = slice.waitingForProcessor;
        if (!slice.more) break;
      }
    } catch (err) {
      fail(`pruning failed after removing ${removed} events: ${(err as Error).message}`, EXIT_FAILED);
    } finally {
      void dbs.root.close();
    }
    const kept = waiting ? '; older events the person processor has not applied yet were kept (run it again once it has)' : '';
    process.stdout.write(`removed ${removed} events (${blocks} blocks) received before ${new Date(beforeMs).toISOString()}${kept}\n`);
  });
  addCommandConfigFlags(
    events
      .command('export')
      .description('write stored events as NDJSON to stdout, oldest first')
      .option('--since <time>', 'only events ingested at or after this ISO-8601 time')
      .option('--project <id>', 'only events of this project'),
    ['dataDir'],
  ).action(async (opts: Record<string, unknown>) => {
    const sinceMs = opts.since === undefined ? undefined : Date.parse(String(opts.since));
    if (sinceMs !== undefined && Number.isNaN(sinceMs)) fail('--since must be an ISO-8601 date-time');
    const projectId = opts.project === undefined ? undefined : Number(opts.project);
    if (projectId !== undefined && !Number.isInteger(projectId)) fail('--project must be an integer');
    const dbs = openDataDir(cliConfig(opts), { readOnly: true });
    const progress = process.stderr.isTTY ? startProgress() : undefined;
    const out = process.stdout;
    // A reader that stops early (`| head`) closes the pipe: stop writing, quietly.
    let closed = false;
    let wake: (() => void) | undefined;
    out.on('error', (err: NodeJS.ErrnoException) => {
      closed = true;
      wake?.();
      if (err.code !== 'EPIPE') {
        process.stderr.write(`hedgerow: cannot write the export: ${err.message}\n`);
        process.exitCode = 1;
      }
    });
    let n = 0;
    try {
      const reader = new EventReader(dbs);
      const groups = new GroupReader(dbs);
      const indexes = new Map<number, Map<string, number>>();
      for (const e of reader.stream({ ...(sinceMs !== undefined ? { sinceMs } : {}), ...(projectId !== undefined ? { projectId } : {}) })) {
        if (closed) break;
        n++;
        let mapping = indexes.get(e.project_id);
        if (mapping === undefined) indexes.set(e.project_id, (mapping = groups.typeIndexes(e.project_id)));
        if (!out.write(JSON.stringify(withGroupIndexes(e, mapping)) + '\n')) {
          await new Promise<void>((r) => {
            wake = r;
            out.once('drain', r);
          });
        }
        progress?.(n);
      }
    } finally {
      progress?.(n, true);
      await dbs.root.close();
    }
  });
}

function startProgress(): (n: number, done?: boolean) => void {
  let last = 0;
  return (n, done = false) => {
    const now = Date.now();
    if (!done && now - last < 200) return;
    last = now;
    process.stderr.write(`\rexported ${n} events${done ? '\n' : ''}`);
  };
}
