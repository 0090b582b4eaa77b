#!/usr/bin/env node
// First step of `npm test`: the programs the tests need from the system rather than from npm.
//
//   node scripts/check-system-deps.mjs
//
// - Chromium, which playwright-core drives in the browser tests (test/integration/
//   posthog-js-browser.test.ts, dashboard-browser.test.ts): `HEDGEROW_CHROMIUM`, or Debian's
//   /usr/bin/chromium.
// - systemd-analyze, which checks the unit file (test/integration/systemd-service.test.ts).
// - nats-server, which the cluster-mode tests run three of (test/helpers/nats-cluster.ts):
//   `HEDGEROW_NATS_SERVER`, or Debian's (on PATH or /usr/sbin).
//
// When all are there it only looks at the file system. When one is missing and this runs as root
// on Debian (apt-get present), it installs the missing packages with apt-get; otherwise it stops
// and prints the command to run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const chromium = process.env.HEDGEROW_CHROMIUM;
const natsServer = process.env.HEDGEROW_NATS_SERVER;

/** The path of `name` on PATH, or undefined. */
function onPath(name) {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

const isExecutable = (file) => {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
};

const NEEDS = [
  {
    what: `Chromium (${chromium ?? '/usr/bin/chromium'}) for the browser tests`,
    present: () => isExecutable(chromium ?? '/usr/bin/chromium'),
    // A Chromium the environment points at is not one apt-get can put there.
    pkg: chromium === undefined ? 'chromium' : undefined,
  },
  {
    what: `nats-server (${natsServer ?? "Debian's"}) for the cluster-mode tests`,
    present: () =>
      natsServer !== undefined ? isExecutable(natsServer) : onPath('nats-server') !== undefined || isExecutable('/usr/sbin/nats-server'),
    pkg: natsServer === undefined ? 'nats-server' : undefined,
  },
  {
    what: 'systemd-analyze for the systemd unit test',
    present: () => onPath('systemd-analyze') !== undefined,
    pkg: 'systemd',
  },
];

const missing = NEEDS.filter((n) => !n.present());
if (missing.length === 0) process.exit(0);

const stop = (lines) => {
  console.error(['check-system-deps: the tests need programs this system does not have:', ...lines].join('\n'));
  process.exit(1);
};

const unfixable = missing.filter((n) => n.pkg === undefined);
if (unfixable.length > 0) {
  stop([
    ...unfixable.map((n) => `  - ${n.what}: the environment names no executable file`),
    "Point HEDGEROW_CHROMIUM or HEDGEROW_NATS_SERVER at an executable, or unset it to use Debian's.",
  ]);
}

const pkgs = [...new Set(missing.map((n) => n.pkg))];
const command = `apt-get update && apt-get install -y ${pkgs.join(' ')}`;
const isRoot = process.getuid?.() === 0;
const apt = onPath('apt-get');

if (!apt) {
  stop([
    ...missing.map((n) => `  - ${n.what}`),
    "Install them with your system's package manager (Debian: `" + command + '`),',
    'or set HEDGEROW_CHROMIUM to a Chromium executable.',
  ]);
}
if (!isRoot) {
  stop([...missing.map((n) => `  - ${n.what}`), 'Install them (once) with:', `  sudo ${command.replace('&& ', '&& sudo ')}`]);
}

/** The longest an apt-get step may take (a slow mirror and Chromium's ~100 MB). */
const APT_TIMEOUT_MS = 15 * 60 * 1000;
console.log(`check-system-deps: installing ${pkgs.join(' ')} with apt-get (${missing.map((n) => n.what).join('; ')})`);
const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
for (const args of [
  ['update', '-q'],
  ['install', '-y', '-q', ...pkgs],
]) {
  // apt's own progress shows as it goes (a Chromium install takes minutes); a stalled mirror ends
  // the step after APT_TIMEOUT_MS instead of holding `npm test` forever.
  const r = spawnSync(apt, args, { env, stdio: ['ignore', 'inherit', 'inherit'], timeout: APT_TIMEOUT_MS });
  if (r.status !== 0) {
    stop([
      ...missing.map((n) => `  - ${n.what}`),
      `\`apt-get ${args.join(' ')}\` failed (${r.error?.message ?? `exit ${r.status ?? r.signal}`}; its output is above).`,
      `Run \`${command}\` yourself, then \`npm test\` again.`,
    ]);
  }
}
const still = missing.filter((n) => !n.present());
if (still.length > 0) {
  stop([...still.map((n) => `  - ${n.what}: still missing after \`${command}\``)]);
}
