/*
 * The C half of benches/abi_overhead.rs: the same lookups as its Rust
 * half, through lidx.h. Run by that benchmark, which compares the
 * checksums (the same answers) before it reports the times.
 *
 *   abi_overhead FILE N SEED
 *
 * line_count does no I/O: its time is the boundary's own cost (the guard,
 * the per-thread message).
 *
 * Prints one line per operation: "NAME NS_PER_CALL CHECKSUM", for N calls
 * on pseudo-random lines or offsets after one untimed warm-up pass.
 */
#define _POSIX_C_SOURCE 200809L
#include "lidx.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static double now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int fail(const char *what, int rc) {
  fprintf(stderr, "abi_overhead: %s: %s: %s\n", what, lidx_status_str(rc),
          lidx_errmsg());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: abi_overhead FILE N SEED\n");
    return 2;
  }
  uint64_t n = strtoull(argv[2], NULL, 10);
  uint64_t seed0 = strtoull(argv[3], NULL, 10);
  lidx_index *ix = NULL;
  int rc = lidx_open(argv[1], NULL, &ix);
  if (rc != LIDX_OK)
    return fail("open", rc);
  uint64_t lines = 0, size = 0;
  lidx_line_count(ix, &lines);
  lidx_source_len(ix, &size);
  static uint8_t page[1 << 20];
  for (int op = 0; op < 4; op++) {
    const char *name = op == 0   ? "line_span"
                       : op == 1 ? "line_at"
                       : op == 2 ? "read_40_lines"
                                 : "line_count";
    uint64_t sum = 0;
    double t0 = 0;
    for (int pass = 0; pass < 2; pass++) {
      uint64_t s = seed0;
      sum = 0;
      if (pass == 1)
        t0 = now_ns();
      for (uint64_t i = 0; i < n; i++) {
        uint64_t r = next(&s);
        if (op == 0) {
          uint64_t a, b;
          if ((rc = lidx_line_span(ix, r % lines, &a, &b)) != LIDX_OK)
            return fail(name, rc);
          sum += a ^ b;
        } else if (op == 1) {
          uint64_t l;
          if ((rc = lidx_line_at(ix, r % size, &l)) != LIDX_OK)
            return fail(name, rc);
          sum += l;
        } else if (op == 3) {
          uint64_t c;
          if ((rc = lidx_line_count(ix, &c)) != LIDX_OK)
            return fail(name, rc);
          sum += c ^ r;
        } else {
          size_t needed;
          uint64_t got;
          if ((rc = lidx_read_lines(ix, r % lines, 40, page, sizeof page,
                                    &needed, &got)) != LIDX_OK)
            return fail(name, rc);
          sum += needed + got;
        }
      }
    }
    double ns = (now_ns() - t0) / (double)n;
    printf("%s %.1f %" PRIu64 "\n", name, ns, sum);
  }
  lidx_close(ix);
  return 0;
}
