/**
 * `hedgerow admin import posthog`: brings a PostHog project's flags, the cohorts they use and its
 * group types into a Hedgerow project, from a saved local-evaluation answer (`--file`) or fetched
 * from a PostHog instance (`--from` with a personal API key). Safe while the daemon runs: each
 * write is its own transaction and the daemon picks the new flags up on its next request.
 * Exit 0 when everything went in, 1 when some records were skipped (each is reported), 2 when the
 * input is refused (nothing is changed).
 */
import { type AdminOutcome, out, registerAdminAction, runAdminAction, setExitCode } from './admin-actions.js';
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { FlagWriter } from '../flags/flag-writer.js';
import { FetchFailed, fetchPostHogDefinitions, localEvaluationUrl } from '../posthog-import/fetch-posthog-definitions.js';
import { importDefinitions, type ImportReport } from '../posthog-import/import-definitions.js';
import { NotPostHogDefinitions, type PostHogDefinitions, readPostHogDefinitions } from '../posthog-import/posthog-definitions.js';
import { ActivityLog } from '../store/activity-log.js';
import { AuthStore, ORGANIZATION_LEVEL, type Project, type User } from '../store/auth-store.js';
import { CohortStore } from '../store/cohort-store.js';
import { DashboardStore } from '../store/dashboard-store.js';
import { FlagStore } from '../store/flag-store.js';
import { addGroupType, GroupReader } from '../store/group-store.js';
import { ImportOrigins } from '../store/import-origins.js';
import type { StoreDatabases } from '../store/open-store.js';
import { addCommandConfigFlags } from './config-flags.js';
import { type Opts, toInt } from './admin-helpers.js';
import { fail } from './exit-codes.js';
import { cliConfig, openDataDir, refuseWritesShortOfSpace } from './open-data-dir.js';

/** Where a personal API key for `--from` may come from instead of the command line (where ps shows it). */
const PERSONAL_API_KEY_ENV = 'POSTHOG_PERSONAL_API_KEY';

export function addImportCommands(admin: Command): void {
  const importCmd = admin.command('import').description('bring flags, cohorts and group types over from another product');
  const posthog = importCmd
    .command('posthog')
    .description(
      "import a PostHog project's flags, the cohorts they use and its group types, from its local evaluation answer (GET /api/projects/:id/feature_flags/local_evaluation/?send_cohorts); running it again updates, never duplicates",
    )
    .requiredOption('--project <id>', 'the Hedgerow project to import into')
    .option('--file <path>', "a saved local evaluation answer ('-' reads standard input)")
    .option('--from <url>', 'fetch the answer from this PostHog instance instead, e.g. https://us.posthog.com')
    .option('--personal-api-key <key>', `a PostHog personal API key with feature_flag:read, for --from (or set ${PERSONAL_API_KEY_ENV})`)
    .option('--posthog-project <id>', "the PostHog project to fetch with --from (default: the key's current project)")
    .option('--user <email-or-id>', "who the flags' activity log names (default: the organization's first owner or admin)")
    .option('--dry-run', 'print what would change, and change nothing')
    .option('--json', 'print the report as JSON');
  // The import's writes, from what was read: also what every node of a cluster runs (admin-actions.ts).
  registerAdminAction(IMPORT_PATH, (_auth, opts, dbs, _args, config) => {
    const report = runImport(dbs, readPostHogDefinitions(String(opts[DEFINITIONS])), opts, config.maxPropertyValues);
    printReport(report, opts);
    setExitCode([...report.flags, ...report.cohorts, ...report.groupTypes].some((r) => r.outcome === 'skipped') ? 1 : 0);
  });
  addCommandConfigFlags(posthog, ['dataDir', 'maxPropertyValues']).action(async (opts: Opts) => {
    const config = cliConfig(opts);
    const defs = await readInput(opts);
    // On a cluster node, every node imports the definitions read here (the PostHog key stays here).
    const { file: _file, from: _from, personalApiKey: _key, ...carried } = opts;
    if (config.clusterNats !== '') {
      const { runThroughCluster } = await import('./cluster-admin.js');
      await runThroughCluster(config, IMPORT_PATH, [], { ...carried, [DEFINITIONS]: defs });
    }
    if (opts.dryRun !== true) refuseWritesShortOfSpace(config);
    const dbs = openDataDir(config);
    let outcome: AdminOutcome;
    try {
      outcome = runAdminAction(IMPORT_PATH, [], { ...opts, [DEFINITIONS]: defs }, dbs, config);
    } finally {
      await dbs.root.close();
    }
    process.stdout.write(outcome.stdout);
    process.stderr.write(outcome.stderr);
    process.exitCode = outcome.code;
  });
}

const IMPORT_PATH = 'admin import posthog';
/** The option that carries PostHog's answer as read (its text: checked here, parsed by the action), to the action. */
const DEFINITIONS = 'posthogDefinitions';

/** PostHog's answer, as text, once it is known to read as one. */
async function readInput(opts: Opts): Promise<string> {
  if ((opts.file === undefined) === (opts.from === undefined)) fail('give one of --file or --from');
  let text: string;
  if (opts.file !== undefined) {
    const file = String(opts.file);
    try {
      text = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (err) {
      fail(`cannot read ${file}: ${(err as Error).message}`);
    }
  } else {
    const key = (opts.personalApiKey as string | undefined) ?? process.env[PERSONAL_API_KEY_ENV];
    if (!key) fail(`--from needs a PostHog personal API key: --personal-api-key or ${PERSONAL_API_KEY_ENV}`);
    try {
      const project = opts.posthogProject === undefined ? undefined : toInt(opts.posthogProject, '--posthog-project');
      const url = localEvaluationUrl(String(opts.from), project);
      if (url.protocol === 'http:' && !isLoopback(url.hostname)) {
        process.stderr.write(
          `hedgerow: warning: ${url.host} is reached over plain http, so the personal API key crosses the network readable\n`,
        );
      }
      text = await fetchPostHogDefinitions(url, key);
    } catch (err) {
      if (err instanceof FetchFailed) fail(err.message);
      throw err;
    }
  }
  try {
    readPostHogDefinitions(text);
    return text;
  } catch (err) {
    if (err instanceof NotPostHogDefinitions) fail(`not a PostHog local evaluation answer, nothing imported: ${err.message}`);
    throw err;
  }
}

function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127\./.test(hostname);
}

function runImport(dbs: StoreDatabases, defs: PostHogDefinitions, opts: Opts, maxPropertyValues: number): ImportReport {
  const auth = new AuthStore(dbs);
  const project = auth.project(toInt(opts.project, '--project')) ?? fail(`project ${String(opts.project)} does not exist`);
  const actor = importingUser(auth, project, opts.user as string | undefined);
  const dashboards = new DashboardStore(dbs);
  const flags = new FlagStore(dbs, new ActivityLog(dbs), dashboards);
  const cohorts = new CohortStore(dbs);
  // The limit the daemon's API applies to list-valued filters, from the same settings.
  const writer = new FlagWriter({
    flags,
    cohort: (projectId, id) => cohorts.get(projectId, id),
    dashboardExists: (projectId, id) => dashboards.get(projectId, id) !== undefined,
    userEmail: (id) => auth.user(id)?.email,
    maxPropertyValues,
  });
  const groups = new GroupReader(dbs);
  return importDefinitions(
    defs,
    {
      projectId: project.id,
      actor,
      flags,
      writer,
      cohorts,
      origins: new ImportOrigins(dbs),
      groupTypes: {
        indexes: () => groups.typeIndexes(project.id),
        add: (name, index) => addGroupType(dbs, project.id, name, index),
      },
      transaction: (fn) => dbs.root.transactionSync(fn),
    },
    { dryRun: opts.dryRun === true },
  );
}

function importingUser(auth: AuthStore, project: Project, ref: string | undefined): User {
  if (ref !== undefined) {
    const user = (/^\d+$/.test(ref) ? auth.user(Number(ref)) : auth.userByEmail(ref)) ?? fail(`no user ${ref}`);
    if (!auth.userCanAccessProject(user, project)) fail(`${user.email} cannot use project ${project.id}`);
    return user;
  }
  const admins = auth
    .users()
    .filter((u) => u.organization_id === project.organization_id && u.organization_level >= ORGANIZATION_LEVEL.admin)
    .sort((a, b) => b.organization_level - a.organization_level || a.id - b.id);
  return admins[0] ?? fail(`project ${project.id}'s organization has no owner or admin: name a user with --user`);
}

function printReport(report: ImportReport, opts: Opts): void {
  if (opts.json) {
    out(`${JSON.stringify(report, null, 2)}\n`);
    return;
  }
  const lines: string[] = [];
  const verb = (outcome: string): string =>
    report.dryRun && outcome !== 'unchanged' && outcome !== 'skipped' ? `would be ${outcome}` : outcome;
  for (const g of report.groupTypes) {
    const at = g.index === undefined ? '' : ` at index ${g.index}`;
    lines.push(`group type "${g.name}" (PostHog index ${g.posthogIndex}): ${verb(g.outcome)}${at}${g.note ? ` (${g.note})` : ''}`);
  }
  for (const c of report.cohorts) {
    const as = c.id === undefined ? '' : ` as cohort ${c.id}`;
    lines.push(`PostHog cohort ${c.posthogId}: ${verb(c.outcome)}${as}${c.error ? `: ${c.error}` : ''}`);
  }
  for (const f of report.flags) {
    const id = f.id === undefined ? '' : ` (id ${f.id})`;
    const detail = f.error ? `: ${f.error}` : f.changed ? `: ${f.changed.join(', ')}` : '';
    lines.push(`flag "${f.key}": ${verb(f.outcome)}${id}${detail}`);
  }
  const count = (rows: Array<{ outcome: string }>, outcome: string): number => rows.filter((r) => r.outcome === outcome).length;
  const tally = (rows: Array<{ outcome: string }>): string =>
    ['created', 'updated', 'unchanged', 'skipped'].map((o) => `${count(rows, o)} ${o}`).join(', ');
  lines.push(
    `${report.dryRun ? 'dry run, nothing changed: ' : ''}flags ${tally(report.flags)}; cohorts ${tally(report.cohorts)}; group types ${tally(report.groupTypes)}`,
  );
  out(`${lines.join('\n')}\n`);
}
