/**
 * The systemd unit and environment file Hedgerow is deployed with (`hedgerow install-service`
 * writes them; `config/hedgerow.service` is this text for the default paths, kept equal by a
 * test). Pure text.
 *
 * `Type=exec` with `ExecStartPost=hedgerow wait-ready`, not `Type=notify`: sd_notify is a
 * datagram on a Unix socket, which Node cannot send itself without a native module. Relaying it
 * through the `systemd-notify` tool in a child process can work (systemd ≥ 246 waits on a barrier
 * so the message is attributed while the sender lives) but needs `NotifyAccess=all` and a process
 * per watchdog ping, and cannot be exercised here without systemd as PID 1; not done yet. Waiting
 * on `/_readyz` gives systemd the same "started" moment; there is no watchdog ping, so liveness
 * is `Restart=on-failure` on exit.
 */

export interface UnitPaths {
  /** The installed executable. */
  binary: string;
  /** The environment file (keys and settings). */
  envFile: string;
}

const DEFAULT_UNIT_PATHS: Readonly<UnitPaths> = Object.freeze({
  binary: '/usr/local/bin/hedgerow',
  envFile: '/etc/hedgerow/hedgerow.env',
});

/**
 * Seconds systemd waits after SIGTERM: longer than the daemon's graceful drain
 * (`HEDGEROW_SHUTDOWN_TIMEOUT_MS`, default 10 s) plus its 5 s to close the pool and LMDB.
 */
const STOP_TIMEOUT_S = 30;

export function systemdUnit(paths: UnitPaths = DEFAULT_UNIT_PATHS): string {
  return `# Hedgerow: a PostHog-compatible ingestion and feature flag daemon.
# Installed by \`hedgerow install-service\`; settings and keys in ${paths.envFile}.
[Unit]
Description=Hedgerow (PostHog-compatible ingestion and feature flags)
Documentation=https://posthog.com/docs/api
After=network-online.target
Wants=network-online.target

[Service]
Type=exec
ExecStart=${paths.binary} serve --env-file ${paths.envFile}
# systemd counts the service as started once /_readyz answers 200 (docs/operations.md#systemd).
ExecStartPost=${paths.binary} wait-ready --timeout 60
# SIGHUP rereads the environment file and applies what can change while running (the log
# level), without dropping connections.
ExecReload=/bin/kill -HUP $MAINPID
EnvironmentFile=${paths.envFile}
Environment=HEDGEROW_DATA_DIR=%S/hedgerow
# Native modules the binary carries are unpacked here (checked by checksum on every start).
Environment=XDG_CACHE_HOME=%C

DynamicUser=yes
StateDirectory=hedgerow
StateDirectoryMode=0700
CacheDirectory=hedgerow
CacheDirectoryMode=0700
UMask=0077

ProtectSystem=strict
ProtectHome=yes
PrivateTmp=yes
PrivateDevices=yes
NoNewPrivileges=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectClock=yes
ProtectHostname=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6
RestrictNamespaces=yes
RestrictRealtime=yes
RestrictSUIDSGID=yes
LockPersonality=yes
SystemCallArchitectures=native
CapabilityBoundingSet=

# One file descriptor per connection, plus LMDB and the workers'.
LimitNOFILE=65536
Restart=on-failure
RestartSec=2s
KillSignal=SIGTERM
TimeoutStartSec=90s
TimeoutStopSec=${STOP_TIMEOUT_S}s

[Install]
WantedBy=multi-user.target
`;
}

/** The environment file written when none exists: every setting commented, with its default. */
export function environmentFileTemplate(): string {
  return `# Hedgerow settings for systemd (read at start; \`systemctl reload hedgerow\` rereads the log level).
# Keys set here before the first start become the project and admin keys.
#HEDGEROW_BOOTSTRAP_PROJECT_API_KEY=phc_...
#HEDGEROW_BOOTSTRAP_PERSONAL_API_KEY=phx_...
HEDGEROW_HOST=127.0.0.1
HEDGEROW_PORT=8000
#HEDGEROW_WORKERS=0
HEDGEROW_LOG_LEVEL=info
#HEDGEROW_SYNC=durable
#HEDGEROW_SHUTDOWN_TIMEOUT_MS=10000
# /metrics on an address of its own; the main port then answers it 404.
#HEDGEROW_METRICS_ADDRESS=127.0.0.1:9464
# On two cores: one V8 helper thread instead of four (docs/operations.md#small-machines).
#NODE_OPTIONS=--v8-pool-size=1
`;
}
