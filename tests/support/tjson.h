/* Reading the library's JSON in tests by structure, not by text search:
 * a path names one value, and the value's own bytes come back, parsed by
 * the library's strict reader (util/jsonr).  Path syntax, segments joined by
 * '.':
 *   key            a member of an object ("ranks", "launch_gaps")
 *   3              element 3 of an array
 *   [key=value]    the first element of an array whose member `key` is the
 *                  string `value` (or the number written as `value`)
 *   #              (last segment only) the number of elements of an array
 *                  or members of an object
 * e.g. "ranks.0.launch_gaps.gpu_idle_ns", "findings.[id=gpu-starvation].cost_ns",
 * "findings.#". */
#ifndef FSDPA_TESTS_TJSON_H
#define FSDPA_TESTS_TJSON_H
#include <stddef.h>
#include <stdint.h>

/* The value at `path`: 1 and its bytes [*b, *e), or 0 if absent (or the
 * JSON is malformed: every lookup validates the whole text first). */
int tj_find(const char *json, const char *path, const char **b, const char **e);
/* 1 if the path names a value (null included). */
int tj_has(const char *json, const char *path);
/* 1 if the value is JSON null. */
int tj_is_null(const char *json, const char *path);
/* An integer (ABSENT-safe: null gives FSDPA_ABSENT); the test fails if the
 * value is missing or not an integer. */
int64_t tj_i64(const char *json, const char *path);
/* A boolean as 1 / 0; the test fails if missing or not true / false. */
int tj_bool(const char *json, const char *path);
/* A number as double; the test fails if missing or not a number. */
double tj_num(const char *json, const char *path);
/* A string, unescaped, malloc'd (caller frees); the test fails if missing. */
char *tj_str(const char *json, const char *path);
/* 1 if the string at path equals s. */
int tj_str_is(const char *json, const char *path, const char *s);
/* Elements of an array / members of an object at path (the test fails if
 * missing). */
size_t tj_count(const char *json, const char *path);
/* Index of the first element of the array at path that is the string s
 * (key NULL) or whose member `key` is the string s; -1 if none (the test
 * fails if the array is missing). */
int tj_index(const char *json, const char *path, const char *key, const char *s);
/* The whole text is one valid JSON value. */
int tj_valid(const char *json, size_t len);
#endif
