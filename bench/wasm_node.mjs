// One row of bench/wasm_bench.py: fsdpa.mjs analyzing a trace in node, the
// same work as `fsdpa analyze -f json TRACE` (read, analyze, JSON report).
//   node bench/wasm_node.mjs MODULE TRACE REPEAT
// Prints {"cpu": [s per run], "wall": [...], "json": bytes, "version": ..., "heap": bytes}:
// the process's CPU time (user + sys) over each run, the module already
// instantiated; the file read in 1 MiB chunks as the CLI reads it.
import { openSync, readSync, closeSync } from 'fs';
const [module, trace, repeat] = process.argv.slice(2);
const F = await import(module);
const buf = Buffer.alloc(1 << 20);
const cpu = [], wall = [];
let json = 0;
for (let r = 0; r < Number(repeat || 3); r++) {
  const c0 = process.cpuUsage(), t0 = process.hrtime.bigint();
  const a = new F.Analyzer({ name: trace });
  const fd = openSync(trace, 'r');
  for (let n; (n = readSync(fd, buf, 0, buf.length, null)) > 0;) a.feed(buf.subarray(0, n));
  closeSync(fd);
  a.finish();
  a.reportBytes('json');
  const c = process.cpuUsage(c0);
  wall.push(Number(process.hrtime.bigint() - t0) / 1e9);
  cpu.push((c.user + c.system) / 1e6);
  json = Number(a.stats().json_bytes);
  a.free();
}
console.log(JSON.stringify({ cpu, wall, json, version: F.version, heap: F.heapBytes() }));
