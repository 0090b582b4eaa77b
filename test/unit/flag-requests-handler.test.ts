/**
 * The one `/flags` handler (src/flag-requests/handle-flags.ts) on its two sides: the daemon's
 * thread answers every request, a front-end thread only the POSTs it evaluates.
 */
import { describe, expect, it } from 'vitest';
import { serializeError, HedgerowError } from '../../src/errors.js';
import type { FlagsEndpoint, FlagsSide } from '../../src/flag-requests/flags-side.js';
import { flagsEndpointOf, handleFlags } from '../../src/flag-requests/handle-flags.js';
import type { FlagsOutcome } from '../../src/flag-requests/run-flags-request.js';
import type { HttpRequest, HttpResponse } from '../../src/http/types.js';

function request(method: string, headers: Record<string, string> = {}, query = ''): HttpRequest {
  return { method, path: '/flags', query, header: (name) => headers[name] ?? '', ip: '127.0.0.1', body: new Uint8Array(0), receivedAt: 0 };
}

function side(handsOn: boolean, evaluate: () => FlagsOutcome | Promise<FlagsOutcome> | undefined): FlagsSide & { errors: FlagsEndpoint[] } {
  const errors: FlagsEndpoint[] = [];
  return { handsOn, evaluate, onErrorsAnswered: (endpoint) => errors.push(endpoint), errors };
}

const OK: FlagsOutcome = { ok: true, body: '{"flags":{}}', errors: false, projectId: 1 };
const WITH_ERRORS: FlagsOutcome = { ok: true, body: '{"flags":{}}', errors: true, projectId: 1 };
const ORIGIN = { origin: 'https://app.example' };

describe('handleFlags', () => {
  it('names the endpoint of either form of the path', () => {
    expect(['/flags', '/flags/', '/decide', '/decide/', '/flags/definitions'].map(flagsEndpointOf)).toEqual([
      'flags',
      'flags',
      'decide',
      'decide',
      undefined,
    ]);
  });

  it('a front-end thread answers a POST it evaluates in the same call, and hands on the rest', () => {
    const thread = side(true, () => OK);
    const answer = handleFlags(request('POST', ORIGIN), 'flags', thread) as HttpResponse;
    expect(answer).toEqual({
      status: 200,
      headers: expect.objectContaining({ 'content-type': 'application/json', 'access-control-allow-origin': 'https://app.example' }),
      body: '{"flags":{}}',
      projectId: 1,
    });
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'PUT']) expect(handleFlags(request(method), 'flags', thread)).toBeUndefined();
    expect(
      handleFlags(
        request('POST'),
        'decide',
        side(true, () => undefined),
      ),
    ).toBeUndefined();
  });

  it('the daemon answers every method, and 503 while it has no pool', async () => {
    const daemon = { ...side(false, () => undefined), handsOn: false as const };
    const notReady = handleFlags(request('POST', ORIGIN), 'flags', daemon) as HttpResponse;
    expect(notReady.status).toBe(503);
    expect(notReady.headers?.['access-control-allow-origin']).toBe('https://app.example');
    expect((handleFlags(request('GET', {}, 'v=2'), 'flags', daemon) as HttpResponse).status).toBe(200);
    expect(handleFlags(request('HEAD'), 'flags', daemon)).toEqual({ status: 200, headers: { 'content-type': 'application/json' } });
    expect(handleFlags(request('OPTIONS'), 'decide', daemon)).toEqual({ status: 204, headers: { allow: 'GET, POST, OPTIONS, HEAD' } });
    expect((handleFlags(request('PUT'), 'flags', daemon) as HttpResponse).status).toBe(405);
    const pooled = { ...side(false, () => Promise.resolve(OK)), handsOn: false as const };
    expect(await handleFlags(request('POST'), 'flags', pooled)).toMatchObject({ status: 200, body: '{"flags":{}}' });
  });

  it('reports errorsWhileComputingFlags answers (a timeout included) and answers errors as PostHog does', async () => {
    const thread = side(true, () => WITH_ERRORS);
    void handleFlags(request('POST'), 'decide', thread);
    const pooled = side(false, () => Promise.resolve<FlagsOutcome>({ ok: 'timeout' }));
    const timedOut = (await handleFlags(request('POST', {}, 'v=2'), 'flags', pooled)) as HttpResponse;
    expect(JSON.parse(timedOut.body as string)).toMatchObject({ errorsWhileComputingFlags: true, flags: {} });
    const refused = side(true, () => ({ ok: false, error: serializeError(new HedgerowError('HR_INVALID_API_KEY')) }));
    expect((handleFlags(request('POST'), 'flags', refused) as HttpResponse).status).toBe(401);
    expect([thread.errors, pooled.errors, refused.errors]).toEqual([['decide'], ['flags'], []]);
  });
});
