/*
 * The C test of lidx.h, compiled and run by capi/tests/c.rs (under
 * AddressSanitizer, or valgrind where it is not available).
 *
 *   test queries FILE SPACING SPAN QUERIES OUT
 *       Opens FILE (a plain or gzip file) with that checkpoint spacing and
 *       gzip span (0: the defaults), runs every query of the file QUERIES
 *       and writes each query and its answers to OUT. The Rust test writes
 *       the same transcript from the Rust API and compares them byte for
 *       byte.
 *   test api WORKDIR PLAIN GZ
 *       Calls every function of the header and checks its contract: status
 *       codes, messages, NULL arguments, buffer sizes, policies, verdicts,
 *       progress and cancellation, damaged archives, follow, one handle
 *       shared by several threads; a rotation family (written here, one
 *       member gzipped with gzip) and merges by time, each against a naive
 *       model of the files. PLAIN is a text file and GZ its gzip archive
 *       (the same text). Prints "N passed, M failed".
 *
 * Exit status: 0 when everything passed, 1 otherwise, 2 on a usage error.
 */
#define _POSIX_C_SOURCE 200809L
#include "lidx.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int passed, failed;

#define CHECK(cond, ...)                                                       \
  do {                                                                         \
    if (cond) {                                                                \
      passed++;                                                                \
    } else {                                                                   \
      failed++;                                                                \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);          \
      fprintf(stderr, __VA_ARGS__);                                            \
      fprintf(stderr, " [lidx_errmsg: %s]\n", lidx_errmsg());                  \
    }                                                                          \
  } while (0)

/* Checks that `call` returns `want`. */
#define CHECK_RC(call, want)                                                   \
  do {                                                                         \
    int rc_ = (call);                                                          \
    CHECK(rc_ == (want), "%s returned %s, want %s", #call,                     \
          lidx_status_str(rc_), lidx_status_str(want));                        \
  } while (0)

static void die(const char *what) {
  fprintf(stderr, "test: %s: %s\n", what, strerror(errno));
  exit(2);
}

static char *path_in(const char *dir, const char *name) {
  size_t n = strlen(dir) + strlen(name) + 2;
  char *p = malloc(n);
  if (!p)
    die("malloc");
  snprintf(p, n, "%s/%s", dir, name);
  return p;
}

static char *sidecar_of(const char *path) {
  size_t n = strlen(path) + 6;
  char *p = malloc(n);
  if (!p)
    die("malloc");
  snprintf(p, n, "%s.lidx", path);
  return p;
}

static int exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

static void write_file(const char *path, const char *mode, const void *bytes,
                       size_t len) {
  FILE *f = fopen(path, mode);
  if (!f || fwrite(bytes, 1, len, f) != len || fclose(f) != 0)
    die(path);
}

static void *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    die(path);
  size_t cap = 1 << 20, n = 0;
  char *buf = malloc(cap);
  if (!buf)
    die("malloc");
  for (;;) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n < cap)
      break;
    cap *= 2;
    buf = realloc(buf, cap);
    if (!buf)
      die("realloc");
  }
  fclose(f);
  *len = n;
  return buf;
}

static int contains(const char *haystack, const char *needle) {
  return strstr(haystack, needle) != NULL;
}

/* ------------------------------------------------------------------ */
/* queries mode                                                        */

struct hits {
  FILE *out;
  uint64_t stop_after; /* stop once this many lines were seen; 0: never */
  uint64_t seen;
};

static int on_hit(void *ctx, const lidx_line *l) {
  struct hits *h = ctx;
  fprintf(h->out, "hit %s %" PRIu64 " %" PRIu64 " %zu\n",
          l->kind == LIDX_LINE_MATCH ? "match" : "context", l->line, l->offset,
          l->len);
  fwrite(l->bytes, 1, l->len, h->out);
  fputc('\n', h->out);
  h->seen++;
  return h->stop_after != 0 && h->seen >= h->stop_after;
}

static int run_queries(int argc, char **argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: test queries FILE SPACING SPAN QUERIES OUT\n");
    return 2;
  }
  lidx_open_options opts;
  if (lidx_open_options_init(&opts) != LIDX_OK)
    return 2;
  opts.spacing = strtoull(argv[3], NULL, 10);
  opts.span = strtoull(argv[4], NULL, 10);
  lidx_index *ix = NULL;
  int rc = lidx_open(argv[2], &opts, &ix);
  if (rc != LIDX_OK) {
    fprintf(stderr, "test: open %s: %s: %s\n", argv[2], lidx_status_str(rc),
            lidx_errmsg());
    return 1;
  }
  FILE *q = fopen(argv[5], "r");
  FILE *w = fopen(argv[6], "wb");
  if (!q || !w)
    die("queries or transcript");
  char line[8192];
  while (fgets(line, sizeof line, q)) {
    line[strcspn(line, "\n")] = 0;
    fprintf(w, "%s\n", line);
    uint64_t a = 0, b = 0, c = 0, d = 0;
    if (strcmp(line, "count") == 0) {
      uint64_t n = 0;
      rc = lidx_line_count(ix, &n);
      fprintf(w, "= %s %" PRIu64 "\n", lidx_status_str(rc), n);
    } else if (strcmp(line, "len") == 0) {
      uint64_t n = 0;
      rc = lidx_source_len(ix, &n);
      fprintf(w, "= %s %" PRIu64 "\n", lidx_status_str(rc), n);
    } else if (sscanf(line, "span %" SCNu64, &a) == 1) {
      uint64_t s = 0, e = 0;
      rc = lidx_line_span(ix, a, &s, &e);
      if (rc == LIDX_OK)
        fprintf(w, "= LIDX_OK %" PRIu64 " %" PRIu64 "\n", s, e);
      else
        fprintf(w, "= %s\n", lidx_status_str(rc));
    } else if (sscanf(line, "at %" SCNu64, &a) == 1) {
      uint64_t n = 0;
      rc = lidx_line_at(ix, a, &n);
      if (rc == LIDX_OK)
        fprintf(w, "= LIDX_OK %" PRIu64 "\n", n);
      else
        fprintf(w, "= %s\n", lidx_status_str(rc));
    } else if (sscanf(line, "read %" SCNu64 " %" SCNu64 " %" SCNu64, &a, &b,
                      &c) == 3) {
      /* A buffer of exactly c bytes (NULL for 0), so that AddressSanitizer
       * sees any write past it. */
      uint8_t *buf = c ? malloc(c) : NULL;
      size_t needed = 7777;
      uint64_t got = 7777;
      rc = lidx_read_lines(ix, a, b, buf, (size_t)c, &needed, &got);
      fprintf(w, "= %s needed %zu lines %" PRIu64 "\n", lidx_status_str(rc),
              needed, got);
      if (rc == LIDX_OK) {
        if (needed)
          fwrite(buf, 1, needed, w);
        fputc('\n', w);
      }
      free(buf);
    } else if (sscanf(line, "parts %" SCNu64 " %" SCNu64 " %" SCNu64
                      " %" SCNu64, &a, &b, &c, &d) == 4) {
      /* An array of exactly d partitions (NULL for 0), for ASan. */
      lidx_partition *parts = d ? malloc(d * sizeof *parts) : NULL;
      size_t n = 7777;
      rc = lidx_partitions(ix, a, b, c, parts, (size_t)d, &n);
      fprintf(w, "= %s n %zu\n", lidx_status_str(rc), n);
      if (rc == LIDX_OK)
        for (size_t i = 0; i < n; i++)
          fprintf(w,
                  "p %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                  " %" PRIu64 " %u %" PRId64 " %" PRId64 "\n",
                  parts[i].first_line, parts[i].line_count,
                  parts[i].text_start, parts[i].text_end,
                  parts[i].source_start, parts[i].source_end,
                  parts[i].has_time, parts[i].time_min, parts[i].time_max);
      free(parts);
    } else if (strncmp(line, "search ", 7) == 0) {
      unsigned flags = 0;
      uint64_t max = 0, before = 0, after = 0, first = 0, count = 0, stop = 0;
      int at = 0;
      if (sscanf(line,
                 "search %u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                 " %" SCNu64 " %" SCNu64 " %n",
                 &flags, &max, &before, &after, &first, &count, &stop,
                 &at) < 7 ||
          at == 0) {
        fprintf(stderr, "test: bad query: %s\n", line);
        return 2;
      }
      lidx_search_options so;
      lidx_search_options_init(&so);
      so.flags = flags;
      so.max_count = max;
      so.before = before;
      so.after = after;
      lidx_pattern *p = NULL;
      rc = lidx_pattern_new(line + at, &so, &p);
      if (rc != LIDX_OK) {
        fprintf(w, "= %s\n", lidx_status_str(rc));
        continue;
      }
      struct hits h = {w, stop, 0};
      uint64_t matched = 7777;
      rc = lidx_search(ix, p, first, count, on_hit, &h, &matched);
      fprintf(w, "= %s matched %" PRIu64 "\n", lidx_status_str(rc), matched);
      lidx_pattern_free(p);
    } else {
      fprintf(stderr, "test: unknown query: %s\n", line);
      return 2;
    }
  }
  fclose(q);
  if (fclose(w) != 0)
    die("transcript");
  lidx_close(ix);
  return 0;
}

/* ------------------------------------------------------------------ */
/* api mode                                                            */

static void check_strings(void) {
  char want[64];
  snprintf(want, sizeof want, "%d.%d.%d", LIDX_VERSION_MAJOR,
           LIDX_VERSION_MINOR, LIDX_VERSION_PATCH);
  CHECK(strcmp(lidx_version(), want) == 0, "version %s, header %s",
        lidx_version(), want);
  static const struct {
    int code;
    const char *name;
  } codes[] = {
      {LIDX_OK, "LIDX_OK"},
      {LIDX_ERROR, "LIDX_ERROR"},
      {LIDX_PAST_END, "LIDX_PAST_END"},
      {LIDX_ERROR_BUFFER, "LIDX_ERROR_BUFFER"},
      {LIDX_ERROR_INVALID, "LIDX_ERROR_INVALID"},
      {LIDX_ERROR_IO, "LIDX_ERROR_IO"},
      {LIDX_ERROR_MISSING, "LIDX_ERROR_MISSING"},
      {LIDX_ERROR_STALE, "LIDX_ERROR_STALE"},
      {LIDX_ERROR_CORRUPT, "LIDX_ERROR_CORRUPT"},
      {LIDX_ERROR_UNSUPPORTED, "LIDX_ERROR_UNSUPPORTED"},
      {LIDX_ERROR_FOREIGN, "LIDX_ERROR_FOREIGN"},
      {LIDX_ERROR_SOURCE, "LIDX_ERROR_SOURCE"},
      {LIDX_ERROR_REMOTE, "LIDX_ERROR_REMOTE"},
      {LIDX_ERROR_CANCELLED, "LIDX_ERROR_CANCELLED"},
      {LIDX_ERROR_INTERNAL, "LIDX_ERROR_INTERNAL"},
      {LIDX_ERROR_FAMILY, "LIDX_ERROR_FAMILY"},
      {-1, "LIDX_UNKNOWN"},
      {99, "LIDX_UNKNOWN"},
  };
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++)
    CHECK(strcmp(lidx_status_str(codes[i].code), codes[i].name) == 0,
          "status_str(%d) = %s", codes[i].code,
          lidx_status_str(codes[i].code));
}

static void check_null_arguments(const char *plain) {
  lidx_index *ix = (lidx_index *)0x1; /* must stay untouched on error */
  CHECK_RC(lidx_open(NULL, NULL, &ix), LIDX_ERROR_INVALID);
  CHECK(strcmp(lidx_errmsg(), "lidx_open: path is NULL") == 0, "message: %s",
        lidx_errmsg());
  CHECK(ix == (lidx_index *)0x1, "out changed on error");
  CHECK_RC(lidx_open("", NULL, &ix), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_open(plain, NULL, NULL), LIDX_ERROR_INVALID);
  uint64_t n;
  CHECK_RC(lidx_line_count(NULL, &n), LIDX_ERROR_INVALID);
  CHECK(strcmp(lidx_errmsg(), "lidx_line_count: index is NULL") == 0,
        "message: %s", lidx_errmsg());
  CHECK_RC(lidx_source_len(NULL, &n), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_line_span(NULL, 0, &n, &n), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_line_at(NULL, 0, &n), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_read_lines(NULL, 0, 1, NULL, 0, NULL, NULL),
           LIDX_ERROR_INVALID);
  CHECK_RC(lidx_verdict(NULL, NULL, NULL), LIDX_ERROR_INVALID);
  lidx_index_info info;
  CHECK_RC(lidx_info(NULL, &info), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_open_options_init(NULL), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_search_options_init(NULL), LIDX_ERROR_INVALID);
  lidx_pattern *p = NULL;
  CHECK_RC(lidx_pattern_new(NULL, NULL, &p), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_pattern_new("x", NULL, NULL), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_search(NULL, NULL, 0, 1, NULL, NULL, NULL),
           LIDX_ERROR_INVALID);
  lidx_follower *f = NULL;
  CHECK_RC(lidx_follow_open(NULL, NULL, 0, &f), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_follow_open(plain, NULL, 0, NULL), LIDX_ERROR_INVALID);
  lidx_follow_event ev;
  CHECK_RC(lidx_follow_poll(NULL, &ev, NULL), LIDX_ERROR_INVALID);
  /* Freeing NULL is allowed. */
  CHECK_RC(lidx_close(NULL), LIDX_OK);
  CHECK_RC(lidx_pattern_free(NULL), LIDX_OK);
  CHECK_RC(lidx_follow_close(NULL), LIDX_OK);
  CHECK(strcmp(lidx_errmsg(), "") == 0, "success leaves \"%s\"",
        lidx_errmsg());
}

static void check_options(const char *plain) {
  lidx_open_options o;
  memset(&o, 0xAB, sizeof o);
  CHECK_RC(lidx_open_options_init(&o), LIDX_OK);
  CHECK(o.version == LIDX_OPEN_OPTIONS_VERSION && o.policy == LIDX_POLICY_REFRESH &&
            o.flags == 0 && o.sidecar == NULL && o.cache_bytes == 0 &&
            o.spacing == 0 && o.span == 0 && o.progress == NULL &&
            o.progress_ctx == NULL,
        "defaults");
  lidx_index *ix = NULL;
  lidx_open_options bad = o;
  bad.version = 0; /* a zeroed struct is refused */
  CHECK_RC(lidx_open(plain, &bad, &ix), LIDX_ERROR_INVALID);
  CHECK(contains(lidx_errmsg(), "lidx_open_options_init"), "message: %s",
        lidx_errmsg());
  bad = o;
  bad.policy = 9;
  CHECK_RC(lidx_open(plain, &bad, &ix), LIDX_ERROR_INVALID);
  bad = o;
  bad.flags = 0x100;
  CHECK_RC(lidx_open(plain, &bad, &ix), LIDX_ERROR_INVALID);
  bad = o;
  bad.reserved = 1; /* documented 0 */
  CHECK_RC(lidx_open(plain, &bad, &ix), LIDX_ERROR_INVALID);
  CHECK(contains(lidx_errmsg(), "reserved"), "message: %s", lidx_errmsg());
  CHECK(ix == NULL, "out set on error");
  /* A directory is an invalid argument, as lidx_open() documents. */
  CHECK_RC(lidx_open("/", NULL, &ix), LIDX_ERROR_INVALID);
  CHECK(ix == NULL, "out set on error");
  /* Outputs documented "NULL or writable" may be NULL. */
  CHECK_RC(lidx_open(plain, NULL, &ix), LIDX_OK);
  CHECK_RC(lidx_line_count(ix, NULL), LIDX_OK);
  CHECK_RC(lidx_source_len(ix, NULL), LIDX_OK);
  CHECK_RC(lidx_line_at(ix, 0, NULL), LIDX_OK);
  CHECK_RC(lidx_line_span(ix, 0, NULL, NULL), LIDX_OK);
  lidx_close(ix);
  ix = NULL;

  lidx_search_options s;
  memset(&s, 0xAB, sizeof s);
  CHECK_RC(lidx_search_options_init(&s), LIDX_OK);
  CHECK(s.version == LIDX_SEARCH_OPTIONS_VERSION && s.flags == 0 &&
            s.max_count == 0 && s.before == 0 && s.after == 0,
        "search defaults");
  lidx_pattern *p = NULL;
  lidx_search_options sbad = s;
  sbad.version = 7;
  CHECK_RC(lidx_pattern_new("x", &sbad, &p), LIDX_ERROR_INVALID);
  sbad = s;
  sbad.flags = 1u << 20;
  CHECK_RC(lidx_pattern_new("x", &sbad, &p), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_pattern_new("a(", &s, &p), LIDX_ERROR_INVALID);
  CHECK(contains(lidx_errmsg(), "invalid pattern"), "message: %s",
        lidx_errmsg());
  CHECK_RC(lidx_pattern_new("a\\nb", &s, &p), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_pattern_new("\xff", &s, &p), LIDX_ERROR_INVALID);
  CHECK(contains(lidx_errmsg(), "UTF-8"), "message: %s", lidx_errmsg());
  CHECK(p == NULL, "pattern set on error");
  CHECK_RC(lidx_pattern_new("x", NULL, &p), LIDX_OK);
  CHECK(p != NULL, "pattern with NULL options");
  lidx_pattern_free(p);
}

struct progress {
  uint64_t calls, last_done, last_total;
  uint64_t cancel_at; /* cancel on this call (1-based); 0: never */
};

static int on_progress(void *ctx, uint64_t done, uint64_t total) {
  struct progress *p = ctx;
  p->calls++;
  CHECK(done >= p->last_done && done <= total, "progress %" PRIu64 "/%" PRIu64,
        done, total);
  p->last_done = done;
  p->last_total = total;
  return p->cancel_at != 0 && p->calls >= p->cancel_at;
}

static void check_verdict(lidx_index *ix, int want_verdict, int want_action) {
  int32_t v = -1, a = -1;
  CHECK_RC(lidx_verdict(ix, &v, &a), LIDX_OK);
  CHECK(v == want_verdict && a == want_action, "verdict %d action %d, want %d %d",
        v, a, want_verdict, want_action);
  CHECK_RC(lidx_verdict(ix, NULL, NULL), LIDX_OK);
}

/* Open with a policy; returns the status, closes the handle. */
static int open_with(const char *path, uint32_t policy, int *verdict,
                     int *action) {
  lidx_open_options o;
  lidx_open_options_init(&o);
  o.policy = policy;
  lidx_index *ix = NULL;
  int rc = lidx_open(path, &o, &ix);
  if (rc == LIDX_OK) {
    int32_t v, a;
    lidx_verdict(ix, &v, &a);
    *verdict = v;
    *action = a;
    lidx_close(ix);
  }
  return rc;
}

/* Building with progress and cancellation; every policy and verdict. */
static void check_lifecycle(const char *dir, const char *plain) {
  size_t len;
  char *text = read_file(plain, &len);
  char *log = path_in(dir, "life.log");
  char *side = sidecar_of(log);
  write_file(log, "wb", text, len);

  /* Cancelled on the first progress call: an error, nothing written. */
  struct progress pr = {0, 0, 0, 1};
  lidx_open_options o;
  lidx_open_options_init(&o);
  o.spacing = 4096;
  o.progress = on_progress;
  o.progress_ctx = &pr;
  lidx_index *ix = NULL;
  CHECK_RC(lidx_open(log, &o, &ix), LIDX_ERROR_CANCELLED);
  CHECK(contains(lidx_errmsg(), "cancelled"), "message: %s", lidx_errmsg());
  CHECK(pr.calls == 1, "calls %" PRIu64, pr.calls);
  CHECK(ix == NULL && !exists(side), "cancelled open wrote %s", side);

  /* Without a sidecar, a policy that does not build says so. */
  int v = -1, a = -1;
  CHECK_RC(open_with(log, LIDX_POLICY_NO_REFRESH, &v, &a), LIDX_ERROR_MISSING);
  CHECK_RC(open_with(log, LIDX_POLICY_INSPECT, &v, &a), LIDX_ERROR_MISSING);
  CHECK(!exists(side), "a policy that never writes wrote %s", side);

  /* Built, with progress up to the whole file. */
  struct progress all = {0, 0, 0, 0};
  o.progress_ctx = &all;
  CHECK_RC(lidx_open(log, &o, &ix), LIDX_OK);
  CHECK(all.calls > 0 && all.last_done == len && all.last_total == len,
        "progress calls %" PRIu64 " last %" PRIu64 "/%" PRIu64 " of %zu",
        all.calls, all.last_done, all.last_total, len);
  check_verdict(ix, LIDX_VERDICT_UNCHANGED, LIDX_ACTION_BUILT);
  lidx_index_info info;
  memset(&info, 0, sizeof info);
  CHECK_RC(lidx_info(ix, &info), LIDX_OK);
  CHECK(info.source_size == len && info.file_size == len && info.gzip == 0 &&
            info.spacing == 4096 && info.action == LIDX_ACTION_BUILT &&
            info.verdict == LIDX_VERDICT_UNCHANGED &&
            info.evidence == LIDX_EVIDENCE_FINGERPRINT && info.height >= 2 &&
            info.checkpoints > len / 8192 && info.page_size == 4096 &&
            info.format_major == 1 && info.damage == NULL &&
            info.warning == NULL && info.pages * (uint64_t)info.page_size ==
                                        info.sidecar_size,
        "info");
  CHECK(strcmp(info.source_path, log) == 0 &&
            strcmp(info.sidecar_path, side) == 0,
        "paths %s %s", info.source_path, info.sidecar_path);
  lidx_close(ix);

  /* Fresh: opened as it is, by every policy. */
  CHECK_RC(open_with(log, LIDX_POLICY_REFRESH, &v, &a), LIDX_OK);
  CHECK(v == LIDX_VERDICT_UNCHANGED && a == LIDX_ACTION_OPENED, "%d %d", v, a);
  CHECK_RC(open_with(log, LIDX_POLICY_NO_REFRESH, &v, &a), LIDX_OK);
  CHECK_RC(open_with(log, LIDX_POLICY_INSPECT, &v, &a), LIDX_OK);
  CHECK(v == LIDX_VERDICT_UNCHANGED && a == LIDX_ACTION_OPENED, "%d %d", v, a);

  /* Appended: told apart from a rewrite, then extended. */
  const char *more = "appended line one\nappended line two\n";
  write_file(log, "ab", more, strlen(more));
  CHECK_RC(open_with(log, LIDX_POLICY_NO_REFRESH, &v, &a), LIDX_ERROR_STALE);
  CHECK(contains(lidx_errmsg(), "appended"), "message: %s", lidx_errmsg());
  CHECK_RC(open_with(log, LIDX_POLICY_INSPECT, &v, &a), LIDX_OK);
  CHECK(v == LIDX_VERDICT_APPENDED, "verdict %d", v);
  struct progress ext = {0, 0, 0, 0};
  o.progress_ctx = &ext;
  CHECK_RC(lidx_open(log, &o, &ix), LIDX_OK);
  check_verdict(ix, LIDX_VERDICT_UNCHANGED, LIDX_ACTION_EXTENDED);
  CHECK(ext.calls > 0 && ext.last_done <= len + strlen(more), "extension progress");
  uint64_t lines = 0, n = 0;
  CHECK_RC(lidx_line_count(ix, &lines), LIDX_OK);
  /* The file ended without a newline: the first appended line completes
   * that last line. */
  uint8_t buf[256];
  size_t needed = 0;
  const char *tail = "last line without newlineappended line one\n"
                     "appended line two\n";
  CHECK_RC(lidx_read_lines(ix, lines - 2, 2, buf, sizeof buf, &needed, &n),
           LIDX_OK);
  CHECK(n == 2 && needed == strlen(tail) && memcmp(buf, tail, needed) == 0,
        "appended lines read back: %.*s", (int)needed, buf);
  lidx_close(ix);

  /* Rewritten (shorter): told apart, then rebuilt. */
  const char *fresh = "a rewritten file\nof three\nlines\n";
  write_file(log, "wb", fresh, strlen(fresh));
  CHECK_RC(open_with(log, LIDX_POLICY_NO_REFRESH, &v, &a), LIDX_ERROR_STALE);
  CHECK(contains(lidx_errmsg(), "rewritten"), "message: %s", lidx_errmsg());
  CHECK_RC(open_with(log, LIDX_POLICY_INSPECT, &v, &a), LIDX_OK);
  CHECK(v == LIDX_VERDICT_REWRITTEN, "verdict %d", v);
  CHECK_RC(open_with(log, LIDX_POLICY_REFRESH, &v, &a), LIDX_OK);
  CHECK(v == LIDX_VERDICT_UNCHANGED && a == LIDX_ACTION_REBUILT, "%d %d", v, a);
  CHECK_RC(open_with(log, LIDX_POLICY_FORCE, &v, &a), LIDX_OK);
  CHECK(a == LIDX_ACTION_FORCED, "action %d", a);

  /* Same content, another modification time: checked, kept. */
  write_file(log, "wb", fresh, strlen(fresh));
  struct timespec times[2] = {{1000000000, 0}, {1000000000, 0}};
  CHECK(utimensat(AT_FDCWD, log, times, 0) == 0, "utimensat");
  CHECK_RC(open_with(log, LIDX_POLICY_INSPECT, &v, &a), LIDX_OK);
  CHECK(v == LIDX_VERDICT_UNVERIFIED, "verdict %d", v);
  CHECK_RC(open_with(log, LIDX_POLICY_REFRESH, &v, &a), LIDX_OK);
  CHECK(v == LIDX_VERDICT_UNCHANGED && a == LIDX_ACTION_VERIFIED, "%d %d", v, a);

  /* A sidecar path given explicitly. */
  char *elsewhere = path_in(dir, "elsewhere.lidx");
  lidx_open_options_init(&o);
  o.sidecar = elsewhere;
  o.cache_bytes = 8192;
  CHECK_RC(lidx_open(log, &o, &ix), LIDX_OK);
  CHECK_RC(lidx_info(ix, &info), LIDX_OK);
  CHECK(strcmp(info.sidecar_path, elsewhere) == 0 && exists(elsewhere),
        "sidecar at %s", info.sidecar_path);
  CHECK_RC(lidx_line_count(ix, &lines), LIDX_OK);
  CHECK(lines == 3, "lines %" PRIu64, lines);
  lidx_close(ix);

  /* Not a sidecar: refused, never overwritten. */
  write_file(elsewhere, "wb", "not a sidecar at all", 20);
  CHECK_RC(lidx_open(log, &o, &ix), LIDX_ERROR_CORRUPT);
  CHECK(contains(lidx_errmsg(), "not a lidx sidecar"), "message: %s",
        lidx_errmsg());
  size_t slen;
  char *still = read_file(elsewhere, &slen);
  CHECK(slen == 20 && memcmp(still, "not a sidecar at all", 20) == 0,
        "the file was overwritten");
  free(still);

  /* A sidecar built for another file. */
  char *other = path_in(dir, "other.log");
  char *other_side = sidecar_of(other);
  write_file(other, "wb", "something\nelse\nentirely, longer\n", 32);
  size_t sl;
  char *sb = read_file(side, &sl);
  write_file(other_side, "wb", sb, sl);
  free(sb);
  CHECK_RC(open_with(other, LIDX_POLICY_REFRESH, &v, &a), LIDX_ERROR_FOREIGN);
  CHECK(contains(lidx_errmsg(), "life.log"), "message: %s", lidx_errmsg());

  /* Other compression formats are refused; LIDX_OPEN_PLAIN takes bytes. */
  char *zst = path_in(dir, "data.zst");
  const unsigned char zmagic[] = {0x28, 0xB5, 0x2F, 0xFD, 'x', '\n'};
  write_file(zst, "wb", zmagic, sizeof zmagic);
  CHECK_RC(open_with(zst, LIDX_POLICY_REFRESH, &v, &a), LIDX_ERROR_UNSUPPORTED);
  lidx_open_options_init(&o);
  o.flags = LIDX_OPEN_PLAIN;
  CHECK_RC(lidx_open(zst, &o, &ix), LIDX_OK);
  CHECK_RC(lidx_line_count(ix, &lines), LIDX_OK);
  CHECK(lines == 1, "lines %" PRIu64, lines);
  lidx_close(ix);

  /* LIDX_OPEN_PLAIN is an explicit choice: a sidecar that indexes the text
   * of an archive is not used for its bytes (and is left as it was);
   * LIDX_POLICY_FORCE rebuilds it over the bytes. */
  {
    char *gzlog = path_in(dir, "plain-choice.log.gz");
    char *gzside = sidecar_of(gzlog);
    char cmd[4096];
    write_file(log, "wb", fresh, strlen(fresh));
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", log, gzlog);
    CHECK(system(cmd) == 0, "gzip");
    CHECK_RC(open_with(gzlog, LIDX_POLICY_REFRESH, &v, &a), LIDX_OK);
    size_t before_len, gz_len;
    char *before = read_file(gzside, &before_len);
    char *gzbytes = read_file(gzlog, &gz_len);
    const uint32_t pols[3] = {LIDX_POLICY_REFRESH, LIDX_POLICY_NO_REFRESH,
                              LIDX_POLICY_INSPECT};
    for (int k = 0; k < 3; k++) {
      lidx_open_options_init(&o);
      o.flags = LIDX_OPEN_PLAIN;
      o.policy = pols[k];
      ix = NULL;
      CHECK_RC(lidx_open(gzlog, &o, &ix), LIDX_ERROR_INVALID);
      CHECK(ix == NULL && contains(lidx_errmsg(), "gzip archive") &&
                contains(lidx_errmsg(), "plain-choice.log.gz.lidx"),
            "policy %u: %s", pols[k], lidx_errmsg());
      size_t after_len;
      char *after = read_file(gzside, &after_len);
      CHECK(after_len == before_len && memcmp(after, before, after_len) == 0,
            "the archive's sidecar changed");
      free(after);
    }
    lidx_open_options_init(&o);
    o.flags = LIDX_OPEN_PLAIN;
    o.policy = LIDX_POLICY_FORCE;
    CHECK_RC(lidx_open(gzlog, &o, &ix), LIDX_OK);
    uint64_t size = 0;
    CHECK_RC(lidx_source_len(ix, &size), LIDX_OK);
    CHECK(size == gz_len, "forced plain: %" PRIu64 " bytes, want %zu", size,
          gz_len);
    lidx_close(ix);
    free(gzbytes);
    free(before);
    free(gzside);
    free(gzlog);
  }

  /* A file that does not exist. */
  char *missing = path_in(dir, "no-such-file.log");
  CHECK_RC(open_with(missing, LIDX_POLICY_REFRESH, &v, &a), LIDX_ERROR_IO);
  CHECK(contains(lidx_errmsg(), "no-such-file.log"), "message: %s",
        lidx_errmsg());

  free(missing);
  free(zst);
  free(other);
  free(other_side);
  free(elsewhere);
  free(text);
  free(log);
  free(side);
}

/* Reads and the buffer protocol on an open index. */
static void check_reads(lidx_index *ix, const char *text, size_t len) {
  uint64_t lines = 0, size = 0;
  CHECK_RC(lidx_line_count(ix, &lines), LIDX_OK);
  CHECK_RC(lidx_source_len(ix, &size), LIDX_OK);
  CHECK(size == len, "source_len %" PRIu64 ", file %zu", size, len);
  CHECK_RC(lidx_line_count(ix, NULL), LIDX_OK); /* "NULL or writable" */

  /* Walk the first and last lines against the text itself. */
  uint64_t off = 0;
  for (uint64_t l = 0; l < 50 && l < lines; l++) {
    uint64_t s = 1, e = 0, back = 0;
    CHECK_RC(lidx_line_span(ix, l, &s, &e), LIDX_OK);
    const char *nl = memchr(text + off, '\n', len - off);
    uint64_t want_end = nl ? (uint64_t)(nl - text) + 1 : len;
    CHECK(s == off && e == want_end, "line %" PRIu64 ": %" PRIu64 "..%" PRIu64,
          l, s, e);
    CHECK_RC(lidx_line_at(ix, e - 1, &back), LIDX_OK);
    CHECK(back == l, "line_at(%" PRIu64 ") = %" PRIu64, e - 1, back);
    off = want_end;
  }
  uint64_t s = 0, e = 0;
  CHECK_RC(lidx_line_span(ix, lines - 1, &s, &e), LIDX_OK);
  CHECK(e == len, "last line ends at %" PRIu64, e);
  CHECK_RC(lidx_line_span(ix, lines - 1, NULL, &e), LIDX_OK);
  CHECK_RC(lidx_line_span(ix, lines - 1, &s, NULL), LIDX_OK);
  s = 12345;
  CHECK_RC(lidx_line_span(ix, lines, &s, &e), LIDX_PAST_END);
  CHECK(s == 12345, "output changed on error");
  /* One line: the file, the request, what is there. */
  lidx_index_info info;
  CHECK_RC(lidx_info(ix, &info), LIDX_OK);
  char want[4096];
  snprintf(want, sizeof want,
           "%s: line %" PRIu64 " is past the end (the file has %" PRIu64
           " lines, numbered from 0, and %zu bytes)",
           info.source_path, lines, lines, len);
  CHECK_RC(lidx_line_span(ix, lines, &s, &e), LIDX_PAST_END);
  CHECK(strcmp(lidx_errmsg(), want) == 0, "message: %s", lidx_errmsg());
  CHECK_RC(lidx_line_span(ix, UINT64_MAX, &s, &e), LIDX_PAST_END);
  CHECK_RC(lidx_line_at(ix, len, &s), LIDX_PAST_END);
  CHECK_RC(lidx_line_at(ix, UINT64_MAX, &s), LIDX_PAST_END);
  CHECK_RC(lidx_line_at(ix, 0, NULL), LIDX_OK);

  /* The size protocol: ask, allocate, read. */
  uint64_t first = lines / 3, count = 200, got = 99;
  size_t needed = 0;
  CHECK_RC(lidx_read_lines(ix, first, count, NULL, 0, &needed, &got),
           LIDX_ERROR_BUFFER);
  CHECK(got == 0 && needed > 0, "needed %zu got %" PRIu64, needed, got);
  CHECK(contains(lidx_errmsg(), "the buffer holds 0"), "message: %s",
        lidx_errmsg());
  uint8_t *buf = malloc(needed);
  size_t needed2 = 0;
  CHECK_RC(lidx_read_lines(ix, first, count, buf, needed - 1, &needed2, &got),
           LIDX_ERROR_BUFFER);
  CHECK(needed2 == needed && got == 0, "one byte short");
  CHECK_RC(lidx_read_lines(ix, first, count, buf, needed, &needed2, &got),
           LIDX_OK);
  CHECK(got == count && needed2 == needed, "read %" PRIu64, got);
  CHECK_RC(lidx_line_span(ix, first, &s, &e), LIDX_OK);
  CHECK(s + needed <= len && memcmp(buf, text + s, needed) == 0,
        "bytes differ from the file");
  size_t nl = 0;
  for (size_t i = 0; i < needed; i++)
    nl += buf[i] == '\n';
  CHECK(nl == count, "%zu newlines in %" PRIu64 " lines", nl, count);
  CHECK_RC(lidx_read_lines(ix, first, count, buf, needed, NULL, NULL),
           LIDX_OK);
  CHECK_RC(lidx_read_lines(ix, 0, 1, NULL, 5, NULL, NULL), LIDX_ERROR_INVALID);
  /* Past the end: zero lines, not an error; clamped at the end. */
  CHECK_RC(lidx_read_lines(ix, lines + 10, 5, NULL, 0, &needed2, &got),
           LIDX_OK);
  CHECK(needed2 == 0 && got == 0, "past the end read %" PRIu64, got);
  CHECK_RC(lidx_read_lines(ix, lines - 1, UINT64_MAX, buf, needed, &needed2,
                           &got),
           LIDX_OK);
  CHECK(got == 1, "clamped read %" PRIu64, got);
  free(buf);
}

struct search_ctx {
  uint64_t calls;
  uint64_t last_line;
  int ok;
};

static int count_hits(void *ctx, const lidx_line *l) {
  struct search_ctx *c = ctx;
  if (c->calls && l->line <= c->last_line)
    c->ok = 0;
  if (l->len == 0 || l->bytes == NULL)
    c->ok = 0;
  c->last_line = l->line;
  c->calls++;
  return 0;
}

static int stop_at_three(void *ctx, const lidx_line *l) {
  (void)l;
  struct search_ctx *c = ctx;
  return ++c->calls >= 3;
}

static void check_search(lidx_index *ix) {
  uint64_t lines = 0;
  lidx_line_count(ix, &lines);
  lidx_pattern *p = NULL;
  lidx_search_options so;
  lidx_search_options_init(&so);
  CHECK_RC(lidx_pattern_new("ERROR", &so, &p), LIDX_OK);
  uint64_t all = 0, part = 0;
  CHECK_RC(lidx_search(ix, p, 0, UINT64_MAX, NULL, NULL, &all), LIDX_OK);
  CHECK(all > 10, "matches %" PRIu64, all);
  struct search_ctx c = {0, 0, 1};
  CHECK_RC(lidx_search(ix, p, lines / 2, lines, count_hits, &c, &part), LIDX_OK);
  CHECK(c.ok && c.calls == part && part < all && part > 0,
        "second half: %" PRIu64 " calls, %" PRIu64 " matched", c.calls, part);
  struct search_ctx stop = {0, 0, 1};
  uint64_t m = 0;
  CHECK_RC(lidx_search(ix, p, 0, lines, stop_at_three, &stop, &m), LIDX_OK);
  CHECK(stop.calls == 3 && m == 3, "stopped after %" PRIu64 ", matched %" PRIu64,
        stop.calls, m);
  CHECK_RC(lidx_search(ix, p, lines, 10, count_hits, &c, &m), LIDX_OK);
  CHECK(m == 0, "past the end matched %" PRIu64, m);
  CHECK_RC(lidx_search(ix, NULL, 0, 1, NULL, NULL, NULL), LIDX_ERROR_INVALID);
  lidx_pattern_free(p);
}

/* One handle, several threads: the same answers as one thread. */
#define THREADS 4
#define PER_THREAD 100

struct shared {
  lidx_index *ix;
  lidx_pattern *pattern;
  uint64_t lines, size;
  uint64_t line[PER_THREAD], start[PER_THREAD], end[PER_THREAD];
  uint64_t offset[PER_THREAD], at[PER_THREAD];
  uint64_t matches_per_1000[PER_THREAD];
};

struct worker {
  struct shared *sh;
  int id;
  int errors;
  char message[256];
};

static uint64_t next_random(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void *work(void *arg) {
  struct worker *w = arg;
  struct shared *sh = w->sh;
  uint8_t page[1 << 16];
  for (int round = 0; round < 2; round++) {
    for (int k = 0; k < PER_THREAD; k++) {
      int i = (k * 7 + w->id * 13 + round) % PER_THREAD;
      uint64_t s, e, l, m, got;
      size_t needed;
      if (lidx_line_span(sh->ix, sh->line[i], &s, &e) != LIDX_OK ||
          s != sh->start[i] || e != sh->end[i])
        w->errors++;
      if (lidx_line_at(sh->ix, sh->offset[i], &l) != LIDX_OK || l != sh->at[i])
        w->errors++;
      if (e - s <= sizeof page &&
          (lidx_read_lines(sh->ix, sh->line[i], 1, page, sizeof page, &needed,
                           &got) != LIDX_OK ||
           got != 1 || needed != e - s))
        w->errors++;
      if (k % 50 == 0 &&
          (lidx_search(sh->ix, sh->pattern, sh->line[i], 1000, NULL, NULL,
                       &m) != LIDX_OK ||
           m != sh->matches_per_1000[i]))
        w->errors++;
    }
  }
  /* Each thread has its own message. */
  if (lidx_line_span(sh->ix, sh->lines + (uint64_t)w->id, NULL, NULL) !=
      LIDX_PAST_END)
    w->errors++;
  snprintf(w->message, sizeof w->message, "%s", lidx_errmsg());
  return NULL;
}

static void check_threads(lidx_index *ix) {
  struct shared *sh = calloc(1, sizeof *sh);
  sh->ix = ix;
  lidx_line_count(ix, &sh->lines);
  lidx_source_len(ix, &sh->size);
  lidx_search_options so;
  lidx_search_options_init(&so);
  so.flags = LIDX_SEARCH_IGNORE_CASE;
  lidx_pattern_new("timeout", &so, &sh->pattern);
  uint64_t seed = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < PER_THREAD; i++) {
    sh->line[i] = next_random(&seed) % sh->lines;
    sh->offset[i] = next_random(&seed) % sh->size;
    lidx_line_span(ix, sh->line[i], &sh->start[i], &sh->end[i]);
    lidx_line_at(ix, sh->offset[i], &sh->at[i]);
    lidx_search(ix, sh->pattern, sh->line[i], 1000, NULL, NULL,
                &sh->matches_per_1000[i]);
  }
  /* Leave a message on this thread; the workers must not change it. */
  CHECK_RC(lidx_line_at(ix, UINT64_MAX, NULL), LIDX_PAST_END);
  char mine[256];
  snprintf(mine, sizeof mine, "%s", lidx_errmsg());
  pthread_t t[THREADS];
  struct worker w[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (struct worker){sh, i, 0, {0}};
    CHECK(pthread_create(&t[i], NULL, work, &w[i]) == 0, "pthread_create");
  }
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    CHECK(w[i].errors == 0, "thread %d: %d wrong answers", i, w[i].errors);
    char want[64];
    snprintf(want, sizeof want, "line %" PRIu64 " is past the end",
             sh->lines + (uint64_t)i);
    CHECK(contains(w[i].message, want), "thread %d message: %s", i,
          w[i].message);
  }
  CHECK(strcmp(lidx_errmsg(), mine) == 0, "main thread's message changed: %s",
        lidx_errmsg());
  lidx_pattern_free(sh->pattern);
  free(sh);
}

/* A gzip archive cut short: its complete lines before the damage. */
static void check_damaged(const char *dir, const char *gz) {
  size_t len;
  char *bytes = read_file(gz, &len);
  char *cut = path_in(dir, "cut.log.gz");
  write_file(cut, "wb", bytes, len / 2);
  lidx_index *ix = NULL;
  CHECK_RC(lidx_open(cut, NULL, &ix), LIDX_OK);
  lidx_index_info info;
  CHECK_RC(lidx_info(ix, &info), LIDX_OK);
  CHECK(info.action == LIDX_ACTION_DAMAGED && info.damage != NULL &&
            contains(info.damage, "cut.log.gz") && info.lines > 0,
        "damaged: action %d lines %" PRIu64, info.action, info.lines);
  uint64_t s, e;
  CHECK_RC(lidx_line_span(ix, info.lines - 1, &s, &e), LIDX_OK);
  CHECK_RC(lidx_line_span(ix, info.lines, &s, &e), LIDX_ERROR_SOURCE);
  CHECK(contains(lidx_errmsg(), "before the damage"), "message: %s",
        lidx_errmsg());
  char *cut_side = sidecar_of(cut);
  CHECK(!exists(cut_side), "a sidecar written for a damaged archive");
  free(cut_side);
  lidx_close(ix);
  free(cut);
  free(bytes);
}

/* Following a file: appends, a partial last line, truncation. */
static void expect_event(lidx_follower *f, int kind, uint64_t first,
                         uint64_t count, lidx_index **ix) {
  lidx_follow_event ev;
  memset(&ev, 0xAB, sizeof ev);
  CHECK_RC(lidx_follow_poll(f, &ev, ix), LIDX_OK);
  CHECK(ev.kind == kind && ev.first == first && ev.count == count,
        "event %d %" PRIu64 "+%" PRIu64 ", want %d %" PRIu64 "+%" PRIu64,
        ev.kind, ev.first, ev.count, kind, first, count);
  if (ix && kind != LIDX_FOLLOW_LINES)
    CHECK(*ix == NULL, "index handed out without lines");
}

static void expect_lines(lidx_index *ix, uint64_t first, uint64_t count,
                         const char *want) {
  char buf[256];
  size_t needed = 0;
  uint64_t got = 0;
  CHECK(ix != NULL, "no index");
  if (!ix)
    return;
  CHECK_RC(lidx_read_lines(ix, first, count, (uint8_t *)buf, sizeof buf,
                           &needed, &got),
           LIDX_OK);
  CHECK(got == count && needed == strlen(want) &&
            memcmp(buf, want, needed) == 0,
        "lines %" PRIu64 "+%" PRIu64 ": %.*s", first, count, (int)needed, buf);
}

static void check_follow(const char *dir) {
  char *log = path_in(dir, "follow.log");
  write_file(log, "wb", "zero\none\ntwo\nthr", 16);
  lidx_follower *f = NULL;
  CHECK_RC(lidx_follow_open(log, NULL, 1, &f), LIDX_OK);
  lidx_index *ix = NULL;
  /* From line 1; the unterminated last line waits for its newline. */
  expect_event(f, LIDX_FOLLOW_LINES, 1, 2, &ix);
  expect_lines(ix, 1, 2, "one\ntwo\n");
  lidx_index *old = ix;
  expect_event(f, LIDX_FOLLOW_IDLE, 0, 0, &ix);
  write_file(log, "ab", "ee\nfour\n", 8);
  expect_event(f, LIDX_FOLLOW_LINES, 3, 2, &ix);
  expect_lines(ix, 3, 2, "three\nfour\n");
  lidx_index_info info;
  lidx_info(ix, &info);
  CHECK(info.action == LIDX_ACTION_FOLLOWED, "action %d", info.action);
  /* The earlier handle still reads the file as it was. */
  uint64_t lines = 0;
  CHECK_RC(lidx_line_count(old, &lines), LIDX_OK);
  CHECK(lines == 4, "old handle: %" PRIu64 " lines", lines);
  expect_lines(old, 0, 1, "zero\n");
  lidx_close(old);
  lidx_close(ix);
  /* Lines counted as reported even when the caller does not take them. */
  write_file(log, "ab", "five\n", 5);
  expect_event(f, LIDX_FOLLOW_LINES, 5, 1, NULL);
  expect_event(f, LIDX_FOLLOW_IDLE, 0, 0, NULL);
  /* Truncated and rewritten: restarted, then from line 0. */
  write_file(log, "wb", "new\n", 4);
  expect_event(f, LIDX_FOLLOW_RESTARTED, 0, 0, &ix);
  expect_event(f, LIDX_FOLLOW_LINES, 0, 1, &ix);
  expect_lines(ix, 0, 1, "new\n");
  lidx_close(ix);
  lidx_follow_event ev;
  CHECK_RC(lidx_follow_poll(f, NULL, NULL), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_follow_poll(f, &ev, NULL), LIDX_OK);
  CHECK(ev.kind == LIDX_FOLLOW_IDLE, "kind %d", ev.kind);
  /* Deleted: each poll says it is missing (not idle forever); made again:
   * restarted, then its lines. */
  char *side = sidecar_of(log);
  CHECK(unlink(log) == 0 && unlink(side) == 0, "unlink");
  for (int k = 0; k < 2; k++) {
    CHECK_RC(lidx_follow_poll(f, &ev, NULL), LIDX_OK);
    CHECK(ev.kind == LIDX_FOLLOW_MISSING, "deleted: kind %d", ev.kind);
  }
  write_file(log, "wb", "again\n", 6);
  expect_event(f, LIDX_FOLLOW_RESTARTED, 0, 0, NULL);
  expect_event(f, LIDX_FOLLOW_LINES, 0, 1, NULL);
  free(side);
  CHECK_RC(lidx_follow_close(f), LIDX_OK);

  lidx_open_options o;
  lidx_open_options_init(&o);
  o.policy = LIDX_POLICY_INSPECT;
  CHECK_RC(lidx_follow_open(log, &o, 0, &f), LIDX_ERROR_INVALID);
  char *missing = path_in(dir, "not-there.log");
  CHECK_RC(lidx_follow_open(missing, NULL, 0, &f), LIDX_ERROR_IO);
  free(missing);
  free(log);
}

/* ------------------------------------------------------------------ */
/* Every policy × every verdict: an answer equal to a naive model of the
 * file's bytes, or the error that says why; never an answer about bytes
 * the sidecar does not describe. */

enum matrix_case { M_UNCHANGED, M_APPENDED, M_REWRITTEN, M_FOREIGN, M_TOUCHED,
                   M_MOVED, M_CASES };
static const char *const case_names[M_CASES] = {
    "unchanged", "appended", "rewritten", "foreign", "touched", "moved"};

/* `n` lines of about 40 bytes: more than the fingerprint's head and tail
 * blocks (64 KiB each). */
static char *matrix_text(const char *word, int n, size_t *len) {
  size_t cap = (size_t)n * 64, at = 0;
  char *t = malloc(cap);
  if (!t)
    die("malloc");
  for (int i = 1; i <= n; i++)
    at += (size_t)snprintf(t + at, cap - at, "%s %06d %.*s\n", word, i, i % 23,
                           "xxxxxxxxxxxxxxxxxxxxxxx");
  *len = at;
  return t;
}

static void set_mtime(const char *path, time_t t) {
  struct timespec times[2] = {{t, 0}, {t, 0}};
  if (utimensat(AT_FDCWD, path, times, 0) != 0)
    die(path);
}

/* Sets up `c` in `dir`; returns b.log's path (the caller frees it). */
static char *matrix_prepare(const char *dir, int c) {
  char *b = path_in(dir, "b.log");
  size_t len;
  char *text = matrix_text("bravo-bravo", 8000, &len);
  int v, a;
  if (c == M_FOREIGN) {
    char *a_log = path_in(dir, "a.log");
    size_t alen;
    char *atext = matrix_text("alpha", 6000, &alen);
    write_file(a_log, "wb", atext, alen);
    CHECK_RC(open_with(a_log, LIDX_POLICY_REFRESH, &v, &a), LIDX_OK);
    char *a_side = sidecar_of(a_log), *b_side = sidecar_of(b);
    size_t sl;
    char *sb = read_file(a_side, &sl);
    write_file(b_side, "wb", sb, sl);
    write_file(b, "wb", text, len);
    free(sb);
    free(a_side);
    free(b_side);
    free(atext);
    free(a_log);
    free(text);
    return b;
  }
  write_file(b, "wb", text, len);
  set_mtime(b, 1000000000);
  CHECK_RC(open_with(b, LIDX_POLICY_REFRESH, &v, &a), LIDX_OK);
  switch (c) {
  case M_APPENDED:
    write_file(b, "ab", "appended one\nappended two\n", 26);
    break;
  case M_REWRITTEN: {
    size_t n2;
    char *t2 = matrix_text("charlie", 7000, &n2);
    write_file(b, "wb", t2, n2);
    free(t2);
    break;
  }
  case M_MOVED:
    /* Same size, one more line in the middle. */
    for (size_t i = len / 2; i < len; i++)
      if (text[i] == '0') {
        text[i] = '\n';
        break;
      }
    write_file(b, "wb", text, len);
    break;
  default:
    break;
  }
  if (c != M_UNCHANGED)
    set_mtime(b, 1000000060);
  free(text);
  return b;
}

/* What each policy gives: 0 answers about the whole file, 1 about its
 * first 8000 lines; otherwise the status of every query (or of the open
 * when `*open_fails`). */
static int matrix_expect(uint32_t policy, int c, int *open_fails) {
  *open_fails = 0;
  if (policy == LIDX_POLICY_FORCE || c == M_UNCHANGED)
    return 0;
  if (policy == LIDX_POLICY_INSPECT) {
    if (c == M_APPENDED)
      return 1;
    return c == M_FOREIGN ? LIDX_ERROR_FOREIGN : LIDX_ERROR_STALE;
  }
  if (c == M_FOREIGN) {
    *open_fails = 1;
    return LIDX_ERROR_FOREIGN;
  }
  if (policy == LIDX_POLICY_REFRESH || c == M_TOUCHED)
    return 0;
  *open_fails = 1;
  return LIDX_ERROR_STALE;
}

static int count_0042(void *ctx, const lidx_line *l) {
  (void)l;
  (*(uint64_t *)ctx)++;
  return 0;
}

/* Every query on `ix`: each must give `want` (an error status), or when
 * `want` is LIDX_OK, the model's answer for the file's bytes. */
static void matrix_queries(lidx_index *ix, const char *path, int want,
                           const char *what) {
  size_t len;
  char *text = read_file(path, &len);
  /* The naive model: every line start. */
  size_t nl = 0;
  for (size_t i = 0; i < len; i++)
    nl += text[i] == '\n';
  uint64_t *starts = malloc((nl + 2) * sizeof *starts);
  if (!starts)
    die("malloc");
  size_t nlines = 0;
  starts[nlines++] = 0;
  for (size_t i = 0; i < len; i++)
    if (text[i] == '\n')
      starts[nlines++] = i + 1;
  if (starts[nlines - 1] == len)
    nlines--; /* no line after the last newline */
  starts[nlines] = len;
  uint64_t lines = 0;
  CHECK_RC(lidx_line_count(ix, &lines), LIDX_OK);
  uint64_t picks[5] = {0, 1, lines / 3, lines / 2, lines - 1};
  for (int k = 0; k < 5; k++) {
    uint64_t l = picks[k], s = 0, e = 0, at = 0;
    int rc = lidx_line_span(ix, l, &s, &e);
    if (want != LIDX_OK) {
      CHECK(rc == want, "%s: line_span(%" PRIu64 ") gave %s", what, l,
            lidx_status_str(rc));
    } else {
      CHECK(rc == LIDX_OK && l < nlines && s == starts[l] && e == starts[l + 1],
            "%s: line_span(%" PRIu64 ") = %" PRIu64 "..%" PRIu64 " (%s)", what,
            l, s, e, lidx_status_str(rc));
    }
    uint64_t off = l < nlines ? starts[l] + (starts[l + 1] - starts[l]) / 2
                              : 1000;
    rc = lidx_line_at(ix, off, &at);
    if (want != LIDX_OK)
      CHECK(rc == want, "%s: line_at gave %s", what, lidx_status_str(rc));
    else
      CHECK(rc == LIDX_OK && at == l, "%s: line_at(%" PRIu64 ") = %" PRIu64,
            what, off, at);
    uint8_t buf[512];
    size_t needed = 0;
    uint64_t got = 0;
    rc = lidx_read_lines(ix, l, 3, buf, sizeof buf, &needed, &got);
    if (want != LIDX_OK) {
      CHECK(rc == want, "%s: read_lines gave %s", what, lidx_status_str(rc));
    } else {
      uint64_t last = l + 3 < lines ? l + 3 : lines;
      size_t n = (size_t)(starts[last] - starts[l]);
      CHECK(rc == LIDX_OK && got == last - l && needed == n &&
                memcmp(buf, text + starts[l], n) == 0,
            "%s: read_lines(%" PRIu64 ") = %.*s", what, l, (int)needed, buf);
    }
  }
  lidx_pattern *p = NULL;
  CHECK_RC(lidx_pattern_new("0042", NULL, &p), LIDX_OK);
  uint64_t hits = 0, matched = 0;
  int rc = lidx_search(ix, p, 0, lines, count_0042, &hits, &matched);
  if (want != LIDX_OK) {
    CHECK(rc == want && hits == 0, "%s: search gave %s, %" PRIu64 " hits",
          what, lidx_status_str(rc), hits);
  } else {
    uint64_t model = 0;
    for (uint64_t l = 0; l < lines && l < nlines; l++) {
      const char *a = text + starts[l];
      size_t n = (size_t)(starts[l + 1] - starts[l]);
      for (size_t i = 0; i + 4 <= n; i++)
        if (memcmp(a + i, "0042", 4) == 0) {
          model++;
          break;
        }
    }
    CHECK(rc == LIDX_OK && hits == model && matched == model,
          "%s: search: %" PRIu64 " hits, want %" PRIu64, what, hits, model);
  }
  lidx_pattern_free(p);
  free(starts);
  free(text);
}

static void check_policy_matrix(const char *dir) {
  const uint32_t policies[4] = {LIDX_POLICY_REFRESH, LIDX_POLICY_NO_REFRESH,
                                LIDX_POLICY_FORCE, LIDX_POLICY_INSPECT};
  const char *policy_names[4] = {"refresh", "no-refresh", "force", "inspect"};
  for (int pi = 0; pi < 4; pi++)
    for (int c = 0; c < M_CASES; c++) {
      char what[64];
      snprintf(what, sizeof what, "%s x %s", policy_names[pi], case_names[c]);
      char name[64];
      snprintf(name, sizeof name, "matrix-%d-%d", pi, c);
      char *sub = path_in(dir, name);
      if (mkdir(sub, 0700) != 0)
        die(sub);
      char *b = matrix_prepare(sub, c);
      int open_fails;
      int want = matrix_expect(policies[pi], c, &open_fails);
      lidx_open_options o;
      lidx_open_options_init(&o);
      o.policy = policies[pi];
      lidx_index *ix = NULL;
      int rc = lidx_open(b, &o, &ix);
      if (open_fails) {
        CHECK(rc == want && ix == NULL, "%s: open gave %s", what,
              lidx_status_str(rc));
      } else {
        CHECK(rc == LIDX_OK, "%s: open gave %s", what, lidx_status_str(rc));
        if (ix) {
          uint64_t lines = 0;
          lidx_line_count(ix, &lines);
          if (want == 1)
            CHECK(lines == 8000, "%s: %" PRIu64 " lines", what, lines);
          matrix_queries(ix, b, want <= 1 ? LIDX_OK : want, what);
          lidx_close(ix);
        }
      }
      free(b);
      free(sub);
    }
}

/* ------------------------------------------------------------------ */
/* Rotation families and merges, against a naive model of the files.  */

/* 2026-01-01T00:00:00Z in seconds since the epoch. */
#define T0 INT64_C(1767225600)
#define NS INT64_C(1000000000)

/* One line of the model: where it is, its bytes (without the newline a
 * family read adds after a member's unterminated last line), its time. */
struct mline {
  int member;
  uint64_t local;  /* its number in its member */
  uint64_t offset; /* its offset in its member's text */
  char *bytes;
  size_t len;
  int has_time;
  int64_t time;
};

struct model {
  struct mline *lines;
  size_t n, cap;
  uint64_t member_lines[8], member_bytes[8], base_line[8], base_byte[8];
  int members;
};

static void model_add(struct model *m, int member, const char *bytes,
                      size_t len, int has_time, int64_t time) {
  if (m->n == m->cap) {
    m->cap = m->cap ? 2 * m->cap : 256;
    m->lines = realloc(m->lines, m->cap * sizeof *m->lines);
    if (!m->lines)
      die("realloc");
  }
  struct mline *l = &m->lines[m->n++];
  l->member = member;
  l->local = m->member_lines[member]++;
  l->offset = m->member_bytes[member];
  m->member_bytes[member] += len;
  l->bytes = malloc(len ? len : 1);
  if (!l->bytes)
    die("malloc");
  memcpy(l->bytes, bytes, len);
  l->len = len;
  l->has_time = has_time;
  l->time = time;
}

static void model_free(struct model *m) {
  for (size_t i = 0; i < m->n; i++)
    free(m->lines[i].bytes);
  free(m->lines);
}

/* Writes member `k` of the model to `path`. */
static void model_write(const struct model *m, int k, const char *path) {
  FILE *f = fopen(path, "wb");
  if (!f)
    die(path);
  for (size_t i = 0; i < m->n; i++)
    if (m->lines[i].member == k &&
        fwrite(m->lines[i].bytes, 1, m->lines[i].len, f) != m->lines[i].len)
      die(path);
  if (fclose(f) != 0)
    die(path);
}

/* Line `k` of a generated log: a stamp (`t` seconds after T0) or, when `t`
 * is negative, a continuation line without one. */
static size_t log_line(char *out, size_t cap, int64_t t, const char *who,
                       int k, int newline) {
  int n;
  if (t >= 0)
    n = snprintf(out, cap, "2026-01-01T%02d:%02d:%02dZ %s line %d %.*s%s",
                 (int)(t / 3600), (int)(t / 60 % 60), (int)(t % 60), who, k,
                 k % 17, "payload-payload-payload", newline ? "\n" : "");
  else
    n = snprintf(out, cap, "    at frame %d of %s%s", k, who,
                 newline ? "\n" : "");
  return (size_t)n;
}

/* The family's members, oldest first: app.log.3.gz (gzip), app.log.2
 * (its last line without a newline), app.log.1 (starts with a line
 * without a stamp), app.log (live). */
static const char *const fam_names[4] = {"app.log.3.gz", "app.log.2",
                                         "app.log.1", "app.log"};
static const int fam_sizes[4] = {300, 200, 250, 150};

static void family_model(struct model *m) {
  memset(m, 0, sizeof *m);
  m->members = 4;
  int64_t t = 0;
  char buf[256];
  for (int k = 0; k < 4; k++) {
    int64_t last = -1; /* the member's last stamp: lines inherit it */
    for (int i = 0; i < fam_sizes[k]; i++) {
      int stamped = !(i % 7 == 3 || (k == 2 && i == 0));
      int newline = !(k == 1 && i == fam_sizes[k] - 1);
      char who[8];
      snprintf(who, sizeof who, "m%d", k);
      size_t len = log_line(buf, sizeof buf, stamped ? t : -1, who, i, newline);
      if (stamped)
        last = t++;
      model_add(m, k, buf, len, last >= 0, T0 * NS + last * NS);
    }
  }
  uint64_t line = 0, byte = 0;
  for (int k = 0; k < 4; k++) {
    m->base_line[k] = line;
    m->base_byte[k] = byte;
    line += m->member_lines[k];
    byte += m->member_bytes[k];
  }
}

/* The model's global lines `first .. first + count - 1` that are present
 * (from `present`), as a family read gives them: a member's last line
 * without a newline gets one when a line follows it. */
static char *model_read(const struct model *m, uint64_t present, uint64_t first,
                        uint64_t count, size_t *len, uint64_t *lines) {
  uint64_t end = first + count < first ? UINT64_MAX : first + count;
  if (first < present)
    first = present;
  if (end > m->n)
    end = m->n;
  size_t cap = 16;
  for (uint64_t g = first; g < end; g++)
    cap += m->lines[g].len + 1;
  char *out = malloc(cap);
  if (!out)
    die("malloc");
  size_t at = 0;
  *lines = 0;
  for (uint64_t g = first; g < end; g++) {
    memcpy(out + at, m->lines[g].bytes, m->lines[g].len);
    at += m->lines[g].len;
    if (g + 1 < end && m->lines[g].bytes[m->lines[g].len - 1] != '\n')
      out[at++] = '\n';
    (*lines)++;
  }
  *len = at;
  return out;
}

/* The first line, in family order, whose time is at or after `t` (the
 * global end when none is), from `present` on. */
static uint64_t model_line_at_time(const struct model *m, uint64_t present,
                                   int64_t t) {
  for (uint64_t g = present; g < m->n; g++)
    if (m->lines[g].has_time && m->lines[g].time >= t)
      return g;
  return m->n;
}

/* A time range as the family joins its members' own ranges. */
static void model_time_range(const struct model *m, uint64_t present,
                             const int64_t *since, const int64_t *until,
                             uint64_t *first, uint64_t *count) {
  uint64_t lo = UINT64_MAX, hi = 0;
  for (int k = 0; k < m->members; k++) {
    uint64_t b = m->base_line[k], n = m->member_lines[k];
    if (b < present)
      continue;
    uint64_t s = 0, e = n;
    if (since) {
      s = n;
      for (uint64_t i = 0; i < n; i++)
        if (m->lines[b + i].has_time && m->lines[b + i].time >= *since) {
          s = i;
          break;
        }
    }
    if (until) {
      e = 0;
      for (uint64_t i = 0; i < n; i++)
        if (m->lines[b + i].has_time && m->lines[b + i].time < *until)
          e = i + 1;
    }
    if (e > s) {
      if (b + s < lo)
        lo = b + s;
      if (b + e > hi)
        hi = b + e;
    }
  }
  if (lo == UINT64_MAX) {
    *first = m->n;
    *count = 0;
  } else {
    *first = lo;
    *count = hi - lo;
  }
}

static void make_family(const char *dir, const struct model *m) {
  char cmd[4096];
  for (int k = 0; k < 4; k++) {
    char *p = path_in(dir, fam_names[k]);
    if (k == 0) {
      char *plain = path_in(dir, "app.log.3");
      model_write(m, 0, plain);
      snprintf(cmd, sizeof cmd, "gzip -n -f '%s'", plain);
      CHECK(system(cmd) == 0, "gzip %s", plain);
      CHECK(exists(p) && !exists(plain), "gzip made %s", p);
      free(plain);
    } else {
      model_write(m, k, p);
    }
    /* Rotated long ago: no wait for a writer to leave it alone. */
    if (k < 3)
      set_mtime(p, time(NULL) - 3600);
    free(p);
  }
}

/* Every global line present, through every query, against the model. */
static void family_against_model(lidx_family *fam, const struct model *m,
                                 uint64_t present, const char *what) {
  uint64_t first = 99, end = 99;
  CHECK_RC(lidx_family_lines(fam, &first, &end), LIDX_OK);
  CHECK(first == present && end == m->n,
        "%s: lines %" PRIu64 "..%" PRIu64 ", want %" PRIu64 "..%zu", what,
        first, end, present, m->n);
  size_t members = 0;
  CHECK_RC(lidx_family_member_count(fam, &members), LIDX_OK);
  int k0 = 0;
  while (k0 < 4 && m->base_line[k0] < present)
    k0++;
  CHECK(members == (size_t)(4 - k0), "%s: %zu members", what, members);
  for (size_t i = 0; i < members && i < 4; i++) {
    int k = k0 + (int)i;
    const char *path = NULL;
    uint64_t bl = 0, bb = 0, n = 0, size = 0;
    const lidx_index *ix = NULL;
    CHECK_RC(lidx_family_member(fam, i, &path, &bl, &bb, &ix), LIDX_OK);
    size_t plen = path ? strlen(path) : 0, nlen = strlen(fam_names[k]);
    CHECK(path && plen > nlen && strcmp(path + plen - nlen, fam_names[k]) == 0 &&
              path[plen - nlen - 1] == '/',
          "%s: member %zu is %s, want %s", what, i, path ? path : "NULL",
          fam_names[k]);
    CHECK(bl == m->base_line[k] && bb == m->base_byte[k],
          "%s: member %zu bases %" PRIu64 " %" PRIu64, what, i, bl, bb);
    CHECK(ix != NULL, "%s: member %zu has no index", what, i);
    if (!ix)
      continue;
    /* A member handle is an index handle, in the member's own numbers. */
    CHECK_RC(lidx_line_count(ix, &n), LIDX_OK);
    CHECK_RC(lidx_source_len(ix, &size), LIDX_OK);
    CHECK(n == m->member_lines[k] && size == m->member_bytes[k],
          "%s: member %zu: %" PRIu64 " lines %" PRIu64 " bytes", what, i, n,
          size);
    lidx_index_info info;
    CHECK_RC(lidx_info(ix, &info), LIDX_OK);
    CHECK(info.action == LIDX_ACTION_MEMBER && strcmp(info.source_path, path) == 0 &&
              info.source_kind == (k == 0 ? LIDX_SOURCE_GZIP : LIDX_SOURCE_PLAIN),
          "%s: member %zu info: action %d kind %d %s", what, i, info.action,
          info.source_kind, info.source_path);
    uint64_t last = m->base_line[k] + m->member_lines[k] - 1;
    uint8_t buf[256];
    size_t needed = 0;
    uint64_t got = 0;
    CHECK_RC(lidx_read_lines(ix, n - 1, 1, buf, sizeof buf, &needed, &got),
             LIDX_OK);
    CHECK(got == 1 && needed == m->lines[last].len &&
              memcmp(buf, m->lines[last].bytes, needed) == 0,
          "%s: member %zu's last line: %.*s", what, i, (int)needed, buf);
    /* The family owns it: lidx_close() refuses it and frees nothing. */
    CHECK_RC(lidx_close((lidx_index *)ix), LIDX_ERROR_INVALID);
    CHECK(contains(lidx_errmsg(), "lidx_family_close"), "message: %s",
          lidx_errmsg());
    CHECK_RC(lidx_line_count(ix, &n), LIDX_OK);
  }
  const char *p = NULL;
  CHECK_RC(lidx_family_member(fam, members, &p, NULL, NULL, NULL),
           LIDX_ERROR_INVALID);
  CHECK(p == NULL, "output set on error");

  /* Every line: its member, its bytes, the line at its bytes. */
  for (uint64_t g = present; g < m->n; g++) {
    const struct mline *l = &m->lines[g];
    size_t mem = 99;
    CHECK_RC(lidx_family_member_of(fam, g, &mem), LIDX_OK);
    CHECK(mem == (size_t)(l->member - k0), "%s: line %" PRIu64 " in member %zu",
          what, g, mem);
    uint8_t buf[256];
    size_t needed = 0;
    uint64_t got = 0;
    CHECK_RC(lidx_family_read_lines(fam, g, 1, buf, sizeof buf, &needed, &got),
             LIDX_OK);
    CHECK(got == 1 && needed == l->len && memcmp(buf, l->bytes, l->len) == 0,
          "%s: line %" PRIu64 ": %.*s", what, g, (int)needed, buf);
    uint64_t at = 0, gb = m->base_byte[l->member] + l->offset;
    CHECK_RC(lidx_family_line_at(fam, gb, &at), LIDX_OK);
    CHECK(at == g, "%s: line_at(%" PRIu64 ") = %" PRIu64, what, gb, at);
    CHECK_RC(lidx_family_line_at(fam, gb + l->len - 1, &at), LIDX_OK);
    CHECK(at == g, "%s: line_at(%" PRIu64 ") = %" PRIu64 ", want %" PRIu64,
          what, gb + l->len - 1, at, g);
  }
  size_t mem = 77;
  uint64_t at = 77;
  CHECK_RC(lidx_family_member_of(fam, m->n, &mem), LIDX_PAST_END);
  CHECK(mem == 77 && contains(lidx_errmsg(), "app.log: line") &&
            contains(lidx_errmsg(), "is not in the rotation family"),
        "message: %s", lidx_errmsg());
  uint64_t total_bytes = m->base_byte[3] + m->member_bytes[3];
  CHECK_RC(lidx_family_line_at(fam, total_bytes, &at), LIDX_PAST_END);
  CHECK(at == 77, "output changed on error");
  if (present > 0) {
    CHECK_RC(lidx_family_member_of(fam, present - 1, &mem), LIDX_PAST_END);
    CHECK_RC(lidx_family_line_at(fam, m->base_byte[k0] - 1, &at),
             LIDX_PAST_END);
  }

  /* Ranges, across member boundaries (the unterminated last line of
   * app.log.2 among them), with the size protocol. */
  const uint64_t ranges[][2] = {
      {0, UINT64_MAX},
      {m->base_line[1] - 2, 5},
      {m->base_line[2] - 1, 2}, /* app.log.2's last line, then app.log.1's */
      {m->base_line[2] - 1, 1}, /* alone: as it is, no newline */
      {m->base_line[3] - 3, 400},
      {present, 0},
      {m->n, 5},
      {m->n - 1, UINT64_MAX},
  };
  for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
    uint64_t f = ranges[r][0], c = ranges[r][1], want_lines = 0, got = 99;
    size_t want_len = 0, needed = 0;
    char *want = model_read(m, present, f, c, &want_len, &want_lines);
    CHECK_RC(lidx_family_read_lines(fam, f, c, NULL, 0, &needed, &got),
             want_len ? LIDX_ERROR_BUFFER : LIDX_OK);
    CHECK(needed == want_len, "%s: range %zu needs %zu, want %zu", what, r,
          needed, want_len);
    uint8_t *buf = malloc(want_len + 1);
    if (want_len) {
      CHECK_RC(lidx_family_read_lines(fam, f, c, buf, want_len - 1, &needed,
                                      &got),
               LIDX_ERROR_BUFFER);
      CHECK(got == 0, "lines read on a short buffer");
    }
    CHECK_RC(lidx_family_read_lines(fam, f, c, buf, want_len, &needed, &got),
             LIDX_OK);
    CHECK(got == want_lines && needed == want_len &&
              memcmp(buf, want, want_len) == 0,
          "%s: range %zu (%" PRIu64 ", %" PRIu64 "): %" PRIu64
          " lines %zu bytes, want %" PRIu64 " %zu",
          what, r, f, c, got, needed, want_lines, want_len);
    free(buf);
    free(want);
  }

  /* Time: the first line at or after each instant, and ranges. */
  int64_t probes[] = {INT64_MIN, 0, T0 * NS, T0 * NS + 1, T0 * NS + 299 * NS,
                      T0 * NS + 300 * NS - 1, T0 * NS + 500 * NS,
                      T0 * NS + 10000 * NS, INT64_MAX};
  for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) {
    uint64_t line = 77;
    CHECK_RC(lidx_family_line_at_time(fam, probes[i], &line), LIDX_OK);
    uint64_t want = model_line_at_time(m, present, probes[i]);
    CHECK(line == want, "%s: line_at_time(%" PRId64 ") = %" PRIu64
          ", want %" PRIu64, what, probes[i], line, want);
    for (size_t j = 0; j < sizeof probes / sizeof probes[0]; j++) {
      const int64_t *s = i == 0 ? NULL : &probes[i];
      const int64_t *u = j + 1 == sizeof probes / sizeof probes[0] ? NULL
                                                                   : &probes[j];
      uint64_t rf = 77, rc = 77, wf, wc;
      CHECK_RC(lidx_family_time_range(fam, s, u, &rf, &rc), LIDX_OK);
      model_time_range(m, present, s, u, &wf, &wc);
      CHECK(rf == wf && rc == wc,
            "%s: time_range(%zu, %zu) = %" PRIu64 "+%" PRIu64
            ", want %" PRIu64 "+%" PRIu64,
            what, i, j, rf, rc, wf, wc);
    }
  }
}


/* Threads sharing one family handle and its member handles. */
struct fam_worker {
  lidx_family *fam;
  const struct model *m;
  int bad;
};

static void *fam_work(void *arg) {
  struct fam_worker *w = arg;
  for (uint64_t g = 0; g < w->m->n; g++) {
    const struct mline *l = &w->m->lines[g];
    uint8_t buf[256];
    size_t needed = 0;
    uint64_t got = 0;
    if (lidx_family_read_lines(w->fam, g, 1, buf, sizeof buf, &needed, &got) !=
            LIDX_OK ||
        got != 1 || needed != l->len || memcmp(buf, l->bytes, l->len) != 0)
      w->bad++;
    const lidx_index *ix = NULL;
    uint64_t s = 0, e = 0;
    if (lidx_family_member(w->fam, (size_t)l->member, NULL, NULL, NULL, &ix) !=
            LIDX_OK ||
        lidx_line_span(ix, l->local, &s, &e) != LIDX_OK || s != l->offset ||
        e != l->offset + l->len)
      w->bad++;
  }
  return NULL;
}

static void check_family_threads(lidx_family *fam, const struct model *m) {
  if (!fam)
    return;
  struct fam_worker w[4];
  pthread_t t[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (struct fam_worker){fam, m, 0};
    CHECK(pthread_create(&t[i], NULL, fam_work, &w[i]) == 0, "pthread_create");
  }
  for (int i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    CHECK(w[i].bad == 0, "thread %d: %d wrong answers", i, w[i].bad);
  }
}

/* One line a merge gave, or the model's. */
struct merged {
  size_t source;
  uint64_t line, offset;
  int has_time;
  int64_t time;
  const char *bytes;
  size_t len;
};

struct transcript {
  struct merged *lines;
  size_t n, cap;
  size_t stop_after; /* 0: never */
};

static int on_merged(void *ctx, const lidx_merged_line *l) {
  struct transcript *t = ctx;
  if (t->n == t->cap) {
    t->cap = t->cap ? 2 * t->cap : 256;
    t->lines = realloc(t->lines, t->cap * sizeof *t->lines);
    if (!t->lines)
      die("realloc");
  }
  char *copy = malloc(l->len ? l->len : 1);
  if (!copy)
    die("malloc");
  memcpy(copy, l->bytes, l->len);
  CHECK(l->reserved == 0 && (l->has_time == 0 || l->has_time == 1) &&
            (l->has_time || l->time == 0),
        "merged line fields: has_time %d time %" PRId64, l->has_time, l->time);
  t->lines[t->n++] = (struct merged){l->source, l->line,     l->offset,
                                     l->has_time, l->time, copy, l->len};
  return t->stop_after != 0 && t->n >= t->stop_after;
}

static void transcript_free(struct transcript *t) {
  for (size_t i = 0; i < t->n; i++)
    free((char *)t->lines[i].bytes);
  free(t->lines);
  memset(t, 0, sizeof *t);
}

/* A source of the model merge: global lines `first .. end` of `m`. */
struct msource {
  const struct model *m;
  uint64_t first, end;
};

/* The merge, naively: at each step the source whose next line has the
 * least time (no time before any), the first such source on ties; each
 * source in its own order. */
static struct merged *model_merge(const struct msource *s, size_t k,
                                  size_t *n) {
  size_t total = 0;
  uint64_t at[8];
  for (size_t i = 0; i < k; i++) {
    at[i] = s[i].first;
    total += s[i].end - s[i].first;
  }
  struct merged *out = malloc((total + 1) * sizeof *out);
  if (!out)
    die("malloc");
  for (size_t j = 0; j < total; j++) {
    size_t best = k;
    for (size_t i = 0; i < k; i++) {
      if (at[i] >= s[i].end)
        continue;
      if (best == k) {
        best = i;
        continue;
      }
      const struct mline *a = &s[i].m->lines[at[i]];
      const struct mline *b = &s[best].m->lines[at[best]];
      int less = a->has_time && (!b->has_time ? 0 : a->time < b->time);
      if (!a->has_time && b->has_time)
        less = 1;
      if (less)
        best = i;
    }
    const struct model *m = s[best].m;
    const struct mline *l = &m->lines[at[best]];
    out[j] = (struct merged){best,
                             at[best],
                             m->base_byte[l->member] + l->offset,
                             l->has_time,
                             l->has_time ? l->time : 0,
                             l->bytes,
                             l->len};
    at[best]++;
  }
  *n = total;
  return out;
}

static void compare_merge(const struct transcript *t, const struct merged *want,
                          size_t n, const char *what) {
  CHECK(t->n == n, "%s: %zu lines merged, want %zu", what, t->n, n);
  for (size_t j = 0; j < n && j < t->n; j++) {
    const struct merged *a = &t->lines[j], *b = &want[j];
    if (a->source != b->source || a->line != b->line ||
        a->offset != b->offset || a->has_time != b->has_time ||
        a->time != b->time || a->len != b->len ||
        memcmp(a->bytes, b->bytes, a->len) != 0) {
      CHECK(0,
            "%s: line %zu of the merge is source %zu line %" PRIu64
            " offset %" PRIu64 " time %d/%" PRId64 " %.*s; want source %zu line %" PRIu64
            " offset %" PRIu64 " time %d/%" PRId64 " %.*s",
            what, j, a->source, a->line, a->offset, a->has_time, a->time,
            (int)a->len, a->bytes, b->source, b->line, b->offset, b->has_time,
            b->time, (int)b->len, b->bytes);
      return;
    }
  }
}

/* A one-file model written to dir/name: `stamps[i]` seconds after T0, or
 * -1 for a line without a stamp; the last line without a newline when
 * `unterminated`. */
static char *merge_file(const char *dir, const char *name, struct model *m,
                        const int64_t *stamps, size_t n, int unterminated) {
  memset(m, 0, sizeof *m);
  m->members = 1;
  char buf[256];
  int64_t last = -1;
  for (size_t i = 0; i < n; i++) {
    int newline = !(unterminated && i + 1 == n);
    size_t len = log_line(buf, sizeof buf, stamps[i], name, (int)i, newline);
    if (stamps[i] >= 0)
      last = stamps[i];
    model_add(m, 0, buf, len, last >= 0, T0 * NS + last * NS);
  }
  char *p = path_in(dir, name);
  model_write(m, 0, p);
  return p;
}

static void check_merge(const char *dir) {
  char *mdir = path_in(dir, "merge");
  if (mkdir(mdir, 0700) != 0)
    die(mdir);
  /* a.log: two lines without a stamp first (no time: they come first),
   * then even seconds, a continuation line now and then. */
  int64_t sa[140], sb[200];
  for (size_t i = 0; i < 140; i++)
    sa[i] = i < 2 ? -1 : (i % 9 == 4 ? -1 : (int64_t)(2 * i));
  /* b.log: 1 + 3i seconds (ties with a.log's even seconds), one stretch
   * going back in time (read in its own order, never sorted), its last
   * line without a newline. */
  for (size_t i = 0; i < 200; i++)
    sb[i] = (i >= 40 && i < 45) ? (int64_t)(3 * i - 60) : (int64_t)(1 + 3 * i);
  struct model ma, mb, mf;
  char *a = merge_file(mdir, "a.log", &ma, sa, 140, 0);
  char *b = merge_file(mdir, "b.log", &mb, sb, 200, 1);
  family_model(&mf);
  char *fdir = path_in(mdir, "fam");
  if (mkdir(fdir, 0700) != 0)
    die(fdir);
  make_family(fdir, &mf);
  char *live = path_in(fdir, "app.log");

  lidx_open_options o;
  lidx_open_options_init(&o);
  o.flags = LIDX_OPEN_TIME;
  o.spacing = 512;
  lidx_index *ia = NULL, *ib = NULL;
  lidx_family *fam = NULL;
  CHECK_RC(lidx_open(a, &o, &ia), LIDX_OK);
  CHECK_RC(lidx_open(b, &o, &ib), LIDX_OK);
  CHECK_RC(lidx_family_open(live, &o, 0, &fam), LIDX_OK);
  if (!ia || !ib || !fam)
    goto out;

  /* Time queries on one index, against the model. */
  {
    uint64_t line = 0, first = 0, count = 0;
    CHECK_RC(lidx_line_at_time(ia, T0 * NS + 7 * NS, &line), LIDX_OK);
    CHECK(line == model_line_at_time(&ma, 0, T0 * NS + 7 * NS),
          "line_at_time %" PRIu64, line);
    CHECK_RC(lidx_line_at_time(ia, INT64_MAX, &line), LIDX_OK);
    CHECK(line == ma.n, "line_at_time past the last: %" PRIu64, line);
    int64_t since = T0 * NS + 20 * NS, until = T0 * NS + 41 * NS;
    uint64_t wf, wc;
    CHECK_RC(lidx_time_range(ia, &since, &until, &first, &count), LIDX_OK);
    model_time_range(&ma, 0, &since, &until, &wf, &wc);
    CHECK(first == wf && count == wc,
          "time_range %" PRIu64 "+%" PRIu64 ", want %" PRIu64 "+%" PRIu64,
          first, count, wf, wc);
    CHECK_RC(lidx_time_range(ia, NULL, NULL, &first, &count), LIDX_OK);
    CHECK(first == 0 && count == ma.n, "whole range %" PRIu64 "+%" PRIu64,
          first, count);
    CHECK_RC(lidx_line_at_time(NULL, 0, &line), LIDX_ERROR_INVALID);
    CHECK_RC(lidx_time_range(NULL, NULL, NULL, &first, &count),
             LIDX_ERROR_INVALID);
  }

  /* Two files; the second one's lines without a time come first. */
  {
    lidx_merge_source src[2] = {{ib, NULL, 0, UINT64_MAX},
                                {ia, NULL, 0, UINT64_MAX}};
    struct msource ms[2] = {{&mb, 0, mb.n}, {&ma, 0, ma.n}};
    struct transcript t = {0};
    uint64_t merged = 0;
    CHECK_RC(lidx_merge_by_time(src, 2, on_merged, &t, &merged), LIDX_OK);
    size_t n;
    struct merged *want = model_merge(ms, 2, &n);
    CHECK(merged == n, "merged %" PRIu64 ", want %zu", merged, n);
    compare_merge(&t, want, n, "b + a");
    free(want);
    transcript_free(&t);
  }

  /* A file, a family (global numbers and offsets; the first line of
   * app.log.1 has no time and comes as soon as it is reached), and the
   * same file's time range. */
  {
    int64_t since = T0 * NS + 30 * NS, until = T0 * NS + 100 * NS;
    uint64_t first = 0, count = 0;
    CHECK_RC(lidx_time_range(ib, &since, &until, &first, &count), LIDX_OK);
    lidx_merge_source src[3] = {{ib, NULL, 0, UINT64_MAX},
                                {NULL, fam, 0, UINT64_MAX},
                                {ib, NULL, first, count}};
    struct msource ms[3] = {
        {&mb, 0, mb.n}, {&mf, 0, mf.n}, {&mb, first, first + count}};
    struct transcript t = {0};
    uint64_t merged = 0;
    CHECK_RC(lidx_merge_by_time(src, 3, on_merged, &t, &merged), LIDX_OK);
    size_t n;
    struct merged *want = model_merge(ms, 3, &n);
    CHECK(merged == n && count > 0, "merged %" PRIu64 ", want %zu", merged, n);
    compare_merge(&t, want, n, "b + family + b's range");
    free(want);
    transcript_free(&t);
  }

  /* The callback stops the merge; without a callback, only a count. */
  {
    lidx_merge_source src[2] = {{ia, NULL, 0, UINT64_MAX},
                                {NULL, fam, 0, UINT64_MAX}};
    struct transcript t = {0};
    t.stop_after = 5;
    uint64_t merged = 0;
    CHECK_RC(lidx_merge_by_time(src, 2, on_merged, &t, &merged), LIDX_OK);
    CHECK(t.n == 5 && merged == 5, "stopped after %zu, merged %" PRIu64, t.n,
          merged);
    transcript_free(&t);
    CHECK_RC(lidx_merge_by_time(src, 2, NULL, NULL, &merged), LIDX_OK);
    CHECK(merged == ma.n + mf.n, "counted %" PRIu64, merged);
    CHECK_RC(lidx_merge_by_time(NULL, 0, NULL, NULL, &merged), LIDX_OK);
    CHECK(merged == 0, "nothing merged: %" PRIu64, merged);
  }

  /* Collections: the same sources as one numbered whole, merged by time
   * and in turn, read through an index handle, each line traced back to
   * its source and found from it. */
  {
    lidx_merge_source src[3] = {{ib, NULL, 0, UINT64_MAX},
                                {NULL, fam, 0, UINT64_MAX},
                                {ia, NULL, 0, UINT64_MAX}};
    struct msource ms[3] = {{&mb, 0, mb.n}, {&mf, 0, mf.n}, {&ma, 0, ma.n}};
    size_t n;
    struct merged *want = model_merge(ms, 3, &n);
    for (int merge = 1; merge >= 0; merge--) {
      if (!merge) {
        /* In turn: each source's lines, in the order given. */
        size_t j = 0;
        for (size_t s = 0; s < 3; s++)
          for (uint64_t l = 0; l < ms[s].m->n; l++) {
            const struct mline *ml = &ms[s].m->lines[l];
            want[j++] = (struct merged){s, l, 0, 0, 0, ml->bytes, ml->len};
          }
      }
      lidx_collection *c = NULL;
      CHECK_RC(lidx_collection_open(src, 3, merge, &c), LIDX_OK);
      if (!c)
        continue;
      const lidx_index *ix = lidx_collection_index(c);
      uint64_t lines = 0;
      CHECK_RC(lidx_line_count(ix, &lines), LIDX_OK);
      CHECK(lines == n, "collection (merge %d): %" PRIu64 " lines, want %zu",
            merge, lines, n);
      char buf[512];
      for (size_t j = 0; j < n && lines == n; j++) {
        size_t source = 99, needed = 0;
        uint64_t own = 0, back = 0, got = 0;
        CHECK_RC(lidx_collection_origin(c, j, &source, &own), LIDX_OK);
        CHECK_RC(lidx_collection_line_of(c, want[j].source, want[j].line, &back),
                 LIDX_OK);
        CHECK_RC(lidx_read_lines(ix, j, 1, (uint8_t *)buf, sizeof buf, &needed,
                                 &got),
                 LIDX_OK);
        /* A source's last line without a newline is given one. */
        int terminated = want[j].len > 0 && want[j].bytes[want[j].len - 1] == '\n';
        if (source != want[j].source || own != want[j].line || back != j ||
            got != 1 || needed != want[j].len + !terminated ||
            memcmp(buf, want[j].bytes, want[j].len) != 0 ||
            (!terminated && buf[want[j].len] != '\n')) {
          CHECK(0,
                "collection (merge %d) line %zu: source %zu line %" PRIu64
                " back %" PRIu64 " %.*s; want source %zu line %" PRIu64 " %.*s",
                merge, j, source, own, back, (int)needed, buf, want[j].source,
                want[j].line, (int)want[j].len, want[j].bytes);
          break;
        }
      }
      size_t source;
      uint64_t own, back;
      CHECK_RC(lidx_collection_origin(c, n, &source, &own), LIDX_PAST_END);
      CHECK_RC(lidx_collection_line_of(c, 3, 0, &back), LIDX_PAST_END);
      /* The collection owns its index handle. */
      CHECK_RC(lidx_close((lidx_index *)ix), LIDX_ERROR_INVALID);
      CHECK(contains(lidx_errmsg(), "lidx_collection_close"), "message: %s",
            lidx_errmsg());
      CHECK_RC(lidx_collection_close(c), LIDX_OK);
    }
    free(want);

    /* A time, in a file and a family merged: the earliest in the whole of
     * each one's first line at or after it. */
    lidx_merge_source af[2] = {{ia, NULL, 0, UINT64_MAX},
                               {NULL, fam, 0, UINT64_MAX}};
    struct msource maf[2] = {{&ma, 0, ma.n}, {&mf, 0, mf.n}};
    want = model_merge(maf, 2, &n);
    lidx_collection *c = NULL;
    CHECK_RC(lidx_collection_open(af, 2, 1, &c), LIDX_OK);
    int64_t probes[] = {0, T0 * NS + 7 * NS, T0 * NS + 101 * NS, INT64_MAX};
    for (size_t p = 0; c && p < sizeof probes / sizeof *probes; p++) {
      uint64_t expect = n;
      for (size_t s = 0; s < 2; s++)
        for (size_t j = 0; j < n; j++)
          if (want[j].source == s && want[j].has_time &&
              want[j].time >= probes[p]) {
            if (j < expect)
              expect = j;
            break;
          }
      uint64_t line = 77;
      CHECK_RC(lidx_collection_line_at_time(c, probes[p], &line), LIDX_OK);
      CHECK(line == expect, "collection line_at_time %" PRId64 ": %" PRIu64
            ", want %" PRIu64, probes[p], line, expect);
    }
    lidx_collection_close(c);
    free(want);

    /* Bad collections. */
    c = NULL;
    CHECK_RC(lidx_collection_open(src, 0, 0, &c), LIDX_ERROR_INVALID);
    lidx_merge_source both = {ia, fam, 0, 1};
    CHECK_RC(lidx_collection_open(&both, 1, 0, &c), LIDX_ERROR_INVALID);
    const char *path;
    const lidx_index *member = NULL;
    CHECK_RC(lidx_family_member(fam, 0, &path, NULL, NULL, &member), LIDX_OK);
    lidx_merge_source m0 = {member, NULL, 0, UINT64_MAX};
    CHECK_RC(lidx_collection_open(&m0, 1, 0, &c), LIDX_ERROR_INVALID);
    CHECK(c == NULL && contains(lidx_errmsg(), "give its family"),
          "message: %s", lidx_errmsg());
    CHECK_RC(lidx_collection_close(NULL), LIDX_OK);
  }

  /* Bad sources. */
  {
    uint64_t merged = 77;
    CHECK_RC(lidx_merge_by_time(NULL, 1, NULL, NULL, &merged),
             LIDX_ERROR_INVALID);
    lidx_merge_source both = {ia, fam, 0, 1}, none = {NULL, NULL, 0, 1};
    CHECK_RC(lidx_merge_by_time(&both, 1, NULL, NULL, &merged),
             LIDX_ERROR_INVALID);
    CHECK_RC(lidx_merge_by_time(&none, 1, NULL, NULL, &merged),
             LIDX_ERROR_INVALID);
    CHECK(contains(lidx_errmsg(), "sources[0]"), "message: %s", lidx_errmsg());
    /* A file without a time index: named. */
    char *plain = path_in(mdir, "no-time.log");
    write_file(plain, "wb", "one\ntwo\n", 8);
    lidx_index *ip = NULL;
    CHECK_RC(lidx_open(plain, NULL, &ip), LIDX_OK);
    lidx_merge_source src[2] = {{ia, NULL, 0, UINT64_MAX},
                                {ip, NULL, 0, UINT64_MAX}};
    struct transcript t = {0};
    CHECK_RC(lidx_merge_by_time(src, 2, on_merged, &t, &merged),
             LIDX_ERROR_INVALID);
    CHECK(t.n == 0 && merged == 77 && contains(lidx_errmsg(), "sources[1]") &&
              contains(lidx_errmsg(), "no-time.log") &&
              contains(lidx_errmsg(), "LIDX_OPEN_TIME"),
          "message: %s", lidx_errmsg());
    uint64_t line = 0;
    CHECK_RC(lidx_line_at_time(ip, 0, &line), LIDX_ERROR_INVALID);
    CHECK(contains(lidx_errmsg(), "no time index"), "message: %s",
          lidx_errmsg());
    lidx_close(ip);
    free(plain);
  }

out:
  lidx_close(ia);
  lidx_close(ib);
  lidx_family_close(fam);
  model_free(&ma);
  model_free(&mb);
  model_free(&mf);
  free(live);
  free(fdir);
  free(a);
  free(b);
  free(mdir);
}

static void check_family(const char *dir) {
  char *fdir = path_in(dir, "family");
  if (mkdir(fdir, 0700) != 0)
    die(fdir);
  struct model m;
  family_model(&m);
  make_family(fdir, &m);
  char *live = path_in(fdir, "app.log");

  /* Arguments. */
  lidx_family *fam = (lidx_family *)0x1;
  CHECK_RC(lidx_family_open(NULL, NULL, 0, &fam), LIDX_ERROR_INVALID);
  CHECK(strcmp(lidx_errmsg(), "lidx_family_open: live is NULL") == 0,
        "message: %s", lidx_errmsg());
  CHECK_RC(lidx_family_open(live, NULL, 0, NULL), LIDX_ERROR_INVALID);
  lidx_open_options o;
  lidx_open_options_init(&o);
  o.policy = LIDX_POLICY_INSPECT;
  CHECK_RC(lidx_family_open(live, &o, 0, &fam), LIDX_ERROR_INVALID);
  lidx_open_options_init(&o);
  o.sidecar = live;
  CHECK_RC(lidx_family_open(live, &o, 0, &fam), LIDX_ERROR_INVALID);
  CHECK(contains(lidx_errmsg(), "each member"), "message: %s", lidx_errmsg());
  lidx_open_options_init(&o);
  o.policy = LIDX_POLICY_NO_REFRESH; /* no sidecar yet */
  CHECK_RC(lidx_family_open(live, &o, 0, &fam), LIDX_ERROR_MISSING);
  CHECK(fam == (lidx_family *)0x1, "out changed on error");
  char *nowhere = path_in(dir, "no-such-dir/app.log");
  CHECK_RC(lidx_family_open(nowhere, NULL, 0, &fam), LIDX_ERROR_IO);
  CHECK(contains(lidx_errmsg(), "no-such-dir"), "message: %s", lidx_errmsg());
  free(nowhere);
  uint64_t n = 0;
  size_t z = 0;
  CHECK_RC(lidx_family_lines(NULL, &n, &n), LIDX_ERROR_INVALID);
  CHECK(strcmp(lidx_errmsg(), "lidx_family_lines: family is NULL") == 0,
        "message: %s", lidx_errmsg());
  CHECK_RC(lidx_family_member_count(NULL, &z), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_family_member(NULL, 0, NULL, NULL, NULL, NULL),
           LIDX_ERROR_INVALID);
  CHECK_RC(lidx_family_member_of(NULL, 0, &z), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_family_read_lines(NULL, 0, 1, NULL, 0, NULL, NULL),
           LIDX_ERROR_INVALID);
  CHECK_RC(lidx_family_line_at(NULL, 0, &n), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_family_line_at_time(NULL, 0, &n), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_family_time_range(NULL, NULL, NULL, &n, &n),
           LIDX_ERROR_INVALID);
  CHECK_RC(lidx_family_manifest(NULL, NULL, NULL), LIDX_ERROR_INVALID);
  CHECK_RC(lidx_family_close(NULL), LIDX_OK);

  /* Numbered on first open, with a time index in every member and
   * progress over every file. */
  struct progress pr = {0, 0, 0, 0};
  lidx_open_options_init(&o);
  o.flags = LIDX_OPEN_TIME;
  o.spacing = 1024;
  o.progress = on_progress;
  o.progress_ctx = &pr;
  fam = NULL;
  CHECK_RC(lidx_family_open(live, &o, 0, &fam), LIDX_OK);
  CHECK(pr.calls > 0 && pr.last_done == pr.last_total && pr.last_total > 0,
        "family progress: %" PRIu64 " calls, %" PRIu64 "/%" PRIu64, pr.calls,
        pr.last_done, pr.last_total);
  const char *manifest = NULL;
  int32_t action = -1;
  CHECK_RC(lidx_family_manifest(fam, &manifest, &action), LIDX_OK);
  CHECK(action == LIDX_FAMILY_NUMBERED && manifest &&
            contains(manifest, "app.log.family") && exists(manifest),
        "manifest %s action %d", manifest ? manifest : "NULL", action);
  if (fam)
    family_against_model(fam, &m, 0, "numbered");
  CHECK_RC(lidx_family_close(fam), LIDX_OK);

  /* Opened again: the same numbers, nothing written; the sidecars are
   * fresh, so no policy needs to build. */
  lidx_open_options_init(&o);
  o.policy = LIDX_POLICY_NO_REFRESH;
  fam = NULL;
  CHECK_RC(lidx_family_open(live, &o, 0, &fam), LIDX_OK);
  CHECK_RC(lidx_family_manifest(fam, NULL, &action), LIDX_OK);
  CHECK(action == LIDX_FAMILY_OPENED, "action %d", action);
  if (fam)
    family_against_model(fam, &m, 0, "reopened");

  /* A handle shared by threads: every line read on each. */
  check_family_threads(fam, &m);
  lidx_family_close(fam);

  /* A cancelled build writes nothing and opens nothing. */
  {
    char *cdir = path_in(dir, "family-cancel");
    if (mkdir(cdir, 0700) != 0)
      die(cdir);
    make_family(cdir, &m);
    char *clive = path_in(cdir, "app.log");
    struct progress stop = {0, 0, 0, 1};
    lidx_open_options_init(&o);
    o.progress = on_progress;
    o.progress_ctx = &stop;
    fam = NULL;
    CHECK_RC(lidx_family_open(clive, &o, 0, &fam), LIDX_ERROR_CANCELLED);
    char *cside = path_in(cdir, "app.log.family.lidx");
    CHECK(fam == NULL && !exists(cside), "a cancelled open wrote %s", cside);
    free(cside);
    free(clive);
    free(cdir);
  }

  /* The oldest member deleted: nothing renumbered, its lines gone. */
  char *oldest = path_in(fdir, fam_names[0]);
  CHECK(unlink(oldest) == 0, "unlink %s", oldest);
  fam = NULL;
  CHECK_RC(lidx_family_open(live, NULL, 0, &fam), LIDX_OK);
  CHECK_RC(lidx_family_manifest(fam, NULL, &action), LIDX_OK);
  CHECK(action == LIDX_FAMILY_UPDATED, "action %d", action);
  if (fam)
    family_against_model(fam, &m, m.base_line[1], "oldest deleted");
  lidx_family_close(fam);

  /* A member missing between others: an error naming it; then renumbered
   * on request. */
  char *middle = path_in(fdir, fam_names[2]);
  char *moved = path_in(dir, "app.log.1.moved");
  CHECK(rename(middle, moved) == 0, "rename %s", middle);
  fam = (lidx_family *)0x1;
  CHECK_RC(lidx_family_open(live, NULL, 0, &fam), LIDX_ERROR_FAMILY);
  CHECK(fam == (lidx_family *)0x1, "out changed on error");
  CHECK(contains(lidx_errmsg(), "app.log.1") &&
            contains(lidx_errmsg(), "missing"),
        "message: %s", lidx_errmsg());
  CHECK(strcmp(lidx_status_str(LIDX_ERROR_FAMILY), "LIDX_ERROR_FAMILY") == 0,
        "status_str");
  fam = NULL;
  CHECK_RC(lidx_family_open(live, NULL, 1, &fam), LIDX_OK);
  CHECK_RC(lidx_family_manifest(fam, NULL, &action), LIDX_OK);
  uint64_t first = 99, end = 0;
  CHECK_RC(lidx_family_lines(fam, &first, &end), LIDX_OK);
  CHECK(action == LIDX_FAMILY_RENUMBERED && first == 0 &&
            end == m.member_lines[1] + m.member_lines[3],
        "renumbered: action %d lines %" PRIu64 "..%" PRIu64, action, first,
        end);
  /* No time index was asked for this time, yet the members have one. */
  uint64_t line = 0;
  CHECK_RC(lidx_family_line_at_time(fam, T0 * NS, &line), LIDX_OK);
  CHECK(line == 0, "line_at_time %" PRIu64, line);
  lidx_family_close(fam);

  free(moved);
  free(middle);
  free(oldest);
  free(live);
  free(fdir);
  model_free(&m);
}

static int run_api(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: test api WORKDIR PLAIN GZ ZST\n");
    return 2;
  }
  const char *dir = argv[2], *plain = argv[3], *gz = argv[4], *zst = argv[5];
  check_strings();
  check_null_arguments(plain);
  check_options(plain);
  check_lifecycle(dir, plain);
  check_policy_matrix(dir);

  size_t len;
  char *text = read_file(plain, &len);
  const char *files[3] = {plain, gz, zst};
  const int kinds[3] = {LIDX_SOURCE_PLAIN, LIDX_SOURCE_GZIP, LIDX_SOURCE_ZSTD};
  for (int k = 0; k < 3; k++) {
    lidx_open_options o;
    lidx_open_options_init(&o);
    o.span = 256 * 1024;
    lidx_index *ix = NULL;
    CHECK_RC(lidx_open(files[k], &o, &ix), LIDX_OK);
    if (!ix)
      continue;
    lidx_index_info info;
    CHECK_RC(lidx_info(ix, &info), LIDX_OK);
    CHECK(info.gzip == (uint32_t)(k == 1), "gzip %u", info.gzip);
    CHECK(info.source_kind == kinds[k], "source_kind %d", info.source_kind);
    if (k == 2)
      CHECK(info.file_size < info.source_size, "zstd info: file size %llu",
            (unsigned long long)info.file_size);
    if (k == 1)
      CHECK(info.gzip_span == 256 * 1024 && info.gzip_access_points > 1 &&
                info.file_size < info.source_size,
            "gzip info: span %u, %u access points", info.gzip_span,
            info.gzip_access_points);
    check_reads(ix, text, len);
    check_search(ix);
    check_threads(ix);
    lidx_close(ix);
  }
  free(text);
  check_damaged(dir, gz);
  check_follow(dir);
  check_family(dir);
  check_merge(dir);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "queries") == 0)
    return run_queries(argc, argv);
  if (argc >= 2 && strcmp(argv[1], "api") == 0)
    return run_api(argc, argv);
  fprintf(stderr, "usage: test queries|api ...\n");
  return 2;
}
