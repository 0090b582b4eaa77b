/**
 * `POST …/feature_flags/user_blast_radius/` (docs/compatibility.md#flag-views):
 * `{users_affected, total_users}` for a condition, over the stored persons or the groups of one
 * type. Counted by the person processor's thread from its in-memory tables
 * (src/blast-radius/blast-radius-index.ts), between two of its batches. Declares no scope, so
 * scoped personal keys are refused.
 */
import { parseBlastRadiusBody } from '../blast-radius/blast-radius-request.js';
import { catalogueError, HedgerowError } from '../errors.js';
import type { BlastRadiusReply } from '../processing/processor-messages.js';
import type { BlastRadiusQuery } from '../blast-radius/blast-radius-index.js';
import type { AuthStore } from '../store/auth-store.js';
import { projectRequest, withCurrentProject } from '../http/api-request.js';
import { json } from '../http/respond.js';
import type { Router } from '../http/router.js';
import { FLAG_API_PREFIXES } from './feature-flags-api.js';

export interface FlagBlastRadiusDeps {
  auth: AuthStore;
  /** The processor's answer; undefined while it is not running (starting, stopping). */
  blastRadius(query: BlastRadiusQuery): Promise<BlastRadiusReply> | undefined;
}

/** Add before the flag routes, so that `user_blast_radius` is not taken for a flag id. */
export function addFlagBlastRadiusRoutes(router: Router, deps: FlagBlastRadiusDeps): void {
  for (const prefix of FLAG_API_PREFIXES) {
    router.add(['POST'], `${prefix}/user_blast_radius`, 'api:feature_flags_user_blast_radius', async (http, params) => {
      const req = projectRequest(deps.auth, http, withCurrentProject(params), 'unsupported');
      const { groupTypeIndex, properties } = parseBlastRadiusBody(req.body);
      const pending = deps.blastRadius({ projectId: req.project.id, groupTypeIndex, properties, nowMs: Date.now() });
      if (pending === undefined) throw new HedgerowError('HR_NOT_READY');
      const reply = await pending;
      if (reply.ok) return json(200, { users_affected: reply.users_affected, total_users: reply.total_users });
      if ('unsupported' in reply) {
        throw new HedgerowError(reply.unsupported === 'flag' ? 'HR_BLAST_RADIUS_FLAG_DEPENDENCY' : 'HR_BLAST_RADIUS_GROUP_TYPE_INDEX');
      }
      throw catalogueError('HR_BLAST_RADIUS_UNAVAILABLE', { reason: reply.error });
    });
  }
}
