//! Haystacks shared by many cases. Those named after ripgrep's are copied
//! from its tests (ripgrep is MIT / Unlicense, Copyright (c) 2015 Andrew
//! Gallant); the source file is named on each.

/// ripgrep `tests/hay.rs` `SHERLOCK` (final newline).
pub const SHERLOCK: &str = "\
For the Doctor Watsons of this world, as opposed to the Sherlock
Holmeses, success in the province of detective work must always
be, to a very large extent, the result of luck. Sherlock Holmes
can extract a clew from a wisp of straw or a flake of cigar ash;
but Doctor Watson has to have it taken out for him and dusted,
and exhibited clearly, with a label attached.
";

/// ripgrep `tests/hay.rs` `SHERLOCK_CRLF`.
pub const SHERLOCK_CRLF: &str = "\
For the Doctor Watsons of this world, as opposed to the Sherlock\r
Holmeses, success in the province of detective work must always\r
be, to a very large extent, the result of luck. Sherlock Holmes\r
can extract a clew from a wisp of straw or a flake of cigar ash;\r
but Doctor Watson has to have it taken out for him and dusted,\r
and exhibited clearly, with a label attached.\r
";

/// The `SHERLOCK` of ripgrep's printer (`crates/printer/src/standard.rs`)
/// and searcher (`crates/searcher/src/searcher/glue.rs`, `lines.rs`) unit
/// tests: no final newline.
pub const SHERLOCK_NONL: &str = "\
For the Doctor Watsons of this world, as opposed to the Sherlock
Holmeses, success in the province of detective work must always
be, to a very large extent, the result of luck. Sherlock Holmes
can extract a clew from a wisp of straw or a flake of cigar ash;
but Doctor Watson has to have it taken out for him and dusted,
and exhibited clearly, with a label attached.";

/// ripgrep `crates/searcher/src/searcher/glue.rs` tests, `CODE`.
pub const CODE: &str = "\
extern crate snap;

use std::io;

fn main() {
    let stdin = io::stdin();
    let stdout = io::stdout();

    // Wrap the stdin reader in a Snappy reader.
    let mut rdr = snap::Reader::new(stdin.lock());
    let mut wtr = stdout.lock();
    io::copy(&mut rdr, &mut wtr).expect(\"I/O operation failed\");
}
";

/// ripgrep `tests/feature.rs` `f917_trim`: `SHERLOCK` indented.
pub const SHERLOCK_INDENTED: &str = "\
zzz
    For the Doctor Watsons of this world, as opposed to the Sherlock
  Holmeses, success in the province of detective work must always
\tbe, to a very large extent, the result of luck. Sherlock Holmes
     can extract a clew from a wisp of straw or a flake of cigar ash;
but Doctor Watson has to have it taken out for him and dusted,
 and exhibited clearly, with a label attached.
";

/// ripgrep `tests/feature.rs` `f917_trim_max_columns_*`.
pub const TRIM_COLUMNS: &str = "     0123456789abcdefghijklmnopqrstuvwxyz";

/// ripgrep `tests/regression.rs` `r1380` (also the printer's
/// `regression_after_context_with_match` and the JSON printer's
/// `max_matches_after_context`).
pub const A_TO_E: &str = "a\nb\nc\nd\ne\nd\ne\nd\ne\nd\ne\n";

/// ripgrep `tests/data/sherlock-nul.txt` (`tests/binary.rs`): the first
/// 2,133 lines of "A Study in Scarlet" with a NUL byte at line 1870.
pub const SHERLOCK_NUL: &[u8] = include_bytes!("../../rg/data/sherlock-nul.txt");

/// ripgrep `crates/searcher/src/searcher/glue.rs` `big1`: `a`, then more
/// lines of `zzz` than four of ripgrep's 64 KiB read buffers hold, then `a`.
pub fn big1() -> Vec<u8> {
    let mut v = b"a\n".to_vec();
    for _ in 0..4 * (64 * 1024 + 7) {
        v.extend_from_slice(b"zzz\n");
    }
    v.extend_from_slice(b"a\n");
    v
}

/// The haystack of the `literal::` cases (ripgrep's
/// `crates/regex/src/literal.rs` patterns): something for each pattern to
/// find, and near misses; the last line has no newline.
pub const LITERALS: &[u8] = b"\
foo bar foobar xfoobarx zfooz
afoob bfooc cfoobard afooxbfooxcfooxd afoobarxbarybarzz
192.168.1.1 and 10.0.0.255 and 1.2.3
abhiyaxy cdqhiyaz efhiya abchiyadef ghiwhiyaq
a aaaaa A Ab AB aB abC abc ABC
\xe2\x98\x83 \xe2\x98\x83\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83\xe2\x98\x83 \xce\x94 \xce\xb4 S s \xc5\xbf Z z
a1b a2b a3b a4b \xce\xb5 \xce\x95 \xcf\xb5
ab aZb aZZb aZZZb aZZZZb azb zzazb b
abcxyz abcmnoxyz mno MN M N xyz
aaa aa aaaa aaaaaaa
abef cdgh abefij cdghkl abgh ef
abba akka abccba sam samwise
foobarfoobar foobarzfoobar foofoo foozfoo foobarfoo
eXx ex EX e.x e-x
ABC123 1A2 A 123ABC 1Z2 12
c bc abc aabbc ac bbbc
\xcd\xb1\xcd\xb3\xcd\xb7\xce\x90\xce\xac\xce\xad\xce\xae\xce\xaf\xce\xb0\xce\xb1\xce\xb2\xce\xb3\xce\xb4\xce\xb5\xce\xb6\xce\xb7\xce\xb8\xce\xb9\xce\xba\xce\xbb\xce\xbc\xce\xbd\xce\xbe\xce\xbf\xcf\x80\xcf\x81\xcf\x82\xcf\x83\xcf\x84\xcf\x85\xcf\x86\xcf\x87\xcf\x88\xcf\x89\xcf\x8a\xcf\x8b
raw \xff byte and \xc3\xbf char
tab\there  two  spaces

a.z";

/// Awkward bytes for the `regex::non_matching` and `regex::ban` cases:
/// invalid UTF-8, a snowman, NUL bytes, an empty line, no final newline.
pub const BYTES: &[u8] = b"a\xe2\x98\x83b\n\xff\xfe\n\xc3\xbf\na\x00b\nab\n\x00\n\nxyz";

/// The haystack of the smart-case (`regex::ast`) cases.
pub const SMART: &str = "\
foo
FOO
Foo
foo\\
fooa
fooA
foo1
foo\\S
aBc1
abc1
ABC1
aa
AA
\u{3b4}
";
