/**
 * The banner `hedgerow serve` writes to a terminal when the first start's generated keys are
 * ready to use: plain text for a person to read and copy, not a log line, which journals and log
 * shippers would keep. A key the operator configured is named by its setting, never printed.
 */
import type { FirstStartKeys } from '../store/first-start-keys.js';

/** The banner's text, with a line on how to use each key shown against `baseUrl` (the daemon's address). */
export function firstStartBanner(keys: FirstStartKeys, baseUrl: string): string {
  const rows: [string, string][] = [
    ['project id', String(keys.projectId)],
    ['project API key', keys.projectApiKey ?? '(configured: HEDGEROW_BOOTSTRAP_PROJECT_API_KEY)'],
    ['admin email', keys.adminEmail],
    ['personal API key', keys.personalApiKey ?? '(configured: HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY)'],
  ];
  const uses: [string, string][] = [];
  if (keys.projectApiKey) uses.push(['posthog-node', `new PostHog('${keys.projectApiKey}', { host: '${baseUrl}' })`]);
  if (keys.personalApiKey) {
    uses.push(['the API', `curl -H 'Authorization: Bearer ${keys.personalApiKey}' ${baseUrl}/api/projects/@current/feature_flags/`]);
  }
  return [
    '',
    `  Hedgerow is ready. Its first start created project ${keys.projectId} and its admin user;`,
    '  the keys it generated are shown here, and not logged:',
    '',
    ...aligned(rows, '    '),
    '',
    `  They are kept in ${keys.credentialsFile} (readable by its owner only):`,
    `  store them somewhere safe, then delete that file.${uses.length > 0 ? ' To use them:' : ''}`,
    ...aligned(uses, '    '),
    '',
    '',
  ].join('\n');
}

/** Rows as two columns, the second starting at the same place on every line. */
function aligned(rows: readonly [string, string][], indent: string): string[] {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${indent}${label.padEnd(width)}  ${value}`);
}
