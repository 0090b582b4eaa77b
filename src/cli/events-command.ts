/**
 * `hedgerow events export`: every stored event as NDJSON on stdout (as the events API shows it,
 * `$group_<index>` added), streamed with backpressure so any size of log works; progress on
 * stderr when stderr is a terminal; a reader that closes the pipe early ends it quietly.
 */
import type { Command } from 'commander';
import { withGroupIndexes } from '../persons/group-event.js';
import { EventReader } from '../store/event-log.js';
import { GroupReader } from '../store/group-store.js';
import { addConfigFlags, configFlags } from './config-flags.js';
import { fail, openDataDir } from './open-data-dir.js';

export function addEventsCommands(program: Command): void {
  const events = program.command('events').description('read the event log');
  addConfigFlags(
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
    const dbs = openDataDir(configFlags(opts), { readOnly: true });
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
