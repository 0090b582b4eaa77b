#!/usr/bin/env node
// `npm run build:binary`: builds dist/hedgerow, one Linux x64 executable that runs Hedgerow with
// no Node.js, node_modules or source tree on the target (Node's single executable applications).
//
//   node scripts/build-binary.mjs [--out dist/hedgerow] [--no-strip] [--code-cache]
//
// 1. esbuild bundles the TypeScript sources to CommonJS: the entry point src/binary/sea-main.ts
//    and the four files worker threads run (our pool, person and HTTP threads, Piscina's wrapper).
// 2. The files the binary carries (those worker bundles, the native addons of uWS, lmdb and
//    msgpackr-extract, lmdb's compression dictionary, posthog-js's browser bundles served under
//    /static/, config/default.json and a package.json) are
//    staged with a sha256 manifest. At start-up src/binary/sea-assets.ts writes them to a private
//    cache directory laid out like an installed package (see src/binary/asset-cache.ts).
// 3. `node --experimental-sea-config` makes the blob; postject injects it into a copy of this
//    node executable (stripped of debug symbols when `strip` is available).
//
// Code that finds files relative to itself keeps working because every `import.meta.url` is
// rewritten to the URL the file has in that layout. The build fails loudly when one of its
// rewrites no longer applies, so a dependency update cannot silently break the binary.
import { build } from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NM = path.join(REPO, 'node_modules');
const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 && args[i + 1] ? args[i + 1] : fallback;
};
const EXE = path.resolve(option('--out', path.join(REPO, 'dist/hedgerow')));
const WORK = path.join(path.dirname(EXE), 'binary-build');
const STRIP = !args.includes('--no-strip') && spawnSync('strip', ['--version']).status === 0;
const CODE_CACHE = args.includes('--code-cache');
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
const MANIFEST_ASSET = 'manifest.json'; // src/binary/sea-assets.ts reads it under this key

if (process.platform !== 'linux' || process.arch !== 'x64') {
  throw new Error(`the single executable is built for linux-x64, not ${process.platform}-${process.arch}`);
}
const pkg = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8'));
const abi = process.versions.modules;
const started = Date.now();

// Native addons, where the installed-package layout has them.
const NATIVE = {
  lmdb: `node_modules/@lmdb/lmdb-linux-x64/node.abi${abi}.glibc.node`,
  'msgpackr-extract': `node_modules/@msgpackr-extract/msgpackr-extract-linux-x64/node.abi${abi}.glibc.node`,
};
const UWS_ADDON = `node_modules/@trufflesuite/uws-js-unofficial/binaries/uws_linux_x64_${abi}.node`;

/** Where a bundled source file sits in the cache layout (what its import.meta.url points at). */
function layoutPath(abs) {
  const inModules = path.relative(NM, abs);
  if (!inModules.startsWith('..')) return `node_modules/${inModules.split(path.sep).join('/')}`;
  const inRepo = path.relative(REPO, abs);
  if (inRepo.startsWith('..')) throw new Error(`bundled file outside the repository: ${abs}`);
  const posix = inRepo.split(path.sep).join('/');
  return `dist/${posix.replace(/\.(c|m)?ts$/, '.js')}`;
}

const HELPERS = `
var __hrRoot = () => globalThis.__HEDGEROW_SEA_ROOT || (() => { throw new Error("hedgerow: the cache directory is not prepared"); })();
var __hrPath = (p) => require("node:path").join(__hrRoot(), p);
var __hrMetaUrl = (p) => require("node:url").pathToFileURL(__hrPath(p)).href;
`;
/** Worker bundles run from the cache, so they find its root from their own location. */
const workerBanner = (layout) =>
  `globalThis.__HEDGEROW_SEA_ROOT ??= require("node:path").resolve(__dirname, ${JSON.stringify(
    path.posix.relative(path.posix.dirname(layout), '.'),
  )});` + HELPERS;

/** Text rewrites of dependencies; each must apply exactly where stated. */
const REWRITES = [
  {
    // Piscina starts resolve(__dirname, 'worker.js'); in a single executable __dirname is the
    // executable's directory. Its wrapper is carried as a bundle of its own.
    file: path.join(NM, 'piscina/dist/index.js'),
    from: "(0, node_path_1.resolve)(__dirname, 'worker.js')",
    to: '__hrPath("node_modules/piscina/dist/worker.js")',
  },
];
const applied = new Set();

const seaPlugin = {
  name: 'hedgerow-single-executable',
  setup(b) {
    // ordered-binary's ESM build decodes strings with a direct eval of generated code that names
    // module-level variables. esbuild hoists ESM modules into one scope and renames colliding
    // names (its `position` collides with lmdb's), so the generated code would read the wrong
    // variable and every range read would loop. CommonJS modules keep their own closure and names.
    b.onResolve({ filter: /^ordered-binary$/ }, async (a) => {
      if (a.kind === 'require-call' || a.pluginData === 'as-cjs') return undefined;
      const r = await b.resolve(a.path, { kind: 'require-call', resolveDir: a.resolveDir, importer: a.importer, pluginData: 'as-cjs' });
      return r.errors.length ? { errors: r.errors } : { path: r.path };
    });
    // lmdb and msgpackr-extract find their addon through node-gyp-build-optional-packages, which
    // searches node_modules with `require`; a single executable's main script only has builtins
    // there. Each importer gets a loader of its addon in the cache instead.
    b.onResolve({ filter: /^node-gyp-build-optional-packages$/ }, (a) => {
      const owner = Object.keys(NATIVE).find((p) => a.importer.includes(`${path.sep}node_modules${path.sep}${p}${path.sep}`));
      if (!owner) throw new Error(`unexpected importer of node-gyp-build-optional-packages: ${a.importer}`);
      return { path: owner, namespace: 'native-addon' };
    });
    b.onLoad({ filter: /.*/, namespace: 'native-addon' }, (a) => ({
      loader: 'js',
      contents: `
        const { createRequire } = require('node:module');
        module.exports = function loadNativeAddon() {
          const file = __hrPath(${JSON.stringify(NATIVE[a.path])});
          return createRequire(file)(file);
        };`,
    }));
    b.onLoad({ filter: /\.(c|m)?[jt]s$/ }, async (a) => {
      let src = await fs.promises.readFile(a.path, 'utf8');
      const original = src;
      for (const r of REWRITES) {
        if (r.file !== a.path) continue;
        if (!src.includes(r.from)) throw new Error(`rewrite no longer applies to ${a.path}: ${r.from}`);
        src = src.replace(r.from, r.to);
        applied.add(r);
      }
      if (src.includes('import.meta.url')) src = src.replaceAll('import.meta.url', `__hrMetaUrl(${JSON.stringify(layoutPath(a.path))})`);
      if (src === original) return undefined;
      return { contents: src, loader: a.path.endsWith('ts') ? 'ts' : 'js', resolveDir: path.dirname(a.path) };
    });
  },
};

async function bundle(entry, outfile, banner) {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    plugins: [seaPlugin],
    banner: { js: banner },
    // Optional requires of dependencies, absent here and never reached with Hedgerow's settings.
    external: ['@napi-rs/nice', 'cbor-x'],
    logLevel: 'warning',
    // An import.meta left over would be an empty object in CommonJS: make it a build error.
    logOverride: { 'empty-import-meta': 'error' },
    legalComments: 'none',
    minifyWhitespace: true,
    minifySyntax: true,
    keepNames: true,
    metafile: true,
  });
  // The ordered-binary class of bug, for any dependency: a direct eval in a hoisted ESM module.
  for (const [file, info] of Object.entries(result.metafile.inputs)) {
    if (info.format !== 'esm' || file.includes(':')) continue;
    const src = fs.readFileSync(path.resolve(REPO, file), 'utf8');
    // A line that only defines a method named eval (re2js's `eval(input, pos) {`) is not a call.
    const calls = src.split('\n').filter((line) => /(^|[^.\w$])eval\s*\(/.test(line) && !/^\s*eval\s*\([^)]*\)\s*\{/.test(line));
    if (calls.length > 0) throw new Error(`direct eval in a scope-hoisted ESM module: ${file} (resolve it as CommonJS)`);
  }
  return result;
}

fs.rmSync(WORK, { recursive: true, force: true });
const BUNDLES = path.join(WORK, 'bundles');
const STAGE = path.join(WORK, 'stage');
fs.mkdirSync(BUNDLES, { recursive: true });
fs.mkdirSync(STAGE, { recursive: true });

// 1. The files worker threads run.
const workers = [
  { entry: path.join(REPO, 'workers/pool-worker.ts'), path: 'dist/workers/pool-worker.js', asset: 'pool-worker.js' },
  { entry: path.join(REPO, 'workers/person-worker.ts'), path: 'dist/workers/person-worker.js', asset: 'person-worker.js' },
  { entry: path.join(REPO, 'workers/http-thread.ts'), path: 'dist/workers/http-thread.js', asset: 'http-thread.js' },
  { entry: path.join(NM, 'piscina/dist/worker.js'), path: 'node_modules/piscina/dist/worker.js', asset: 'piscina-worker.js' },
];
for (const w of workers) await bundle(w.entry, path.join(BUNDLES, w.asset), workerBanner(w.path));

// 2. What the binary carries, and its manifest.
const uwsVersion = require(path.join(NM, '@trufflesuite/uws-js-unofficial/package.json')).version;
// posthog-js's classic script bundles, picked as src/http/posthog-js-bundles.ts picks what it
// serves (the same test of how the file begins), its version and its license.
const POSTHOG_JS = path.join(NM, 'posthog-js');
const BROWSER_BUNDLE_START = /^\s*(!function\s*\(|\(function\s*\(|\(\(\)\s*=>)/;
const posthogJsBundles = fs
  .readdirSync(path.join(POSTHOG_JS, 'dist'), { withFileTypes: true })
  .filter((e) => e.isFile() && e.name.endsWith('.js'))
  .map((e) => e.name)
  .filter((name) => BROWSER_BUNDLE_START.test(fs.readFileSync(path.join(POSTHOG_JS, 'dist', name), 'latin1').slice(0, 64)))
  .sort();
if (!posthogJsBundles.includes('array.js')) throw new Error(`no posthog-js browser bundles found in ${POSTHOG_JS}/dist`);
const posthogJsVersion = require(path.join(POSTHOG_JS, 'package.json')).version;
const carried = [
  ...workers.map((w) => ({ asset: w.asset, from: path.join(BUNDLES, w.asset), path: w.path, mode: 0o644 })),
  // "commonjs": the worker bundles are CommonJS .js files (the repository's package.json says "module").
  {
    asset: 'package.json',
    text: `${JSON.stringify({ name: pkg.name, version: pkg.version, private: true, type: 'commonjs' })}\n`,
    path: 'package.json',
    mode: 0o644,
  },
  { asset: 'config-default.json', from: path.join(REPO, 'config/default.json'), path: 'config/default.json', mode: 0o644 },
  { asset: 'lmdb-dict.txt', from: path.join(NM, 'lmdb/dict/dict.txt'), path: 'node_modules/lmdb/dict/dict.txt', mode: 0o644 },
  { asset: 'lmdb.node', from: path.join(REPO, NATIVE.lmdb), path: NATIVE.lmdb, mode: 0o755 },
  { asset: 'msgpackr-extract.node', from: path.join(REPO, NATIVE['msgpackr-extract']), path: NATIVE['msgpackr-extract'], mode: 0o755 },
  { asset: 'uws.node', from: path.join(REPO, UWS_ADDON), path: UWS_ADDON, mode: 0o755 },
  {
    asset: 'uws-package.json',
    text: `${JSON.stringify({ name: '@trufflesuite/uws-js-unofficial', version: uwsVersion })}\n`,
    path: 'node_modules/@trufflesuite/uws-js-unofficial/package.json',
    mode: 0o644,
  },
  {
    asset: 'posthog-js-package.json',
    text: `${JSON.stringify({ name: 'posthog-js', version: posthogJsVersion })}\n`,
    path: 'node_modules/posthog-js/package.json',
    mode: 0o644,
  },
  { asset: 'posthog-js-LICENSE', from: path.join(POSTHOG_JS, 'LICENSE'), path: 'node_modules/posthog-js/LICENSE', mode: 0o644 },
  ...posthogJsBundles.map((name) => ({
    asset: `posthog-js-${name}`,
    from: path.join(POSTHOG_JS, 'dist', name),
    path: `node_modules/posthog-js/dist/${name}`,
    mode: 0o644,
  })),
];
const files = carried.map((f) => {
  const data = f.text !== undefined ? Buffer.from(f.text) : fs.readFileSync(f.from);
  fs.writeFileSync(path.join(STAGE, f.asset), data);
  return { asset: f.asset, path: f.path, sha256: createHash('sha256').update(data).digest('hex'), size: data.length, mode: f.mode };
});
const id = createHash('sha256').update(JSON.stringify(files)).digest('hex').slice(0, 12);
fs.writeFileSync(path.join(STAGE, MANIFEST_ASSET), JSON.stringify({ version: pkg.version, id, files }));

// 3. The main script.
const main = path.join(BUNDLES, 'main.cjs');
await bundle(path.join(REPO, 'src/binary/sea-main.ts'), main, HELPERS);
for (const r of REWRITES) if (!applied.has(r)) throw new Error(`rewrite never applied: ${r.file}`);

// 4. The blob, and a copy of node with it injected.
const seaConfig = {
  main,
  output: path.join(WORK, 'sea-prep.blob'),
  disableExperimentalSEAWarning: true,
  useCodeCache: CODE_CACHE,
  assets: Object.fromEntries([...files.map((f) => f.asset), MANIFEST_ASSET].map((a) => [a, path.join(STAGE, a)])),
};
fs.writeFileSync(path.join(WORK, 'sea-config.json'), JSON.stringify(seaConfig, null, 2));
execFileSync(process.execPath, ['--experimental-sea-config', path.join(WORK, 'sea-config.json')], { stdio: 'pipe' });

const partial = `${EXE}.partial`;
fs.copyFileSync(process.execPath, partial);
fs.chmodSync(partial, 0o755);
if (STRIP) execFileSync('strip', ['--strip-all', partial], { stdio: 'inherit' });
// postject's ELF library warns about note sections of node's binary it cannot name; harmless.
const injected = spawnSync(
  process.execPath,
  [require.resolve('postject/dist/cli.js'), partial, 'NODE_SEA_BLOB', seaConfig.output, '--sentinel-fuse', SEA_FUSE],
  { encoding: 'utf8' },
);
const injectLog = `${injected.stdout}${injected.stderr}`
  .split('\n')
  .filter((line) => line.trim() !== '' && !/^warning: Can't find string offset for section name '\.note/.test(line));
if (injected.status !== 0) throw new Error(`postject failed (${injected.status}):\n${injectLog.join('\n')}`);
fs.renameSync(partial, EXE);

const mib = (p) => `${(fs.statSync(p).size / 2 ** 20).toFixed(1)} MiB`;
console.log(
  `built ${path.relative(process.cwd(), EXE) || EXE}: ${mib(EXE)} (blob ${mib(seaConfig.output)}; node ${process.version}` +
    `${STRIP ? ', stripped' : ''}; cache directory ${pkg.version}-${id}) in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);
