/* The wasm module's one source of its own: emcc links the whole library
 * (link_whole) and exports the header's functions (exports.json); the
 * JavaScript API is api.js.  This says which build it is. */
#include <emscripten.h>

/* 1 when the library was compiled for WebAssembly SIMD (simd128): the event
 * splitter's block scanner (libfsdpa/input/scan.c). */
EMSCRIPTEN_KEEPALIVE int fsdpaw_simd128(void);
int fsdpaw_simd128(void) {
#if defined(__wasm_simd128__)
  return 1;
#else
  return 0;
#endif
}
