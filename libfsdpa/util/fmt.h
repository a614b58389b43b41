/* How numbers are written for people (finding text, the text and HTML
 * reports): one definition each, so a duration or a step reads the same
 * everywhere.  JSON numbers never go through these. */
#ifndef FSDPA_UTIL_FMT_H
#define FSDPA_UTIL_FMT_H
#include <stddef.h>
#include <stdint.h>

/* Milliseconds as a double, for "%.2f ms" in sentences. */
static inline double fmt_ms(int64_t ns) { return (double)ns / 1e6; }
/* A duration with its unit: "1.23 s", "45.67 ms", "789.0 µs", "12 ns";
 * "n/a" for FSDPA_ABSENT. */
void fmt_dur(char *buf, size_t n, int64_t ns);
/* The label of a ProfilerStep: "ProfilerStep#N". */
void fmt_step(char *buf, size_t n, int64_t number);
/* Bytes with a binary unit: "1.50 GiB", "12.0 MiB", "512 B"; "n/a" if absent. */
void fmt_bytes(char *buf, size_t n, int64_t bytes);
#endif
