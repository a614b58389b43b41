/* The commands and options of fsdpa, and the prose of its manual page.
 *
 * Edit here, then regenerate the committed manual page:
 *   <build>/tools/fsdpa/fsdpa __generate man > docs/man/fsdpa.1
 * (the cli test fails while they differ).  `help` fields are plain text;
 * `man` fields are roff: "\\-" for a minus that is typed, \fB..\fR bold,
 * \fI..\fR italic, one sentence per line where convenient. */
#include "cli_table.h"
#include "cmd.h"
#include <string.h>

const char cli_about[] =
    "Reads PyTorch profiler (Kineto) traces of distributed training and says, with\n"
    "numbers and evidence, why the GPUs are not busy.\n";

const char cli_man_date[] = "2026";

#define ANALYZE CMD_BIT(CMD_ANALYZE)
#define ANNOTATE CMD_BIT(CMD_ANNOTATE)
#define SUMMARIZE CMD_BIT(CMD_SUMMARIZE)
#define MERGE CMD_BIT(CMD_MERGE)
#define DIFF CMD_BIT(CMD_DIFF)

const cli_cmd cli_cmds[] = {
    {CMD_ANALYZE, "analyze", 0, {"[options] TRACE [TRACE ...]"},
     "analyze one trace per rank and print a report (text, json, html)",
     "TRACE is a Kineto / PyTorch-profiler Chrome trace, plain or gzip (.json, .json.gz),\n"
     "or '-' for standard input.  Several TRACEs are the ranks of one job (rank taken from\n"
     "distributedInfo.rank, else the order given); the report lists them in rank order, so\n"
     "with known ranks it does not depend on the order given; a rank given twice is refused.\n"
     "A directory stands for the traces in it (*.json and *.json.gz, sorted by name; not its\n"
     "subdirectories); a file there that is not a trace (a config.json) is skipped with a\n"
     "warning.  A trace that holds no event is refused (exit 3) unless --allow-empty.\n"
     "Standard output gets text on a terminal and JSON in a pipe or file (fsdpa analyze t | jq\n"
     "works); -f text gives text anywhere.\n",
     "Analyze the traces and print a report.\n",
     OPERAND_TRACES, "TRACE", 1, -1,
     "exit status: 0 report written, 1 findings at or above --fail-on (listed on stderr),\n"
     "2 bad usage, 3 an input could not be read, is not a trace or is empty, or the report\n"
     "could not be written.\n",
     cmd_analyze},
    {CMD_ANNOTATE, "annotate", 0, {"[options] TRACE -o OUT", "[options] -d DIR TRACE [TRACE ...]"},
     "copy a trace with the findings added as events (for Perfetto)",
     "Analyzes the TRACEs (the ranks of one job, as 'fsdpa analyze' does) and writes a copy\n"
     "of each with the findings added as events: a process \"fsdpa findings\" with one\n"
     "thread per finding and one slice per time range of its evidence, named by the\n"
     "finding's title, with id, severity, detail and advice in its args.  Open the copy in\n"
     "Perfetto (https://ui.perfetto.dev) or chrome://tracing to see each finding next to\n"
     "the kernels it is about.  The original events are kept byte for byte.\n",
     "Analyze the traces like\n"
     ".B analyze\n"
     "and write a copy of each with the findings added as trace events, so that Perfetto\n"
     "(ui.perfetto.dev) and chrome://tracing show each finding next to the kernels it is about:\n"
     "a process named\n"
     ".B fsdpa findings\n"
     "with one thread per finding (in report order, worst first) and one slice per time range of\n"
     "its evidence, named by the finding's title, with its id, severity, rank, step, cost, detail,\n"
     "advice and evidence in the slice's arguments. Timestamps follow the trace's own convention\n"
     "(microseconds relative to\n"
     ".B baseTimeNanoseconds\n"
     "when the trace has it, with three decimals: exact nanoseconds). Every original byte is kept:\n"
     "the events are inserted right after the opening bracket of\n"
     ".BR traceEvents .\n"
     "The input is read again as a stream; it must be a file (not standard input).\n",
     OPERAND_TRACES, "TRACE", 1, -1,
     "exit status: 0 written, 2 bad usage, 3 a trace could not be read or written.\n",
     cmd_annotate},
    {CMD_SUMMARIZE, "summarize", 0, {"[options] TRACE"},
     "write a compact per-rank summary (.fsum) to merge elsewhere",
     "Writes the summary (fsdpa.summary/1) of one rank's trace: its part of the report and\n"
     "its collective table, small enough to copy where the other ranks' are.  TRACE is a\n"
     "file, '-' for standard input, or a directory that holds one trace.\n",
     "Write the summary\n"
     ".RB ( fsdpa.summary/1 )\n"
     "of one rank's trace: its part of the report and its collective table, small enough to copy\n"
     "to where the other ranks' summaries are.\n",
     OPERAND_TRACES, "TRACE", 1, 1,
     "exit status: 0 written, 2 bad usage, 3 the trace could not be read or is not a trace,\n"
     "or the summary could not be written.\n",
     cmd_summarize},
    {CMD_MERGE, "merge", 0, {"[options] SUMMARY [SUMMARY ...]"},
     "combine per-rank summaries into the report of the whole job",
     "Combines summaries (each one rank or an earlier merge) and prints the JSON report\n"
     "that 'fsdpa analyze -f json' prints for all the traces (in any order), or with\n"
     "--summary the merged summary (merging is associative and commutative: merge in any\n"
     "grouping and order; ranks come out in rank order).\n"
     "A directory stands for the summaries in it (*.fsum, sorted by name).\n",
     "Combine summaries (each one rank, or an earlier merge) and print the JSON report that\n"
     ".B analyze \\-f json\n"
     "prints for all the traces (in any order), or with\n"
     ".B \\-\\-summary\n"
     "the merged summary. Merging is associative and commutative: summaries may be merged in\n"
     "any grouping and order, and the ranks come out in rank order.\n"
     "A directory\n"
     ".I SUMMARY\n"
     "stands for the files in it whose names end in\n"
     ".BR .fsum ,\n"
     "sorted by name.\n",
     OPERAND_SUMMARIES, "SUMMARY", 1, -1,
     "exit status: 0 written, 1 findings at or above --fail-on, 2 bad usage,\n"
     "3 a summary could not be read or is not one, or the output could not be written.\n",
     cmd_merge},
    {CMD_DIFF, "diff", 0, {"[options] BASE NEW"},
     "compare two runs: what got slower, a regression gate for CI",
     "Compares two runs of a job and says what changed: step time, GPU utilization, idle\n"
     "time by cause, exposed communication (per collective and per FSDP unit), kernels\n"
     "(new, gone, slower), op efficiency, allocator counts and findings (new, resolved,\n"
     "worse).  BASE and NEW are each a trace, a directory of one job's traces (or of its\n"
     "summaries, *.fsum), a summary (a CI job keeps one instead of traces), or a JSON\n"
     "report.  Ranks are matched by number; the job is their mean.  Changes within the\n"
     "run-to-run spread of the steady steps, or below --min-change, are not called\n"
     "worse or better.\n",
     "Compare two runs of a job and say what changed: step time, GPU utilization, idle time by\n"
     "cause, exposed communication (per collective and per FSDP unit), kernels (new, gone,\n"
     "slower), op efficiency (TFLOP/s), allocator counts and findings (new, resolved, worse).\n"
     ".I BASE\n"
     "and\n"
     ".I NEW\n"
     "are each a trace, a directory of one job's traces (or of its summaries,\n"
     ".BR *.fsum ),\n"
     "a summary\n"
     ".RB ( fsdpa summarize ,\n"
     "merged or not: a CI job keeps one as its baseline instead of traces), or a JSON report\n"
     ".RB ( \"fsdpa analyze \\-f json\" ).\n"
     "Ranks are matched by number and the job is the mean of the ranks both runs have.\n"
     "Step time is the mean duration of the steady ProfilerSteps (without steps: the GPU span\n"
     "per iteration); per-iteration values are the mean over the steady steps where the report\n"
     "has them per step. A metric measured per step has a run-to-run spread, half the range of\n"
     "its steady steps; a change within the larger of the two runs' spreads, or smaller than\n"
     ".BR \\-\\-min\\-change ,\n"
     "is not called worse or better.\n"
     "The JSON output is\n"
     ".B fsdpa.diff/1\n"
     "(docs/diff.schema.json); docs/report-contract.md defines every metric.\n",
     OPERAND_RUNS, "BASE and NEW", 2, 2,
     "exit status: 0 written (no regression beyond --fail-on-regression), 1 the step time or\n"
     "the exposed communication regressed beyond it, 2 bad usage, 3 an input could not be\n"
     "read or is neither a trace nor a summary nor a report, or the output could not be written.\n",
     cmd_diff},
    {CMD_PARAMS, "params", 0, {""},
     "list the analysis thresholds that --set can change",
     "Prints one line per analysis threshold: 'name=default  description', the description\n"
     "giving its unit and whose rule the default follows.  Times are in nanoseconds, shares\n"
     "(names ending in _ppm) in parts per million; --set also takes a share as a\n"
     "percentage (30% = 300000).\n",
     "List every analysis threshold\n"
     ".B \\-\\-set\n"
     "can change, with its default and whose rule the default follows, one line\n"
     ".I name=default description\n"
     "each. Times are in nanoseconds, shares (names ending in\n"
     ".BR _ppm )\n"
     "in parts per million.\n",
     OPERAND_NONE, NULL, 0, 0, NULL, cmd_params},
    {CMD_VERSION, "version", 0, {""},
     "print the version",
     "Prints the version of fsdpa (that of the library it runs with), as 'fsdpa --version'\n"
     "does.\n",
     "Print the version (as\n"
     ".B fsdpa \\-\\-version\n"
     "does).\n",
     OPERAND_NONE, NULL, 0, 0, NULL, cmd_version},
    {CMD_HELP, "help", 0, {"[COMMAND]"},
     "help for a command",
     "Prints the help of COMMAND, the same as 'fsdpa COMMAND --help'; without COMMAND, the\n"
     "list of commands.\n",
     "Print the help of\n"
     ".I COMMAND\n"
     "(the same as\n"
     ".BI \"fsdpa \" COMMAND \" \\-\\-help\"\\fR),\n"
     "or without one the list of commands.\n",
     OPERAND_COMMAND, "COMMAND", 0, 1, NULL, cmd_help},
    /* the build makes the shell completions with it; the committed manual
     * page is compared with its output */
    {CMD_GENERATE, "__generate", 1, {"man|bash|zsh"},
     "write the manual page or a shell completion script",
     "Writes the manual page (roff), or the completion script for bash or zsh, to standard\n"
     "output, made from the tables the options are parsed with.\n",
     NULL, OPERAND_GENERATE, "man|bash|zsh", 1, 1, NULL, cmd_generate},
};
const size_t cli_ncmds = sizeof cli_cmds / sizeof cli_cmds[0];

const cli_opt cli_opts[] = {
    {ANALYZE, OPT_FORMAT, 'f', "format", "FMT", ARG_CHOICE, "text json html", NULL,
     "text, json or html (default: by the name of -o FILE, else text on a terminal, json "
     "otherwise)",
     ".B text\n"
     "(the default on a terminal): per rank a short summary (workload, iterations with the\n"
     "warm-up iteration left out, step time, GPU density with a bar, idle time by HTA category and\n"
     "by cause, exposed communication, backward pattern, allocator state with a memory\n"
     "sparkline, time blocked in CUDA calls, and per GPU stream its gap histogram as a one-line\n"
     "sparkline over 1\\~\\(mcs .. 1\\~s), then the findings, worst first, each with its advice\n"
     "and the time ranges of its evidence.\n"
     "Lines fit the terminal's width (see\n"
     ".B COLUMNS\n"
     "under ENVIRONMENT), 100 columns when standard output is not a terminal.\n"
     ".br\n"
     ".B json\n"
     "(the default otherwise): the report contract\n"
     ".RB ( fsdpa.report/1 ,\n"
     "docs/report-contract.md); its JSON Schema is docs/report.schema.json.\n"
     ".br\n"
     "\\fBhtml\\fR: one self-contained page (no network access, works offline) with the findings, per rank\n"
     "a summary (workload, iterations and warm-up, GPU idle by cause), a whole-trace overview\n"
     "of every GPU stream, a Gantt view of one step (kernels\n"
     "colored by class: compute, AllGather, ReduceScatter, AllReduce, other collectives, memcpy,\n"
     "memset; the CPU threads' runtime calls, blocking by name apart from blocking by behaviour;\n"
     "drag to zoom), the memory timeline, communication hidden versus exposed per FSDP\n"
     "unit, and the gap histogram of each stream. Clicking a finding highlights its time ranges\n"
     "on the timelines of its rank; a link ending in\n"
     ".BI #finding- N\n"
     "opens the page with finding\n"
     ".I N\n"
     "(0 = the worst) selected.\n"
     ".br\n"
     "Without\n"
     ".BR \\-\\-format ,\n"
     "the name of the\n"
     ".B \\-o\n"
     "file picks the format.\n"},
    {DIFF, OPT_FORMAT, 'f', "format", "FMT", ARG_CHOICE, "text json html", NULL,
     "text, json or html (default: by the name of -o FILE, else text on a terminal, json "
     "otherwise)",
     ".B text\n"
     "(the default on a terminal): the gate, the job's metrics with base, new, change and\n"
     "spread, the ranks whose metrics changed, and the ten largest changes of each table.\n"
     ".B json\n"
     "(the default otherwise):\n"
     ".BR fsdpa.diff/1 .\n"
     "\\fBhtml\\fR: one self-contained page with the same tables.\n"
     "Without\n"
     ".BR \\-\\-format ,\n"
     "the name of the\n"
     ".B \\-o\n"
     "file picks the format.\n"},
    {MERGE, OPT_FORMAT, 'f', "format", "FMT", ARG_CHOICE, "json",
     "text and html need the traces: use 'fsdpa analyze'",
     "json, the only format (text and html need the traces)",
     ".B json\n"
     "is the only format: text and html need the traces (use\n"
     ".BR analyze ).\n"},
    {ANALYZE, OPT_OUTPUT, 'o', "output", "FILE", ARG_FILE, NULL, NULL,
     "write the report to FILE; its name (.html, .json or .txt) picks the format unless -f",
     "Write the report to\n"
     ".I FILE\n"
     "instead of standard output\n"
     ".RB ( \\- \" = standard output).\"\n"
     "Without\n"
     ".BR \\-\\-format ,\n"
     "the name of\n"
     ".I FILE\n"
     "picks the format: a name ending in\n"
     ".B .html\n"
     "is html,\n"
     ".B .json\n"
     "json and\n"
     ".B .txt\n"
     "text (in any case); any other name is a usage error (exit status 2), so that\n"
     ".B \\-o report.pdf\n"
     "does not silently write JSON.\n"
     "A\n"
     ".I FILE\n"
     "that cannot be written is exit status 3, found before any trace is read when its\n"
     "directory is missing or not writable.\n"},
    {DIFF, OPT_OUTPUT, 'o', "output", "FILE", ARG_FILE, NULL, NULL,
     "write the diff to FILE; a name ending in .html, .json or .txt picks the format",
     "Write the diff to\n"
     ".I FILE\n"
     "instead of standard output; without\n"
     ".BR \\-\\-format ,\n"
     "a name ending in\n"
     ".BR .html \", \" .json \" or \" .txt\n"
     "picks the format.\n"},
    {ANNOTATE, OPT_OUTPUT, 'o', "output", "OUT", ARG_FILE, NULL, NULL,
     "the annotated copy of the single TRACE ('-' = standard output); gzip-compressed if "
     "OUT ends in .gz",
     "The annotated copy of the single\n"
     ".I TRACE\n"
     ".RB ( \\- \" = standard output).\"\n"
     "Compressed with gzip if\n"
     ".I OUT\n"
     "ends in\n"
     ".BR .gz .\n"},
    {ANNOTATE, OPT_DIR, 'd', "dir", "DIR", ARG_DIR, NULL, NULL,
     "write each copy to DIR/<file name of the TRACE>; DIR is made if it does not exist",
     "Write the copy of each\n"
     ".I TRACE\n"
     "to\n"
     ".IR DIR / \"file name of the TRACE\" .\n"
     ".I DIR\n"
     "(and its missing parents) is made if it does not exist.\n"},
    {SUMMARIZE, OPT_OUTPUT, 'o', "output", "FILE", ARG_FILE, NULL, NULL,
     "write the summary to FILE instead of standard output",
     "Write the summary to\n"
     ".I FILE\n"
     "instead of standard output.\n"},
    {MERGE, OPT_OUTPUT, 'o', "output", "FILE", ARG_FILE, NULL, NULL,
     "write to FILE instead of standard output",
     "Write the report, or with\n"
     ".B \\-\\-summary\n"
     "the merged summary, to\n"
     ".I FILE\n"
     "instead of standard output.\n"
     "A report to a\n"
     ".I FILE\n"
     "ending in\n"
     ".B .html\n"
     "or\n"
     ".B .txt\n"
     "is a usage error unless\n"
     ".B \\-f json\n"
     "is given, since merge writes JSON only.\n"},
    {MERGE, OPT_SUMMARY, 0, "summary", NULL, ARG_NONE, NULL, NULL,
     "write the merged summary instead of the report",
     "Write the merged summary instead of the report, to merge it further.\n"},
    {SUMMARIZE, OPT_RANK, 0, "rank", "N", ARG_INDEX, NULL, NULL,
     "rank of the trace (default: distributedInfo.rank, else 0)",
     "The rank of the trace (default: its\n"
     ".BR distributedInfo.rank ,\n"
     "else 0).\n"},
    {ANNOTATE, OPT_GZIP, 0, "gzip", NULL, ARG_NONE, NULL, NULL,
     "compress the output whatever its name",
     "Compress the output with gzip, whatever its name.\n"},
    {ANNOTATE, OPT_NO_GZIP, 0, "no-gzip", NULL, ARG_NONE, NULL, NULL,
     "never compress the output",
     "Do not compress the output, whatever its name.\n"},
    {ANALYZE | MERGE, OPT_FAIL_ON, 0, "fail-on", "SEV", ARG_CHOICE, "info warning critical", NULL,
     "exit 1 if a finding of severity SEV or worse exists (info, warning, critical, any case), "
     "listing those findings on stderr; off by default",
     "Exit with status 1 if a finding of severity\n"
     ".I SEV\n"
     "or worse exists\n"
     ".RB ( info \", \" warning \", \" critical ,\n"
     "in any case), after listing those findings (severity, id, rank, title) on standard error.\n"
     "Off by default.\n"},
    {DIFF, OPT_FAIL_ON_REGRESSION, 0, "fail-on-regression", "PCT", ARG_PERCENT, NULL, NULL,
     "exit 1 if the step time or the exposed communication per iteration grew by more than "
     "PCT percent (and beyond the run-to-run spread); off by default",
     "Exit with status 1 if the job's step time (without ProfilerSteps: its GPU span per\n"
     "iteration) or its exposed communication per iteration grew by more than\n"
     ".I PCT\n"
     "percent of the base and by more than the run-to-run spread; the output names each metric\n"
     "that crossed and by how much.\n"
     ".I PCT\n"
     "is a number with at most four decimals, with or without a trailing\n"
     ".BR % .\n"
     "Off by default.\n"},
    {DIFF, OPT_MIN_CHANGE, 0, "min-change", "PCT", ARG_PERCENT, NULL, NULL,
     "the smallest change called worse or better, in percent of the base (default 5)",
     "The smallest change, in percent of the base, that is called worse or better (default 5);\n"
     "a change must also be beyond the run-to-run spread.\n"},
    {ANALYZE | ANNOTATE | SUMMARIZE | DIFF, OPT_SET, 0, "set", "KEY=VALUE", ARG_PARAM, NULL, NULL,
     "change an analysis threshold (see 'fsdpa params'); shares (_ppm) also as 30% or 12.5%",
     "Change an analysis threshold; see\n"
     ".BR \"fsdpa params\" .\n"
     "May be given several times.\n"
     ".I VALUE\n"
     "is an integer in the parameter's unit (nanoseconds for names ending in\n"
     ".BR _ns ,\n"
     "parts per million for\n"
     ".BR _ppm ,\n"
     "else a count); a share may also be given as a percentage:\n"
     ".B starvation.max_density_ppm=30%\n"
     "is 300000, 12.5% is 125000 (at most four decimals: a ppm is 0.0001%).\n"
     "An unknown\n"
     ".I KEY\n"
     "(the message suggests the nearest) or a value outside the parameter's range (a share\n"
     "above 100%) is a usage error.\n"
     "One key takes a string:\n"
     ".B comm.kernel_patterns=PAT,PAT...\n"
     "makes kernels whose whole name matches a glob\n"
     ".RB ( * ,\n"
     ".BR ? ,\n"
     ".BR [...] )\n"
     "communication (rule \"user\" in the report's comm_families), for in-house\n"
     "communication libraries.\n"},
    {ANALYZE | DIFF, OPT_JOBS, 'j', "jobs", "N", ARG_COUNT, NULL, NULL,
     "read and analyze N ranks in parallel (default 1)",
     "Read and analyze N traces in parallel (one thread per trace; each rank's part of the report is\n"
     "made in its thread).\n"},
    {ANALYZE, OPT_LOW_MEMORY, 0, "low-memory", NULL, ARG_NONE, NULL, NULL,
     "keep a small summary of each rank, not its events: memory of N ranks however many "
     "(json only; the same report)",
     "Keep a small summary of each rank instead of its events: each worker summarizes its trace and\n"
     "frees it, and the summaries are merged, so memory stays that of N ranks however many traces are\n"
     "given.  JSON only; the report is the same bytes as without the option.\n"},
    {ANALYZE | ANNOTATE | SUMMARIZE, OPT_ALLOW_EMPTY, 0, "allow-empty", NULL, ARG_NONE, NULL, NULL,
     "report a trace that holds no event instead of failing (exit 3)",
     "Report a trace that holds no event at all (\\fB[]\\fR, \\fB{\\(dqtraceEvents\\(dq:[]}\\fR) instead of\n"
     "failing with exit status 3: without it an empty profile cannot pass a CI gate as\n"
     "\\(lqno findings\\(rq.\n"},
    {ANALYZE | DIFF, OPT_COLOR, 0, "color", NULL, ARG_NONE, NULL, NULL,
     "color the text report even when not on a terminal",
     "Color the text report even when the output is not a terminal.\n"},
    {ANALYZE | DIFF, OPT_NO_COLOR, 0, "no-color", NULL, ARG_NONE, NULL, NULL,
     "never color (NO_COLOR in the environment does the same)",
     "Never color (setting\n"
     ".B NO_COLOR\n"
     "does the same).\n"},
    {ANALYZE | DIFF, OPT_NO_PROGRESS, 0, "no-progress", NULL, ARG_NONE, NULL, NULL,
     "no progress bar on stderr",
     "No progress bar on standard error.\n"
     "The bar is drawn only when standard error is a terminal: from the start for inputs of\n"
     "64 MiB or more (decompressed, as a gzip file's trailer tells), otherwise once reading\n"
     "has taken a second.\n"},
    {ANALYZE, OPT_HTML_STEP, 0, "html-step", "N", ARG_INDEX, NULL, NULL,
     "html: the step index (0 = first ProfilerStep) the Gantt view shows first; default: the "
     "busiest steady-state step",
     "HTML: the step index (0 = the first ProfilerStep of the trace) shown first in the Gantt view.\n"
     "The default is the busiest steady-state step: of the ProfilerSteps (all but the first, the\n"
     "warm-up, when there are two or more), the one with the most GPU busy time inside its CPU range\n"
     "(the warm-up step when no other has GPU work). The\n"
     "page also holds the steps the worst findings point to, and others up to eight per rank.\n"},
    {ANALYZE | ANNOTATE | SUMMARIZE | DIFF, OPT_MAX_MEMORY, 0, "max-memory", "SIZE", ARG_SIZE, NULL, NULL,
     "refuse to hold more than SIZE per trace (512M, 4G: powers of 1024; a bare number is MiB)",
     "Refuse to hold more than\n"
     ".I SIZE\n"
     "per trace (exit status 3 when a trace needs more).\n"
     ".I SIZE\n"
     "is a number with an optional unit\n"
     ".BR K ,\n"
     ".BR M ,\n"
     ".B G\n"
     "or\n"
     ".B T\n"
     "(powers of 1024:\n"
     ".B 4G\n"
     "is 4 GiB; a unit may be written\n"
     ".BR GiB ,\n"
     "a fraction such as\n"
     ".B 1.5G\n"
     "is allowed, and\n"
     ".B B\n"
     "means bytes); a bare number is MiB, and 0 means no limit.\n"},
    {CMD_ALL, OPT_HELP, 'h', "help", NULL, ARG_NONE, NULL, NULL, "this help", NULL},
};
const size_t cli_nopts = sizeof cli_opts / sizeof cli_opts[0];

const cli_example cli_examples[] = {
    {ANALYZE, "Read the report of one rank on the terminal:",
     "fsdpa analyze rank0.pt.trace.json.gz"},
    {ANALYZE, "All ranks of a job, as a page to open in a browser, the Gantt on the third step:",
     "fsdpa analyze --html-step 2 -o report.html rank*.pt.trace.json.gz"},
    {ANALYZE, "The ranks of a job from the directory the profiler wrote them to, four at a time:",
     "fsdpa analyze -j 4 -o report.json ./traces/"},
    {ANALYZE, "Fail a CI job on a critical finding, keeping the JSON:",
     "fsdpa analyze --fail-on critical -o report.json trace.json.gz"},
    {ANALYZE, "Call the GPU starved only below 30% busy:",
     "fsdpa analyze --set starvation.max_density_ppm=30% trace.json.gz"},
    {ANNOTATE, "See the findings inside the trace in Perfetto:",
     "fsdpa annotate rank0.pt.trace.json.gz -o rank0.fsdpa.json.gz"},
    {DIFF, "What changed between two runs of a job (directories of its traces):",
     "fsdpa diff runs/before/ runs/after/"},
    {DIFF, "Gate a CI job on a kept baseline summary: exit 1 if the step time grew by more than 5%:",
     "fsdpa summarize rank0.pt.trace.json.gz -o baseline.fsum    # once\n"
     "fsdpa diff --fail-on-regression 5 baseline.fsum rank0.pt.trace.json.gz"},
    {SUMMARIZE | MERGE, "Analyze where the traces are, combine centrally:",
     "fsdpa summarize rank3.json.gz -o rank3.fsum\n"
     "fsdpa merge rank*.fsum -o report.json"},
};
const size_t cli_nexamples = sizeof cli_examples / sizeof cli_examples[0];

const cli_man_section cli_man_sections[] = {
    {"NAME", MAN_TEXT,
     "fsdpa \\- why are the GPUs not busy? Analysis of PyTorch profiler traces of FSDP training\n"},
    {"SYNOPSIS", MAN_SYNOPSIS, NULL},
    {"DESCRIPTION", MAN_TEXT,
     ".B fsdpa\n"
     "reads traces written by the PyTorch profiler (Kineto Chrome-trace JSON, plain or\n"
     "gzip-compressed) from distributed training jobs, FSDP above all, and says with numbers\n"
     "and evidence why the GPUs are not busy: launch gaps and host-bound idle time, communication\n"
     "that compute does not hide, a broken backward prefetch (the missing \"zigzag\" of all-gathers\n"
     "and reduce-scatters), CPU threads blocked on the GPU, caching-allocator churn and fragmentation,\n"
     "and ranks that make every other rank wait.\n"
     ".PP\n"
     "Each\n"
     ".I TRACE\n"
     "is one rank of a job; give all ranks of a job together to get the cross-rank analysis.\n"
     "The rank comes from the trace's\n"
     ".B distributedInfo.rank\n"
     "or, without it, from the order on the command line.\n"
     ".I \\-\n"
     "is standard input.\n"
     "A directory stands for the traces in it, as the profiler writes the ranks of one job to\n"
     "one directory: its files whose names end in\n"
     ".B .json\n"
     "or\n"
     ".BR .json.gz ,\n"
     "in byte order of their names (the order\n"
     ".I dir/*.json\n"
     "has in the C locale), without its subdirectories; a directory without traces is a usage\n"
     "error.\n"
     ".PP\n"
     "To record a trace, wrap a few training steps in\n"
     ".B torch.profiler.profile(activities=[CPU, CUDA], schedule=..., profile_memory=True)\n"
     "and call\n"
     ".B prof.step()\n"
     "after every step; each rank writes its own\n"
     ".I *.pt.trace.json(.gz)\n"
     "file.\n"
     ".B profile_memory=True\n"
     "adds the\n"
     ".B [memory]\n"
     "events the allocator analysis and the memory timeline need.\n"},
    {"COMMANDS", MAN_COMMANDS,
     "Every command prints its options with\n"
     ".BR \\-h \" or \" \\-\\-help\n"
     "(or\n"
     ".BI \"fsdpa help \" COMMAND\\fR);\n"
     ".B fsdpa \\-\\-version\n"
     "prints the version.\n"
     "The value of an option follows it as the next argument or after an equals sign\n"
     ".RB ( \"\\-\\-format json\" \" or \" \\-\\-format=json ),\n"
     "and may be attached to a short option\n"
     ".RB ( \\-j4 ).\n"
     "Options and operands may come in any order;\n"
     ".B \\-\\-\n"
     "ends the options.\n"},
    {"FINDINGS", MAN_TEXT,
     "Each finding has a stable id, a severity, the time it costs (findings are sorted by it), a\n"
     "sentence with the numbers, advice, and the time ranges of its evidence.\n"
     ".TP\n"
     ".B gpu\\-starvation\n"
     "GPU timeline density is low in steady-state steps and host-bound gaps (work launched only\n"
     "after the stream went idle) explain most of the idle time.\n"
     ".TP\n"
     ".B launch\\-overhead\n"
     "Many short kernels separated by gaps of the order of the launch cost: use torch.compile or\n"
     "CUDA graphs.\n"
     ".TP\n"
     ".B comm\\-serialized\n"
     "Communication and compute kernels run one after the other.\n"
     ".TP\n"
     ".B exposed\\-comm\n"
     "Communication that runs with no compute beside it is a large share of the step: network-bound.\n"
     ".TP\n"
     ".B backward\\-prefetch\\-missing\n"
     "In backward, the all-gather of the next FSDP unit does not run while the current one\n"
     "computes: the zigzag is broken.\n"
     ".TP\n"
     ".B cpu\\-sync\\-stall\n"
     "A CPU thread blocks in cudaStreamSynchronize, cudaEventSynchronize, cudaDeviceSynchronize, a\n"
     "synchronous copy or cudaFree for a significant time inside steps.\n"
     ".TP\n"
     ".B allocator\\-thrash\n"
     "cudaMalloc / cudaFree (hipMalloc / hipFree) keep happening after warm-up.\n"
     ".TP\n"
     ".B allocator\\-fragmentation\n"
     "Reserved memory stays far above allocated memory, or keeps growing while allocated does not.\n"
     ".TP\n"
     ".B straggler\\-rank\n"
     "One rank arrives last at collectives in most steps, so every other rank waits for it.\n"
     ".TP\n"
     ".B inefficient\\-compute\n"
     "The GPU is busy, but far below what the device can do in a way the model code can change:\n"
     "matrix work in fp32 off the tensor cores, small GEMMs far below peak, or memory-bound\n"
     "elementwise, normalization and copy kernels holding most of the kernel time.\n"},
    {"EXIT STATUS", MAN_TEXT,
     ".TP\n"
     ".B 0\n"
     "Report (or copy) written.\n"
     ".TP\n"
     ".B 1\n"
     "Findings at or above\n"
     ".B \\-\\-fail\\-on\n"
     "(analyze, merge); for diff, a regression beyond\n"
     ".BR \\-\\-fail\\-on\\-regression .\n"
     ".TP\n"
     ".B 2\n"
     "Bad usage: an unknown command or option, a bad value (the message names the option and the\n"
     "value), a missing operand, or a directory without traces.\n"
     ".TP\n"
     ".B 3\n"
     "An input could not be read or is not a trace (the message names the file and the byte\n"
     "offset), or an output could not be written.\n"},
    {"ENVIRONMENT", MAN_TEXT,
     ".TP\n"
     ".B NO_COLOR\n"
     "When set and not empty, the text report is not colored (unless\n"
     ".B \\-\\-color\n"
     "is given).\n"
     ".TP\n"
     ".B COLUMNS\n"
     "The width of the text report when it is a positive integer (kept within 40 .. 1000);\n"
     "otherwise the width of the terminal when standard output is one, else 100.\n"},
    {"EXAMPLES", MAN_EXAMPLES, NULL},
    {"FILES", MAN_TEXT,
     ".TP\n"
     ".I docs/report-contract.md\n"
     "The JSON report contract and the finding ids.\n"
     ".TP\n"
     ".I docs/report.schema.json\n"
     "JSON Schema (draft 2020-12) of the JSON report.\n"
     ".TP\n"
     ".I docs/diff.schema.json\n"
     "JSON Schema of the output of diff\n"
     ".RB ( fsdpa.diff/1 ).\n"
     ".TP\n"
     ".IR share/bash-completion/completions/fsdpa \", \" share/zsh/site-functions/_fsdpa\n"
     "Completion of the commands, options, option values and traces for bash and zsh, installed\n"
     "with fsdpa.\n"},
    {"SEE ALSO", MAN_TEXT,
     "The library's API and the definition of every number:\n"
     ".I include/fsdpa/fsdpa.h\n"
     "(Doxygen).\n"},
};
const size_t cli_nman_sections = sizeof cli_man_sections / sizeof cli_man_sections[0];

const cli_cmd *cli_cmd_find(const char *name) {
  for (size_t i = 0; i < cli_ncmds; i++)
    if (strcmp(cli_cmds[i].name, name) == 0) return &cli_cmds[i];
  return NULL;
}

int cli_opt_of(const cli_opt *o, const cli_cmd *c) { return (o->cmds & CMD_BIT(c->id)) != 0; }
