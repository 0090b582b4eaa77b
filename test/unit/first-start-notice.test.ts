/**
 * What an operator is told about the first start's keys: the terminal banner (the generated keys,
 * and how to use them) and the log lines (never a key, always the credentials file).
 */
import { describe, expect, it } from 'vitest';
import { firstStartBanner } from '../../src/cli/first-start-banner.js';
import { firstStartLogLine, keptCredentialsMessage } from '../../src/observability/first-start-log.js';
import type { BootstrapResult } from '../../src/store/bootstrap.js';

const PHC = 'phc_generatedProjectKey0123456789abcdefghijkl';
const PHX = 'phx_generatedPersonalKey0123456789abcdefghijk';
const FILE = '/var/lib/hedgerow/bootstrap-credentials.json';

function boot(generated: BootstrapResult['generated']): BootstrapResult {
  return {
    projectId: 1,
    projectApiKey: PHC,
    personalApiKey: PHX,
    adminEmail: 'admin@hedgerow.local',
    credentialsFile: FILE,
    generated,
  };
}

describe('the first-start banner', () => {
  it('shows both generated keys in aligned rows, where they are kept, and a line on using each', () => {
    const text = firstStartBanner(
      { projectId: 1, adminEmail: 'admin@hedgerow.local', credentialsFile: FILE, projectApiKey: PHC, personalApiKey: PHX },
      'http://127.0.0.1:8000',
    );
    expect(text).toBe(
      [
        '',
        '  Hedgerow is ready. Its first start created project 1 and its admin user;',
        '  the keys it generated are shown here, and not logged:',
        '',
        '    project id        1',
        `    project API key   ${PHC}`,
        '    admin email       admin@hedgerow.local',
        `    personal API key  ${PHX}`,
        '',
        `  They are kept in ${FILE} (readable by its owner only):`,
        '  store them somewhere safe, then delete that file. To use them:',
        `    posthog-node  new PostHog('${PHC}', { host: 'http://127.0.0.1:8000' })`,
        `    the API       curl -H 'Authorization: Bearer ${PHX}' http://127.0.0.1:8000/api/projects/@current/feature_flags/`,
        '',
        '',
      ].join('\n'),
    );
  });

  it('names a configured key by its setting and never prints it', () => {
    const text = firstStartBanner(
      { projectId: 1, adminEmail: 'admin@hedgerow.local', credentialsFile: FILE, projectApiKey: PHC },
      'http://h:1',
    );
    expect(text).toContain('    personal API key  (configured: HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY)\n');
    expect(text).not.toContain('phx_');
    expect(text).not.toContain('the API');
    const other = firstStartBanner({ projectId: 1, adminEmail: 'a@b.c', credentialsFile: FILE, personalApiKey: PHX }, 'http://h:1');
    expect(other).toContain('    project API key   (configured: HEDGEROW_BOOTSTRAP_PROJECT_API_KEY)\n');
    expect(other).not.toContain('phc_');
    expect(other).not.toContain('posthog-node');
  });
});

describe('the first-start log line', () => {
  it('with generated keys: a warning naming the file, never a key', () => {
    const off = firstStartLogLine(boot({ projectApiKey: true, personalApiKey: true }), false);
    expect(off).toEqual({
      level: 'warn',
      fields: {
        project_id: 1,
        admin_email: 'admin@hedgerow.local',
        credentials_file: FILE,
        generated_keys: ['project_api_key', 'personal_api_key'],
      },
      msg: `first start: created the default organization, project 1 and admin user admin@hedgerow.local; the project API key and personal API key it generated are not logged: read them in ${FILE} (readable by its owner only)`,
    });
    const on = firstStartLogLine(boot({ projectApiKey: false, personalApiKey: true }), true);
    expect(on.msg).toBe(
      `first start: created the default organization, project 1 and admin user admin@hedgerow.local; the personal API key it generated is not logged: shown on this terminal once the daemon is ready, and kept in ${FILE}`,
    );
    for (const line of [off, on]) expect(JSON.stringify(line)).not.toMatch(/phc_|phx_/);
  });

  it('with configured keys only: an info line, since there is nothing to collect', () => {
    const line = firstStartLogLine(boot({ projectApiKey: false, personalApiKey: false }), true);
    expect([line.level, line.fields.generated_keys, line.msg]).toEqual([
      'info',
      [],
      `first start: created the default organization, project 1 and admin user admin@hedgerow.local with the configured keys; they are also kept in ${FILE}`,
    ]);
  });

  it('on later starts, points to the file, and says when the keys are about to be shown', () => {
    expect(keptCredentialsMessage(FILE, false)).toBe(
      `the first start's keys are kept in ${FILE} (readable by its owner only); once they are stored elsewhere, that file can be deleted`,
    );
    expect(keptCredentialsMessage(FILE, true)).toContain('the first start stopped before it was ready, so they are shown on this terminal');
  });
});
