/**
 * posthog-js's own browser bundles, as PostHog serves them under `/static/` for the web snippet
 * (`array.js`) and for the extensions posthog-js loads by name (`recorder.js`, `surveys.js`,
 * `exception-autocapture.js`, ...; docs/compatibility.md#static-bundles). They come from the
 * `dist/` directory of the pinned `posthog-js` dependency (in the single executable, its carried
 * copy, laid out the same way).
 *
 * Only the classic scripts there are served: a file named `<name>.js` directly in `dist/` whose
 * text starts as an immediately invoked function does. The package's CommonJS and ES module builds
 * (`main.js`, `module*.js`, `surveys-preview.js`) and the source maps are not. Names are looked up
 * in that list, never joined to a path from the request.
 *
 * Each file is read once, on its first request, and kept in memory with its gzip encoding and a
 * weak ETag over its bytes.
 */
import { createHash } from 'node:crypto';
import { open, readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const PACKAGE = 'posthog-js';
/**
 * How a classic script bundle begins (rollup's `iife` output, minified). scripts/build-binary.mjs
 * picks the files the single executable carries with the same test.
 */
const BROWSER_BUNDLE_START = /^\s*(!function\s*\(|\(function\s*\(|\(\(\)\s*=>)/;
/** Bytes read from each candidate to tell a classic script from a module build. */
const SNIFF_BYTES = 64;
/** Hex digits of the SHA-256 digest kept in the ETag. */
const ETAG_HEX_DIGITS = 16;

const gzipAsync = promisify(gzip);

export interface StaticBundle {
  readonly body: Buffer;
  readonly gzip: Buffer;
  /** `W/"<hex>"`: the same for both encodings, which carry the same script. */
  readonly etag: string;
}

/** The installed posthog-js package's directory. */
function posthogJsDir(): string {
  const require = createRequire(import.meta.url);
  return path.dirname(require.resolve(`${PACKAGE}/package.json`));
}

export class PosthogJsBundles {
  private names: Promise<ReadonlySet<string>> | undefined;
  private readonly loaded = new Map<string, Promise<StaticBundle>>();
  private versionText: string | undefined;

  private dir: string | undefined;

  /**
   * `packageDir`: where posthog-js is installed (by default found from this module on first use:
   * a broken install answers 500 there rather than keeping the daemon from starting).
   */
  constructor(packageDir?: string) {
    this.dir = packageDir;
  }

  private get packageDir(): string {
    this.dir ??= posthogJsDir();
    return this.dir;
  }

  /** The pinned posthog-js version (read once). */
  async version(): Promise<string> {
    this.versionText ??= (JSON.parse(await readFile(path.join(this.packageDir, 'package.json'), 'utf8')) as { version: string }).version;
    return this.versionText;
  }

  /** The bundle named `name` (e.g. `array.js`), or undefined when there is no such bundle. */
  async get(name: string): Promise<StaticBundle | undefined> {
    const hit = this.loaded.get(name);
    if (hit !== undefined) return hit;
    if (!(await this.list()).has(name)) return undefined;
    // Concurrent first requests share one read and one compression.
    let pending = this.loaded.get(name);
    if (pending === undefined) {
      pending = load(path.join(this.packageDir, 'dist', name));
      this.loaded.set(name, pending);
      pending.catch(() => this.loaded.delete(name)); // a failed read is retried by the next request
    }
    return pending;
  }

  /** The names served: every classic script bundle in `dist/` (listed once). */
  list(): Promise<ReadonlySet<string>> {
    if (this.names === undefined) {
      const listing = listBundles(path.join(this.packageDir, 'dist'));
      this.names = listing;
      // A listing that failed is tried again by the next request, as a failed load is.
      listing.catch(() => {
        if (this.names === listing) this.names = undefined;
      });
    }
    return this.names;
  }
}

async function listBundles(dist: string): Promise<ReadonlySet<string>> {
  const names = new Set<string>();
  for (const entry of await readdir(dist, { withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.js')) continue;
    const head = await readHead(path.join(dist, entry.name));
    if (BROWSER_BUNDLE_START.test(head)) names.add(entry.name);
  }
  return names;
}

async function readHead(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const buf = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buf, 0, SNIFF_BYTES, 0);
    return buf.subarray(0, bytesRead).toString('latin1');
  } finally {
    await handle.close();
  }
}

async function load(file: string): Promise<StaticBundle> {
  const body = await readFile(file);
  const hex = createHash('sha256').update(body).digest('hex').slice(0, ETAG_HEX_DIGITS);
  // Off the event loop (libuv's pool): array.full.js takes ~30 ms at the default level.
  return { body, gzip: await gzipAsync(body), etag: `W/"${hex}"` };
}
