/* fsdpa-ingest: the measuring stick for bench/run.py.
 *
 *   fsdpa-ingest floor TRACE   input layer only: gzip detection, inflate,
 *                              splitter and simdjson decode of every event
 *                              into an fsdpa_event, handed to a sink that
 *                              does nothing.  The ingestion floor: no
 *                              analysis can run faster than this.
 *   fsdpa-ingest store TRACE   the same plus the event store (fsdpa_feed):
 *                              classification, interning, 48-byte records.
 *   fsdpa-ingest views TRACE   store + the sorted per-stream views that
 *                              every analysis starts from.
 *
 * Reads with 1 MiB read(2) calls, as the CLI does, and prints one JSON
 * object on stdout: events, bytes, seconds, and (store/views) a breakdown
 * of the bytes the context retains, so bench/README.md can state bytes per
 * event and per interned name from a measurement, not from the struct
 * sizes alone. */
#include "ctx.h"
#include "input/input.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { BUF = 1 << 20 };

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static fsdpa_status noop_event(void *ud, const fsdpa_event *ev) {
  /* touch one field so the decode cannot be proven dead */
  *(uint64_t *)ud += (uint64_t)ev->ph;
  return FSDPA_OK;
}
static fsdpa_status noop_meta(void *ud, const fsdpa_trace_info *info) {
  (void)ud;
  (void)info;
  return FSDPA_OK;
}

static int open_in(const char *path) {
  int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY);
  if (fd < 0) fprintf(stderr, "fsdpa-ingest: %s: %s\n", path, strerror(errno));
  return fd;
}

static int run_floor(const char *path) {
  fa_alloc a;
  fa_init(&a, NULL, 0);
  uint64_t sum = 0;
  input_sink sink = {noop_event, noop_meta, &sum};
  fsdpa_input *in = NULL;
  if (input_new(&in, &a, path, 0, &sink) != FSDPA_OK) {
    fprintf(stderr, "fsdpa-ingest: cannot create the input\n");
    return 1;
  }
  int fd = open_in(path);
  char *buf = malloc(BUF);
  if (fd < 0 || !buf) {
    input_free(in);
    free(buf);
    return 1;
  }
  double t0 = now_s();
  fsdpa_status st = FSDPA_OK;
  ssize_t n;
  while ((n = read(fd, buf, BUF)) > 0)
    if ((st = input_feed(in, buf, (size_t)n)) != FSDPA_OK) break;
  if (n < 0) {
    fprintf(stderr, "fsdpa-ingest: %s: read: %s\n", path, strerror(errno));
    st = FSDPA_EIO;
  }
  if (st == FSDPA_OK) st = input_finish(in);
  double dt = now_s() - t0;
  if (st != FSDPA_OK) {
    fprintf(stderr, "fsdpa-ingest: %s\n", input_errmsg(in)[0] ? input_errmsg(in) : fsdpa_status_str(st));
  } else {
    printf("{\"mode\": \"floor\", \"events\": %llu, \"input_bytes\": %llu, \"json_bytes\": %llu, "
           "\"seconds\": %.6f, \"simd_splitter\": %d, \"json_impl\": \"%s\", \"checksum\": %llu, "
           "\"peak_alloc_bytes\": %llu}\n",
           (unsigned long long)input_events(in), (unsigned long long)input_bytes_in(in),
           (unsigned long long)input_json_bytes(in), dt, input_simd_active(in), input_json_impl(),
           (unsigned long long)sum, (unsigned long long)a.peak);
  }
  input_free(in);
  free(buf);
  if (fd > 0) close(fd);
  return st != FSDPA_OK;
}

static size_t vec_bytes(const fa_vec *v, size_t item) { return v->cap * item; }

static int run_store(const char *path, int views) {
  fsdpa_ctx *c = NULL;
  fsdpa_options o;
  fsdpa_options_init(&o);
  o.name = path;
  if (fsdpa_ctx_new(&c, &o) != FSDPA_OK) return 1;
  int fd = open_in(path);
  char *buf = malloc(BUF);
  if (fd < 0 || !buf) {
    fsdpa_ctx_free(c);
    free(buf);
    return 1;
  }
  double t0 = now_s();
  fsdpa_status st = FSDPA_OK;
  ssize_t n;
  while ((n = read(fd, buf, BUF)) > 0)
    if ((st = fsdpa_feed(c, buf, (size_t)n)) != FSDPA_OK) break;
  if (n < 0) st = FSDPA_EIO;
  if (st == FSDPA_OK) st = fsdpa_finish(c);
  double t_feed = now_s() - t0;
  double t_views = 0;
  if (st == FSDPA_OK && views) {
    double t1 = now_s();
    if (!ctx_views(c)) st = FSDPA_ENOMEM;
    t_views = now_s() - t1;
  }
  if (st != FSDPA_OK) {
    fprintf(stderr, "fsdpa-ingest: %s\n", fsdpa_errmsg(c)[0] ? fsdpa_errmsg(c) : fsdpa_status_str(st));
    fsdpa_ctx_free(c);
    free(buf);
    if (fd > 0) close(fd);
    return 1;
  }
  fsdpa_stats s = {sizeof s};
  fsdpa_stats_get(c, &s);
  const store *S = &c->st;
  const intern_table *T = &S->names;
  /* record arrays: used (len) and held (cap, what the allocator charges) */
  size_t rec_len = (S->gpu.len + S->gsync.len + S->gannot.len + S->rt.len + S->cpu.len) * sizeof(ev_rec) +
                   S->mem.len * sizeof(mem_rec);
  size_t rec_cap = vec_bytes(&S->gpu, sizeof(ev_rec)) + vec_bytes(&S->gsync, sizeof(ev_rec)) +
                   vec_bytes(&S->gannot, sizeof(ev_rec)) + vec_bytes(&S->rt, sizeof(ev_rec)) +
                   vec_bytes(&S->cpu, sizeof(ev_rec)) + vec_bytes(&S->mem, sizeof(mem_rec));
  size_t side_cap = vec_bytes(&S->colls, sizeof(coll_info)) + vec_bytes(&S->syncs, sizeof(sync_info)) +
                    vec_bytes(&S->side, sizeof(int64_t)) + vec_bytes(&S->steps, sizeof(step_rec)) +
                    vec_bytes(&S->tracks, sizeof(track)) + S->track_nslots * sizeof(uint32_t);
  size_t side_len = S->colls.len * sizeof(coll_info) + S->syncs.len * sizeof(sync_info) +
                    S->side.len * sizeof(int64_t);
  size_t intern_held = vec_bytes(&T->entries, sizeof(intern_entry)) + T->nslots * sizeof(uint32_t) +
                       T->nchunks * T->chunk_size + T->chunks_cap * sizeof(char *) +
                       vec_bytes(&S->name_info, sizeof(uint32_t));
  printf("{\"mode\": \"%s\", \"events\": %llu, \"retained\": %llu, \"input_bytes\": %llu, "
         "\"json_bytes\": %llu, \"seconds\": %.6f, \"views_seconds\": %.6f, \"memory_bytes\": %llu, "
         "\"peak_alloc_bytes\": %llu, \"names\": %llu, \"name_string_bytes\": %llu, "
         "\"record_bytes_used\": %zu, \"record_bytes_held\": %zu, \"side_bytes_used\": %zu, "
         "\"side_bytes_held\": %zu, \"intern_bytes_held\": %zu, \"views_bytes\": %zu, "
         "\"ev_rec_size\": %zu, \"mem_rec_size\": %zu, \"kernels\": %llu, \"runtime\": %llu, "
         "\"cpu_ops\": %llu, \"memory_events\": %llu}\n",
         views ? "views" : "store", (unsigned long long)s.events, (unsigned long long)s.retained,
         (unsigned long long)s.input_bytes, (unsigned long long)s.json_bytes, t_feed, t_views,
         (unsigned long long)s.memory_bytes, (unsigned long long)c->alloc.peak,
         (unsigned long long)s.names, (unsigned long long)T->bytes, rec_len, rec_cap, side_len,
         side_cap, intern_held, S->views.bytes, sizeof(ev_rec), sizeof(mem_rec),
         (unsigned long long)s.kernels, (unsigned long long)s.runtime, (unsigned long long)s.cpu_ops,
         (unsigned long long)s.memory);
  fsdpa_ctx_free(c);
  free(buf);
  if (fd > 0) close(fd);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: fsdpa-ingest floor|store|views TRACE\n");
    return 2;
  }
  if (!strcmp(argv[1], "floor")) return run_floor(argv[2]);
  if (!strcmp(argv[1], "store")) return run_store(argv[2], 0);
  if (!strcmp(argv[1], "views")) return run_store(argv[2], 1);
  fprintf(stderr, "fsdpa-ingest: unknown mode '%s'\n", argv[1]);
  return 2;
}
