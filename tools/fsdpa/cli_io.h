/* Files and the terminal, as the commands need them: outputs that fail
 * with exit status 3 and a message, whole inputs, the terminal's width,
 * the size of a gzip file's contents. */
#ifndef FSDPA_CLI_IO_H
#define FSDPA_CLI_IO_H

#include <fsdpa/fsdpa.h>
#include <stddef.h>
#include <stdint.h>

/* Whether an -o value means standard output (not given, or "-"). */
int cli_is_stdout(const char *path);

/* Before the inputs are read: 0 when `path` (-o) looks writable, else
 * EXIT_IO with a message (a missing directory, a directory as the file, no
 * permission), so a long analysis does not end in a failed write. */
int cli_check_output(const char *path);
/* The same for a directory that files are written into (annotate -d),
 * made (with its missing parents) when it does not exist. */
int cli_check_output_dir(const char *dir);

/* Write data to `path` (NULL or "-": standard output): 0, or EXIT_IO with a
 * message. */
int cli_write_output(const char *path, const char *data, size_t len);

/* The whole of `path` ("-": standard input), or NULL with errno set. */
char *cli_slurp(const char *path, size_t *len);

/* Columns for the text report: COLUMNS when it is a positive integer, else
 * the terminal's width when the report goes to standard output and that is
 * a terminal, else 100; kept within 40 .. 1000. */
int cli_term_width(int to_stdout);

/* For a gzip file, its trailer's ISIZE (the decompressed size modulo 2^32)
 * in *isize and 1; 0 for other files. */
int cli_gzip_isize(const char *path, uint64_t *isize);

/* A status in words, for when the library left no message. */
const char *cli_status_text(fsdpa_status st);

/* Say why trace `path` failed with `st`: the library's message (`ctx`'s,
 * when it has one) and, for a limit with --max-memory given (`max_memory`,
 * as typed, else NULL), which option set it. */
void cli_trace_failed(const char *path, const fsdpa_ctx *ctx, fsdpa_status st, const char *max_memory);

#endif
