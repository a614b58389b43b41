/* fsdpa-worker.js: the classic-script build (one file, the wasm inlined) for
 * a Web Worker made from a Blob URL, where module scripts and file: URLs are
 * not available (a page opened from file://).  Defines self.fsdpaReady, a
 * promise of the API object. */
self.fsdpaReady = createFsdpaModule({}).then(function (M) { return fsdpaMakeApi(M, FSDPA_ABI); });
