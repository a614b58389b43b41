/* fsdpa.mjs (emcc --extern-pre-js): emscripten 3.1.6's module code expects
 * CommonJS's require and __dirname under node; an ES module has neither, so
 * they are made here, under node only (a browser never reaches them). */
const fsdpaNode = typeof process === 'object' && !!process.versions && !!process.versions.node;
const require = fsdpaNode ? (await import('module')).createRequire(import.meta.url) : undefined;
const __dirname = fsdpaNode ? require('path').dirname(require('url').fileURLToPath(import.meta.url)) : '';
