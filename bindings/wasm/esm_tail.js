/* fsdpa.mjs: emscripten's module factory (createFsdpaModule) above, the
 * ABI table and api.js; here the module is instantiated once, at import (top-level
 * await).  Under node the .wasm beside this file is read with fs: node's
 * fetch() does not take file: URLs. */
const fsdpaModule = await (async () => {
  const opts = {};
  if (fsdpaNode) {
    const { readFile } = await import('fs/promises');
    opts.wasmBinary = await readFile(new URL('fsdpa.wasm', import.meta.url));
  }
  return createFsdpaModule(opts);
})();
const fsdpaApi = fsdpaMakeApi(fsdpaModule, FSDPA_ABI);
