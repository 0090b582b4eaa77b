/**
 * Which project a capture request belongs to, from the token the pipeline extracted:
 * a project token (`phc_…`, or any other a project holds) selects its project; a personal API key (`phx_…`) selects the
 * project named by `project_id`, else its user's current project (PostHog's capture accepts a
 * personal API key too: docs/compatibility.md#capture-endpoints), which must be one of the key's
 * projects when it is limited to some. Its scopes are not checked: PostHog has no scope for
 * capture. Reads the auth database; throws catalogued errors.
 */
import { catalogueError, HedgerowError } from '../errors.js';
import { validateTokenShape } from '../ingest/token.js';
import type { AuthStore, Project } from '../store/auth-store.js';
import { checkProjectAccess } from './authenticate-personal-key.js';

export function resolveCaptureProject(auth: AuthStore, rawToken: string | undefined, projectIdHint: number | undefined): Project {
  if (rawToken === undefined) {
    throw new HedgerowError('HR_API_KEY_MISSING');
  }
  const shape = validateTokenShape(rawToken);
  if (!shape.ok) {
    if (shape.reason === 'personal_api_key') return personalKeyProject(auth, rawToken.trim(), projectIdHint);
    // A project may hold a token capture-rs would refuse for its length or its characters (any
    // token PostHog's column holds is accepted: docs/compatibility.md#project-tokens); such a
    // token still captures into its project, and an unknown one gets capture-rs's answer.
    const carried = shape.reason === 'too_long' || shape.reason === 'not_ascii' ? auth.projectByToken(rawToken.trim()) : undefined;
    if (carried !== undefined) return carried;
    throw catalogueError('HR_API_KEY_MALFORMED', { reason: shape.reason });
  }
  const project = auth.projectByToken(shape.token);
  if (!project) throw new HedgerowError('HR_INVALID_API_KEY');
  return project;
}

function personalKeyProject(auth: AuthStore, secret: string, projectIdHint: number | undefined): Project {
  const found = auth.personalKey(secret);
  if (!found) throw new HedgerowError('HR_INVALID_PERSONAL_API_KEY');
  const projectId = projectIdHint ?? found.user.current_project_id;
  const project = auth.project(projectId);
  if (!project || !auth.userCanAccessProject(found.user, project)) {
    throw catalogueError('HR_PERSONAL_KEY_PROJECT_NOT_FOUND', { project_id: projectId });
  }
  // A key limited to some projects (`hedgerow admin keys create --projects`) captures into those only.
  return checkProjectAccess(auth, found, project);
}
