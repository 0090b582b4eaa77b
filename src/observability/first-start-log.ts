/**
 * What the log says about the first start's keys, without ever holding one: journals and log
 * shippers keep every line, and a personal API key is an admin's secret. The log names the
 * credentials file instead; the keys go to the terminal when there is one (src/cli/first-start-banner.ts).
 */
import type { BootstrapResult } from '../store/bootstrap.js';

/** Each key the first start may generate: its flag in BootstrapResult, its field name, its name in words. */
const KEYS = [
  ['projectApiKey', 'project_api_key', 'project API key'],
  ['personalApiKey', 'personal_api_key', 'personal API key'],
] as const;

interface LogLine {
  level: 'warn' | 'info';
  fields: Record<string, unknown>;
  msg: string;
}

/**
 * The line of the start that made the default records. A warning when keys were generated: the
 * operator has to collect them. `keysOnTerminal`: the terminal shows them once the daemon is ready.
 */
export function firstStartLogLine(boot: BootstrapResult, keysOnTerminal: boolean): LogLine {
  const made = `first start: created the default organization, project ${boot.projectId} and admin user ${boot.adminEmail}`;
  const generated = KEYS.filter(([flag]) => boot.generated[flag]);
  const fields = {
    project_id: boot.projectId,
    admin_email: boot.adminEmail,
    credentials_file: boot.credentialsFile,
    generated_keys: generated.map(([, field]) => field),
  };
  if (generated.length === 0) {
    return { level: 'info', fields, msg: `${made} with the configured keys; they are also kept in ${boot.credentialsFile}` };
  }
  const names = generated.map(([, , name]) => name).join(' and ');
  const where = keysOnTerminal
    ? `shown on this terminal once the daemon is ready, and kept in ${boot.credentialsFile}`
    : `read ${generated.length === 1 ? 'it' : 'them'} in ${boot.credentialsFile} (readable by its owner only)`;
  return { level: 'warn', fields, msg: `${made}; the ${names} it generated ${generated.length === 1 ? 'is' : 'are'} not logged: ${where}` };
}

/**
 * The line of every later start while the credentials file is there. `showing`: the first start
 * stopped before it was ready, and this one shows the keys on the terminal once it is.
 */
export function keptCredentialsMessage(credentialsFile: string, showing: boolean): string {
  const kept = `the first start's keys are kept in ${credentialsFile} (readable by its owner only)`;
  return showing
    ? `${kept}; the first start stopped before it was ready, so they are shown on this terminal once this one is`
    : `${kept}; once they are stored elsewhere, that file can be deleted`;
}
