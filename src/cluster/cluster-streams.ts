/**
 * Hedgerow's JetStream streams in cluster mode: created on a node's first start when absent, and
 * checked when present, so that a stream made by hand (or by another release) with settings that
 * would lose or reorder what Hedgerow relies on stops the node with a clear message (exit 2)
 * instead of misbehaving. docs/cluster.md lists them.
 */
import { DiscardPolicy, JetStreamApiCodes, JetStreamApiError, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import type { JetStreamManager, StreamConfig, StreamInfo } from '@nats-io/jetstream';

/**
 * The one stream every node applies in its order: captured events (as the event log's blocks)
 * and management writes (commands), so that a command meets every node in the same state.
 */
export const LOG_STREAM = 'HEDGEROW';
export const EVENTS_SUBJECT = 'hedgerow.events';
export const COMMANDS_SUBJECT = 'hedgerow.commands';
const SUBJECTS = [EVENTS_SUBJECT, COMMANDS_SUBJECT];

/**
 * A retried publish (same message id) within this window is a duplicate the stream drops: our
 * own retries are within one publish timeout (at most 60 s).
 */
const DUPLICATE_WINDOW_NS = 2 * 60 * 1e9;

/**
 * The smallest `max_payload` the servers may have: a block holds at least one event, and an event
 * may take 1 MiB encoded (limits.ts), plus the message's headers.
 */
const MIN_MAX_PAYLOAD = 2 * 1024 * 1024;

export interface StreamSettings {
  readonly replicas: number;
  readonly maxAgeHours: number;
}

/** A stream or server setting Hedgerow cannot work with: the node stops (exit 2). */
export class ClusterSetupError extends Error {}

export function logStreamConfig(s: StreamSettings): Partial<StreamConfig> & { name: string } {
  return {
    name: LOG_STREAM,
    subjects: [...SUBJECTS],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    discard: DiscardPolicy.Old,
    num_replicas: s.replicas,
    max_age: Math.round(s.maxAgeHours * 3600 * 1e9),
    duplicate_window: DUPLICATE_WINDOW_NS,
  };
}

/** What a node says about the streams it found: warnings for settings that differ but work. */
export interface StreamsChecked {
  readonly created: readonly string[];
  readonly warnings: readonly string[];
}

/** Creates the streams that are absent and checks those present (throws ClusterSetupError). */
export async function ensureStreams(jsm: JetStreamManager, settings: StreamSettings, maxPayload: number): Promise<StreamsChecked> {
  if (maxPayload < MIN_MAX_PAYLOAD) {
    throw new ClusterSetupError(
      `the NATS servers take messages of at most ${maxPayload} bytes (max_payload); Hedgerow needs at least ${MIN_MAX_PAYLOAD} (an event may take 1 MiB): set max_payload: 8MB in each nats-server's configuration`,
    );
  }
  const created: string[] = [];
  const warnings: string[] = [];
  const wanted = logStreamConfig(settings);
  const info = await streamInfo(jsm, LOG_STREAM);
  if (info === undefined) {
    try {
      await jsm.streams.add(wanted);
      created.push(LOG_STREAM);
    } catch (err) {
      // Another node created it first: check what it made.
      const raced = await streamInfo(jsm, LOG_STREAM);
      if (raced === undefined) throw err;
      warnings.push(...checkLogStream(raced, settings));
    }
  } else {
    warnings.push(...checkLogStream(info, settings));
  }
  return { created, warnings };
}

/** Throws for a stream Hedgerow cannot use; returns warnings for one it can, set otherwise. */
export function checkLogStream(info: Pick<StreamInfo, 'config'>, settings: StreamSettings): string[] {
  const c = info.config;
  const problems: string[] = [];
  const subjects = c.subjects ?? [];
  if (subjects.length !== SUBJECTS.length || SUBJECTS.some((s) => !subjects.includes(s))) {
    problems.push(`its subjects are ${JSON.stringify(subjects)}, not ${JSON.stringify(SUBJECTS)}`);
  }
  if (c.retention !== RetentionPolicy.Limits)
    problems.push(`its retention is "${c.retention}": messages would be removed once one node consumed them`);
  if (c.sealed) problems.push('it is sealed');
  if (c.max_msg_size !== undefined && c.max_msg_size > 0 && c.max_msg_size < MIN_MAX_PAYLOAD) {
    problems.push(`its max_msg_size is ${c.max_msg_size} bytes, under ${MIN_MAX_PAYLOAD}`);
  }
  if (c.discard === DiscardPolicy.New) problems.push('its discard policy is "new": captures would fail once it is full');
  if (problems.length > 0) {
    throw new ClusterSetupError(`the JetStream stream ${LOG_STREAM} exists with settings Hedgerow cannot use: ${problems.join('; ')}`);
  }
  const warnings: string[] = [];
  if (c.num_replicas !== settings.replicas) {
    warnings.push(
      `the stream ${LOG_STREAM} has ${c.num_replicas} replicas; HEDGEROW_CLUSTER_REPLICAS=${settings.replicas} only applies when it is created`,
    );
  }
  const ageHours = (c.max_age ?? 0) / 3600e9;
  if (Math.abs(ageHours - settings.maxAgeHours) > 1e-6) {
    warnings.push(
      `the stream ${LOG_STREAM} keeps messages ${ageHours === 0 ? 'for ever' : `${ageHours} hours`}; HEDGEROW_CLUSTER_STREAM_MAX_AGE_HOURS=${settings.maxAgeHours} only applies when it is created`,
    );
  }
  return warnings;
}

async function streamInfo(jsm: JetStreamManager, name: string): Promise<StreamInfo | undefined> {
  try {
    return await jsm.streams.info(name);
  } catch (err) {
    if (err instanceof JetStreamApiError && err.code === JetStreamApiCodes.StreamNotFound) return undefined;
    throw err;
  }
}
