/** Messages between the daemon and the person processor's thread (plain, structured-cloneable). */
import type { BlastRadiusAnswer, BlastRadiusQuery } from '../blast-radius/blast-radius-index.js';
import type { EventKey } from '../store/open-store.js';
import type { RingSlot } from './handoff-ring.js';
import type { BatchReport } from './person-processor.js';

export interface ProcessorSetup {
  dataDir: string;
  sync: 'durable' | 'async' | 'none';
  /** The ring event-log blocks are handed over in (handoff-ring.ts). */
  handOffRing: SharedArrayBuffer;
  /** Applied events older than this many days are removed from the log; 0 keeps them. */
  retentionDays: number;
}

export type ProcessorMessage =
  | { type: 'ready'; backlog: number; cursor: EventKey | null }
  | { type: 'batch'; report: BatchReport }
  /** A batch's commit failed for a reason of the moment (disk full, I/O error): tried again after `delayMs`. */
  | { type: 'retrying'; error: string; delayMs: number }
  /** Expired blocks removed from the event log (retention). */
  | { type: 'pruned'; blocks: number }
  /** Removing expired blocks failed; tried again at the next look. */
  | { type: 'prune-failed'; error: string }
  | { type: 'stopped' }
  | { type: 'crashed'; error: string }
  | { type: 'blast-radius'; id: number; answer: BlastRadiusReply };

/** The processor's answer to a blast radius question, or why it could not answer. */
export type BlastRadiusReply = BlastRadiusAnswer | { ok: false; error: string };

/** Messages from the daemon to the processor's thread. */
export type ProcessorCommand =
  /** Wakes the processor; `blocks`: where event-log blocks just written were put in the hand-off ring. */
  { type: 'tick'; blocks?: RingSlot[] } | { type: 'stop' } | { type: 'blast-radius'; id: number; query: BlastRadiusQuery };
