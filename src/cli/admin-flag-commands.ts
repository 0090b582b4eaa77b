/**
 * `hedgerow admin flags dashboard-link`: the signed link to a flag's usage dashboard page, the
 * same the dashboards API answers as `hedgerow_page_url` (auth/signed-link.ts: valid 7 days, no
 * personal API key in it), for opening the page in a browser or sending it to someone.
 */
import { out } from './admin-actions.js';
import type { Command } from 'commander';
import { LINK_TTL_SECONDS, linkSecret, signedDashboardPath } from '../auth/signed-link.js';
import { DashboardStore } from '../store/dashboard-store.js';
import { FlagReader } from '../store/flag-store.js';
import { toInt, withStore } from './admin-helpers.js';
import { fail } from './exit-codes.js';
import { connectHost } from './service-commands.js';

export function addFlagCommands(admin: Command): void {
  const flags = admin.command('flags').description("feature flags' usage dashboards");
  withStore(
    flags
      .command('dashboard-link')
      .description(
        `print a signed link to a flag's usage dashboard page, valid ${LINK_TTL_SECONDS / 86400} days (as the API's hedgerow_page_url)`,
      )
      .requiredOption('--project <id>', 'the project id')
      .requiredOption('--flag <key-or-id>', 'the flag, by key (or id)')
      .option('--base-url <url>', "the daemon's address as a browser reaches it (default: http://<host>:<port> of the configuration)")
      .option('--json', 'print JSON'),
    (auth, o, dbs, _args, config) => {
      const projectId = toInt(o.project, '--project');
      if (!auth.project(projectId)) fail(`project ${projectId} does not exist`);
      const ref = String(o.flag);
      const reader = new FlagReader(dbs);
      const id = reader.liveIdByKey(projectId, ref) ?? (/^\d+$/.test(ref) ? Number(ref) : undefined);
      const flag = id === undefined ? undefined : reader.get(projectId, id);
      if (!flag || flag.deleted) fail(`no flag ${ref} in project ${projectId}`);
      const dashboard = flag.usage_dashboard === null ? undefined : new DashboardStore(dbs).get(projectId, flag.usage_dashboard);
      if (!dashboard || dashboard.deleted) {
        fail(`flag ${flag.key} has no usage dashboard (POST /api/projects/${projectId}/feature_flags/${flag.id}/dashboard/ makes one)`);
      }
      const base = o.baseUrl === undefined ? `http://${connectHost(config.host)}:${config.port}` : baseUrl(String(o.baseUrl));
      const now = Date.now() / 1000;
      const url = `${base}${signedDashboardPath(linkSecret(dbs), projectId, dashboard.id, now)}`;
      const expiresAt = new Date((Math.floor(now) + LINK_TTL_SECONDS) * 1000).toISOString();
      if (o.json) out(`${JSON.stringify({ url, dashboard: dashboard.id, expires_at: expiresAt }, null, 2)}\n`);
      else out(`${url}\n`);
    },
    ['host', 'port'],
    'reads',
  );
}

/** An http(s) URL without query or fragment; a path (a proxy's prefix) is kept, without its last slash. */
function baseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fail(`--base-url must be a URL such as https://hedgerow.example.com, got "${text}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search !== '' || url.hash !== '' || url.username !== '') {
    fail(`--base-url must be an http or https URL without query, fragment or credentials, got "${text}"`);
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
