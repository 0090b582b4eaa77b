/**
 * Fetching the local-evaluation answer from a PostHog instance with a personal API key
 * (`Authorization: Bearer phx_…`, scope `feature_flag:read`), as a server SDK fetches it:
 * `GET <url>/api/projects/<id>/feature_flags/local_evaluation/?send_cohorts`, or, without a
 * PostHog project id, `GET <url>/api/feature_flag/local_evaluation/?send_cohorts` (the key's
 * current project). PostHog/posthog `posthog/api/feature_flag.py` (`local_evaluation`).
 */

/** How long the whole request may take. */
const FETCH_TIMEOUT_MS = 60_000;

export class FetchFailed extends Error {}

export function localEvaluationUrl(base: string, posthogProject: number | undefined): URL {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new FetchFailed(`--from ${JSON.stringify(base)} is not a URL (e.g. https://us.posthog.com)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new FetchFailed(`--from must be an http or https URL, not ${url.protocol}`);
  const prefix = url.pathname.replace(/\/+$/, '');
  url.pathname =
    posthogProject === undefined
      ? `${prefix}/api/feature_flag/local_evaluation/`
      : `${prefix}/api/projects/${posthogProject}/feature_flags/local_evaluation/`;
  url.search = '?send_cohorts';
  return url;
}

/** The answer's text; a refusal or a failure to connect says what PostHog answered. */
export async function fetchPostHogDefinitions(url: URL, personalApiKey: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { authorization: `Bearer ${personalApiKey}`, accept: 'application/json' },
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (err) {
    const cause = (err as { cause?: { message?: string } }).cause?.message;
    throw new FetchFailed(`cannot fetch ${url.href}: ${cause ?? (err as Error).message}`);
  }
  const text = await res.text();
  if (res.status !== 200) {
    let detail = text.slice(0, 300);
    try {
      const body = JSON.parse(text) as { detail?: unknown };
      if (typeof body.detail === 'string') detail = body.detail;
    } catch {
      // not JSON: the start of the text says enough
    }
    throw new FetchFailed(`${url.href} answered ${res.status}${detail ? `: ${detail}` : ''}`);
  }
  return text;
}
