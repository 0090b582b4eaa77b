/**
 * One `POST /flags` or `/decide` request from bytes to response text (runs in a worker): decode
 * and parse the body, check the project key, build the context, evaluate the project's compiled
 * snapshot (the flags the request may see) and encode the versioned response. Errors come back
 * as PostHog-shaped bodies.
 */
import { randomUUID } from 'node:crypto';
import { catalogueError, HedgerowError, isHedgerowError, serializeError, type SerializedError } from '../errors.js';
import { FLAGS_REGEX_ALLOWANCE_MS } from '../limits.js';
import { evaluateFlags } from '../flags/engine/evaluate-flags.js';
import type { FlagResult } from '../flags/engine/evaluate-types.js';
import { remoteConfigFields } from '../flags/remote-config.js';
import { decodeFlagsBody } from './decode-flags-body.js';
import { detectRuntime, visibleSlots } from './flag-visibility.js';
import { parseFlagsQuery } from './flags-query.js';
import { parseFlagsRequest, requireDistinctId } from './flags-request.js';
import type { AuthStore } from '../store/auth-store.js';
import { buildFlagsContext, type SubjectSources } from './flags-context.js';
import type { ProjectFlags, ProjectFlagsCache } from './project-flags-cache.js';

export interface FlagsHttpRequest {
  endpoint: 'flags' | 'decide';
  query: string;
  contentType: string;
  contentEncoding: string;
  body: Uint8Array;
  /** `User-Agent` ('' when absent), and whether a header only browsers send came: the caller's runtime. */
  userAgent: string;
  browserHeaders: boolean;
  /**
   * When to stop evaluating (ms since the epoch): the flags done by then are answered, with
   * `errorsWhileComputingFlags` set. Absent: no limit.
   */
  deadline?: number;
}

export type FlagsOutcome =
  /**
   * `errors`: the answer says errorsWhileComputingFlags (a store read failed or a flag could not
   * be evaluated). `body` is bytes only when the caller gave a buffer to write it into.
   * `projectId`: the project the key named (for the access log).
   */
  | { ok: true; body: string | Uint8Array; errors: boolean; projectId: number }
  | { ok: false; error: SerializedError }
  /** No answer from the worker pool in time (flags-pool.ts). */
  | { ok: 'timeout' };

export interface FlagsRequestDeps extends SubjectSources {
  auth: AuthStore;
  projects: ProjectFlagsCache;
  maxDecompressedBytes: number;
}

const NO_RESULTS: ReadonlyMap<string, FlagResult> = new Map();

/** Config fields per compiled project view: the same frozen object lets the encoder reuse its text. */
const configs = new WeakMap<ProjectFlags, Readonly<Record<string, unknown>>>();

function configOf(flags: ProjectFlags, apiToken: string): Readonly<Record<string, unknown>> {
  let config = configs.get(flags);
  if (config === undefined) {
    config = remoteConfigFields({ apiToken, hasFeatureFlags: flags.hasFeatureFlags });
    configs.set(flags, config);
  }
  return config;
}

/**
 * `into`: where to write the answer as UTF-8 (its body is then a view of it, valid until the
 * next request writes there); without it, or when the answer might not fit, the body is text.
 */
export function runFlagsRequest(req: FlagsHttpRequest, deps: FlagsRequestDeps, now: Date, into?: Buffer): FlagsOutcome {
  try {
    const { body, errors, projectId } = evaluateRequest(req, deps, now, into);
    return { ok: true, body, errors, projectId };
  } catch (err) {
    const e = isHedgerowError(err)
      ? err
      : catalogueError('HR_INTERNAL_ERROR', { reason: err instanceof Error ? err.message : String(err) });
    return { ok: false, error: serializeError(e) };
  }
}

function evaluateRequest(
  req: FlagsHttpRequest,
  deps: FlagsRequestDeps,
  now: Date,
  into: Buffer | undefined,
): { body: string | Uint8Array; errors: boolean; projectId: number } {
  const query = parseFlagsQuery(req.query, req.endpoint);
  const body = decodeFlagsBody(req, deps.maxDecompressedBytes);
  const request = parseFlagsRequest(body);
  const project = deps.auth.projectByToken(request.token);
  if (project === undefined) throw new HedgerowError('HR_INVALID_API_KEY');
  const distinctId = requireDistinctId(request);
  const flags = deps.projects.get(project.id);

  let results = NO_RESULTS;
  let errors = false;
  if (!request.disableFlags) {
    const built = buildFlagsContext(project.id, flags, request, distinctId, deps, now);
    const visible = visibleSlots(flags.snapshot, {
      onlySurveyFlags: query.onlySurveyFlags,
      runtime: detectRuntime({ explicit: request.evaluationRuntime, userAgent: req.userAgent, browserHeaders: req.browserHeaders }),
      contexts: request.evaluationContexts,
    });
    if (visible !== null) built.ctx.visible = visible;
    const deadline = req.deadline;
    if (deadline !== undefined) built.ctx.overBudget = () => Date.now() > deadline;
    built.ctx.regexAllowanceMs = FLAGS_REGEX_ALLOWANCE_MS;
    const evaluated = evaluateFlags(flags.snapshot, built.ctx);
    results = evaluated;
    errors = built.storeError || !evaluated.complete;
    if (!errors) {
      results.forEach((r) => {
        if (r.error !== undefined) errors = true;
      });
    }
  }
  const answer = {
    format: query.format,
    results,
    errorsWhileComputingFlags: errors,
    requestId: randomUUID(),
    evaluatedAt: now.getTime(),
    ...(query.config ? { config: configOf(flags, project.api_token) } : {}),
  };
  const written = into === undefined ? undefined : flags.encoder.encodeInto(answer, into);
  const text = written === undefined ? flags.encoder.encode(answer) : (into as Buffer).subarray(0, written);
  return { body: text, errors, projectId: project.id };
}
