/**
 * `hedgerow admin`: projects, users and personal API keys in the data directory (roles and
 * resource access are in admin-rbac-commands.ts). Safe while the daemon runs on the same
 * directory (LMDB serializes writers across processes); the daemon reads the auth records on
 * every request, so changes apply without a restart.
 */
import type { Command } from 'commander';
import { cliKeyScopes } from '../auth/personal-key-rules.js';
import { invalidScope } from '../auth/scopes.js';
import { ORGANIZATION_LEVEL } from '../store/auth-store.js';
import { isEmailAddress } from '../util/email-address.js';
import { print, printTable, toInt, withStore } from './admin-helpers.js';
import { addCommandGroups, type CommandGroup } from './command-groups.js';
import { fail } from './exit-codes.js';

/** PostHog's team ids are Postgres `integer`s. */
const MAX_PROJECT_ID = 2 ** 31 - 1;

/**
 * The groups of `hedgerow admin`, in the order `--help` lists them; as with the top-level commands
 * (program.ts), only the module of the group named on the command line is loaded.
 */
const ADMIN_GROUPS: readonly CommandGroup[] = [
  { names: ['projects'], add: async (admin) => addProjectCommands(admin) },
  { names: ['users'], add: async (admin) => addUserCommands(admin) },
  { names: ['keys'], add: async (admin) => addKeyCommands(admin) },
  { names: ['roles', 'access'], add: async (admin) => (await import('./admin-rbac-commands.js')).addRbacCommands(admin) },
  { names: ['flags'], add: async (admin) => (await import('./admin-flag-commands.js')).addFlagCommands(admin) },
  { names: ['import'], add: async (admin) => (await import('./import-command.js')).addImportCommands(admin) },
];

/** Declares `hedgerow admin` and, of its groups, those `rest` (what follows `admin` on the command line) needs: all for none. */
export async function addAdminCommands(program: Command, rest: readonly string[] = []): Promise<void> {
  const admin = program
    .command('admin')
    .description('manage projects, users, personal API keys, roles and organization resource access; import from PostHog');
  await addCommandGroups(admin, ADMIN_GROUPS, rest);
}

function addProjectCommands(admin: Command): void {
  const projects = admin.command('projects').description('projects (each has its own phc_ API token)');
  withStore(
    projects.command('list').description('list projects').option('--json', 'print JSON'),
    (auth, o) =>
      printTable(o, auth.projects(), [
        ['id', (p) => p.id],
        ['api token', (p) => p.api_token],
        ['name', (p) => p.name],
      ]),
    [],
    'reads',
  );
  withStore(
    projects
      .command('create')
      .description('create a project in the default (first) organization')
      .requiredOption('--name <name>', 'project name')
      .option(
        '--api-token <token>',
        'use this project API key instead of a generated one (any key a PostHog project holds, e.g. the one your apps ship with)',
      )
      .option('--id <id>', "use this project id instead of the next one (e.g. the PostHog project's, so API paths keep working)")
      .option('--json', 'print JSON'),
    (auth, o) => {
      const org = auth.organizations()[0] ?? fail('no organization: start the daemon once first');
      const id = o.id === undefined ? undefined : toInt(o.id, '--id');
      if (id !== undefined && (id < 1 || id > MAX_PROJECT_ID)) fail(`--id must be between 1 and ${MAX_PROJECT_ID}`);
      const p = auth.createProject({
        name: String(o.name),
        organizationId: org.id,
        ...(o.apiToken ? { apiToken: String(o.apiToken) } : {}),
        ...(id === undefined ? {} : { id }),
      });
      print(o, p, (x) => `created project ${x.id} "${x.name}" with API token ${x.api_token}`);
    },
  );
  withStore(
    projects
      .command('reset-token')
      .description('give a project a new API token (the old one is refused at once: apps must ship the new one)')
      .argument('<id>', 'project id')
      .option('--json', 'print JSON'),
    (auth, o, _dbs, [id]) => {
      const p = auth.resetProjectToken(toInt(id, 'the project id')) ?? fail(`project ${String(id)} does not exist`);
      print(o, p, (x) => `project ${x.id} "${x.name}" has a new API token: ${x.api_token}`);
    },
  );
}

function addUserCommands(admin: Command): void {
  const users = admin.command('users').description('users of the organization');
  withStore(
    users.command('list').description('list users').option('--json', 'print JSON'),
    (auth, o) =>
      printTable(o, auth.users(), [
        ['id', (u) => u.id],
        ['email', (u) => u.email],
        ['current project', (u) => u.current_project_id],
        ['organization level', (u) => levelName(u.organization_level)],
      ]),
    [],
    'reads',
  );
  withStore(
    users
      .command('create')
      .description('create a user')
      .requiredOption('--email <email>', 'email address (unique)')
      .option('--first-name <name>', 'first name', '')
      .option('--project <id>', 'current project id', '1')
      .option('--admin', 'make the user an organization admin (default: member)')
      .option('--owner', 'make the user an organization owner')
      .option('--distinct-id <id>', "the user's own distinct id (default: a random UUID)")
      .option('--json', 'print JSON'),
    (auth, o) => {
      const email = String(o.email).trim();
      if (!isEmailAddress(email)) fail(`--email: "${String(o.email)}" is not an email address (name@example.com)`);
      const project = auth.project(toInt(o.project, '--project')) ?? fail(`project ${String(o.project)} does not exist`);
      const u = auth.createUser({
        email,
        firstName: String(o.firstName ?? ''),
        organizationId: project.organization_id,
        currentProjectId: project.id,
        level: o.owner ? ORGANIZATION_LEVEL.owner : o.admin ? ORGANIZATION_LEVEL.admin : ORGANIZATION_LEVEL.member,
        ...(o.distinctId === undefined ? {} : { distinctId: String(o.distinctId) }),
      });
      print(o, u, (x) => `created user ${x.id} <${x.email}>`);
    },
  );
}

function addKeyCommands(admin: Command): void {
  const keys = admin.command('keys').description('personal API keys (phx_), stored hashed');
  withStore(
    keys.command('list').description('list personal API keys (masked)').option('--json', 'print JSON'),
    (auth, o) =>
      printTable(
        o,
        auth.personalKeys().map(({ secure_value_hash: _hash, ...k }) => ({ ...k, last_used_at: auth.keyLastUsedAt(k) })),
        [
          ['id', (k) => k.id],
          ['user', (k) => auth.user(k.user_id)?.email ?? `user ${k.user_id}`],
          ['key', (k) => k.mask_value],
          ['label', (k) => k.label],
          ['scopes', (k) => (k.scopes.length > 0 ? k.scopes.join(',') : '(full access)')],
          ['last used', (k) => k.last_used_at ?? 'never'],
        ],
      ),
    [],
    'reads',
  );
  withStore(
    keys
      .command('create')
      .description('create a personal API key; the key is printed once')
      .requiredOption('--user <email-or-id>', 'owner of the key')
      .option('--label <label>', 'label', 'cli')
      .option(
        '--scopes <list>',
        "comma-separated scopes, e.g. feature_flag:read,activity_log:read, or '*' (every action that declares a scope)",
      )
      .option('--full-access', "an unscoped key with full access, as PostHog's legacy keys (instead of --scopes)")
      .option('--projects <ids>', "comma-separated project ids the key is limited to (default: all of the user's)")
      .option('--json', 'print JSON'),
    (auth, o) => {
      const ref = String(o.user);
      const user = (/^\d+$/.test(ref) ? auth.user(Number(ref)) : auth.userByEmail(ref)) ?? fail(`no user ${ref}`);
      const asked = cliKeyScopes(o.scopes === undefined ? undefined : String(o.scopes), Boolean(o.fullAccess));
      if ('problem' in asked) fail(asked.problem);
      const { scopes } = asked;
      const badScope = invalidScope(scopes);
      if (badScope !== undefined) fail(badScope);
      const scopedTeams = o.projects
        ? String(o.projects)
            .split(',')
            .map((p) => toInt(p.trim(), '--projects'))
        : undefined;
      for (const id of scopedTeams ?? []) {
        const project = auth.project(id);
        if (!project || !auth.userCanAccessProject(user, project)) {
          fail(`You must be a member of all teams that you are scoping the key to. (no project ${id} in ${user.email}'s organization)`);
        }
      }
      const { key, secret } = auth.createPersonalApiKey({
        userId: user.id,
        label: String(o.label),
        scopes,
        ...(scopedTeams ? { scopedTeams } : {}),
      });
      print(
        o,
        { id: key.id, user_id: key.user_id, label: key.label, scopes: key.scopes, key: secret },
        (k) => `created personal API key ${k.id} for ${user.email} (shown once): ${k.key}`,
      );
    },
  );
  withStore(
    keys
      .command('revoke')
      .description('delete a personal API key: it is refused at once')
      .argument('<id>', 'key id (from keys list)')
      .option('--json', 'print JSON'),
    (auth, o, _dbs, [id]) => {
      if (!auth.deletePersonalApiKey(String(id))) fail(`no personal API key ${String(id)}`);
      print(o, { id: String(id), revoked: true }, (k) => `revoked personal API key ${k.id}`);
    },
  );
  withStore(
    keys
      .command('roll')
      .description('give a personal API key a new secret (printed once); the old one is refused at once')
      .argument('<id>', 'key id (from keys list)')
      .option('--json', 'print JSON'),
    (auth, o, _dbs, [id]) => {
      const rolled = auth.rollPersonalApiKey(String(id)) ?? fail(`no personal API key ${String(id)}`);
      const { key } = rolled;
      print(
        o,
        { id: key.id, user_id: key.user_id, label: key.label, scopes: key.scopes, last_rolled_at: key.last_rolled_at, key: rolled.secret },
        (k) => `rolled personal API key ${k.id} (shown once): ${k.key}`,
      );
    },
  );
}

function levelName(level: number): string {
  return level >= ORGANIZATION_LEVEL.owner ? 'owner' : level >= ORGANIZATION_LEVEL.admin ? 'admin' : 'member';
}
