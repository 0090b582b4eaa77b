/**
 * `hedgerow admin` on a cluster node's data directory: an action that changes records is not run
 * here but published to the cluster's stream (cluster/cluster-command.ts), which every node applies
 * in its order; the command waits until the daemon on this data directory has applied it, then
 * prints what the action printed there and ends as it ended.
 */
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { clusterServers } from '../cluster/cluster-node.js';
import { adminCommand, adminShownCommand, encodeCommand } from '../cluster/cluster-command.js';
import { COMMANDS_SUBJECT } from '../cluster/cluster-streams.js';
import type { Config } from '../config/schema.js';
import { SETTINGS } from '../config/schema.js';
import { readAdminOutcome } from '../store/admin-outcomes.js';
import { streamPosition } from '../store/stream-event-log.js';
import { EXIT_FAILED, fail } from './exit-codes.js';
import { openDataDir } from './open-data-dir.js';

/** How long the command waits for the node on its data directory to apply it. */
const APPLY_TIMEOUT_MS = 30_000;

/** How long after the node's cursor passed the command its output may still be on its way (written in the next transaction). */
const OUTPUT_GRACE_MS = 2_000;

/** The options that configure the command rather than the action: each node has its own. */
const CONFIG_OPTIONS = new Set(['envFile', ...SETTINGS.map((s) => s.flagKey)]);

export async function runThroughCluster(
  config: Readonly<Config>,
  path: string,
  args: string[],
  opts: Record<string, unknown>,
): Promise<never> {
  const actionOpts: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(opts)) if (!CONFIG_OPTIONS.has(k) && v !== undefined) actionOpts[k] = v;
  const command = adminCommand(path, args, actionOpts, `${config.nodeName}:cli`);
  let seq: number;
  try {
    const nc = await connect({ servers: clusterServers(config.clusterNats), name: 'hedgerow-cli', timeout: 5_000 });
    try {
      const ack = await jetstream(nc).publish(COMMANDS_SUBJECT, encodeCommand(command), {
        msgID: command.id,
        timeout: config.clusterPublishTimeoutMs,
      });
      seq = ack.seq;
    } finally {
      await nc.close();
    }
  } catch (err) {
    fail(
      `the NATS cluster did not take the change (${err instanceof Error ? err.message : String(err)}); nothing was changed`,
      EXIT_FAILED,
    );
  }
  const dbs = openDataDir(config, { readOnly: true });
  try {
    const deadline = Date.now() + APPLY_TIMEOUT_MS;
    /** When the node's cursor was first seen past the command: its output is written just after. */
    let appliedAt: number | undefined;
    for (;;) {
      dbs.root.resetReadTxn();
      const outcome = readAdminOutcome(dbs, seq);
      if (outcome !== undefined) {
        // Shown once: every node removes it then (it may hold a new key in clear).
        await forget(config, seq);
        process.stdout.write(outcome.stdout);
        process.stderr.write(outcome.stderr);
        process.exit(outcome.code);
      }
      if (appliedAt === undefined && streamPosition(dbs) >= seq) appliedAt = Date.now();
      if (appliedAt !== undefined && Date.now() - appliedAt > OUTPUT_GRACE_MS) {
        fail(`the change was applied (stream message ${seq}), but its output was not kept`, EXIT_FAILED);
      }
      if (Date.now() > deadline) {
        fail(
          `the cluster holds the change (stream message ${seq}), but the daemon on ${config.dataDir} has not applied it within ${APPLY_TIMEOUT_MS / 1000} s: is it running? Every node applies it once it runs`,
          EXIT_FAILED,
        );
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    await dbs.root.close();
  }
}

/** Publishes that the output of the command at `seq` was shown; a failure leaves it to be removed with the oldest. */
async function forget(config: Readonly<Config>, seq: number): Promise<void> {
  try {
    const nc = await connect({ servers: clusterServers(config.clusterNats), name: 'hedgerow-cli', timeout: 5_000 });
    try {
      const shown = adminShownCommand(seq, `${config.nodeName}:cli`);
      await jetstream(nc).publish(COMMANDS_SUBJECT, encodeCommand(shown), { msgID: shown.id, timeout: config.clusterPublishTimeoutMs });
    } finally {
      await nc.close();
    }
  } catch (err) {
    process.stderr.write(
      `hedgerow: warning: could not tell the cluster the output was shown (${err instanceof Error ? err.message : String(err)})\n`,
    );
  }
}
