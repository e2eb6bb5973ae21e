/**
 * Starts a worker thread on a module next to the caller, whether the code runs compiled (`dist/`, `.js`) or from
 * source (`.ts` under tsx or vitest). The one place Vigil creates worker threads.
 *
 * From source, the worker module is TypeScript, which a bare worker cannot load: on Node 20, tsx's `--import`
 * hook is registered in the main thread only. So the worker starts on a two-line bootstrap that registers tsx's
 * loader in the worker itself (through its `tsx/esm/api`, resolved from here) and then imports the module. tsx is
 * a development dependency, as it should be: production runs the compiled `.js` module directly.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker running `name` (without extension), a sibling of the module whose `import.meta.url` is `caller`,
 * with that module's own extension.
 */
export function startModuleWorker(caller: string, name: string, options: WorkerOptions = {}): Worker {
  const fromSource = new URL(caller).pathname.endsWith('.ts');
  const url = new URL(`./${name}${fromSource ? '.ts' : '.js'}`, caller);
  if (!fromSource) return new Worker(url, options);
  const bootstrap = `import(${JSON.stringify(tsxApiUrl())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
}

let tsxApi: string | undefined;

/** tsx's ESM API module, as its package exports name it (`tsx/esm/api`, import condition). */
function tsxApiUrl(): string {
  if (!tsxApi) {
    const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
    const exports = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }).exports;
    tsxApi = pathToFileURL(join(dirname(manifest), exports['./esm/api']!.import.default)).href;
  }
  return tsxApi;
}
