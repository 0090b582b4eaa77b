/**
 * The daemon: opens the store, bootstraps an empty data directory, serves HTTP, starts the worker
 * pool, and stops in order (stop accepting, finish in-flight requests, close the pool, close LMDB).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { packageVersion } from './config/package-version.js';
import type { Config } from './config/schema.js';
import { catalogueError, HedgerowError } from './errors.js';
import { createHttpBackend } from './http/create-backend.js';
import { toErrorResponse } from './http/respond.js';
import { checkAuthenticated } from './http/api-request.js';
import { Router } from './http/router.js';
import { addCaptureRoutes } from './http/routes/capture-routes.js';
import { addEventsApiRoutes } from './management-api/events-api.js';
import { addHealthRoutes, type Readiness } from './http/routes/health-routes.js';
import { addCohortsApiRoutes } from './management-api/cohorts-api.js';
import { addGroupsApiRoutes } from './management-api/groups-api.js';
import { addPersonsApiRoutes } from './management-api/persons-api.js';
import { addFeatureFlagsApiRoutes } from './management-api/feature-flags-api.js';
import { addFlagActivityRoutes } from './management-api/flag-activity-api.js';
import { flagEditPermission } from './management-api/flag-edit-permission.js';
import { addFlagRoleAccessRoutes } from './management-api/flag-role-access-api.js';
import { addPersonalApiKeysRoutes } from './management-api/personal-api-keys-api.js';
import { addProjectsApiRoutes } from './management-api/projects-api.js';
import { addRolesApiRoutes } from './management-api/roles-api.js';
import type { HttpBackend, HttpRequest, HttpResponse } from './http/types.js';
import { DECOMPRESSED_RATIO } from './limits.js';
import { firstStartLogLine, keptCredentialsMessage } from './observability/first-start-log.js';
import { followLogLevel, type Logger } from './observability/logger.js';
import { createMetrics } from './observability/metrics.js';
import { ThreadCpu } from './observability/thread-cpu.js';
import type { IngestPool } from './pool/ingest-pool.js';
import { FlagsPool } from './pool/flags-pool.js';
import { ScanPool } from './pool/scan-pool.js';
import { WorkerPool } from './pool/worker-pool.js';
import { DefinitionsCache } from './flags/definitions/definitions-cache.js';
import { addFlagsRoutes } from './http/routes/flag-request-routes.js';
import { addFlagDefinitionsRoutes } from './http/routes/flag-definitions-routes.js';
import { addRemoteConfigRoutes } from './http/routes/remote-config-routes.js';
import { addStaticRoutes } from './http/routes/static-routes.js';
import { PosthogJsBundles } from './http/posthog-js-bundles.js';
import { IngestPipeline } from './ingest/ingest-pipeline.js';
import { addProcessingRoutes } from './http/routes/processing-routes.js';
import type { EventKey } from './store/open-store.js';
import { type BootstrapResult, bootstrapIfEmpty, CREDENTIALS_FILE } from './store/bootstrap.js';
import {
  type FirstStartKeys,
  forgetGeneratedKeys,
  generatedKeysToShow,
  hasGeneratedKeysToShow,
  rememberGeneratedKeys,
} from './store/first-start-keys.js';
import { lockDataDir } from './store/data-dir-lock.js';
import { storeOpenError } from './store/store-open-error.js';
import { storeUsage } from './store/store-usage.js';
import { openStore, STORE_FILE, type StoreDatabases } from './store/open-store.js';
import { ProjectFlagsCache } from './flag-requests/project-flags-cache.js';
import { addFlagEvaluationViewRoutes } from './management-api/flag-evaluation-views-api.js';
import { addFlagUsageDashboardRoutes } from './management-api/flag-usage-dashboard-api.js';
import { addDashboardsApiRoutes } from './management-api/dashboards-api.js';
import { addFlagBlastRadiusRoutes } from './management-api/flag-blast-radius-api.js';
import { linkSecret, storedLinkSecret } from './auth/signed-link.js';
import { watchStoreWrites } from './store/watch-store-writes.js';
import { formatListenAddress, parseListenAddress } from './config/listen-address.js';
import { AccessLog } from './http/access-log.js';
import { type MetricsServer, startMetricsServer } from './http/metrics-server.js';
import { requestHandler, tooLargeHandler } from './http/handle-request.js';
import { DiskReserve } from './store/disk-reserve.js';
import { createStoreServices } from './store/services.js';
import { StreamEventLog, streamPosition } from './store/stream-event-log.js';
import type { HashKeyWrite } from './store/hash-key-override-store.js';

export interface DaemonOptions {
  /**
   * Whether the operator's terminal shows the first start's generated keys (`serve` on a TTY):
   * the log then says so, else it points to the credentials file.
   */
  keysOnTerminal: boolean;
}

export interface Daemon {
  readonly port: number;
  readonly backend: HttpBackend['name'];
  /**
   * Resolves once the daemon is ready (in cluster mode, once it has joined), with the generated
   * keys for the terminal when this is the first start to be ready and keysOnTerminal.
   */
  readonly ready: Promise<FirstStartKeys | undefined>;
  /** Graceful stop; resolves when LMDB is closed. Safe to call twice. */
  stop(): Promise<void>;
  /**
   * Settles only if the daemon cannot go on (cluster mode: the streams' settings are unusable,
   * or the stream no longer reaches back to this node's events); the caller stops it and exits 2.
   */
  readonly fatal: Promise<Error>;
}

export async function startDaemon(config: Readonly<Config>, log: Logger, opts: DaemonOptions): Promise<Daemon> {
  const clusterMode = config.clusterNats === '' ? undefined : await loadClusterMode();
  const dataDirLock = await lockDataDir(config.dataDir);
  let dbs: StoreDatabases;
  try {
    dbs = openStore({ dataDir: config.dataDir, sync: config.sync });
  } catch (err) {
    throw storeOpenError(config.dataDir, err) ?? err;
  }
  // The store's readers and writers, made once and shared by every route.
  const services = createStoreServices(dbs);
  const { auth, persons, groups, cohorts, flags, rbac, activity, dashboards } = services;
  const reportBootstrap = (boot: BootstrapResult): void => {
    rememberGeneratedKeys(dbs.meta, boot);
    const line = firstStartLogLine(boot, opts.keysOnTerminal);
    log[line.level](line.fields, line.msg);
  };
  // In cluster mode the defaults are made once for the cluster, as a command (cluster/join-cluster.ts).
  const boot = config.clusterNats === '' ? bootstrapIfEmpty(auth, config.dataDir, config.bootstrap) : undefined;
  if (config.clusterNats === '' && streamPosition(dbs) > 0) {
    log.warn(
      { data_dir: config.dataDir, stream_position: streamPosition(dbs) },
      "this data directory was a cluster node's (HEDGEROW_CLUSTER_NATS is not set): from now on its records change here alone",
    );
  }
  const credentialsFile = path.join(config.dataDir, CREDENTIALS_FILE);
  if (boot) reportBootstrap(boot);
  else if (existsSync(credentialsFile)) {
    // Every start says where the keys are while the file is there, so that a first start that
    // failed (its port in use) and scrolled away is not the only place that said it.
    const showing = opts.keysOnTerminal && hasGeneratedKeysToShow(dbs.meta);
    log.info({ credentials_file: credentialsFile }, keptCredentialsMessage(credentialsFile, showing));
  }

  const metrics = createMetrics();
  const clustering =
    clusterMode === undefined
      ? undefined
      : {
          node: new clusterMode.ClusterNode({
            servers: clusterMode.clusterServers(config.clusterNats),
            nodeName: config.nodeName,
            replicas: config.clusterReplicas,
            streamMaxAgeHours: config.clusterStreamMaxAgeHours,
            publishTimeoutMs: config.clusterPublishTimeoutMs,
            metrics: clusterMode.createClusterMetrics(metrics.registry, config.nodeName),
            log,
          }),
          join: clusterMode.joinCluster,
          runAdmin: await clusterMode.clusterAdminRunner(dbs, config),
        };
  const cluster = clustering?.node;
  const reserve = new DiskReserve({ dir: config.dataDir, minFreeBytes: config.minFreeDiskBytes });
  // Also listens for lmdb-js's orphaned commit rejections until released (after the store closes).
  const storeWatch = watchStoreWrites(dbs, reserve, metrics, log);
  const storeWrites = storeWatch.writes;
  // Before any thread starts: each announces its role and OS thread id as it comes up.
  const threadCpu = new ThreadCpu((thread, tid) => log.info({ thread, tid }, `thread ${thread} started (OS thread id ${tid})`));
  metrics.setThreadCpuProbe(() => threadCpu.sample());
  metrics.setThreadHeapProbe(() => threadCpu.heaps());
  /** Set once the workers are up; requests read before shutdown still use it until it closes. */
  let pool: IngestPool | undefined;
  let pipeline: IngestPipeline | undefined;
  let flagsPool: FlagsPool | undefined;
  let scanPool: ScanPool | undefined;
  /** Brings in the counts of requests the HTTP threads answered themselves (set once they exist). */
  let collectThreadAnswers: (() => Promise<void>) | undefined;
  /** What /_readyz reports: 200 only once the store and the pool are up, and not shutting down. */
  let readiness: Readiness = 'starting';
  /** Cluster mode: management writes go through the stream once the node has joined. */
  let replicate: ((req: HttpRequest) => Promise<HttpResponse>) | undefined;
  /** Cluster mode: experience-continuity hash keys `/flags` wrote go to the cluster once joined (before, they are kept by the thread that wrote them only). */
  let replicateHashKeys: ((writes: HashKeyWrite[]) => void) | undefined;
  const hashKeysWritten = (writes: HashKeyWrite[]): void => replicateHashKeys?.(writes);
  const replicatedWrites = (req: HttpRequest): Promise<HttpResponse> => {
    if (replicate === undefined) return Promise.reject(new HedgerowError('HR_NOT_READY'));
    return replicate(req);
  };

  /** The Prometheus text, with the counts the HTTP threads keep brought in first. */
  const scrape = async () => {
    await collectThreadAnswers?.();
    return metrics.render();
  };
  const router = new Router();
  addHealthRoutes(router, {
    readiness: () => readiness,
    storeUnavailable: () => storeWrites.check(),
    ...(cluster ? { cluster: () => cluster.status } : {}),
    // On the main port unless it has an address of its own.
    ...(config.metricsAddress === '' ? { scrape } : {}),
  });
  addCaptureRoutes(router, { pool: () => pool });
  addFlagsRoutes(router, { pool: () => flagsPool, onErrorsAnswered: (endpoint) => metrics.flagErrors.inc({ endpoint }) });
  addProcessingRoutes(router, {
    processor: () => pipeline?.processor,
    lastEventKey: () => {
      for (const key of dbs.events.getKeys({ reverse: true, limit: 1 })) return key as EventKey;
      return undefined;
    },
    freshReads: () => dbs.root.resetReadTxn(),
    ...(cluster ? { streamCaughtUp: (timeoutMs: number) => cluster.tailCaughtUp(timeoutMs) } : {}),
  });
  /** The pool's whole-table reads; a request before the workers are up (or after shutdown began) gets a 503. */
  const scans = (): ScanPool => {
    if (!scanPool) throw new HedgerowError('HR_NOT_READY');
    return scanPool;
  };
  addEventsApiRoutes(router, { auth, scans, groups, persons });
  const editPermission = flagEditPermission(rbac);
  addCohortsApiRoutes(router, { auth, cohorts, flags, scans });
  addPersonsApiRoutes(router, { auth, persons, scans });
  addGroupsApiRoutes(router, { auth, groups, scans });
  addRolesApiRoutes(router, { auth, rbac, flagKey: (projectId, id) => flags.get(projectId, id)?.key });
  addPersonalApiKeysRoutes(router, { auth });
  addProjectsApiRoutes(router, { auth });
  addRemoteConfigRoutes(router, { auth, flags });
  addStaticRoutes(router, { bundles: new PosthogJsBundles() });
  // Fixed segments after /feature_flags/ first, so that `:id` does not take them.
  addFlagDefinitionsRoutes(router, { auth, definitions: new DefinitionsCache(flags, cohorts, groups) });
  addFlagActivityRoutes(router, { auth, flags, activity });
  addFlagEvaluationViewRoutes(router, {
    auth,
    flags,
    projects: new ProjectFlagsCache({ flags, cohorts, groups }),
    sources: { persons, groups, overrides: services.overrides, cohorts },
  });
  addFlagRoleAccessRoutes(router, { auth, flags, rbac, editPermission });
  addFlagUsageDashboardRoutes(router, { auth, flags, editPermission });
  addFlagBlastRadiusRoutes(router, { auth, blastRadius: (query) => pipeline?.processor?.blastRadius(query) });
  addDashboardsApiRoutes(router, {
    auth,
    dashboards,
    rollups: services.rollups,
    // A cluster node never makes its own: it comes with the cluster's first start (a command).
    linkSecret: cluster === undefined ? () => linkSecret(dbs) : () => clusterLinkSecret(dbs),
    freshReads: () => dbs.root.resetReadTxn(),
  });
  addFeatureFlagsApiRoutes(router, {
    auth,
    flags,
    editPermission,
    dashboardExists: (projectId, id) => dashboards.get(projectId, id) !== undefined,
    cohort: (projectId, id) => cohorts.get(projectId, id),
    maxPropertyValues: config.maxPropertyValues,
  });

  const maxDecompressedBytes = config.maxBodyBytes * DECOMPRESSED_RATIO;
  // Lines for the requests this thread answers; the front-end threads write their own.
  const accessLog = new AccessLog();
  const { backend, note, threads } = createHttpBackend(
    config.httpBackend,
    {
      handler: requestHandler({
        router,
        metrics,
        accessLog,
        log,
        storeWrites,
        reserve,
        authenticate: (req: HttpRequest) => checkAuthenticated(auth, req),
        ...(cluster ? { replicate: (req: HttpRequest) => replicatedWrites(req) } : {}),
      }),
      maxBodyBytes: config.maxBodyBytes,
      bodyIdleTimeoutMs: config.bodyIdleTimeoutMs,
      tooLarge: tooLargeHandler({ metrics, accessLog, maxBodyBytes: config.maxBodyBytes }),
      onError: (err) => toErrorResponse(err, (e) => log.error({ err: e }, 'unhandled error in request handler')),
    },
    {
      threads: config.httpThreads,
      logLevel: config.logLevel,
      store: dbs,
      local: {
        dataDir: config.dataDir,
        sync: config.sync,
        maxDecompressedBytes,
        flagsTimeoutMs: config.flagsTimeoutMs,
        replicateHashKeys: cluster !== undefined,
      },
      onHashKeys: hashKeysWritten,
      onLocalAnswers: (answers) => {
        for (const [route, method, status, n] of answers.counts) metrics.countRequest(route, method, status, n);
        for (const bytes of answers.bodyBytes) metrics.bodyBytes.observe(bytes);
        metrics.requestDurations.add(answers.durations);
        for (const [endpoint, n] of answers.flagErrors) metrics.flagErrors.inc({ endpoint }, n);
      },
      onThreadBug: (error) => log.error({ err: error }, 'unhandled error in an HTTP thread'),
      onThreadError: (err) => {
        // Its connections would hang: exit, as an uncaught error on this thread would (systemd restarts).
        log.fatal({ err }, 'an HTTP front-end thread crashed; exiting');
        process.exit(1);
      },
    },
  );
  collectThreadAnswers = threads ? () => threads.collect() : undefined;
  let metricsServer: MetricsServer | undefined;
  // A SIGHUP's new level reaches the access log, here and in the front-end threads.
  followLogLevel(log, (level) => {
    accessLog.setLevel(level);
    threads?.setLogLevel(level);
  });
  let port: number;
  try {
    // Before the main port, so that a metrics address in use stops the start before SDKs are served.
    if (config.metricsAddress !== '') {
      metricsServer = await startMetricsServer(parseListenAddress(config.metricsAddress), scrape, (err) =>
        log.error({ err }, 'could not render /metrics'),
      );
    }
    port = await backend.listen(config.host, config.port);
  } catch (err) {
    await metricsServer?.close();
    await backend.close();
    storeWatch.release();
    throw err;
  }
  const backendName = backend.name === 'uws' ? 'uWebSockets.js (native)' : 'node:http';
  const inThreads = threads ? ` in ${threads.threadCount} thread${threads.threadCount === 1 ? '' : 's'}` : '';
  log.info(
    {
      http_backend: backend.name,
      ...(threads ? { http_threads: threads.threadCount } : {}),
      ...(note ? { note } : {}),
      host: config.host,
      port,
      data_dir: config.dataDir,
    },
    `listening on http://${config.host}:${port} with the ${backendName} backend${inThreads}`,
  );
  if (metricsServer) {
    const at = formatListenAddress({ host: parseListenAddress(config.metricsAddress).host, port: metricsServer.port });
    log.info({ metrics_address: at }, `serving /metrics on http://${at}/metrics (HEDGEROW_METRICS_ADDRESS); the main port answers it 404`);
  }

  const workerPool = new WorkerPool({
    setup: {
      dataDir: config.dataDir,
      sync: config.sync,
      maxDecompressedBytes,
      nice: config.workerNice,
      replicateHashKeys: cluster !== undefined,
    },
    workers: config.workers,
    tasksPerWorker: config.tasksPerWorker,
  });
  // The pool's workers start while the person processor does, rather than after it.
  const workersUp = workerPool.ready();
  workersUp.catch(() => undefined); // awaited below, after the processor has started
  const livePipeline = await IngestPipeline.start({
    config,
    dbs,
    auth,
    workerPool,
    maxDecompressedBytes,
    storeWrites,
    reserve,
    metrics,
    log,
    ...(cluster
      ? {
          cluster: {
            publish: (block: Uint8Array, events: number) =>
              cluster.publish(block, events).catch((err: unknown) => {
                throw catalogueError('HR_CLUSTER_UNAVAILABLE', { reason: (err as Error)?.message ?? String(err) });
              }),
            streamLog: new StreamEventLog(dbs),
          },
        }
      : {}),
  });
  const liveFlagsPool = new FlagsPool(workerPool, config.flagsTimeoutMs, cluster ? hashKeysWritten : undefined);
  metrics.setPoolProbe(() => ({
    queueDepth: livePipeline.capture.queueDepth + liveFlagsPool.queueDepth,
    utilization: workerPool.utilization,
  }));
  metrics.setPersonBacklogProbe(() => livePipeline.personBacklog);
  metrics.setStoreProbe(() => storeUsage(dbs, `${config.dataDir}/${STORE_FILE}`));
  const pongs = await workersUp;
  const notReniced = pongs.find((p) => !p.nice.ok);
  if (notReniced && !notReniced.nice.ok) {
    log.warn(
      { worker_nice: config.workerNice, reason: notReniced.nice.reason },
      "worker threads run at the daemon's priority: could not lower it",
    );
  }
  pipeline = livePipeline;
  pool = livePipeline.capture;
  flagsPool = liveFlagsPool;
  scanPool = new ScanPool(workerPool);
  let onReady: (keys: FirstStartKeys | undefined) => void = () => undefined;
  const ready = new Promise<FirstStartKeys | undefined>((resolve) => {
    onReady = resolve;
  });
  const announceReady = () => {
    readiness = 'ready';
    const firstStartKeys = opts.keysOnTerminal ? generatedKeysToShow(dbs.meta, config.dataDir) : undefined;
    try {
      forgetGeneratedKeys(dbs.meta);
    } catch (err) {
      // A store refusing writes (a full disk): the keys are shown again next time, which is harmless.
      log.warn({ err: err instanceof Error ? err.message : String(err) }, "could not record that the first start's keys were shown");
    }
    log.info(
      {
        workers: config.workers,
        tasks_per_worker: config.tasksPerWorker,
        worker_nice: config.workerNice,
        max_person_backlog: config.maxPersonBacklog,
        sync: config.sync,
        version: packageVersion(),
        node_version: process.versions.node,
        ...(cluster ? { node: config.nodeName } : {}),
      },
      'ready',
    );
    onReady(firstStartKeys);
  };
  let fatalError: (err: Error) => void = () => undefined;
  const fatal = new Promise<Error>((resolve) => {
    fatalError = resolve;
  });
  if (clustering === undefined) announceReady();
  else {
    // Reads and /flags are served from the node's own store meanwhile; /_readyz answers 503
    // until the cluster is reached and this node's tail is running.
    clustering
      .join(
        {
          cluster: clustering.node,
          pipeline: livePipeline,
          dbs,
          router,
          auth,
          bootstrap: config.bootstrap,
          dataDir: config.dataDir,
          nodeName: config.nodeName,
          log,
          runAdmin: clustering.runAdmin,
        },
        (err) => {
          if (readiness !== 'stopping') fatalError(err);
        },
      )
      .then(
        (joined) => {
          replicate = (req) => joined.replicate(req);
          replicateHashKeys = (writes) => joined.hashKeys(writes);
          if (joined.bootstrap) reportBootstrap(joined.bootstrap);
          if (readiness === 'starting') announceReady();
        },
        (err: unknown) => {
          if (readiness === 'stopping') return;
          fatalError(err instanceof Error ? err : new Error(String(err)));
        },
      );
  }

  let stopping: Promise<void> | undefined;
  const stop = () => (stopping ??= shutdown());
  async function shutdown(): Promise<void> {
    readiness = 'stopping';
    const started = Date.now();
    storeWrites.close();
    await backend.stopAccepting();
    const drained = await backend.drained(config.shutdownTimeoutMs);
    if (!drained) log.warn({ in_flight: backend.inFlight }, 'shutdown timeout: closing with requests in flight');
    // The tail applies no more (its last batch and command committed) while the pool a command
    // may read through is still there, and before the processor and the store close.
    await cluster?.close();
    pool = undefined;
    flagsPool = undefined;
    scanPool = undefined;
    livePipeline.closeCapture();
    await workerPool.close();
    pipeline = undefined;
    await livePipeline.stop();
    await backend.close();
    // Scraped until here: the drain and the pool's close show in /metrics.
    await metricsServer?.close();
    await closeStore(dbs);
    storeWatch.release();
    await dataDirLock.release();
    threadCpu.close();
    log.info({ ms: Date.now() - started }, 'stopped');
  }

  return { port, backend: backend.name, ready, stop, fatal };
}

async function closeStore(dbs: StoreDatabases): Promise<void> {
  await dbs.root.flushed;
  await dbs.root.close();
}

/**
 * What only a cluster node runs: the NATS client, joining the cluster, and the admin actions it
 * applies for the cluster. Loaded in cluster mode only: a single box starts without them.
 */
async function loadClusterMode() {
  const [{ ClusterNode, clusterServers }, { joinCluster }, { createClusterMetrics }, { clusterAdminRunner }] = await Promise.all([
    import('./cluster/cluster-node.js'),
    import('./cluster/join-cluster.js'),
    import('./observability/cluster-metrics.js'),
    import('./cli/cluster-admin-runner.js'),
  ]);
  return { ClusterNode, clusterServers, joinCluster, createClusterMetrics, clusterAdminRunner };
}

/** A cluster node's link secret, which the cluster's first start made: until it has applied that, 503. */
function clusterLinkSecret(dbs: StoreDatabases): Buffer {
  const secret = storedLinkSecret(dbs);
  if (secret === undefined) throw new HedgerowError('HR_NOT_READY');
  return secret;
}
