/*
 * A viewer's loop over lidx.h: open (building the sidecar with a progress
 * line), jump to a line, page down and up, search forward from the screen,
 * count the matches on it, and optionally follow the file as it grows.
 * Every step is a lookup, never a read from the start of the file.
 *
 *   cc viewer.c $(pkg-config --cflags --libs lidx) -o viewer
 *   ./viewer FILE [LINE [HEIGHT [PATTERN [follow]]]]
 *
 * LINE is 1-based as a person counts (default 1); the library is 0-based.
 */
#define _POSIX_C_SOURCE 200809L
#include <lidx.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct screen {
  lidx_index *ix;
  uint64_t top, height;
  uint8_t *buf; /* grown to what lidx_read_lines() says it needs */
  size_t cap;
};

static int fail(const char *what, int rc) {
  fprintf(stderr, "viewer: %s: %s: %s\n", what, lidx_status_str(rc),
          lidx_errmsg());
  return 2;
}

/* Prints lines [first, first + count) of the screen's index. */
static int print_lines(struct screen *s, uint64_t first, uint64_t count) {
  size_t needed = 0;
  uint64_t got = 0;
  int rc;
  while ((rc = lidx_read_lines(s->ix, first, count, s->buf, s->cap, &needed,
                               &got)) == LIDX_ERROR_BUFFER) {
    uint8_t *bigger = realloc(s->buf, needed);
    if (!bigger)
      return LIDX_ERROR_BUFFER;
    s->buf = bigger;
    s->cap = needed;
  }
  const uint8_t *p = s->buf, *end = s->buf + needed;
  for (uint64_t i = 0; rc == LIDX_OK && i < got; i++) {
    const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    printf("%10" PRIu64 " | %.*s\n", first + i + 1, (int)(n < 100 ? n : 100),
           (const char *)p);
    p += n + (nl != NULL);
  }
  return rc;
}

static int show(struct screen *s, const char *title) {
  uint64_t lines = 0;
  lidx_line_count(s->ix, &lines);
  uint64_t last = s->top + s->height < lines ? s->top + s->height : lines;
  printf("-- %s: lines %" PRIu64 "..%" PRIu64 " of %" PRIu64 " --\n", title,
         s->top + 1, last, lines);
  return print_lines(s, s->top, s->height);
}

static int first_match(void *ctx, const lidx_line *line) {
  *(uint64_t *)ctx = line->line;
  return 1; /* stop at the first */
}

static int progress(void *ctx, uint64_t done, uint64_t total) {
  (void)ctx;
  if (total >= (256u << 20))
    fprintf(stderr, "\rindexing %3d%%", (int)(done * 100 / total));
  return 0; /* nonzero would cancel */
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: viewer FILE [LINE [HEIGHT [PATTERN [follow]]]]\n");
    return 2;
  }
  uint64_t line = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
  struct screen s = {NULL, 0, argc > 3 ? strtoull(argv[3], NULL, 10) : 10,
                     NULL, 0};
  if (s.height == 0)
    s.height = 10;

  /* Open: builds FILE.lidx on first use (a .gz too), then reads its header. */
  lidx_open_options opts;
  lidx_open_options_init(&opts);
  opts.progress = progress;
  int rc = lidx_open(argv[1], &opts, &s.ix);
  if (rc != LIDX_OK)
    return fail("open", rc);
  uint64_t lines = 0;
  lidx_line_count(s.ix, &lines);

  /* Goto, then page down twice and up once. */
  s.top = line > 0 ? line - 1 : 0;
  if (s.top >= lines)
    s.top = lines ? lines - 1 : 0;
  uint64_t last_top = lines > s.height ? lines - s.height : 0;
  if ((rc = show(&s, "goto")) != LIDX_OK)
    return fail("read", rc);
  for (int i = 0; i < 2; i++) {
    s.top = s.top + s.height < last_top ? s.top + s.height : last_top;
    show(&s, "page down");
  }
  s.top = s.top > s.height ? s.top - s.height : 0;
  show(&s, "page up");

  /* Search forward from the line after the top; count hits on the screen. */
  if (argc > 4) {
    lidx_search_options so;
    lidx_search_options_init(&so);
    lidx_pattern *pat = NULL;
    if ((rc = lidx_pattern_new(argv[4], &so, &pat)) != LIDX_OK)
      return fail("pattern", rc);
    uint64_t hit = UINT64_MAX, n = 0;
    rc = lidx_search(s.ix, pat, s.top + 1, UINT64_MAX, first_match, &hit, NULL);
    if (rc != LIDX_OK)
      return fail("search", rc);
    if (hit == UINT64_MAX) {
      printf("-- search: no match after line %" PRIu64 " --\n", s.top + 1);
    } else {
      s.top = hit;
      lidx_search(s.ix, pat, s.top, s.height, NULL, NULL, &n);
      char title[64];
      snprintf(title, sizeof title, "search (%" PRIu64 " on screen)", n);
      show(&s, title);
    }
    lidx_pattern_free(pat);
  }

  /* Follow: print complete lines as they are appended (until killed). */
  if (argc > 5 && strcmp(argv[5], "follow") == 0) {
    lidx_follower *f = NULL;
    if ((rc = lidx_follow_open(argv[1], NULL, lines, &f)) != LIDX_OK)
      return fail("follow", rc);
    printf("-- following from line %" PRIu64 " --\n", lines + 1);
    fflush(stdout);
    for (;;) {
      lidx_follow_event ev;
      lidx_index *grown = NULL;
      if ((rc = lidx_follow_poll(f, &ev, &grown)) != LIDX_OK)
        return fail("poll", rc);
      if (ev.kind == LIDX_FOLLOW_LINES) {
        lidx_close(s.ix); /* the new handle sees the grown file */
        s.ix = grown;
        print_lines(&s, ev.first, ev.count);
      } else if (ev.kind == LIDX_FOLLOW_RESTARTED) {
        printf("-- the file was truncated or replaced --\n");
      }
      fflush(stdout);
      struct timespec pause = {0, 200 * 1000 * 1000};
      nanosleep(&pause, NULL);
    }
  }
  lidx_close(s.ix);
  free(s.buf);
  return 0;
}
