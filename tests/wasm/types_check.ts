// Compiled by .ci/wasm.sh with `tsc --strict --noEmit` against the generated
// fsdpa.d.ts: a viewer's use of the API type-checks, and the declarations
// say what the module returns (bigint nanoseconds, null for absent, enum
// names as strings).
import { Analyzer, FsdpaError, report, findings, crossrank, params, version, Status } from './fsdpa';
import type { Finding, Step, Timeline } from './fsdpa';

export function use(bytes: Uint8Array): string {
  const a = new Analyzer({ name: 'rank0.json.gz', maxMemoryBytes: 1 << 30, params: { 'launch.kernel_wait_ns': 1000 } });
  try {
    a.feed(bytes);
    a.finish();
  } catch (e) {
    if (e instanceof FsdpaError && e.status === Status.FSDPA_EPARSE) return `${e.code} at ${e.offset ?? '?'}`;
    throw e;
  }
  const steps: Step[] = a.steps();
  const first: bigint | null = steps.length ? steps[0].start_ns : null;
  const t: Timeline = a.timeline({ step: 0 });
  const density: number = t.density;
  const fs: Finding[] = a.findings();
  const worst: 'info' | 'warning' | 'critical' | undefined = fs[0]?.severity;
  const costs: bigint[] = fs.map((f) => f.cost_ns).filter((c): c is bigint => c !== null);
  const ranges = fs.flatMap((f) => f.ranges.map((r) => r.end_ns));
  a.commSplits(null, 'collective');
  a.memorySeries({ device: 0 }, 0, 64);
  const cr = crossrank([a]);
  const html: string = report([a], 'html', { paths: ['rank0.json.gz'] });
  const all: Finding[] = findings([a]);
  a.free();
  return [version, first, density, worst, costs.length, ranges.length, cr, html.length, all.length,
          params().length, a.report('text', { width: 120 })].join(' ');
}
