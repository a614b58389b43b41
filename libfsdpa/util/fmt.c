#include "util/fmt.h"
#include <stdio.h>
#include "fsdpa/fsdpa.h"

void fmt_dur(char *buf, size_t n, int64_t ns) {
  if (ns == FSDPA_ABSENT) snprintf(buf, n, "n/a");
  else if (ns >= 1000000000) snprintf(buf, n, "%.2f s", (double)ns / 1e9);
  else if (ns >= 1000000) snprintf(buf, n, "%.2f ms", (double)ns / 1e6);
  else if (ns >= 1000) snprintf(buf, n, "%.1f µs", (double)ns / 1e3);
  else snprintf(buf, n, "%lld ns", (long long)ns);
}

void fmt_step(char *buf, size_t n, int64_t number) { snprintf(buf, n, "ProfilerStep#%lld", (long long)number); }

void fmt_bytes(char *buf, size_t n, int64_t v) {
  if (v == FSDPA_ABSENT) snprintf(buf, n, "n/a");
  else if (v >= ((int64_t)1 << 30)) snprintf(buf, n, "%.2f GiB", (double)v / (double)(1 << 30));
  else if (v >= ((int64_t)1 << 20)) snprintf(buf, n, "%.1f MiB", (double)v / (double)(1 << 20));
  else snprintf(buf, n, "%lld B", (long long)v);
}
