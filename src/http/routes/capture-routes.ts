/**
 * The capture endpoints (`/e/`, `/i/v0/e/`, `/batch/`, `/capture/`, `/track/`, `/engage/`):
 * GET and POST go to the worker pool; OPTIONS answers the CORS preflight. The answer is sent only
 * after the worker reports the events committed (docs/architecture.md#durability-contract).
 */
import { catalogueError, deserializeError, HedgerowError } from '../../errors.js';
import type { CaptureRequest } from '../../ingest/types.js';
import type { IngestPool } from '../../pool/ingest-pool.js';
import { corsHeaders } from '../cors.js';
import { errorResponse, json } from '../respond.js';
import type { Router } from '../router.js';
import type { HttpRequest, HttpResponse } from '../types.js';

const CAPTURE_PATHS = ['/e', '/i/v0/e', '/batch', '/capture', '/track', '/engage'] as const;

export interface CaptureDeps {
  /** Undefined until the pool is ready; capture answers 503 (SDKs retry) meanwhile. */
  pool: () => IngestPool | undefined;
}

export function addCaptureRoutes(router: Router, deps: CaptureDeps): void {
  for (const path of CAPTURE_PATHS) {
    router.add('*', path, `capture:${path}`, (req) => handleCapture(req, deps));
  }
}

async function handleCapture(req: HttpRequest, deps: CaptureDeps): Promise<HttpResponse> {
  const cors = corsHeaders(req);
  if (req.method === 'OPTIONS') return json(200, { status: 'Ok' }, cors);
  // HEAD runs as GET, its answer without the body (capture-rs routes with axum's `get()`).
  if (req.method !== 'GET' && req.method !== 'POST' && req.method !== 'HEAD') {
    return errorResponse(catalogueError('HR_METHOD_NOT_ALLOWED', { method: req.method }), {
      ...cors,
      allow: 'GET, POST, OPTIONS',
    });
  }
  const pool = deps.pool();
  if (!pool) return errorResponse(new HedgerowError('HR_NOT_READY'), cors);
  const outcome = await pool.submit(toCaptureRequest(req));
  if (!outcome.ok) return errorResponse(deserializeError(outcome.error), cors);
  const res: HttpResponse = outcome.status === 204 ? { status: 204, headers: cors } : json(200, { status: 1 }, cors);
  if (outcome.projectId !== undefined) res.projectId = outcome.projectId;
  return res;
}

function toCaptureRequest(req: HttpRequest): CaptureRequest {
  return {
    path: req.path,
    query: req.query,
    method: req.method === 'POST' ? 'POST' : 'GET',
    contentType: req.header('content-type'),
    contentEncoding: req.header('content-encoding'),
    body: req.body,
    ip: req.ip,
  };
}
