//! Conformance of `format-spec/sidecar-v1.md` with the code, so that the
//! two cannot drift apart.
//!
//! The spec is read at run time and its machine-checkable parts are parsed:
//!
//! - the byte tables (superblock, page header, leaf and internal bodies) are
//!   checked against bytes encoded by the code with a distinct sentinel
//!   value in every field, including what each CRC covers;
//! - the ```` ```hex source=NAME ```` / ```` ```hex sidecar=NAME spacing=S
//!   page_size=P ```` blocks of §10 are parsed (offsets, elided zero runs
//!   and the ASCII column included) and must equal what `build_to_vec`
//!   produces for that source and those parameters; the annotation tables
//!   must agree with those bytes and with the byte tables;
//! - the worked examples (Eytzinger order and search, checkpoint rule,
//!   fingerprint verdicts, damage cases, the line holding a byte) are
//!   replayed against the code, as are the order of the superblock's
//!   field checks and the pages read when a sidecar is opened;
//! - every requirement number cited in `src/` exists in the spec;
//! - for gzip sources (§11): the access-point record and page tables, the
//!   gzip superblock rules, the gzip vectors (whose source bytes flate2
//!   must reproduce), the access-point rule, the windows, the span CRCs
//!   (and that a reader refuses a span that does not match), and resuming
//!   at an access point with a decoder driven only by what §11.4 says;
//! - for zstd seekable sources (§13): the seek table and frame record
//!   tables, the zstd superblock rules and feature bit, vector V8 (whose
//!   text an independent decoder, the `zstd` crate, gives), and that
//!   damage to the archive is an error, never wrong text.
//!
//! `format-spec/family-v1.md`, the rotation family manifest, is checked the
//! same way (its section at the end of this file): the header, record and
//! layout tables against the encoder, the XXH64 it names against an
//! implementation written from its text, the names and order of §3, the
//! vectors F1 and F2 (decoded, re-encoded, annotated, and written again by
//! `Family::open` from their members' texts), the cases of what opening a
//! family does (F-8, replayed against a model written from the text) and
//! the damage table (F-7, likewise).
//!
//! `cargo test --test spec -- --ignored --nocapture print_vectors` prints
//! the vectors in the spec's hex notation, for regenerating §10
//! (`print_family_vectors`: family-v1.md §12).

use lidx::family::{Family, FamilyAction};
use lidx::format::eytzinger;
use lidx::format::family::{self as fam, Manifest, ManifestError, MemberRecord};
use lidx::format::gzip::{self as gzfmt, ApRecord};
use lidx::format::node::{self, NodeView};
use lidx::format::zstd::{self as zfmt, FrameRecord, SeekTable};
use lidx::format::{self, Fingerprint, GzipFields, PageHeader, PageKind, Superblock};
use lidx::io::MemSource;
use lidx::{BuildOptions, Error, Index, Verdict};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

#[path = "support/legacy.rs"]
mod legacy;

// ---------------------------------------------------------------------------
// Reading the spec.

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn spec() -> String {
    let path = root().join("format-spec/sidecar-v1.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A markdown table: its caption line, header cells and body rows.
#[derive(Debug)]
struct Table {
    caption: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// The column whose header is `name`.
    fn col(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("{}: no column {name:?}", self.caption))
    }
}

fn cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').map(|c| c.trim().to_string()).collect()
}

/// Every table whose caption (a line starting with `**Table `) contains
/// `title`.
fn tables(spec: &str, title: &str) -> Vec<Table> {
    let lines: Vec<&str> = spec.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if !(l.starts_with("**Table ") && l.contains(title)) {
            continue;
        }
        let mut j = i + 1;
        while j < lines.len() && !lines[j].starts_with('|') {
            assert!(
                lines[j].trim().is_empty(),
                "caption {l:?} not followed by a table"
            );
            j += 1;
        }
        let mut body = Vec::new();
        while j < lines.len() && lines[j].starts_with('|') {
            body.push(cells(lines[j]));
            j += 1;
        }
        assert!(body.len() >= 3, "table {l:?} is empty");
        assert!(
            body[1]
                .iter()
                .all(|c| c.chars().all(|ch| "-: ".contains(ch))),
            "table {l:?}: second row is not a separator"
        );
        let header = body.remove(0);
        body.remove(0);
        for r in &body {
            assert_eq!(r.len(), header.len(), "table {l:?}: ragged row {r:?}");
        }
        out.push(Table {
            caption: l.to_string(),
            header,
            rows: body,
        });
    }
    out
}

fn table(spec: &str, title: &str) -> Table {
    let mut t = tables(spec, title);
    assert_eq!(t.len(), 1, "expected exactly one table titled {title:?}");
    t.remove(0)
}

/// Fenced blocks as (info string, body lines).
fn fences(spec: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut cur: Option<(String, Vec<String>)> = None;
    for l in spec.lines() {
        match (&mut cur, l.strip_prefix("```")) {
            (None, Some(info)) => cur = Some((info.trim().to_string(), Vec::new())),
            (Some(_), Some(rest)) => {
                assert!(rest.trim().is_empty(), "fence opened inside a fence: {l:?}");
                out.push(cur.take().expect("inside a fence"));
            }
            (Some((_, body)), None) => body.push(l.to_string()),
            (None, None) => {}
        }
    }
    assert!(cur.is_none(), "unterminated fence");
    out
}

fn strip_ticks(s: &str) -> &str {
    s.trim().trim_matches('`')
}

/// Parses an integer written in decimal or as `0x...` hex.
fn int(s: &str) -> Option<u64> {
    let s = s.trim();
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}

/// All integers in `s`, in order.
fn ints(s: &str) -> Vec<u64> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().expect("digits"))
        .collect()
}

/// Evaluates a table expression such as `16 + 8n` or `P − 16 − 20n`.
fn eval(expr: &str, n: i64, p: i64) -> i64 {
    let e: String = expr
        .replace('−', "-")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut total = 0i64;
    let mut sign = 1i64;
    let mut term = String::new();
    let flush = |term: &mut String, sign: i64, total: &mut i64| {
        if term.is_empty() {
            return;
        }
        let v = if term == "P" {
            p
        } else if let Some(c) = term.strip_suffix('n') {
            let c: i64 = if c.is_empty() {
                1
            } else {
                c.parse().expect("coefficient")
            };
            c * n
        } else {
            term.parse()
                .unwrap_or_else(|_| panic!("bad term {term:?} in {expr:?}"))
        };
        *total += sign * v;
        term.clear();
    };
    for ch in e.chars() {
        match ch {
            '+' | '-' => {
                flush(&mut term, sign, &mut total);
                sign = if ch == '+' { 1 } else { -1 };
            }
            _ => term.push(ch),
        }
    }
    flush(&mut term, sign, &mut total);
    total
}

/// Width in bytes of a scalar type name (`ap_record`: Table 19).
fn width(ty: &str) -> Option<usize> {
    Some(match ty {
        "u8" => 1,
        "u16" => 2,
        "u32" | "i32" => 4,
        "u64" | "i64" => 8,
        "ap_record" => gzfmt::AP_RECORD_LEN,
        _ => return None,
    })
}

/// Size implied by a type (`u32`, `u8[15]`, `u64[n]`), or None for `u8[]`.
fn type_size(ty: &str, n: i64) -> Option<i64> {
    let ty = strip_ticks(ty);
    match ty.split_once('[') {
        None => Some(width(ty).unwrap_or_else(|| panic!("unknown type {ty:?}")) as i64),
        Some((elem, rest)) => {
            let count = rest.strip_suffix(']').expect("closing bracket");
            let w = width(elem).unwrap_or_else(|| panic!("unknown type {ty:?}")) as i64;
            match count {
                "" => None,
                "n" => Some(w * n),
                c => Some(w * c.parse::<i64>().expect("array length")),
            }
        }
    }
}

/// The `a..b` range in a CRC description, with `page_size` = `p`.
fn crc_range(desc: &str, p: usize) -> (usize, usize) {
    let r = desc
        .split('`')
        .find(|t| t.contains(".."))
        .unwrap_or_else(|| panic!("no byte range in {desc:?}"));
    let (a, b) = r.split_once("..").expect("range");
    let end = |s: &str| {
        if s == "page_size" {
            p
        } else {
            s.parse().expect("range bound")
        }
    };
    (end(a), end(b))
}

// ---------------------------------------------------------------------------
// The hex notation of §10.1.

fn ascii(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| {
            if (0x20..0x7f).contains(&b) {
                b as char
            } else {
                '.'
            }
        })
        .collect()
}

/// Parses a hex block; checks offsets, gaps and the ASCII column.
fn parse_hex(name: &str, body: &[String]) -> Vec<u8> {
    let mut out = Vec::new();
    for line in body {
        let ctx = || format!("{name}: line {line:?}");
        if line.trim().is_empty() {
            continue;
        }
        if let Some((range, rest)) = line.split_once("  ")
            && let Some((a, b)) = range.split_once("..")
        {
            assert_eq!(rest.trim(), "zero", "{}", ctx());
            let a = usize::from_str_radix(a, 16).expect("hex offset");
            let b = usize::from_str_radix(b, 16).expect("hex offset");
            assert_eq!(a, out.len(), "{}: gap or overlap", ctx());
            assert!(b > a, "{}", ctx());
            out.resize(b, 0);
            continue;
        }
        let (hex, text) = match line.find('|') {
            Some(i) => (&line[..i], Some(&line[i..])),
            None => (line.as_str(), None),
        };
        let mut tokens = hex.split_whitespace();
        let off = tokens.next().expect("offset");
        assert_eq!(off.len(), 6, "{}: offset must have 6 digits", ctx());
        let off = usize::from_str_radix(off, 16).expect("hex offset");
        assert_eq!(off, out.len(), "{}: gap or overlap", ctx());
        let bytes: Vec<u8> = tokens
            .map(|t| {
                assert_eq!(t.len(), 2, "{}: bad byte {t:?}", ctx());
                u8::from_str_radix(t, 16).unwrap_or_else(|_| panic!("{}: bad byte", ctx()))
            })
            .collect();
        assert!((1..=16).contains(&bytes.len()), "{}", ctx());
        if let Some(text) = text {
            let inner = text
                .strip_prefix('|')
                .and_then(|t| t.strip_suffix('|'))
                .unwrap_or_else(|| panic!("{}: ASCII column not in |...|", ctx()));
            assert_eq!(inner, ascii(&bytes), "{}: ASCII column", ctx());
        }
        out.extend_from_slice(&bytes);
    }
    out
}

/// Renders bytes in the notation of §10.1 (zero rows elided when there are
/// at least two of them in a row).
fn dump(bytes: &[u8]) -> String {
    let rows: Vec<&[u8]> = bytes.chunks(16).collect();
    let zero = |r: &[u8]| r.len() == 16 && r.iter().all(|&b| b == 0);
    let mut out = String::new();
    let mut i = 0;
    while i < rows.len() {
        let mut j = i;
        while j < rows.len() && zero(rows[j]) {
            j += 1;
        }
        if j - i >= 2 {
            out += &format!("{:06x}..{:06x}  zero\n", i * 16, j * 16);
            i = j;
            continue;
        }
        let mut hex = format!("{:06x} ", i * 16);
        for (k, b) in rows[i].iter().enumerate() {
            if k == 8 {
                hex.push(' ');
            }
            hex += &format!(" {b:02x}");
        }
        out += &format!("{hex:<57} |{}|\n", ascii(rows[i]));
        i += 1;
    }
    out
}

#[test]
fn hex_notation_round_trips() {
    let mut bytes = vec![0u8; 100];
    bytes.extend(b"|x|\n\x00\xff".iter());
    bytes.extend(vec![0u8; 40]);
    let body: Vec<String> = dump(&bytes).lines().map(str::to_string).collect();
    assert_eq!(parse_hex("round trip", &body), bytes);
}

/// A test vector of §10: source bytes, build parameters, sidecar bytes.
struct Vector {
    source: Vec<u8>,
    opts: BuildOptions,
    sidecar: Vec<u8>,
    /// `layout=1.1`: the sidecar as a 1.0 or 1.1 writer wrote it (§10.7).
    legacy: bool,
    /// The name of the source block (the vector's own, or `source=NAME`).
    of: String,
}

fn vectors(spec: &str) -> BTreeMap<String, Vector> {
    let mut sources = BTreeMap::new();
    let mut sidecars = BTreeMap::new();
    for (info, body) in fences(spec) {
        let mut words = info.split_whitespace();
        if words.next() != Some("hex") {
            continue;
        }
        let mut kv = BTreeMap::new();
        for w in words {
            let (k, v) = w
                .split_once('=')
                .unwrap_or_else(|| panic!("bad info word {w:?} in {info:?}"));
            kv.insert(k.to_string(), v.to_string());
        }
        if let Some(name) = kv.remove("sidecar") {
            // `source=NAME`: the source of another vector.
            let source = kv.remove("source").unwrap_or_else(|| name.clone());
            let legacy = match kv.remove("layout").as_deref() {
                None => false,
                Some("1.1") => true,
                Some(v) => panic!("{info:?}: bad layout {v:?}"),
            };
            let span = kv
                .remove("span")
                .map(|v| int(&v).unwrap_or_else(|| panic!("{info:?}: bad span {v:?}")));
            let piece_shift = kv
                .remove("piece_shift")
                .map(|v| int(&v).unwrap_or_else(|| panic!("{info:?}: bad piece_shift {v:?}")));
            let plain = match kv.remove("plain").as_deref() {
                None => false,
                Some("1") => true,
                Some(v) => panic!("{info:?}: bad plain {v:?}"),
            };
            // `time=ZONE`: with a time index, its format detected, stamps
            // without a zone read in ZONE (§12).
            let time = kv.remove("time").map(|tz| lidx::TimeOptions {
                format: None,
                tz: Some(tz),
            });
            let mut param = |k: &str| -> u64 {
                kv.remove(k)
                    .and_then(|v| int(&v))
                    .unwrap_or_else(|| panic!("{info:?}: missing {k}"))
            };
            let opts = BuildOptions {
                spacing: param("spacing"),
                page_size: param("page_size") as u32,
                buffer_size: 1 << 17,
                span: span.unwrap_or(DEFAULT_SPAN),
                piece_shift: piece_shift.unwrap_or(16) as u8,
                plain,
                time,
                threads: 0,
            };
            assert!(kv.is_empty(), "{info:?}: unexpected parameters {kv:?}");
            let bytes = parse_hex(&info, &body);
            assert!(
                sidecars
                    .insert(name, (source, opts, bytes, legacy))
                    .is_none(),
                "{info:?} twice"
            );
        } else if let Some(name) = kv.remove("source") {
            assert!(kv.is_empty(), "{info:?}: unexpected parameters");
            let bytes = parse_hex(&info, &body);
            assert!(sources.insert(name, bytes).is_none(), "{info:?} twice");
        } else {
            panic!("hex block {info:?} is neither source= nor sidecar=");
        }
    }
    for n in sources.keys() {
        assert!(sidecars.contains_key(n), "vector {n}: no sidecar block");
    }
    sidecars
        .into_iter()
        .map(|(n, (of, opts, sidecar, legacy))| {
            let source = sources
                .get(&of)
                .unwrap_or_else(|| panic!("vector {n}: no source block {of}"))
                .clone();
            (
                n,
                Vector {
                    source,
                    opts,
                    sidecar,
                    legacy,
                    of,
                },
            )
        })
        .collect()
}

/// The span a sidecar block without `span=` was built with (§10.1; not
/// the writer's default since 1.5).
const DEFAULT_SPAN: u64 = 1_048_576;

fn build(source: &[u8], opts: &BuildOptions) -> Vec<u8> {
    lidx::build_to_vec(&MemSource::new(source.to_vec()), opts).expect("build")
}

/// A page as the 8-byte words `NodeView::parse` wants (memory order).
fn words(page: &[u8]) -> Vec<u64> {
    page.chunks(8)
        .map(|c| u64::from_ne_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

/// All checkpoints of a sidecar, read leaf by leaf (R-27).
fn checkpoints(sidecar: &[u8]) -> Vec<(u64, u64)> {
    let sb = Superblock::decode(&sidecar[..format::SUPERBLOCK_LEN]).expect("superblock");
    let p = sb.page_size as usize;
    let mut out = Vec::new();
    for id in sb.first_leaf..=sb.last_leaf {
        let w = words(&sidecar[id as usize * p..(id as usize + 1) * p]);
        let v = NodeView::parse(&w, id).expect("node");
        if v.level == 0 {
            out.extend(v.sorted_entries().iter().map(|e| (e.0, e.1)));
        }
    }
    out
}

// ---------------------------------------------------------------------------
// §2: the CRC.

/// CRC-32/ISO-HDLC bit by bit, from the parameters stated in §2.
fn crc_from_parameters(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    crc ^ 0xFFFF_FFFF
}

#[test]
fn crc_is_the_one_named() {
    let s = spec();
    for text in [
        "CRC-32/ISO-HDLC",
        "`0x04C11DB7`",
        "`0xEDB88320`",
        "`0xFFFFFFFF`",
        "**`0xCBF43926`**",
        "`26 39 F4 CB`",
    ] {
        assert!(s.contains(text), "spec §2 lacks {text:?}");
    }
    assert_eq!(format::crc32(b"123456789"), 0xCBF4_3926);
    assert_eq!(crc_from_parameters(b"123456789"), 0xCBF4_3926);
    assert_eq!(0xCBF4_3926u32.to_le_bytes(), [0x26, 0x39, 0xF4, 0xCB]);
    let data: Vec<u8> = (0..5000u32).map(|i| (i * 7919 % 251) as u8).collect();
    for len in [0, 1, 3, 64, 255, 5000] {
        assert_eq!(
            format::crc32(&data[..len]),
            crc_from_parameters(&data[..len])
        );
    }
}

// ---------------------------------------------------------------------------
// §3: the superblock table.

/// A superblock with a distinct value in every field, and the bytes each
/// field must encode to, by the field names of table 1.
fn sentinel_superblock() -> (Superblock, BTreeMap<&'static str, Vec<u8>>) {
    let name: Vec<u8> = (0x80..0xe0).collect();
    let sb = Superblock {
        version_major: 0x0a09,
        version_minor: 0x0c0b,
        page_size: 0x1211_100f,
        incompat_features: 0x1615_1413,
        compat_features: 0x1a19_1817,
        key_kind: 0x1b,
        source_kind: 0x1c,
        line_count: 0x2423_2221_201f_1e1d,
        spacing: 0x2c2b_2a29_2827_2625,
        checkpoint_count: 0x3433_3231_302f_2e2d,
        root_page: 0x3837_3635,
        height: 0x3c3b_3a39,
        leaf_count: 0x403f_3e3d,
        page_count: 0x4443_4241,
        first_leaf: 0x4847_4645,
        last_leaf: 0x4c4b_4a49,
        head_pages: 0x7776_7574,
        time_page: 0x7b7a_7978,
        fingerprint: Fingerprint {
            size: 0x5453_5251_504f_4e4d,
            mtime_sec: 0x5c5b_5a59_5857_5655,
            mtime_nsec: 0x605f_5e5d,
            head_crc: 0x6463_6261,
            tail_crc: 0x6867_6665,
        },
        source_name: name.clone(),
        gzip: GzipFields {
            text_len: 0xe7e6_e5e4_e3e2_e1e0,
            span: 0xebea_e9e8,
            ap_count: 0xefee_edec,
            ap_first_page: 0xf3f2_f1f0,
            ap_pages: 0xf7f6_f5f4,
            blob_pages: 0xfbfa_f9f8,
            piece_shift: 0x1a,
            piece_page: 0x7f7e_7d7c,
        },
    };
    let mut m: BTreeMap<&'static str, Vec<u8>> = BTreeMap::new();
    m.insert("magic", format::MAGIC.to_vec());
    m.insert("version_major", sb.version_major.to_le_bytes().to_vec());
    m.insert("version_minor", sb.version_minor.to_le_bytes().to_vec());
    m.insert("page_size", sb.page_size.to_le_bytes().to_vec());
    m.insert(
        "incompat_features",
        sb.incompat_features.to_le_bytes().to_vec(),
    );
    m.insert("compat_features", sb.compat_features.to_le_bytes().to_vec());
    m.insert("key_kind", vec![sb.key_kind]);
    m.insert("source_kind", vec![sb.source_kind]);
    m.insert("line_count", sb.line_count.to_le_bytes().to_vec());
    m.insert("source_size", sb.fingerprint.size.to_le_bytes().to_vec());
    m.insert("spacing", sb.spacing.to_le_bytes().to_vec());
    m.insert(
        "checkpoint_count",
        sb.checkpoint_count.to_le_bytes().to_vec(),
    );
    m.insert("root_page", sb.root_page.to_le_bytes().to_vec());
    m.insert("height", sb.height.to_le_bytes().to_vec());
    m.insert("leaf_count", sb.leaf_count.to_le_bytes().to_vec());
    m.insert("page_count", sb.page_count.to_le_bytes().to_vec());
    m.insert("first_leaf", sb.first_leaf.to_le_bytes().to_vec());
    m.insert("last_leaf", sb.last_leaf.to_le_bytes().to_vec());
    m.insert(
        "fingerprint_block",
        (format::FINGERPRINT_BLOCK as u32).to_le_bytes().to_vec(),
    );
    m.insert(
        "mtime_nsec",
        sb.fingerprint.mtime_nsec.to_le_bytes().to_vec(),
    );
    m.insert("mtime_sec", sb.fingerprint.mtime_sec.to_le_bytes().to_vec());
    m.insert("head_crc", sb.fingerprint.head_crc.to_le_bytes().to_vec());
    m.insert("tail_crc", sb.fingerprint.tail_crc.to_le_bytes().to_vec());
    m.insert("source_name_len", vec![name.len() as u8]);
    m.insert("head_pages", sb.head_pages.to_le_bytes().to_vec());
    m.insert("time_page", sb.time_page.to_le_bytes().to_vec());
    m.insert("source_name", name);
    let g = sb.gzip;
    m.insert("text_len", g.text_len.to_le_bytes().to_vec());
    m.insert("span", g.span.to_le_bytes().to_vec());
    m.insert("ap_count", g.ap_count.to_le_bytes().to_vec());
    m.insert("ap_first_page", g.ap_first_page.to_le_bytes().to_vec());
    m.insert("ap_pages", g.ap_pages.to_le_bytes().to_vec());
    m.insert("blob_pages", g.blob_pages.to_le_bytes().to_vec());
    m.insert("piece_shift", vec![g.piece_shift]);
    m.insert("piece_page", g.piece_page.to_le_bytes().to_vec());
    (sb, m)
}

#[test]
fn superblock_table_matches_encoding() {
    let t = table(&spec(), "Superblock layout");
    let (o, s, ty, f, d) = (
        t.col("Offset"),
        t.col("Size"),
        t.col("Type"),
        t.col("Field"),
        t.col("Description"),
    );
    let (sb, mut want) = sentinel_superblock();
    let bytes = sb.encode();
    assert_eq!(bytes.len(), format::SUPERBLOCK_LEN);
    let mut at = 0usize;
    let mut crc_seen = false;
    for r in &t.rows {
        let off: usize = r[o].parse().expect("decimal offset");
        let size: usize = r[s].parse().expect("decimal size");
        assert_eq!(off, at, "table 1 row {r:?}: gap or overlap");
        assert_eq!(
            type_size(&r[ty], 0),
            Some(size as i64),
            "row {r:?}: size and type disagree"
        );
        at = off + size;
        let field = strip_ticks(&r[f]);
        let got = &bytes[off..off + size];
        match field {
            "reserved" => assert!(got.iter().all(|&b| b == 0), "reserved {off}: {got:?}"),
            "superblock_crc" => {
                let (a, b) = crc_range(&r[d], 0);
                assert_eq!(got, format::crc32(&bytes[a..b]).to_le_bytes(), "R-6");
                assert_eq!((a, b), (0, off), "the CRC covers everything before it");
                crc_seen = true;
            }
            _ => {
                let w = want
                    .remove(field)
                    .unwrap_or_else(|| panic!("table 1 field {field:?} unknown or repeated"));
                assert_eq!(got, &w[..], "field {field} at offset {off}");
                if field == "magic" {
                    let stated = r[d].split('`').nth(1).expect("magic bytes in description");
                    assert_eq!(bytes_cell(&format!("`{stated}`")), format::MAGIC, "R-3");
                }
            }
        }
    }
    assert_eq!(at, format::SUPERBLOCK_LEN, "table 1 must cover 0..256");
    assert!(crc_seen, "table 1 lacks superblock_crc");
    assert!(
        want.is_empty(),
        "fields missing from table 1: {:?}",
        want.keys()
    );

    // A short name: the rest of the name area is zero (R-15).
    let mut short = sb.clone();
    short.source_name = b"app.log".to_vec();
    let b = short.encode();
    assert_eq!(b[112], 7);
    assert_eq!(&b[128..135], b"app.log");
    assert!(b[135..224].iter().all(|&x| x == 0));

    // A plain source's gzip fields are zero (R-16); both kinds are written
    // as 1.2, head-first (R-4, R-19); the kinds and the feature bits are as
    // table 1 says.
    let v1 = build(b"x\n", &BuildOptions::default());
    let plain = Superblock::decode(&v1[..256]).unwrap();
    assert_eq!(plain.gzip, GzipFields::default());
    assert!(v1[224..252].iter().all(|&x| x == 0));
    assert_eq!((plain.version_minor, plain.source_kind), (2, 0));
    assert_eq!(plain.incompat_features, 0);
    assert_eq!(plain.compat_features, format::COMPAT_HEAD_FIRST);
    assert_eq!(format::VERSION_MINOR, 2);
    assert_eq!(format::COMPAT_HEAD_FIRST, 1 << 0);
    assert_eq!(format::SOURCE_KIND_PLAIN, 0);
    assert_eq!(format::SOURCE_KIND_GZIP, 1);
    assert_eq!(format::INCOMPAT_GZIP, 1 << 0);
    assert_eq!(
        format::INCOMPAT_KNOWN,
        format::INCOMPAT_GZIP | format::INCOMPAT_ZSTD
    );
    let desc = |field: &str| -> String {
        let r = t
            .rows
            .iter()
            .find(|r| strip_ticks(&r[f]) == field)
            .unwrap_or_else(|| panic!("table 1 lacks {field}"));
        r[d].clone()
    };
    assert!(desc("source_kind").contains("0 = plain bytes, 1 = gzip"));
    assert!(desc("incompat_features").contains("bit 0 (value 1) = gzip"));
    assert!(desc("version_minor").contains("2 for the head-first layout"));
    assert!(desc("version_minor").contains("0 for a plain source, 1 for a gzip source"));
    assert!(desc("compat_features").contains("bit 0 (value 1) = head-first layout"));
    for field in [
        "text_len",
        "span",
        "ap_count",
        "ap_first_page",
        "ap_pages",
        "blob_pages",
    ] {
        assert!(desc(field).contains("Zero for a plain source"), "{field}");
    }
}

#[test]
fn superblock_decode_follows_section_3_2() {
    let spec = spec();
    let s32 = spec
        .split("### 3.2")
        .nth(1)
        .expect("§3.2")
        .split("\n## ")
        .next()
        .expect("§3.2 body");
    let order: Vec<&str> = [
        "**Magic**",
        "**Length.**",
        "**Major version**",
        "**CRC**",
        "**Incompatible features**",
        "**Field sanity**",
        "**File length**",
    ]
    .into_iter()
    .collect();
    let pos: Vec<usize> = order
        .iter()
        .map(|k| s32.find(k).unwrap_or_else(|| panic!("§3.2 lacks {k}")))
        .collect();
    assert!(pos.windows(2).all(|w| w[0] < w[1]), "§3.2 order {order:?}");

    // The code checks in the same order: build damage that violates
    // several steps at once and expect the earliest step's error.
    use format::SuperblockError as E;
    let v = build(b"x\n", &BuildOptions::default());
    let good: [u8; 256] = v[..256].try_into().unwrap();
    let mut b = good;
    b[1] = b'X';
    b[8] = 2;
    assert_eq!(Superblock::decode(&b), Err(E::NotAnIndex));
    assert!(matches!(
        Superblock::decode(&good[..255]),
        Err(E::Invalid(_))
    ));
    assert_eq!(Superblock::decode(&good[..7]), Err(E::NotAnIndex));
    let mut b = good;
    b[8] = 2; // major 2, CRC now wrong too
    assert!(matches!(Superblock::decode(&b), Err(E::Version(2, 2))));
    let mut sb = Superblock::decode(&good).unwrap();
    sb.incompat_features = 1 << 31;
    sb.height = 0;
    let mut b = sb.encode();
    assert!(matches!(
        Superblock::decode(&b),
        Err(E::Features(0x8000_0000))
    ));
    b[200] ^= 1; // CRC beats features
    assert!(matches!(Superblock::decode(&b), Err(E::Checksum(..))));
    sb.incompat_features = 0;
    assert!(matches!(
        Superblock::decode(&sb.encode()),
        Err(E::Invalid(_))
    ));
}

/// The message of a superblock that fails field sanity (R-15 step 6).
fn invalid(sb: &Superblock) -> String {
    match Superblock::decode(&sb.encode()) {
        Err(format::SuperblockError::Invalid(m)) => m,
        other => panic!("expected a field-sanity failure, got {other:?}"),
    }
}

/// R-15 step 6: R-11 and R-17 compute with the page size and choose their
/// rules by the source kind, so a reader checks R-8 and the source kind
/// first: a superblock that breaks both is reported (and survived) as a bad
/// page size or source kind, never as a count computed from one.
#[test]
fn field_sanity_checks_r8_and_the_source_kind_first() {
    let spec = spec();
    let words: Vec<&str> = spec.split_whitespace().collect();
    assert!(
        words
            .join(" ")
            .contains("R-11, R-17 and R-19 MUST NOT be evaluated before R-8 and the source-kind checks of R-9 and R-16"),
        "R-15 step 6 states the order"
    );
    let plain = Superblock::decode(&build(b"a\nb\n", &BuildOptions::default())[..256]).unwrap();
    let v4 = vectors(&spec).remove("V4").expect("vector V4");
    let gz = Superblock::decode(&v4.sidecar[..256]).unwrap();
    // Page sizes for which leaf_capacity or ap_records is negative or zero
    // (a division by zero in R-17), or simply not allowed.
    for page_size in [0, 8, 16, 32, 55, 768, 1 << 17] {
        let mut sb = plain.clone();
        sb.page_size = page_size;
        sb.checkpoint_count = u64::MAX; // R-11 fails too
        assert!(
            invalid(&sb).contains("page size"),
            "{page_size}: {}",
            invalid(&sb)
        );
        let mut sb = gz.clone();
        sb.page_size = page_size;
        sb.gzip.ap_count = 1_000_000; // R-17 fails too
        sb.checkpoint_count = u64::MAX;
        assert!(
            invalid(&sb).contains("page size"),
            "{page_size}: {}",
            invalid(&sb)
        );
    }
    // R-11 with an unknown source kind: neither source_size nor text_len.
    let mut sb = plain.clone();
    sb.source_kind = 7;
    sb.line_count = sb.fingerprint.size + 1;
    assert!(invalid(&sb).contains("source kind"), "{}", invalid(&sb));
    // R-17 on a superblock whose kind and feature bit disagree (R-16).
    let mut sb = gz.clone();
    sb.incompat_features = 0;
    sb.gzip.ap_count = 0;
    assert!(invalid(&sb).contains("disagree"), "{}", invalid(&sb));
    // Each of R-11 and R-17 alone is still found.
    let mut sb = plain.clone();
    sb.checkpoint_count = u64::MAX;
    assert!(
        invalid(&sb).contains("checkpoint count"),
        "{}",
        invalid(&sb)
    );
    let mut sb = gz;
    sb.gzip.ap_count = 1_000_000;
    assert!(invalid(&sb).contains("access-point"), "{}", invalid(&sb));
}

/// R-18: `mtime_nsec` is below 10^9; a larger value is damage (`corrupt`,
/// page 0, also through `Index`: Table 9, D-46), not a differing time.
#[test]
fn mtime_nsec_at_or_above_a_billion_is_damage() {
    let v = build(b"a\nb\n", &BuildOptions::default());
    let mut sb = Superblock::decode(&v[..256]).unwrap();
    sb.fingerprint.mtime_nsec = 999_999_999;
    assert!(Superblock::decode(&sb.encode()).is_ok());
    for nsec in [1_000_000_000, 1_000_000_001, u32::MAX] {
        sb.fingerprint.mtime_nsec = nsec;
        assert!(
            invalid(&sb).contains("nanoseconds"),
            "{nsec}: {}",
            invalid(&sb)
        );
        let mut b = v.clone();
        b[..256].copy_from_slice(&sb.encode());
        let e = Index::from_parts(
            Box::new(MemSource::new(b"a\nb\n".to_vec())),
            Box::new(MemSource::new(b)),
            (0, nsec),
            1 << 20,
        )
        .expect_err("R-18");
        assert!(matches!(e, Error::Corrupt { page: 0, .. }), "{nsec}: {e}");
    }
}

// ---------------------------------------------------------------------------
// §4: node pages.

#[test]
fn page_header_table_matches_encoding() {
    let t = table(&spec(), "Node page header");
    let (o, s, ty, f, d) = (
        t.col("Offset"),
        t.col("Size"),
        t.col("Type"),
        t.col("Field"),
        t.col("Description"),
    );
    let h = PageHeader {
        crc: 0xa3a2_a1a0,
        kind: 0xa4,
        level: 0xa5,
        count: 0xa7a6,
        page_id: 0xabaa_a9a8,
    };
    let mut bytes = [0xffu8; 16];
    h.encode(&mut bytes);
    let mut want: BTreeMap<&str, Vec<u8>> = BTreeMap::from([
        ("page_crc", h.crc.to_le_bytes().to_vec()),
        ("kind", vec![h.kind]),
        ("level", vec![h.level]),
        ("count", h.count.to_le_bytes().to_vec()),
        ("page_id", h.page_id.to_le_bytes().to_vec()),
    ]);
    // A real sealed page, for the CRC coverage (R-21).
    let mut page = vec![0u8; 512];
    node::encode(&mut page, 7, 0, &[0, 3, 9], &[0, 30, 90], &[]);
    let mut at = 0;
    for r in &t.rows {
        let off: usize = r[o].parse().expect("offset");
        let size: usize = r[s].parse().expect("size");
        assert_eq!(off, at, "table 2 row {r:?}: gap or overlap");
        assert_eq!(type_size(&r[ty], 0), Some(size as i64), "row {r:?}");
        at = off + size;
        let field = strip_ticks(&r[f]);
        let got = &bytes[off..off + size];
        if field == "reserved" {
            assert!(got.iter().all(|&b| b == 0));
            continue;
        }
        let w = want
            .remove(field)
            .unwrap_or_else(|| panic!("table 2 field {field:?} unknown or repeated"));
        assert_eq!(got, &w[..], "field {field}");
        if field == "page_crc" {
            let (a, b) = crc_range(&r[d], page.len());
            assert_eq!((a, b), (4, 512));
            assert_eq!(page[off..off + 4], format::crc32(&page[a..b]).to_le_bytes());
            assert_eq!(format::page_crc(&page), format::crc32(&page[a..b]));
        }
    }
    assert_eq!(at, format::PAGE_HEADER_LEN, "table 2 must cover 0..16");
    assert!(want.is_empty(), "missing from table 2: {:?}", want.keys());
}

fn eytzinger<T: Copy + Default>(sorted: &[T]) -> Vec<T> {
    let mut out = vec![T::default(); sorted.len()];
    eytzinger::layout(sorted, &mut out);
    out
}

/// Checks a body table against a page encoded by the code.
fn check_body(title: &str, level: u8, n: usize, page_size: usize) {
    let t = table(&spec(), title);
    let lines: Vec<u64> = (0..n as u64).map(|i| 1000 + 3 * i).collect();
    let offsets: Vec<u64> = (0..n as u64).map(|i| 70_000 + 11 * i).collect();
    let children: Vec<u32> = if level == 0 {
        Vec::new()
    } else {
        (0..n as u32).map(|i| 500 + i).collect()
    };
    let mut page = vec![0xeeu8; page_size];
    node::encode(&mut page, 9, level, &lines, &offsets, &children);
    let le64 =
        |v: &[u64]| -> Vec<u8> { eytzinger(v).iter().flat_map(|x| x.to_le_bytes()).collect() };
    let le32 =
        |v: &[u32]| -> Vec<u8> { eytzinger(v).iter().flat_map(|x| x.to_le_bytes()).collect() };
    let mut want: BTreeMap<&str, Vec<u8>> =
        BTreeMap::from([("lines", le64(&lines)), ("offsets", le64(&offsets))]);
    if level > 0 {
        want.insert("children", le32(&children));
    }
    check_body_rows(title, &t, &page, n, want);
}

/// Walks the rows of a page-body table (after the 16-byte header) for `n`
/// entries: no gap or overlap, sizes that agree with the types, zero
/// padding, the body reaching the end of `page`, and every other row a
/// field of `want` holding exactly those bytes (each once, none missing).
fn check_body_rows(
    title: &str,
    t: &Table,
    page: &[u8],
    n: usize,
    mut want: BTreeMap<&str, Vec<u8>>,
) {
    let (o, s, ty, f) = (
        t.col("Offset"),
        t.col("Size"),
        t.col("Type"),
        t.col("Field"),
    );
    let (ni, pi) = (n as i64, page.len() as i64);
    let mut at = format::PAGE_HEADER_LEN as i64;
    for r in &t.rows {
        let off = eval(&r[o], ni, pi);
        let size = eval(&r[s], ni, pi);
        assert_eq!(off, at, "{title} row {r:?} (n={n}, P={pi}): gap");
        assert!(size >= 0, "{title} row {r:?}: negative size at n={n}");
        if let Some(ts) = type_size(&r[ty], ni) {
            assert_eq!(ts, size, "{title} row {r:?}: type and size disagree");
        }
        at = off + size;
        let got = &page[off as usize..(off + size) as usize];
        match strip_ticks(&r[f]) {
            "padding" => assert!(got.iter().all(|&b| b == 0), "{title}: padding"),
            field => {
                let w = want
                    .remove(field)
                    .unwrap_or_else(|| panic!("{title}: field {field:?} unknown or repeated"));
                assert_eq!(got, &w[..], "{title}: field {field} at n={n}");
            }
        }
    }
    assert_eq!(at, pi, "{title} must reach the end of the page");
    assert!(want.is_empty(), "{title} lacks {:?}", want.keys());
}

#[test]
fn body_tables_match_encoding() {
    for p in [512usize, 4096] {
        let leaf = format::leaf_capacity(p as u32);
        let internal = format::internal_capacity(p as u32);
        for n in [1, 2, 5, 7, leaf] {
            check_body("Leaf body", 0, n, p);
        }
        for n in [1, 2, 5, 7, internal] {
            check_body("Internal body", 1, n, p);
        }
    }
    let s = spec();
    for p in [512u32, 4096, 65536] {
        let text = format!(
            "P = {p}{}: {} and {}",
            if p == 4096 { " (the default)" } else { "" },
            format::leaf_capacity(p),
            format::internal_capacity(p)
        );
        assert!(s.contains(&text), "spec §4.2 lacks {text:?}");
    }
}

#[test]
fn eytzinger_worked_example() {
    let s = spec();
    let t = table(&s, "The 7 keys in Eytzinger order");
    let row = |name: &str| -> Vec<u64> {
        if t.header[0] == name {
            return t.header[1..].iter().map(|c| c.parse().unwrap()).collect();
        }
        let r = t
            .rows
            .iter()
            .find(|r| r[0] == name)
            .unwrap_or_else(|| panic!("no row {name:?}"));
        r[1..].iter().map(|c| c.parse().unwrap()).collect()
    };
    let sorted = [10u64, 20, 30, 40, 50, 60, 70];
    let stored = eytzinger(&sorted);
    assert_eq!(stored, [40, 20, 60, 10, 30, 50, 70]);
    assert_eq!(row("Stored index e"), (0..7).collect::<Vec<u64>>());
    assert_eq!(row("Position k"), (1..8).collect::<Vec<u64>>());
    assert_eq!(row("Key"), stored);
    let mut perm = [0usize; 7];
    eytzinger::permutation(&mut perm);
    assert_eq!(
        row("Sorted rank"),
        perm.iter().map(|&r| r as u64).collect::<Vec<_>>()
    );
    assert!(s.contains("`[40, 20, 60, 10, 30, 50, 70]`"));

    // The smaller examples named in the text.
    assert_eq!(eytzinger(&['a', 'b', 'c', 'd']), ['c', 'b', 'd', 'a']);
    assert_eq!(eytzinger(&['a', 'b']), ['b', 'a']);

    // Table 6: replay the pseudo-code of §4.3 and compare with the code.
    let t = table(&s, "Predecessor search in the 7-key example");
    let (tc, pc, rc) = (t.col("Target t"), t.col("Path k"), t.col("Result"));
    let keys: Vec<u64> = stored.iter().map(|k| k.to_le()).collect();
    for r in &t.rows {
        let target: u64 = r[tc].parse().unwrap();
        let mut k = 1usize;
        let mut path = vec![k];
        while k <= stored.len() {
            k = 2 * k + (stored[k - 1] <= target) as usize;
            path.push(k);
        }
        assert_eq!(
            ints(&r[pc]),
            path.iter().map(|&x| x as u64).collect::<Vec<_>>()
        );
        let j = k >> (k.trailing_zeros() + 1);
        let spec_answer = j.checked_sub(1);
        let code = eytzinger::predecessor(&keys, target);
        assert_eq!(code, spec_answer, "t={target}");
        let want = sorted.iter().rev().find(|&&x| x <= target).copied();
        assert_eq!(code.map(|e| stored[e]), want, "t={target}");
        match code {
            None => assert_eq!(r[rc], "none"),
            Some(e) => assert_eq!(ints(&r[rc]), [e as u64, stored[e]], "row {r:?}"),
        }
    }
}

// ---------------------------------------------------------------------------
// §5: the checkpoint rule.

/// Decodes a Rust byte-string literal `b"..."`.
fn byte_string(lit: &str) -> Vec<u8> {
    let body = lit
        .strip_prefix("b\"")
        .and_then(|l| l.strip_suffix('"'))
        .unwrap_or_else(|| panic!("not a byte string: {lit:?}"));
    let mut out = Vec::new();
    let mut it = body.bytes();
    while let Some(b) = it.next() {
        if b != b'\\' {
            out.push(b);
            continue;
        }
        match it.next() {
            Some(b'n') => out.push(b'\n'),
            Some(b'r') => out.push(b'\r'),
            Some(b't') => out.push(b'\t'),
            Some(b'0') => out.push(0),
            Some(b'\\') => out.push(b'\\'),
            Some(b'"') => out.push(b'"'),
            Some(b'x') => {
                let h = [it.next().unwrap(), it.next().unwrap()];
                out.push(u8::from_str_radix(std::str::from_utf8(&h).unwrap(), 16).unwrap());
            }
            e => panic!("unknown escape {e:?} in {lit:?}"),
        }
    }
    out
}

#[test]
fn checkpoint_examples() {
    let t = table(&spec(), "Checkpoint examples");
    let (sc, spc, cc, lc) = (
        t.col("Source"),
        t.col("Spacing"),
        t.col("Checkpoints"),
        t.col("Lines"),
    );
    for r in &t.rows {
        let src = byte_string(strip_ticks(&r[sc]));
        let spacing: u64 = r[spc].parse().unwrap();
        let want: Vec<(u64, u64)> = ints(&r[cc]).chunks(2).map(|c| (c[0], c[1])).collect();
        let lines: u64 = r[lc].parse().unwrap();
        for page_size in [512, 4096] {
            let opts = BuildOptions {
                spacing,
                page_size,
                buffer_size: 3,
                ..BuildOptions::default()
            };
            let v = build(&src, &opts);
            assert_eq!(checkpoints(&v), want, "row {r:?}");
            let sb = Superblock::decode(&v[..256]).unwrap();
            assert_eq!(sb.line_count, lines, "row {r:?}: line count");
            assert_eq!(sb.checkpoint_count, want.len() as u64);
        }
        // R-31: the line count of §2.
        let newlines = src.iter().filter(|&&b| b == b'\n').count() as u64;
        let extra = u64::from(src.last().is_some_and(|&b| b != b'\n'));
        assert_eq!(newlines + extra, lines, "row {r:?}: §2 line count");
    }
}

/// A source or sidecar in memory that records its reads: the bytes
/// returned (R-32) and the page of each read (R-54).
struct Recording {
    inner: MemSource,
    page_size: u64,
    bytes: std::sync::atomic::AtomicU64,
    pages: std::sync::Mutex<Vec<u64>>,
}

impl Recording {
    fn new(data: Vec<u8>, page_size: u64) -> std::sync::Arc<Recording> {
        std::sync::Arc::new(Recording {
            inner: MemSource::new(data),
            page_size,
            bytes: Default::default(),
            pages: Default::default(),
        })
    }

    /// Bytes read since the last call.
    fn take_bytes(&self) -> u64 {
        self.bytes.swap(0, std::sync::atomic::Ordering::SeqCst)
    }
}

impl lidx::io::ReadAt for Recording {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read_at(&self, buf: &mut [u8], offset: u64) -> lidx::Result<usize> {
        let n = self.inner.read_at(buf, offset)?;
        self.bytes
            .fetch_add(n as u64, std::sync::atomic::Ordering::SeqCst);
        if n > 0 {
            let (first, last) = (
                offset / self.page_size,
                (offset + n as u64 - 1) / self.page_size,
            );
            self.pages.lock().unwrap().extend(first..=last);
        }
        Ok(n)
    }

    fn path(&self) -> &Path {
        self.inner.path()
    }
}

/// A `(line, offset)` pair as Table 7a writes it, or None for "—".
fn pair(cell: &str) -> Option<(u64, u64)> {
    match ints(cell)[..] {
        [l, o] => Some((l, o)),
        [] => None,
        _ => panic!("not a checkpoint: {cell:?}"),
    }
}

/// §5.2, R-32: Table 7a replayed (both searches, the bytes of the source
/// read, the answer); then every byte of every source of Tables 7 and 7a:
/// the line that holds it, fewer than 2S source bytes read, and none on a
/// line longer than S.
#[test]
fn line_holding_a_byte_r32() {
    let spec = spec();
    let t = table(&spec, "The line holding byte X");
    let col = |name| t.col(name);
    let build_over = |src: &[u8], spacing: u64| {
        let rec = Recording::new(src.to_vec(), 1);
        let opts = BuildOptions {
            spacing,
            page_size: 512,
            ..BuildOptions::default()
        };
        let index = Index::build_in_memory(Box::new(std::sync::Arc::clone(&rec)), &opts).unwrap();
        rec.take_bytes();
        (rec, index)
    };
    for r in &t.rows {
        let src = byte_string(strip_ticks(&r[col("Source")]));
        let spacing: u64 = r[col("Spacing")].parse().unwrap();
        let x: u64 = r[col("X")].parse().unwrap();
        let (rec, index) = build_over(&src, spacing);
        let cp = index.checkpoint_for_offset(x).unwrap();
        assert_eq!(
            Some((cp.line, cp.offset)),
            pair(&r[col("By offset")]),
            "{r:?}"
        );
        match pair(&r[col("By line l + 1")]) {
            None => assert_eq!(cp.line + 1, index.line_count(), "{r:?}: step 2"),
            Some(want) => {
                let next = index.checkpoint_for_line(cp.line + 1).unwrap();
                assert_eq!((next.line, next.offset), want, "{r:?}: the search by line");
            }
        }
        rec.take_bytes();
        let line = index.line_at(x).unwrap();
        assert_eq!(line.to_string(), r[col("Line")], "{r:?}");
        assert_eq!(rec.take_bytes().to_string(), r[col("Bytes read")], "{r:?}");
        assert_eq!(
            line,
            src[..x as usize].iter().filter(|&&b| b == b'\n').count() as u64,
            "{r:?}: the line of byte {x} in the source"
        );
    }
    let t7 = table(&spec, "Checkpoint examples");
    let rows = t7
        .rows
        .iter()
        .map(|r| (&r[t7.col("Source")], &r[t7.col("Spacing")]))
        .chain(
            t.rows
                .iter()
                .map(|r| (&r[col("Source")], &r[col("Spacing")])),
        );
    for (source, spacing) in rows {
        let src = byte_string(strip_ticks(source));
        let s: u64 = spacing.parse().unwrap();
        let (rec, index) = build_over(&src, s);
        let mut start = 0;
        for line in src.split_inclusive(|&b| b == b'\n') {
            let long = line.len() as u64 > s;
            for x in start..start + line.len() as u64 {
                let ctx = format!("{source} spacing {s}, byte {x}");
                let want = src[..x as usize].iter().filter(|&&b| b == b'\n').count() as u64;
                assert_eq!(index.line_at(x).unwrap(), want, "{ctx}");
                let read = rec.take_bytes();
                assert!(read < 2 * s, "{ctx}: {read} bytes read");
                assert!(
                    !long || read == 0,
                    "{ctx}: {read} bytes of a long line read"
                );
            }
            start += line.len() as u64;
        }
    }
}

// ---------------------------------------------------------------------------
// §10: the test vectors.

#[test]
fn vectors_match_the_code() {
    let s = spec();
    let vs = vectors(&s);
    for name in ["V1", "V2", "V3", "V4", "V5", "V6", "V7", "V8"] {
        assert!(
            vs.contains_key(name),
            "spec §10 must hold vector {name}, has {:?}",
            vs.keys()
        );
    }
    for (name, v) in &vs {
        // A legacy vector (§10.7) is what a 1.0 or 1.1 writer wrote, which
        // tests/support/legacy.rs rebuilds from the 1.2 sidecar.
        let made = |opts: &BuildOptions| {
            let b = build(&v.source, opts);
            if v.legacy { legacy::to_legacy(&b) } else { b }
        };
        let got = made(&v.opts);
        if got != v.sidecar {
            panic!(
                "vector {name}: the spec's bytes differ from the code's; the code gives:\n{}",
                dump(&got)
            );
        }
        // The output does not depend on the read buffer size (§10.1).
        for buffer_size in [1, 7, 4096] {
            let opts = BuildOptions {
                buffer_size,
                ..v.opts.clone()
            };
            assert_eq!(made(&opts), v.sidecar, "{name} buffer {buffer_size}");
        }
        // Written as 1.2, head-first (R-4, R-19), unless legacy.
        let sb = Superblock::decode(&v.sidecar[..256]).expect("vector superblock");
        assert_eq!(sb.head_first(), !v.legacy, "{name}");
        let minor = match (v.legacy, sb.is_zstd(), sb.piece_len().is_some()) {
            (true, _, _) => 0,
            (false, true, _) => 3,
            (false, false, true) => 5,
            (false, false, false) => 2,
        };
        assert_eq!(sb.version_minor, minor, "{name}");
        // A vector is a valid sidecar that the reader opens (R-13, R-15).
        assert_eq!(
            sb.page_count as usize * sb.page_size as usize,
            v.sidecar.len()
        );
        let index = Index::from_parts(
            Box::new(MemSource::new(v.source.clone())),
            Box::new(MemSource::new(v.sidecar.clone())),
            (0, 0),
            1 << 20,
        )
        .expect("open vector");
        assert_eq!(index.verdict(), Verdict::Unchanged);
        index.verify(true).expect("vector verifies");
    }
    // Vector V2 has an internal node, first, as §10.3 says; V6 is the same
    // tree with the root last (§10.7); the others are single leaves.
    let v2 = Superblock::decode(&vs["V2"].sidecar[..256]).unwrap();
    assert_eq!(
        (v2.height, v2.root_page, v2.page_count, v2.head_pages),
        (2, 1, 4, 2)
    );
    assert_eq!((v2.first_leaf, v2.last_leaf), (2, 3));
    let v6 = Superblock::decode(&vs["V6"].sidecar[..256]).unwrap();
    assert_eq!(
        (v6.height, v6.root_page, v6.page_count, v6.head_pages),
        (2, 3, 4, 0)
    );
    assert_eq!((v6.first_leaf, v6.last_leaf), (1, 2));
    assert_eq!(vs["V6"].source, vs["V2"].source);
    for name in ["V1", "V3", "V4", "V5"] {
        let sb = Superblock::decode(&vs[name].sidecar[..256]).unwrap();
        assert_eq!((sb.height, sb.head_pages), (1, 2), "{name}");
    }
    // V3 and V4 are gzip sidecars with the layout §10.4 and §10.5 describe.
    let v3 = Superblock::decode(&vs["V3"].sidecar[..256]).unwrap();
    let g = v3.gzip;
    assert_eq!((v3.source_kind, v3.page_count), (1, 3));
    assert_eq!(
        (g.ap_count, g.ap_first_page, g.ap_pages, g.blob_pages),
        (1, 2, 1, 0)
    );
    assert_eq!(vs["V3"].opts.span, DEFAULT_SPAN);
    assert!(
        spec().contains(&format!(
            "the reference implementation's default is {},",
            BuildOptions::default().span
        )),
        "§11.2: default span"
    );
    let v4 = Superblock::decode(&vs["V4"].sidecar[..256]).unwrap();
    let g = v4.gzip;
    assert_eq!((v4.source_kind, v4.page_count), (1, 4));
    assert_eq!(
        (g.ap_count, g.ap_first_page, g.ap_pages, g.blob_pages),
        (3, 2, 1, 1)
    );
}

/// Parses a `Bytes` cell: `` `aa bb` `` or `` `00` × N ``.
fn bytes_cell(cell: &str) -> Vec<u8> {
    if let Some((b, n)) = cell.split_once('×') {
        let b = u8::from_str_radix(strip_ticks(b), 16).expect("byte");
        return vec![b; n.trim().parse().expect("count")];
    }
    strip_ticks(cell)
        .split_whitespace()
        .map(|t| u8::from_str_radix(t, 16).expect("hex byte"))
        .collect()
}

#[test]
fn annotations_match_the_vectors() {
    let s = spec();
    let vs = vectors(&s);
    let sb_table = table(&s, "Superblock layout");
    let sb_offsets: BTreeMap<String, usize> = sb_table
        .rows
        .iter()
        .map(|r| (strip_ticks(&r[3]).to_string(), r[0].parse().unwrap()))
        .collect();
    let hdr_table = table(&s, "Node page header");
    let hdr_offsets: BTreeMap<String, usize> = hdr_table
        .rows
        .iter()
        .map(|r| (strip_ticks(&r[3]).to_string(), r[0].parse().unwrap()))
        .collect();
    let anns = tables(&s, "Annotation of vector ");
    assert!(anns.len() >= 4, "expected annotations of V1 and V2");
    let mut annotated = BTreeSet::new();
    for t in &anns {
        let name = t
            .caption
            .split("Annotation of vector ")
            .nth(1)
            .and_then(|r| r.split([',', ' ']).next())
            .expect("vector name");
        let v = vs
            .get(name)
            .unwrap_or_else(|| panic!("{}: no vector {name}", t.caption));
        annotated.insert(name.to_string());
        let p = v.opts.page_size as usize;
        let (oc, bc, fc, vc) = (
            t.col("Offset"),
            t.col("Bytes"),
            t.col("Field"),
            t.col("Value"),
        );
        for r in &t.rows {
            let off = int(&r[oc]).expect("offset") as usize;
            let want = bytes_cell(&r[bc]);
            let got = &v.sidecar[off..off + want.len()];
            assert_eq!(got, &want[..], "{}: row {r:?}", t.caption);
            // A numeric value must be what the bytes say.
            let first = r[vc].split_whitespace().next().unwrap_or("");
            if let (Some(val), 1 | 2 | 4 | 8) = (int(first), want.len()) {
                let mut w = [0u8; 8];
                w[..want.len()].copy_from_slice(&want);
                assert_eq!(u64::from_le_bytes(w), val, "{}: row {r:?}", t.caption);
            }
            // The field sits where tables 1-4 put it.
            let field = strip_ticks(&r[fc]);
            let (page, at) = (off / p, off % p);
            if page == 0 {
                if let Some(&o) = sb_offsets.get(field)
                    && field != "reserved"
                {
                    assert_eq!(at, o, "{}: row {r:?}", t.caption);
                }
                continue;
            }
            if let Some(&o) = hdr_offsets.get(field) {
                if field != "reserved" {
                    assert_eq!(at, o, "{}: row {r:?}", t.caption);
                }
                continue;
            }
            let pg = &v.sidecar[page * p..(page + 1) * p];
            let n = u16::from_le_bytes([pg[6], pg[7]]) as i64;
            if field == "payload" {
                // A blob page's payload (Table 21).
                assert_eq!(pg[4], PageKind::Blob as u8, "{}: row {r:?}", t.caption);
                let bt = table(&s, "Blob page body");
                let row = bt.rows.iter().find(|b| strip_ticks(&b[3]) == "payload");
                let o = eval(&row.expect("payload row")[0], n, p as i64);
                assert_eq!(at as i64, o, "{}: row {r:?}", t.caption);
                assert_eq!(want.len() as i64, n, "{}: row {r:?}", t.caption);
                continue;
            }
            // An access-point record's field (Tables 19 and 20) or a zstd
            // frame record's (Tables 29 and 30): where the record table says,
            // and its CRC field over the text range the row names.
            // (field prefix, page kind, body table, record table, its
            // number, record length, CRC field, how to get the text)
            type RecordKind = (
                &'static str,
                PageKind,
                &'static str,
                &'static str,
                &'static str,
                i64,
                &'static str,
                fn(&[u8]) -> Vec<u8>,
            );
            let records: [RecordKind; 2] = [
                (
                    "records[",
                    PageKind::AccessPoints,
                    "Access-point page body",
                    "Access-point record",
                    "Table 19",
                    gzfmt::AP_RECORD_LEN as i64,
                    "span_crc",
                    gunzip,
                ),
                (
                    "frames[",
                    PageKind::Frames,
                    "Frame-record page body",
                    "Frame record",
                    "Table 29",
                    zfmt::FRAME_RECORD_LEN as i64,
                    "text_crc",
                    unzstd,
                ),
            ];
            if let Some((rec, sub, (_, kind, body, record, number, len, crc_field, decode))) =
                records.iter().find_map(|k| {
                    field
                        .strip_prefix(k.0)
                        .and_then(|f| f.split_once("]."))
                        .map(|(rec, sub)| (rec, sub, k))
                })
            {
                assert_eq!(pg[4], *kind as u8, "{}", t.caption);
                let i: i64 = rec.parse().expect("record index");
                let bt = table(&s, body);
                let row = bt.rows.iter().find(|b| strip_ticks(&b[3]) == "records");
                let base = eval(&row.expect("records row")[0], n, p as i64);
                let rt = table(&s, record);
                let row = rt
                    .rows
                    .iter()
                    .find(|b| strip_ticks(&b[3]) == sub)
                    .unwrap_or_else(|| panic!("{number} has no {sub}"));
                let o = base + i * len + eval(&row[0], 0, 0);
                assert_eq!(at as i64, o, "{}: row {r:?}", t.caption);
                assert_eq!(
                    Some(want.len() as i64),
                    type_size(&row[2], 0),
                    "{}: row {r:?}",
                    t.caption
                );
                if sub == *crc_field {
                    // "CRC of the text A..B": those bytes of the text.
                    let (_, range) = r[vc]
                        .split_once("CRC of the text ")
                        .unwrap_or_else(|| panic!("{}: row {r:?}", t.caption));
                    let (a, b) = range
                        .split_once("..")
                        .map(|(a, b)| (ints(a)[0] as usize, ints(b)[0] as usize))
                        .expect("a range");
                    let text = decode(&v.source);
                    let crc = crc_from_parameters(&text[a..b]).to_le_bytes();
                    assert_eq!(want, crc, "{}: row {r:?}", t.caption);
                }
                continue;
            }
            if pg[4] == PageKind::TimeHeader as u8 {
                // A time header's field (Table 25): at byte 16 + its
                // offset; the names and the year table follow the fixed
                // fields.
                let bt = table(&s, "Time header body");
                let (fl, zl) = (pg[16 + 44] as usize, pg[16 + 45] as usize);
                let names = 16 + 48;
                let o = match field {
                    "format" => names,
                    "zone" => names + fl,
                    f if f.starts_with("years[") => {
                        let (i, sub) = f["years[".len()..].split_once("].").expect("years[i].x");
                        let i: usize = i.parse().expect("year index");
                        names + fl + zl + 12 * i + if sub == "year" { 8 } else { 0 }
                    }
                    f => {
                        let row = bt
                            .rows
                            .iter()
                            .find(|b| strip_ticks(&b[3]) == f)
                            .unwrap_or_else(|| panic!("Table 25 has no {f}"));
                        assert_eq!(Some(want.len()), width(&row[2]), "{}: row {r:?}", t.caption);
                        16 + int(&row[0]).expect("fixed offset") as usize
                    }
                };
                assert_eq!(at, o, "{}: row {r:?}", t.caption);
                continue;
            }
            if let Some((base, idx)) = field.split_once('[') {
                let i: i64 = idx.trim_end_matches(']').parse().expect("index");
                let body = if pg[4] == 1 {
                    "Leaf body"
                } else {
                    "Internal body"
                };
                let bt = table(&s, body);
                let row = bt
                    .rows
                    .iter()
                    .find(|b| strip_ticks(&b[3]) == base)
                    .unwrap_or_else(|| panic!("{body} has no {base}"));
                let elem = type_size(&row[2], 1).unwrap();
                let o = eval(&row[0], n, p as i64) + i * elem;
                assert_eq!(at as i64, o, "{}: row {r:?}", t.caption);
                assert_eq!(want.len() as i64, elem, "{}: row {r:?}", t.caption);
            }
        }
    }
    for name in vs.keys() {
        assert!(annotated.contains(name), "vector {name} is not annotated");
    }
}

// ---------------------------------------------------------------------------
// §6: the fingerprint.

#[test]
fn fingerprint_table() {
    use lidx::ingest::fingerprint::compute;
    let t = table(&spec(), "What the fingerprint and the content check detect");
    let (cc, vc) = (t.col("Case"), t.col("Verdict"));
    let text = |len: usize, seed: usize| -> Vec<u8> {
        (0..len)
            .map(|i| {
                if i % 61 == 60 {
                    b'\n'
                } else {
                    b'a' + ((i + seed) % 23) as u8
                }
            })
            .collect()
    };
    let flip = |v: &mut Vec<u8>, at: usize| v[at] = if v[at] == b'#' { b'%' } else { b'#' };
    // The first newline at or after `at`.
    let nl = |v: &[u8], at: usize| at + v[at..].iter().position(|&b| b == b'\n').unwrap();
    let old_mtime = (1_700_000_000i64, 123_456_789u32);
    let new_mtime = (1_700_000_100i64, 0u32);
    // A gzip archive of `parts`, one member each (stored blocks at level
    // 0, so that equal texts make equal members).
    let gz = |parts: &[Vec<u8>], level: u32| -> Vec<u8> {
        let mut out = Vec::new();
        for p in parts {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
            std::io::Write::write_all(&mut e, p).unwrap();
            out.extend(e.finish().unwrap());
        }
        out
    };
    let mut seen = BTreeSet::new();
    for r in &t.rows {
        let case = r[cc].as_str();
        seen.insert(case.to_string());
        let mut old = text(300_000, 0);
        if case == "F-12" {
            old = text(100_000, 0);
        }
        let n = old.len();
        let mut now = old.clone();
        let more = |v: &mut Vec<u8>| v.extend_from_slice(&text(5000, 0));
        let mtime = match case {
            "F-1" => old_mtime,
            "F-2" => new_mtime,
            "F-3" => {
                more(&mut now);
                new_mtime
            }
            "F-4" => {
                now.truncate(n - 1);
                new_mtime
            }
            "F-5" => {
                flip(&mut now, 1000);
                old_mtime
            }
            "F-6" => {
                flip(&mut now, n - 1000);
                old_mtime
            }
            "F-7" => {
                flip(&mut now, n / 2);
                new_mtime
            }
            "F-8" => {
                flip(&mut now, n / 2);
                old_mtime
            }
            "F-9" => {
                flip(&mut now, 1000);
                more(&mut now);
                new_mtime
            }
            "F-10" => {
                flip(&mut now, n - 1000);
                more(&mut now);
                new_mtime
            }
            "F-11" => {
                flip(&mut now, n / 2);
                more(&mut now);
                new_mtime
            }
            "F-12" => {
                flip(&mut now, n / 2);
                old_mtime
            }
            "F-13" => {
                now.truncate(10);
                now.extend_from_slice(&old[10..]);
                now.extend_from_slice(b"more\n");
                new_mtime
            }
            "F-14" | "F-15" => {
                let parts: Vec<Vec<u8>> = if case == "F-14" {
                    vec![old.clone()]
                } else {
                    (0..4).map(|k| text(100_000, k)).collect()
                };
                old = gz(&parts, 6);
                now = old.clone();
                new_mtime
            }
            "F-16" => {
                let parts: Vec<Vec<u8>> = (0..4).map(|k| text(100_000, k)).collect();
                old = gz(&parts, 0);
                let swapped = [&parts[0], &parts[2], &parts[1], &parts[3]].map(|p| p.clone());
                now = gz(&swapped, 0);
                assert_eq!(now.len(), old.len(), "F-16: same size");
                new_mtime
            }
            "F-17" => {
                let a = nl(&now, n / 2);
                now[a] = b'x';
                let b = a + 70_000;
                assert_ne!(now[b], b'\n');
                now[b] = b'\n';
                new_mtime
            }
            "F-18" => {
                let a = nl(&now, n / 2);
                now.swap(a, a + 1);
                new_mtime
            }
            other => panic!("table 8 case {other} has no scenario in tests/spec.rs"),
        };
        // The sidecar of `old` as indexed at `old_mtime`, then the verdict
        // on `now` after the content check where one runs.
        let info = lidx::ingest::SourceInfo {
            mtime: old_mtime,
            name: Vec::new(),
        };
        let opts = BuildOptions::default();
        let mut pages = vec![0u8; opts.page_size as usize];
        let sb = lidx::ingest::build(
            &MemSource::new(old.clone()),
            &info,
            &opts,
            &mut pages,
            &mut |_| true,
        )
        .unwrap();
        pages[..256].copy_from_slice(&sb.encode());
        let stat = lidx::SourceStat {
            mtime: Some(mtime),
            memo: None,
            remote: false,
        };
        let mut index = Index::from_parts_with(
            Box::new(MemSource::new(now.clone())),
            Box::new(MemSource::new(pages)),
            &stat,
            1 << 20,
        )
        .unwrap();
        let got = index.verify_content(&mut |_, _| true).unwrap();
        let want = match r[vc].split([' ', ',']).next() {
            Some("unchanged") => Verdict::Unchanged,
            Some("appended") => Verdict::Appended,
            Some("rewritten") => Verdict::Rewritten,
            v => panic!("bad verdict {v:?}"),
        };
        assert_eq!(got, want, "case {case}: {}", r[1]);
        if got == Verdict::Unchanged {
            // Every answer of an unchanged verdict is right for `now`.
            let text_now = if ["F-14", "F-15", "F-16"].contains(&case) {
                let mut d = Vec::new();
                std::io::Read::read_to_end(
                    &mut flate2::read::MultiGzDecoder::new(&now[..]),
                    &mut d,
                )
                .unwrap();
                d
            } else {
                now.clone()
            };
            let lines = text_now.split_inclusive(|&b| b == b'\n').count() as u64;
            assert_eq!(index.line_count(), lines, "case {case}");
            for l in [0, lines / 2, lines - 1] {
                let span = index.line_span(l).unwrap();
                let start = text_now
                    .split_inclusive(|&b| b == b'\n')
                    .take(l as usize)
                    .map(|x| x.len() as u64)
                    .sum::<u64>();
                assert_eq!(span.start, start, "case {case}: line {l}");
            }
        }
    }
    assert_eq!(seen.len(), 18, "table 8 cases: {seen:?}");

    // R-40: what the fingerprint covers.
    let src = text(200_000, 0);
    let fp = compute(&MemSource::new(src.clone()), 200_000, old_mtime).unwrap();
    assert_eq!(fp.head_crc, format::crc32(&src[..65536]));
    assert_eq!(fp.tail_crc, format::crc32(&src[200_000 - 65536..]));
    assert_eq!(format::FINGERPRINT_BLOCK, 65536);
    let fp = compute(&MemSource::new(Vec::new()), 0, (0, 0)).unwrap();
    assert_eq!((fp.head_crc, fp.tail_crc), (0, 0));
}

// ---------------------------------------------------------------------------
// §7: damage.

#[derive(Debug, PartialEq)]
enum Class {
    NotAnIndex,
    Version,
    Feature,
    Checksum,
    Corrupt,
    SourceChanged,
}

fn class(e: &Error) -> Class {
    match e {
        Error::NotAnIndex { .. } => Class::NotAnIndex,
        Error::UnsupportedVersion { .. } => Class::Version,
        Error::UnsupportedFeature { .. } => Class::Feature,
        Error::ChecksumMismatch { .. } => Class::Checksum,
        Error::Corrupt { .. } => Class::Corrupt,
        Error::SourceChanged { .. } => Class::SourceChanged,
        other => panic!("unexpected error kind: {other}"),
    }
}

/// `sidecar` with the fingerprint of `source` (a damaged one): a change
/// the fingerprint does not see (§6.3). A reader refuses to answer from a
/// sidecar whose fingerprint disagrees; this lets the tests reach the
/// checks it makes beyond it (R-100, §13).
fn unnoticed(source: &[u8], mut sidecar: Vec<u8>) -> Vec<u8> {
    let mut sb = Superblock::decode(&sidecar[..256]).unwrap();
    let (sec, nsec) = (sb.fingerprint.mtime_sec, sb.fingerprint.mtime_nsec);
    sb.fingerprint = lidx::ingest::fingerprint::compute(
        &MemSource::new(source.to_vec()),
        source.len() as u64,
        (sec, nsec),
    )
    .unwrap();
    sidecar[..256].copy_from_slice(&sb.encode());
    sidecar
}

/// An index of `source` over `sidecar`, both in memory (a 1 MiB cache).
fn open_parts(source: &[u8], sidecar: Vec<u8>) -> Result<Index, Error> {
    Index::from_parts(
        Box::new(MemSource::new(source.to_vec())),
        Box::new(MemSource::new(sidecar)),
        (0, 0),
        1 << 20,
    )
}

/// Opens a sidecar with a time index over `source` and asks time queries
/// that read every page of it (vector V7, §10.8): the first line at or
/// after instants, and time ranges as line ranges.
fn open_and_time(source: &[u8], sidecar: Vec<u8>) -> (Result<(), Error>, Result<Vec<u64>, Error>) {
    let index = match open_parts(source, sidecar) {
        Ok(i) => i,
        Err(e) => return (Err(e), Ok(Vec::new())),
    };
    // 2026-11-30 at hh:mm:ss UTC.
    let at = |h: i64, m: i64, s: i64| (1_795_996_800 + h * 3600 + m * 60 + s) * 1_000_000_000;
    let q = (|| {
        let mut answers = Vec::new();
        for t in [
            at(8, 0, 0),
            at(9, 59, 45),
            at(10, 0, 0),
            at(10, 0, 30),
            at(11, 0, 0),
        ] {
            answers.push(index.line_at_time(t)?);
        }
        for (s, u) in [
            (Some(at(9, 0, 0)), Some(at(9, 30, 0))),
            (None, Some(at(9, 59, 45))),
            (Some(at(10, 0, 30)), None),
            (Some(at(10, 1, 0)), Some(at(10, 1, 30))),
        ] {
            let r = index.time_range(s, u)?;
            answers.extend([r.start, r.end]);
        }
        Ok(answers)
    })();
    (Ok(()), q)
}

/// Vector V7's queries answer as §10.8 says.
#[test]
fn vector_v7_answers_as_the_spec_says() {
    let vs = vectors(&spec());
    let v7 = &vs["V7"];
    let (opened, answers) = open_and_time(&v7.source, v7.sidecar.clone());
    opened.unwrap();
    // First line at or after 08:00, 09:59:45, 10:00, 10:00:30 (line 4),
    // 11:00 (none: the line count); then the ranges [09:00, 09:30) = lines
    // 0..=3, [.., 09:59:45) = 0..=3 (line 3 the last before), [10:00:30,
    // ..) = line 4, [10:01:00, 10:01:30) = empty.
    assert_eq!(answers.unwrap(), [0, 0, 0, 4, 5, 0, 4, 0, 4, 4, 5, 4, 4]);
}

/// Opens a sidecar over `source` and runs lookups that reach every page.
fn open_and_query(source: &[u8], sidecar: Vec<u8>) -> (Result<(), Error>, Result<Vec<u64>, Error>) {
    let index = match open_parts(source, sidecar) {
        Ok(i) => i,
        Err(e) => return (Err(e), Ok(Vec::new())),
    };
    let mut answers = Vec::new();
    let q = (|| {
        for line in [0, 5, 30, 31, 35, 39] {
            answers.push(index.checkpoint_for_line(line)?.offset);
            answers.push(index.line_start(line)?);
        }
        for off in [0, 11, 62, 71, 79] {
            answers.push(index.checkpoint_for_offset(off)?.line);
            answers.push(index.line_at(off)?);
        }
        Ok(answers)
    })();
    (Ok(()), q)
}

/// Opens a gzip sidecar over `source` and reads all of its text: the line
/// of every offset, the start of every line, and the text in one read.
fn open_and_read(source: &[u8], sidecar: Vec<u8>) -> (Result<(), Error>, Result<Vec<u64>, Error>) {
    let index = match open_parts(source, sidecar) {
        Ok(i) => i,
        Err(e) => return (Err(e), Ok(Vec::new())),
    };
    let q = (|| {
        let mut answers = Vec::new();
        for off in 0..index.source_len() {
            answers.push(index.line_at(off)?);
        }
        for line in 0..index.line_count() {
            answers.push(index.line_start(line)?);
        }
        let mut text = vec![0u8; index.source_len() as usize];
        let n = index.source().read_full_at(&mut text, 0)?;
        answers.push(n as u64);
        answers.extend(text.iter().map(|&b| b as u64));
        Ok(answers)
    })();
    (Ok(()), q)
}

#[test]
fn damage_table() {
    let s = spec();
    let mut vs = vectors(&s);
    // Cases D-1 … D-27 and D-46 … D-49 use V2 (page 1 = the root, page 2 =
    // leaf with lines 0..31, page 3 = leaf with 31..40, head-first); those
    // marked "gzip:", D-28 … D-45 and D-50, use the gzip vector V4
    // (page 1 = the leaf, page 2 = access points, page 3 = blob; source
    // byte 11 holds the last code bits of the first literal, R-100).
    let v2 = vs.remove("V2").expect("vector V2");
    let v4 = vs.remove("V4").expect("vector V4");
    // Cases marked "time:" use V7 (page 1 = the line tree's leaf, page 2 =
    // the time header, page 3 = the time tree's leaf).
    let v7 = vs.remove("V7").expect("vector V7");
    // Cases marked "pieces:" use V9 (page 1 = the leaf, page 2 = access
    // points, page 3 = the piece array's blob page).
    let v9 = vs.remove("V9").expect("vector V9");
    let (opened, baseline9) = open_and_read(&v9.source, v9.sidecar.clone());
    opened.unwrap();
    let baseline9 = baseline9.unwrap();
    let (opened, baseline7) = open_and_time(&v7.source, v7.sidecar.clone());
    opened.unwrap();
    let baseline7 = baseline7.unwrap();
    let (opened, baseline2) = open_and_query(&v2.source, v2.sidecar.clone());
    opened.unwrap();
    let baseline2 = baseline2.unwrap();
    let (opened, baseline4) = open_and_read(&v4.source, v4.sidecar.clone());
    opened.unwrap();
    let baseline4 = baseline4.unwrap();
    assert_eq!(baseline4[baseline4.len() - 19..], {
        let t = b"one\ntwo\nthree\nfour\n";
        t.iter().map(|&b| b as u64).collect::<Vec<_>>()
    });
    let t = table(&s, "Damage and the reader");
    let (cc, dc, wc, ac) = (
        t.col("Case"),
        t.col("Damage"),
        t.col("Detected at"),
        t.col("Answer"),
    );
    let resb = |b: &mut Vec<u8>, f: &dyn Fn(&mut Superblock)| {
        let mut sb = Superblock::decode(&b[..256]).unwrap();
        f(&mut sb);
        b[..256].copy_from_slice(&sb.encode());
    };
    let p = v2.opts.page_size as usize;
    assert_eq!(v4.opts.page_size as usize, p);
    let root = Superblock::decode(&v2.sidecar[..256]).unwrap().root_page;
    assert_eq!(root, 1, "V2 is head-first");
    let root = root as usize;
    let repage = |b: &mut Vec<u8>, id: usize, f: &dyn Fn(&mut [u8])| {
        let page = &mut b[id * p..(id + 1) * p];
        f(page);
        format::seal_page(page);
    };
    // Field `at` of access-point record `i` of V4's page 2 (Table 19).
    let rec = |i: usize, at: usize| format::PAGE_HEADER_LEN + i * gzfmt::AP_RECORD_LEN + at;
    let mut seen = BTreeSet::new();
    for r in &t.rows {
        let case = r[cc].as_str();
        seen.insert(case.to_string());
        let gzip = r[dc].starts_with("gzip:");
        let timed = r[dc].starts_with("time:");
        let pieces = r[dc].starts_with("pieces:");
        let v = if gzip {
            &v4
        } else if pieces {
            &v9
        } else if timed {
            &v7
        } else {
            &v2
        };
        let mut b = v.sidecar.clone();
        let mut src = v.source.clone();
        match case {
            "D-1" => b.truncate(100),
            "D-2" => b[1] = b'X',
            "D-3" => b[8..10].copy_from_slice(&2u16.to_le_bytes()),
            "D-4" => resb(&mut b, &|sb| sb.version_minor = 9),
            "D-5" => b[120] ^= 0x40,
            "D-6" => b[33] ^= 0x01,
            "D-7" => resb(&mut b, &|sb| sb.incompat_features = 1 << 31),
            "D-8" => resb(&mut b, &|sb| sb.compat_features = 1 << 31),
            "D-9" => resb(&mut b, &|sb| sb.page_size = 768),
            "D-10" => resb(&mut b, &|sb| sb.height = 0),
            "D-11" => resb(&mut b, &|sb| sb.root_page = sb.page_count),
            "D-12" => resb(&mut b, &|sb| {
                sb.checkpoint_count = sb.leaf_count as u64 * 31 + 1
            }),
            "D-13" => b.truncate(b.len() - p),
            "D-14" => b.extend_from_slice(&[0; 8]),
            "D-15" => b[root * p + 0x10] ^= 0x01,
            "D-16" => b[2 * p + 500] ^= 0x01,
            "D-17" => {
                let leaf2 = b[2 * p..3 * p].to_vec();
                b[3 * p..4 * p].copy_from_slice(&leaf2);
            }
            "D-18" => repage(&mut b, 2, &|pg| pg[5] = 1),
            "D-19" => repage(&mut b, 2, &|pg| {
                pg[6..8].copy_from_slice(&0u16.to_le_bytes())
            }),
            "D-20" => repage(&mut b, 2, &|pg| {
                pg[6..8].copy_from_slice(&32u16.to_le_bytes())
            }),
            "D-21" => repage(&mut b, 2, &|pg| pg[4] = 3),
            // Root children[0] (at 0x30 in the page) is leaf 3.
            "D-22" => repage(&mut b, root, &|pg| {
                pg[0x30..0x34].copy_from_slice(&1u32.to_le_bytes())
            }),
            "D-23" => repage(&mut b, root, &|pg| {
                pg[0x30..0x34].copy_from_slice(&4u32.to_le_bytes())
            }),
            "D-24" => repage(&mut b, root, &|pg| {
                pg[0x30..0x34].copy_from_slice(&0u32.to_le_bytes())
            }),
            "D-25" => resb(&mut b, &|sb| sb.height += 1),
            "D-26" => b[300] ^= 0x01,
            "D-27" => resb(&mut b, &|sb| sb.gzip.text_len = 1),
            "D-28" => resb(&mut b, &|sb| sb.source_kind = 0),
            "D-29" => resb(&mut b, &|sb| sb.gzip.ap_count = 0),
            "D-30" => resb(&mut b, &|sb| sb.gzip.ap_first_page = 1),
            "D-31" => resb(&mut b, &|sb| sb.gzip.blob_pages += 1),
            "D-32" => b[2 * p + rec(0, 8)] ^= 0x01,
            "D-33" => repage(&mut b, 2, &|pg| pg[4] = PageKind::Blob as u8),
            "D-34" => repage(&mut b, 2, &|pg| {
                pg[6..8].copy_from_slice(&2u16.to_le_bytes())
            }),
            "D-35" => repage(&mut b, 2, &|pg| {
                pg[rec(1, 0)..rec(1, 8)].copy_from_slice(&20u64.to_le_bytes())
            }),
            "D-36" => repage(&mut b, 2, &|pg| {
                pg[rec(1, 28)..rec(1, 30)].copy_from_slice(&32769u16.to_le_bytes())
            }),
            "D-37" => repage(&mut b, 2, &|pg| {
                pg[rec(1, 28)..rec(1, 30)].copy_from_slice(&7u16.to_le_bytes())
            }),
            "D-38" => repage(&mut b, 2, &|pg| {
                pg[rec(1, 16)..rec(1, 24)].copy_from_slice(&1000u64.to_le_bytes())
            }),
            "D-39" => b[3 * p + format::PAGE_HEADER_LEN + 2] ^= 0x01,
            "D-40" => repage(&mut b, 3, &|pg| {
                pg[6..8].copy_from_slice(&4u16.to_le_bytes())
            }),
            "D-41" => repage(&mut b, 2, &|pg| pg[rec(1, 32)] ^= 0x01),
            "D-42" => {
                assert_eq!(src[11], 0xcf, "D-42: byte 11 of V4");
                src[11] ^= 1 << 2;
                // Still a valid deflate stream, to a text of the same
                // length with `n` for `o`: only span_crc can tell.
                let mut damaged = inflate_raw(&src[10..]);
                damaged.extend(gunzip(&src[40..]));
                assert_eq!(damaged, b"nne\ntwo\nthree\nfour\n", "D-42");
                b = unnoticed(&src, b);
            }
            "D-43" => repage(&mut b, 2, &|pg| pg[rec(1, 37)] = 0x5a),
            "D-46" => resb(&mut b, &|sb| sb.fingerprint.mtime_nsec = 1_000_000_000),
            "D-47" => resb(&mut b, &|sb| {
                assert_eq!(sb.head_pages, 2, "D-47: V2's head");
                sb.compat_features &= !format::COMPAT_HEAD_FIRST;
            }),
            "D-48" => resb(&mut b, &|sb| sb.head_pages = sb.first_leaf + 1),
            "D-49" => resb(&mut b, &|sb| sb.root_page = sb.first_leaf),
            "D-50" => resb(&mut b, &|sb| {
                assert_eq!((sb.height, sb.gzip.ap_first_page), (1, 2), "D-50");
                sb.head_pages = 3;
            }),
            "D-44" => resb(&mut b, &|sb| {
                assert_eq!(sb.gzip.text_len, 19, "D-44: V4's text");
                sb.gzip.text_len = 20;
            }),
            "D-45" => repage(&mut b, 2, &|pg| {
                assert_eq!(
                    pg[rec(2, 28)..rec(2, 30)],
                    [0, 0],
                    "D-45: record 2's window"
                );
                pg[rec(2, 24)..rec(2, 28)].copy_from_slice(&1u32.to_le_bytes());
            }),
            "D-51" => {
                // Bit 1 cleared, `time_page` left as it was, CRC recomputed.
                assert_eq!(b[20] & 3, 3, "D-51");
                b[20] &= !2;
                let crc = format::crc32(&b[..252]);
                b[252..256].copy_from_slice(&crc.to_le_bytes());
            }
            "D-52" => resb(&mut b, &|sb| sb.time_page = 1),
            "D-53" => b[2 * p + 100] ^= 0x04,
            "D-54" => b[3 * p + p - 3] ^= 0x80,
            "D-55" => repage(&mut b, 2, &|pg| {
                let at = format::PAGE_HEADER_LEN + 24;
                let n = u64::from_le_bytes(pg[at..at + 8].try_into().unwrap());
                pg[at..at + 8].copy_from_slice(&(n - 1).to_le_bytes());
            }),
            "D-56" => repage(&mut b, 2, &|pg| {
                let at = format::PAGE_HEADER_LEN + 48 + "auto:iso860".len();
                assert_eq!(pg[at], b'1', "D-56");
                pg[at] = b'2';
            }),
            "D-57" => repage(&mut b, 3, &|pg| pg[5] = 1),
            "D-58" => resb(&mut b, &|sb| {
                assert!(sb.has_time_index(), "D-58: V7 has a time index");
                sb.compat_features &= !format::COMPAT_HEAD_FIRST;
            }),
            "D-59" => repage(&mut b, 3, &|pg| pg[format::PAGE_HEADER_LEN + 4] ^= 0x01),
            "D-60" => resb(&mut b, &|sb| sb.gzip.piece_shift = 8),
            "D-61" => resb(&mut b, &|sb| sb.gzip.piece_page = sb.gzip.ap_first_page),
            "D-62" => resb(&mut b, &|sb| {
                assert_eq!(sb.compat_features & format::COMPAT_PIECE_CRCS, 4, "D-62");
                sb.compat_features &= !format::COMPAT_PIECE_CRCS;
            }),
            "D-63" => repage(&mut b, 2, &|pg| pg[rec(0, 36)] = 3),
            "D-64" => repage(&mut b, 3, &|pg| {
                assert_eq!(pg[6], 12, "D-64");
                pg[6] = 8;
            }),
            other => panic!("table 9 case {other} has no scenario in tests/spec.rs"),
        }
        let (opened, answers) = if gzip || pieces {
            open_and_read(&src, b)
        } else if timed {
            open_and_time(&src, b)
        } else {
            open_and_query(&src, b)
        };
        let baseline = if gzip {
            &baseline4
        } else if pieces {
            &baseline9
        } else if timed {
            &baseline7
        } else {
            &baseline2
        };
        let answer = strip_ticks(&r[ac]);
        let expect = match answer.split([' ', ':', '`']).next().unwrap() {
            "accepted" => None,
            "not-an-index" => Some(Class::NotAnIndex),
            "unsupported-version" => Some(Class::Version),
            "unsupported-feature" => Some(Class::Feature),
            "checksum-mismatch" => Some(Class::Checksum),
            "corrupt" => Some(Class::Corrupt),
            "source-changed" => Some(Class::SourceChanged),
            a => panic!("case {case}: unknown answer {a:?}"),
        };
        match (r[wc].as_str(), expect) {
            (_, None) => {
                assert!(opened.is_ok(), "case {case}: {opened:?}");
                assert_eq!(&answers.unwrap(), baseline, "case {case}: answers changed");
            }
            ("open", Some(want)) => {
                let e = opened.expect_err(case);
                assert_eq!(class(&e), want, "case {case}: {e}");
            }
            ("lookup" | "read" | "time", Some(want)) => {
                assert!(opened.is_ok(), "case {case} must open: {opened:?}");
                let e = answers.expect_err(case);
                assert_eq!(class(&e), want, "case {case}: {e}");
            }
            (w, _) => panic!("case {case}: unknown detection point {w:?}"),
        }
    }
    assert_eq!(seen.len(), 64, "table 9 cases: {seen:?}");
}

/// R-54: opening a sidecar reads page 0 first, then only the root page
/// and, for a gzip source, the access-point page of record 0: the pages of
/// Table 9's "open" cases, whatever the sidecar's size.
#[test]
fn opening_reads_the_superblock_first_and_at_most_three_pages() {
    let spec = spec();
    for (name, v) in vectors(&spec) {
        let sb = Superblock::decode(&v.sidecar[..256]).unwrap();
        let rec = Recording::new(v.sidecar.clone(), sb.page_size as u64);
        Index::from_parts(
            Box::new(MemSource::new(v.source.clone())),
            Box::new(std::sync::Arc::clone(&rec)),
            (0, 0),
            1 << 20,
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
        let pages = rec.pages.lock().unwrap().clone();
        assert_eq!(pages.first(), Some(&0), "{name}: the superblock first");
        let mut want = BTreeSet::from([0, sb.root_page as u64]);
        if sb.source_kind == format::SOURCE_KIND_GZIP {
            want.insert(sb.gzip.ap_first_page as u64);
        }
        assert_eq!(
            pages.iter().copied().collect::<BTreeSet<_>>(),
            want,
            "{name}: {pages:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// §11: gzip sources.

/// One gzip member as flate2 writes it at level 6 with modification time 0
/// and no file name; a sync flush (an empty stored block) between parts.
fn gz_member(parts: &[&[u8]]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::GzBuilder::new()
        .mtime(0)
        .write(Vec::new(), flate2::Compression::new(6));
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            e.flush().expect("flush to a Vec");
        }
        e.write_all(part).expect("write to a Vec");
    }
    e.finish().expect("finish to a Vec")
}

/// The text of vector V9 (§10.9): `line 000\n` … `line 159\n`.
fn v9_text() -> Vec<u8> {
    (0..160)
        .flat_map(|i| format!("line {i:03}\n").into_bytes())
        .collect()
}

/// How the gzip sources of §10 are made: (gzip bytes, text).
fn gzip_recipe(name: &str) -> Option<(Vec<u8>, Vec<u8>)> {
    match name {
        "V3" => Some((
            gz_member(&[b"one\ntwo\nthree\n"]),
            b"one\ntwo\nthree\n".to_vec(),
        )),
        "V4" => {
            let mut gz = gz_member(&[b"one\ntwo\n", b"three\n"]);
            gz.extend(gz_member(&[b"four\n"]));
            Some((gz, b"one\ntwo\nthree\nfour\n".to_vec()))
        }
        "V9" => {
            let text = v9_text();
            Some((gz_member(&[&text]), text))
        }
        _ => None,
    }
}

/// Decompresses all members of a gzip file, ignoring zero bytes after the
/// last one (an independent decoder).
fn gunzip(mut gz: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    while !gz.iter().all(|&b| b == 0) {
        let mut d = flate2::bufread::GzDecoder::new(gz);
        d.read_to_end(&mut out).expect("valid gzip");
        gz = d.into_inner();
    }
    out
}

/// Raw deflate at level 6 with zlib-rs, as R-96 says the reference
/// implementation compresses windows.
fn deflate_window(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; zlib_rs::compress_bound(data.len())];
    let config = zlib_rs::DeflateConfig {
        level: 6,
        window_bits: -15,
        ..zlib_rs::DeflateConfig::default()
    };
    let (blob, ret) = zlib_rs::compress_slice(&mut out, data, config);
    assert_eq!(ret, zlib_rs::ReturnCode::Ok);
    blob.to_vec()
}

/// Raw deflate at level 9 with flate2 (`miniz_oxide`): how writers of
/// 1.1 and before compressed windows (the legacy vectors).
fn deflate_best(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(data).expect("write to a Vec");
    e.finish().expect("finish to a Vec")
}

fn inflate_raw(blob: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::DeflateDecoder::new(blob)
        .read_to_end(&mut out)
        .expect("raw deflate");
    out
}

#[test]
fn gzip_vectors_are_reproducible() {
    let s = spec();
    let vs = vectors(&s);
    let mut gzip_vectors = 0;
    for (name, v) in &vs {
        // R-90: gzip by the magic, unless built as plain bytes on request.
        let is_gzip = v.source.starts_with(&[0x1f, 0x8b]) && !v.opts.plain;
        let sb = Superblock::decode(&v.sidecar[..256]).unwrap();
        assert_eq!(sb.source_kind == 1, is_gzip, "{name}: R-90");
        let Some((gz, text)) = gzip_recipe(name) else {
            assert!(!is_gzip, "{name}: a gzip vector without a recipe");
            continue;
        };
        gzip_vectors += 1;
        // The spec's bytes are what flate2 writes for the recipe. The
        // deflate data is literals only (no string repeats), in fixed
        // Huffman blocks, so any conforming encoder at level 6 writes the
        // same; should flate2 ever differ, the spec's bytes stay
        // authoritative and this comparison is what to revisit.
        if gz != v.source {
            panic!(
                "vector {name}: flate2 now writes other bytes for the recipe:\n{}",
                dump(&gz)
            );
        }
        assert_eq!(gunzip(&v.source), text, "{name}: the text");
        // V9's text is too long to quote: the spec names its lines.
        let lit = if name == "V9" {
            assert_eq!(text, v9_text());
            "`line 000\\n`,\n`line 001\\n`, … `line 159\\n`: 160 lines of 9 bytes, 1440 bytes"
                .to_string()
        } else {
            format!("`{}`", rust_literal(&text))
        };
        assert!(s.contains(&lit), "spec lacks the text {lit} of {name}");
        assert_eq!(sb.gzip.text_len, text.len() as u64, "{name}");
        assert_eq!(sb.fingerprint.size, gz.len() as u64, "{name}: R-91");
        assert_eq!(sb.fingerprint.head_crc, format::crc32(&gz), "{name}: R-91");
        let lines = text.iter().filter(|&&b| b == b'\n').count() as u64
            + u64::from(text.last().is_some_and(|&b| b != b'\n'));
        assert_eq!(sb.line_count, lines, "{name}: R-90");
        // The tree is the one of the text as a plain source (R-90).
        let plain = build(&text, &v.opts);
        assert_eq!(checkpoints(&v.sidecar), checkpoints(&plain), "{name}");
        let tree_pages = sb.gzip.ap_first_page as usize * v.opts.page_size as usize;
        assert_eq!(v.sidecar[512..tree_pages], plain[512..tree_pages], "{name}");
    }
    assert_eq!(
        gzip_vectors, 3,
        "spec §10 must hold the gzip vectors V3, V4 and V9"
    );

    // §10.5 lists V4's block boundaries (the candidates of R-92).
    let src = MemSource::new(vs["V4"].source.clone());
    let mut inf = lidx::gzip::Inflater::new(&src);
    let mut listed = Vec::new();
    while let Some(ev) = inf.next_event().expect("decode V4") {
        if let lidx::gzip::Event::Boundary {
            comp_bit,
            uncomp,
            member_start,
        } = ev
        {
            let tag = if member_start { " member start" } else { "" };
            listed.push(format!("({uncomp}, {comp_bit}){tag}"));
        }
    }
    let text = format!("= {}.", listed.join(", "));
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains(&text),
        "§10.5 should list the candidates {text:?}"
    );
}

/// `b"..."` for bytes that are printable ASCII or newlines.
fn rust_literal(text: &[u8]) -> String {
    let mut out = String::from("b\"");
    for &b in text {
        match b {
            b'\n' => out.push_str("\\n"),
            0x20..0x7f if b != b'"' && b != b'\\' => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('"');
    out
}

/// The gzip superblock rules of R-16 and R-17, against `Superblock::decode`.
#[test]
fn gzip_superblock_rules() {
    use format::SuperblockError as E;
    let s = spec();
    let defs = defined(&s);
    let flat = |n: u32| defs[&n].split_whitespace().collect::<Vec<_>>().join(" ");
    let r16 = flat(16);
    for text in [
        "`source_kind` is 1 if and only if bit 0 of `incompat_features` is set",
        "bytes `224..252`",
        "MUST all be zero",
    ] {
        assert!(r16.contains(text), "R-16 should say {text:?}");
    }
    let r17 = flat(17);
    for text in [
        "`R = ap_records(page_size)`",
        "`ap_count ≥ 1`",
        "`span ≥ 1`",
        "`ap_pages = ⌈ap_count / R⌉`",
        "`ap_first_page ≥ 2`",
        "`ap_first_page + ap_pages + blob_pages = page_count`",
        "`last_leaf < ap_first_page`",
        "`root_page < ap_first_page`",
        "`text_len` takes the place of `source_size` in R-11",
    ] {
        assert!(r17.contains(text), "R-17 should say {text:?}");
    }

    let vs = vectors(&s);
    let good = Superblock::decode(&vs["V4"].sidecar[..256]).unwrap();
    let plain = Superblock::decode(&vs["V2"].sidecar[..256]).unwrap();
    let invalid = |name: &str, sb: &Superblock| {
        let r = Superblock::decode(&sb.encode());
        assert!(matches!(r, Err(E::Invalid(_))), "{name}: {r:?}");
    };
    let valid = |name: &str, sb: &Superblock| {
        let r = Superblock::decode(&sb.encode());
        assert_eq!(r.as_ref(), Ok(sb), "{name}");
    };
    valid("V4", &good);
    let per = gzfmt::records_per_page(good.page_size);
    type Edit = fn(&mut Superblock, u32);
    let cases: [(&str, Edit); 15] = [
        ("unknown source kind", |sb, _| sb.source_kind = 2),
        ("kind 0, bit set", |sb, _| sb.source_kind = 0),
        ("kind 1, bit clear", |sb, _| sb.incompat_features = 0),
        ("ap_count 0", |sb, _| sb.gzip.ap_count = 0),
        ("span 0", |sb, _| sb.gzip.span = 0),
        ("ap_pages too many", |sb, _| sb.gzip.ap_pages += 1),
        ("ap_pages too few", |sb, per| {
            sb.gzip.ap_count = per + 1;
        }),
        ("ap_first_page 1", |sb, _| {
            sb.gzip.ap_first_page = 1;
            sb.gzip.blob_pages += 1;
        }),
        ("pages short of the end", |sb, _| sb.page_count += 1),
        ("pages past the end", |sb, _| sb.gzip.blob_pages += 1),
        ("sum overflows u32", |sb, _| {
            sb.gzip.ap_first_page = u32::MAX;
            sb.gzip.blob_pages = sb.page_count.wrapping_sub(u32::MAX).wrapping_sub(1);
        }),
        ("last leaf in the access points", |sb, _| {
            sb.last_leaf = sb.gzip.ap_first_page;
        }),
        ("root in the access points", |sb, _| {
            sb.root_page = sb.gzip.ap_first_page;
        }),
        ("more lines than text", |sb, _| {
            sb.gzip.text_len = sb.line_count - 1;
        }),
        ("text_len 0 with lines", |sb, _| sb.gzip.text_len = 0),
    ];
    for (name, edit) in cases {
        let mut sb = good.clone();
        edit(&mut sb, per as u32);
        invalid(name, &sb);
    }
    // Bounds that hold: a full access-point page, no blob pages, a
    // line count equal to the text length; none of it depends on
    // source_size for a gzip source (R-17).
    let mut sb = good.clone();
    sb.gzip.ap_count = per as u32;
    valid("full page", &sb);
    let mut sb = good.clone();
    sb.gzip.blob_pages = 0;
    sb.page_count -= 1;
    valid("no blob pages", &sb);
    let mut sb = good.clone();
    sb.gzip.text_len = sb.line_count;
    sb.fingerprint.size = 0;
    valid("line_count = text_len", &sb);
    // R-16: on a plain source every gzip field is zero.
    valid("V2", &plain);
    type GzEdit = fn(&mut GzipFields);
    let fields: [GzEdit; 6] = [
        |g| g.text_len = 1,
        |g| g.span = 1,
        |g| g.ap_count = 1,
        |g| g.ap_first_page = 1,
        |g| g.ap_pages = 1,
        |g| g.blob_pages = 1,
    ];
    for (i, edit) in fields.iter().enumerate() {
        let mut sb = plain.clone();
        edit(&mut sb.gzip);
        invalid(&format!("plain, gzip field {i}"), &sb);
    }
    // R-7: bits 0 and 1 (§13) are known, every other bit is refused.
    let mut sb = good.clone();
    sb.incompat_features |= 1 << 2;
    assert_eq!(Superblock::decode(&sb.encode()), Err(E::Features(4)));
}

#[test]
fn access_point_tables_match_encoding() {
    let s = spec();
    // Table 19: a record with a distinct value in every field.
    let t = table(&s, "Access-point record");
    let r = ApRecord {
        uncomp: 0x0706_0504_0302_0100,
        comp_bit: 0x0f0e_0d0c_0b0a_0908,
        blob_offset: 0x1716_1514_1312_1110,
        blob_len: 0x1b1a_1918,
        window_len: 0x1d1c,
        flags: 0x1f1e,
        span_crc: 0x2322_2120,
        first_piece: 0x2726_2524,
    };
    let mut bytes = [0xeeu8; gzfmt::AP_RECORD_LEN];
    r.encode(&mut bytes);
    assert_eq!(ApRecord::decode(&bytes), r);
    // Bytes 36..40 are `first_piece` (new in 1.5; reserved before, and
    // without PIECE_CRCS still meaningless to a reader, R-140).
    let mut want: BTreeMap<&str, Vec<u8>> = BTreeMap::from([
        ("uncomp", r.uncomp.to_le_bytes().to_vec()),
        ("comp_bit", r.comp_bit.to_le_bytes().to_vec()),
        ("blob_offset", r.blob_offset.to_le_bytes().to_vec()),
        ("blob_len", r.blob_len.to_le_bytes().to_vec()),
        ("window_len", r.window_len.to_le_bytes().to_vec()),
        ("flags", r.flags.to_le_bytes().to_vec()),
        ("span_crc", r.span_crc.to_le_bytes().to_vec()),
        ("first_piece", r.first_piece.to_le_bytes().to_vec()),
    ]);
    let (o, sz, ty, f, d) = (
        t.col("Offset"),
        t.col("Size"),
        t.col("Type"),
        t.col("Field"),
        t.col("Description"),
    );
    let mut at = 0;
    for row in &t.rows {
        let off: usize = row[o].parse().expect("offset");
        let size: usize = row[sz].parse().expect("size");
        assert_eq!(off, at, "table 19 row {row:?}: gap or overlap");
        assert_eq!(type_size(&row[ty], 0), Some(size as i64), "row {row:?}");
        at = off + size;
        let field = strip_ticks(&row[f]);
        let w = want
            .remove(field)
            .unwrap_or_else(|| panic!("table 19 field {field:?} unknown or repeated"));
        assert_eq!(&bytes[off..off + size], &w[..], "field {field}");
        match field {
            "flags" => {
                assert!(row[d].starts_with("Bit 0 (value 1)"));
                assert_eq!(gzfmt::AP_MEMBER_START, 1);
            }
            "window_len" => {
                assert!(row[d].contains("`0..32768` inclusive"));
                assert_eq!(lidx::gzip::inflate::WINDOW, 32768);
            }
            "span_crc" => {
                assert!(row[d].starts_with("CRC of the text `uncomp..end`"));
                assert!(row[d].contains("R-100"), "span_crc cites R-100");
            }
            "reserved" => assert!(row[d].starts_with("Zero (R-2)")),
            _ => {}
        }
    }
    assert_eq!(at, gzfmt::AP_RECORD_LEN, "table 19 must cover 0..40");
    assert!(want.is_empty(), "missing from table 19: {:?}", want.keys());
    let n = gzfmt::AP_RECORD_LEN;
    assert!(
        t.caption.contains(&format!(
            "({n} bytes, at byte 16 + {n}k of its page for its k-th record)"
        )),
        "table 19 caption: {}",
        t.caption
    );

    // Tables 20 and 21 against pages encoded by the code.
    for p in [512u32, 4096] {
        let per = gzfmt::records_per_page(p);
        for n in [1, 2, per] {
            let recs: Vec<ApRecord> = (0..n as u64)
                .map(|i| ApRecord {
                    uncomp: 1000 * i,
                    comp_bit: 8000 * i + 3,
                    blob_offset: 77 * i,
                    blob_len: 77,
                    window_len: 32768,
                    flags: (i == 0) as u16,
                    span_crc: 0x9e37_79b9 ^ i as u32,
                    first_piece: 0,
                })
                .collect();
            let mut body = vec![0u8; n * gzfmt::AP_RECORD_LEN];
            for (r, b) in recs.iter().zip(body.chunks_mut(gzfmt::AP_RECORD_LEN)) {
                r.encode(b);
            }
            let mut page = vec![0xeeu8; p as usize];
            gzfmt::encode_page(&mut page, PageKind::AccessPoints, 9, n as u16, &body);
            check_gzip_page(&s, "Access-point page body", &page, 3, n, ("records", body));
        }
        let payload = gzfmt::blob_payload(p);
        for n in [1, 100, payload] {
            let body: Vec<u8> = (0..n).map(|i| (i * 7 + 1) as u8).collect();
            let mut page = vec![0xeeu8; p as usize];
            gzfmt::encode_page(&mut page, PageKind::Blob, 9, n as u16, &body);
            check_gzip_page(&s, "Blob page body", &page, 4, n, ("payload", body));
        }
    }
    assert_eq!(PageKind::AccessPoints as u8, 3);
    assert_eq!(PageKind::Blob as u8, 4);
    // The capacities stated in §11.3.
    let (a, b, c) = (512u32, 4096u32, 65536u32);
    let text = format!(
        "For P = {a}: {} records and {} payload bytes per page; for P = {b}: {} and {}; for P = {c}: {} and {}.",
        gzfmt::records_per_page(a),
        gzfmt::blob_payload(a),
        gzfmt::records_per_page(b),
        gzfmt::blob_payload(b),
        gzfmt::records_per_page(c),
        gzfmt::blob_payload(c),
    );
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains(&text), "spec §11.3 lacks {text:?}");
    let formula = format!("`ap_records(P) = ⌊(P − 16) / {}⌋`", gzfmt::AP_RECORD_LEN);
    assert!(flat.contains(&formula), "spec §11.3 lacks {formula:?}");
    for p in [a, b, c] {
        assert_eq!(gzfmt::records_per_page(p), (p as usize - 16) / 40);
        assert_eq!(gzfmt::blob_payload(p), p as usize - 16);
        assert!(
            gzfmt::blob_payload(p) <= u16::MAX as usize,
            "count is a u16"
        );
        assert!(gzfmt::records_per_page(p) <= u16::MAX as usize);
    }
}

/// Checks an access-point or blob page against its body table (R-94).
fn check_gzip_page(
    s: &str,
    title: &str,
    page: &[u8],
    kind: u8,
    n: usize,
    (name, body): (&str, Vec<u8>),
) {
    let h = PageHeader::decode(page);
    assert_eq!(
        (h.kind, h.level, h.count, h.page_id),
        (kind, 0, n as u16, 9)
    );
    assert_eq!(h.crc, format::page_crc(page), "{title}: R-21");
    assert!(page[12..16].iter().all(|&b| b == 0), "{title}: reserved");
    check_body_rows(
        title,
        &table(s, title),
        page,
        n,
        BTreeMap::from([(name, body)]),
    );
}

/// The access points of a sidecar, read by the layout of R-94 alone, and
/// the blob stream.
fn stored_access_points(sidecar: &[u8]) -> (Superblock, Vec<ApRecord>, Vec<u8>) {
    let sb = Superblock::decode(&sidecar[..256]).expect("superblock");
    let p = sb.page_size as usize;
    let g = sb.gzip;
    assert_eq!(g.ap_first_page + g.ap_pages + g.blob_pages, sb.page_count);
    assert_eq!(sidecar.len(), sb.page_count as usize * p);
    let page = |id: u32, kind: u8| -> (&[u8], usize) {
        let pg = &sidecar[id as usize * p..(id as usize + 1) * p];
        let h = PageHeader::decode(pg);
        assert_eq!(h.crc, format::crc32(&pg[4..]), "page {id}: CRC");
        assert_eq!((h.kind, h.level, h.page_id), (kind, 0, id), "page {id}");
        assert!(h.count >= 1, "page {id}: count");
        (pg, h.count as usize)
    };
    // Table 19: 40-byte records; bytes 36..40 of each are reserved.
    const REC: usize = 40;
    let per = (p - 16) / REC;
    let mut recs = Vec::new();
    for k in 0..g.ap_pages {
        let (pg, n) = page(g.ap_first_page + k, 3);
        let last = k + 1 == g.ap_pages;
        assert_eq!(
            n,
            if last {
                g.ap_count as usize - per * k as usize
            } else {
                per
            },
            "every access-point page but the last is full"
        );
        for j in 0..n {
            let at = 16 + REC * j;
            recs.push(ApRecord::decode(&pg[at..at + REC]));
            if sb.piece_len().is_none() {
                assert_eq!(pg[at + 36..at + REC], [0; 4], "reserved (R-2)");
            }
        }
        assert!(pg[16 + REC * n..].iter().all(|&b| b == 0), "padding");
    }
    let mut stream = Vec::new();
    for k in 0..g.blob_pages {
        let (pg, n) = page(g.ap_first_page + g.ap_pages + k, 4);
        if k + 1 < g.blob_pages {
            assert_eq!(n, p - 16, "every blob page but the last is full");
        }
        stream.extend_from_slice(&pg[16..16 + n]);
        assert!(pg[16 + n..].iter().all(|&b| b == 0), "padding");
    }
    assert_eq!(g.blob_pages as usize, stream.len().div_ceil(p - 16));
    (sb, recs, stream)
}

/// Decodes the text from an access point the way R-97 says, with
/// miniz_oxide and nothing of lidx: to the end of the access point's
/// member, checking the trailer when the decode covered the whole member.
/// Returns the text and the offset of the byte after the trailer.
fn resume_per_spec(gz: &[u8], rec: &ApRecord, window: &[u8], text_len: u64) -> (Vec<u8>, usize) {
    use miniz_oxide::inflate::TINFLStatus;
    use miniz_oxide::inflate::core::inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    use miniz_oxide::inflate::core::{BlockBoundaryState, DecompressorOxide, decompress};
    let k = ((8 - rec.comp_bit % 8) % 8) as u8;
    let n = rec.comp_bit.div_ceil(8) as usize;
    let st = BlockBoundaryState {
        num_bits: k,
        bit_buf: if k > 0 { gz[n - 1] >> (8 - k) } else { 0 },
        ..BlockBoundaryState::default()
    };
    let mut r = DecompressorOxide::from_block_boundary_state(&st);
    let mut out = window.to_vec();
    out.resize(window.len() + (text_len - rec.uncomp) as usize, 0);
    let (status, used, produced) = decompress(
        &mut r,
        &gz[n..],
        &mut out,
        window.len(),
        TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
    );
    assert_eq!(status, TINFLStatus::Done, "resume at {rec:?}");
    let text = out[window.len()..window.len() + produced].to_vec();
    // The trailer follows at the next byte boundary (R-97 step 3).
    let t = n + used;
    let trailer = &gz[t..t + 8];
    if rec.flags & 1 != 0 {
        let crc = u32::from_le_bytes(trailer[0..4].try_into().unwrap());
        let isize = u32::from_le_bytes(trailer[4..8].try_into().unwrap());
        assert_eq!(crc, format::crc32(&text), "member CRC-32 at {rec:?}");
        assert_eq!(isize, text.len() as u32, "member length at {rec:?}");
    }
    (text, t + 8)
}

/// Checks the access points of a gzip sidecar against R-92 … R-97.
fn check_access_points(gz: &[u8], sidecar: &[u8], span: u64) {
    let text = gunzip(gz);
    let (sb, recs, stream) = stored_access_points(sidecar);
    assert_eq!(sb.gzip.text_len, text.len() as u64);
    assert_eq!(sb.gzip.span as u64, span);
    assert_eq!(sb.gzip.ap_count as usize, recs.len());
    // R-92: the candidates (block boundaries, as the decoder reports
    // them) and the rule that picks access points among them; R-93: the
    // window of each.
    let src = MemSource::new(gz.to_vec());
    let mut inf = lidx::gzip::Inflater::new(&src);
    let mut want: Vec<(ApRecord, Vec<u8>)> = Vec::new();
    let mut member_from = 0u64;
    let mut candidates = 0;
    while let Some(ev) = inf.next_event().expect("decode") {
        let lidx::gzip::Event::Boundary {
            comp_bit,
            uncomp,
            member_start,
        } = ev
        else {
            continue;
        };
        candidates += 1;
        if member_start {
            assert_eq!(comp_bit % 8, 0, "a member start is byte aligned");
            member_from = uncomp;
        }
        let prev = want.last().map(|(r, _)| r.uncomp);
        let take = match prev {
            None => true,
            Some(u) => uncomp >= u + span || (member_start && uncomp > u),
        };
        if take {
            let from = member_from.max(uncomp.saturating_sub(32768)) as usize;
            let window = text[from..uncomp as usize].to_vec();
            let blob_offset = want
                .last()
                .map_or(0, |(r, _)| r.blob_offset + r.blob_len as u64);
            want.push((
                ApRecord {
                    uncomp,
                    comp_bit,
                    blob_offset,
                    blob_len: 0, // compared below
                    window_len: window.len() as u16,
                    flags: member_start as u16,
                    span_crc: 0, // set below, once the next one is known
                    first_piece: 0,
                },
                window,
            ));
            // Blob lengths depend on the encoder: take the stored one.
            let i = want.len() - 1;
            if let Some(r) = recs.get(i) {
                want[i].0.blob_len = r.blob_len;
            }
        }
    }
    assert!(candidates >= recs.len());
    assert_eq!(recs.len(), want.len(), "number of access points");
    // R-95: span_crc is the CRC of the text from the access point to the
    // next one, the last one's to the end of the text.
    for i in 0..want.len() {
        let from = want[i].0.uncomp as usize;
        let to = want
            .get(i + 1)
            .map_or(text.len(), |(r, _)| r.uncomp as usize);
        want[i].0.span_crc = crc_from_parameters(&text[from..to]);
        // R-140: checked with the piece array below.
        want[i].0.first_piece = recs.get(i).map_or(0, |r| r.first_piece);
    }
    assert_eq!(recs[0].uncomp, 0, "the first access point is at offset 0");
    for (i, (rec, (w, window))) in recs.iter().zip(&want).enumerate() {
        assert_eq!(rec, w, "access point {i}");
        if i > 0 {
            assert!(rec.uncomp > recs[i - 1].uncomp, "strictly increasing");
        }
        // R-96: the window is raw deflate in the blob stream, in order.
        assert_eq!(rec.blob_len == 0, window.is_empty(), "access point {i}");
        assert!(window.len() <= 32768);
        let blob = &stream[rec.blob_offset as usize..][..rec.blob_len as usize];
        // R-93: the stored window is the text before the access point
        // with some bytes (those the stream never copies) zeroed; resuming
        // with it (R-97, below) proves the kept ones are all it needs.
        let stored = if window.is_empty() {
            Vec::new()
        } else {
            inflate_raw(blob)
        };
        assert_eq!(stored.len(), window.len(), "window of access point {i}");
        assert!(
            stored.iter().zip(window).all(|(&s, &w)| s == w || s == 0),
            "window of access point {i}: a byte that is neither the text's nor zero"
        );
        if !window.is_empty() {
            // R-96 names the level the reference implementation uses.
            assert_eq!(blob, deflate_window(&stored), "R-96: not zlib-rs level 6");
        }
        // R-97: resuming there gives the text from there to its member's end.
        let (got, after) = resume_per_spec(gz, rec, &stored, sb.gzip.text_len);
        assert_eq!(
            got[..],
            text[rec.uncomp as usize..rec.uncomp as usize + got.len()],
            "resume at access point {i}"
        );
        // After the trailer: the next member's header, zeros or the end.
        assert!(
            gz[after..].starts_with(&[0x1f, 0x8b]) || gz[after..].iter().all(|&b| b == 0),
            "access point {i}: no member after the trailer"
        );
    }
    let last = recs.last().unwrap();
    let windows = last.blob_offset + last.blob_len as u64;
    match sb.piece_len() {
        None => assert_eq!(
            stream.len() as u64,
            windows,
            "the blob stream is the windows, nothing more"
        ),
        Some(l) => {
            // R-140, R-141: zero padding to a page's payload, then the CRC
            // of every piece of every span longer than a piece, in order,
            // computed here from the CRC's parameters (§2).
            let payload = gzfmt::blob_payload(sb.page_size) as u64;
            let start = windows.div_ceil(payload) * payload;
            assert!(
                stream[windows as usize..start as usize]
                    .iter()
                    .all(|&b| b == 0)
            );
            assert_eq!(
                sb.gzip.piece_page as u64,
                (sb.gzip.ap_first_page + sb.gzip.ap_pages) as u64 + start / payload
            );
            let mut want = Vec::new();
            for (i, r) in recs.iter().enumerate() {
                assert_eq!(r.first_piece as usize, want.len() / 4, "record {i}");
                let end = recs.get(i + 1).map_or(sb.gzip.text_len, |n| n.uncomp);
                let span = &text[r.uncomp as usize..end as usize];
                if span.len() as u64 > l {
                    for piece in span.chunks(l as usize) {
                        want.extend(crc_from_parameters(piece).to_le_bytes());
                    }
                }
            }
            assert!(!want.is_empty(), "PIECE_CRCS only with pieces (R-141)");
            assert_eq!(&stream[start as usize..], &want[..], "the piece array");
        }
    }
}

#[test]
fn access_points_follow_section_11() {
    let s = spec();
    for (name, v) in vectors(&s) {
        if gzip_recipe(&name).is_some() {
            check_access_points(&v.source, &v.sidecar, v.opts.span);
        }
    }
    // A larger file: members of several levels, an empty member, sync
    // flushes (byte-aligned stored blocks), incompressible stretches
    // (stored blocks) and windows of the full 32 KiB.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut lines = Vec::new();
    for i in 0..6000u64 {
        lines.extend_from_slice(
            format!("{i} event {} value {}\n", rnd() % 97, rnd() % 10007).as_bytes(),
        );
    }
    let noise: Vec<u8> = (0..40_000).map(|_| (rnd() >> 24) as u8).collect();
    let mut gz = Vec::new();
    let member = |parts: &[&[u8]], level: u32| -> Vec<u8> {
        use std::io::Write;
        let mut e = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::new(level));
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                e.flush().unwrap();
            }
            e.write_all(part).unwrap();
        }
        e.finish().unwrap()
    };
    let (a, b) = lines.split_at(70_000);
    let mut parts: Vec<&[u8]> = a.chunks(5000).collect();
    parts.push(&noise);
    gz.extend(member(&parts, 6));
    gz.extend(member(&[], 6));
    gz.extend(member(&[&b[..1000]], 1));
    gz.extend(member(&[&b[1000..50_000], &b[50_000..]], 9));
    gz.extend(member(&[b"no newline at the end"], 0));
    gz.extend([0u8; 16]);
    for (span, page_size) in [(1u64, 512u32), (1000, 512), (40_000, 4096), (1 << 20, 4096)] {
        let opts = BuildOptions {
            spacing: 4096,
            page_size,
            span,
            ..BuildOptions::default()
        };
        let sidecar = build(&gz, &opts);
        check_access_points(&gz, &sidecar, span);
        let sb = Superblock::decode(&sidecar[..256]).unwrap();
        if span == 1 {
            assert!(sb.gzip.ap_pages > 1, "several access-point pages");
            assert!(sb.gzip.blob_pages > 1, "several blob pages");
        }
        if span == 1 << 20 {
            assert_eq!(sb.gzip.ap_count, 4, "member starts with text");
        }
    }
}

/// R-100 and §7: a damaged archive that still decodes to text of the
/// right length (Table 9, D-42) fails wherever the text is read, a full
/// verification included, and never yields the wrong text; a quick
/// verification, which decodes no span, passes.
#[test]
fn span_crc_catches_what_decodes() {
    let s = spec();
    let v4 = &vectors(&s)["V4"];
    let mut src = v4.source.clone();
    src[11] ^= 1 << 2;
    let open = || {
        Index::from_parts(
            Box::new(MemSource::new(src.clone())),
            Box::new(MemSource::new(unnoticed(&src, v4.sidecar.clone()))),
            (0, 0),
            1 << 20,
        )
        .expect("opens: the sidecar is intact")
    };
    let index = open();
    index.verify(false).expect("no span is decoded");
    let e = index.verify(true).expect_err("a full verification decodes");
    assert_eq!(class(&e), Class::SourceChanged, "{e}");
    // Every read of text in span 0 (0..8) fails; the other spans read.
    let index = open();
    let mut buf = [0u8; 3];
    for off in 0..8 {
        let e = index.source().read_full_at(&mut buf[..1], off);
        assert_eq!(class(&e.expect_err("span 0")), Class::SourceChanged);
    }
    index.source().read_full_at(&mut buf, 8).expect("span 1");
    assert_eq!(&buf, b"thr");
    index.source().read_full_at(&mut buf, 15).expect("span 2");
    assert_eq!(&buf, b"our");
}

/// Text of a few thousand log lines, deterministic.
fn log_lines(n: u64) -> Vec<u8> {
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut out = Vec::new();
    for i in 0..n {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        out.extend_from_slice(
            format!(
                "{i} GET /item/{} took {} ms\n",
                seed % 9973,
                (seed >> 20) % 500
            )
            .as_bytes(),
        );
    }
    out
}

/// R-90: zero padding after the last member is not text; a writer writes
/// no sidecar for trailing garbage, a bad FHCRC, a truncated or damaged
/// member; a sidecar built as plain bytes (V5) is read as bytes because
/// `source_kind` says so, even for a real gzip file.
#[test]
fn what_r90_indexes() {
    let s = spec();
    let vs = vectors(&s);
    let v4 = &vs["V4"];
    let opts = BuildOptions {
        plain: false,
        ..v4.opts.clone()
    };
    let text_len = |sidecar: &[u8]| Superblock::decode(&sidecar[..256]).unwrap().gzip.text_len;
    for zeros in [1, 2, 100] {
        let mut gz = v4.source.clone();
        gz.extend(vec![0u8; zeros]);
        let sidecar = build(&gz, &opts);
        assert_eq!(text_len(&sidecar), 19, "{zeros} zeros");
        assert_eq!(sidecar[512..], v4.sidecar[512..], "{zeros} zeros: pages");
    }
    let refused = |what: &str, gz: &[u8]| {
        let e = lidx::build_to_vec(&MemSource::new(gz.to_vec()), &opts)
            .map(|_| ())
            .expect_err(what);
        assert!(matches!(e, Error::CorruptSource { .. }), "{what}: {e}");
    };
    for tail in [&b"garbage"[..], b"\0\0x", b"\n"] {
        let mut gz = v4.source.clone();
        gz.extend(tail);
        refused(&format!("trailing {tail:?}"), &gz);
    }
    refused("truncated", &v4.source[..v4.source.len() - 1]);
    // FHCRC (RFC 1952 §2.3.1): V3 with a header CRC, right and wrong.
    let v3 = &vs["V3"];
    let mut with_crc = v3.source[..10].to_vec();
    with_crc[3] |= 2;
    let crc16 = (format::crc32(&with_crc) & 0xffff) as u16;
    with_crc.extend(crc16.to_le_bytes());
    with_crc.extend(&v3.source[10..]);
    assert_eq!(
        gunzip(&with_crc),
        b"one\ntwo\nthree\n",
        "an independent decoder"
    );
    let sidecar = build(&with_crc, &opts);
    assert_eq!(text_len(&sidecar), 14, "FHCRC right");
    let mut bad = with_crc.clone();
    bad[10] ^= 1;
    refused("FHCRC wrong", &bad);

    // V5: the same bytes are no gzip file; built as plain, read as plain.
    let v5 = &vs["V5"];
    assert!(v5.opts.plain && v5.source.starts_with(&[0x1f, 0x8b]));
    refused("V5 as gzip", &v5.source);
    let index = Index::from_parts(
        Box::new(MemSource::new(v5.source.clone())),
        Box::new(MemSource::new(v5.sidecar.clone())),
        (0, 0),
        1 << 20,
    )
    .unwrap();
    assert_eq!(index.line_count(), 2);
    assert_eq!(index.line_span(1).unwrap(), 15..24);
    let mut buf = lidx::LineBuf::new();
    index.read_lines(0..2, &mut buf).unwrap();
    assert_eq!(buf.bytes(), &v5.source[..]);
    // A real archive built as plain: its compressed bytes, split at `0a`.
    let plain = build(
        &v4.source,
        &BuildOptions {
            plain: true,
            ..opts.clone()
        },
    );
    let sb = Superblock::decode(&plain[..256]).unwrap();
    assert_eq!((sb.source_kind, sb.version_minor), (0, 2));
    let index = Index::from_parts(
        Box::new(MemSource::new(v4.source.clone())),
        Box::new(MemSource::new(plain)),
        (0, 0),
        1 << 20,
    )
    .unwrap();
    let newlines = v4.source.iter().filter(|&&b| b == b'\n').count() as u64;
    let last = u64::from(v4.source.last() != Some(&b'\n'));
    assert_eq!(index.line_count(), newlines + last);
    index.read_lines(0..u64::MAX, &mut buf).unwrap();
    assert_eq!(buf.bytes(), &v4.source[..]);
}

/// R-42: the sidecar of a gzip source that has grown by a member answers
/// exactly within its text `0..text_len` (not within `0..source_size`,
/// which counts compressed bytes).
#[test]
fn appended_gzip_sidecar_answers_within_its_text() {
    let text = log_lines(3000);
    let (a, b) = text.split_at(70_001);
    let mut gz = gz_member(&[a]);
    let opts = BuildOptions {
        spacing: 512,
        page_size: 512,
        span: 8192,
        ..BuildOptions::default()
    };
    let old = build(&gz, &opts);
    let sb = Superblock::decode(&old[..256]).unwrap();
    assert_eq!(
        (sb.fingerprint.size, sb.gzip.text_len),
        (gz.len() as u64, a.len() as u64)
    );
    gz.extend(gz_member(&[b]));
    let index = Index::from_parts(
        Box::new(MemSource::new(gz.clone())),
        Box::new(MemSource::new(old)),
        (0, 0),
        1 << 20,
    )
    .unwrap();
    assert_eq!(index.verdict(), Verdict::Appended);
    assert_eq!(index.source_len(), a.len() as u64);
    let lines = a.split_inclusive(|&c| c == b'\n').count() as u64;
    assert_eq!(index.line_count(), lines);
    let mut buf = lidx::LineBuf::new();
    index.read_lines(0..lines, &mut buf).unwrap();
    assert_eq!(buf.bytes(), a, "the old text, exactly");
    assert!(index.line_span(lines).is_err(), "nothing past it");
}

/// R-94 and R-98: the counts of access-point and blob pages are exactly
/// what R-94 implies, and a reader refuses a page with fewer (which would
/// shift the records or windows after it) or a record whose `blob_len`
/// and `window_len` disagree about an empty window.
#[test]
fn page_counts_are_exact() {
    // A sync flush every 300 bytes: a block boundary each, so with span 1
    // an access point (and a window) each.
    let text = log_lines(400);
    let parts: Vec<&[u8]> = text.chunks(300).collect();
    let gz = gz_member(&parts);
    let opts = BuildOptions {
        spacing: 64,
        page_size: 512,
        span: 1,
        ..BuildOptions::default()
    };
    let sidecar = build(&gz, &opts);
    let sb = Superblock::decode(&sidecar[..256]).unwrap();
    let g = sb.gzip;
    assert!(g.ap_pages >= 2 && g.blob_pages >= 2, "{g:?}");
    let per = gzfmt::records_per_page(512);
    let payload = gzfmt::blob_payload(512);
    let count = |b: &[u8], id: u32| {
        let p = &b[id as usize * 512..];
        u16::from_le_bytes([p[6], p[7]]) as usize
    };
    let last_ap = g.ap_first_page + g.ap_pages - 1;
    let last_blob = last_ap + g.blob_pages;
    for id in g.ap_first_page..last_ap {
        assert_eq!(count(&sidecar, id), per, "access-point page {id}");
    }
    assert_eq!(
        count(&sidecar, last_ap),
        g.ap_count as usize - (g.ap_pages as usize - 1) * per
    );
    for id in last_ap + 1..last_blob {
        assert_eq!(count(&sidecar, id), payload, "blob page {id}");
    }
    let open_and_read_all = |b: Vec<u8>| -> Result<Vec<u8>, Error> {
        let index = Index::from_parts(
            Box::new(MemSource::new(gz.clone())),
            Box::new(MemSource::new(b)),
            (0, 0),
            1 << 20,
        )?;
        let mut buf = lidx::LineBuf::new();
        index.read_lines(0..u64::MAX, &mut buf)?;
        Ok(buf.bytes().to_vec())
    };
    assert_eq!(open_and_read_all(sidecar.clone()).unwrap(), text);
    let set_count = |b: &mut Vec<u8>, id: u32, n: usize| {
        let page = &mut b[id as usize * 512..(id as usize + 1) * 512];
        page[6..8].copy_from_slice(&(n as u16).to_le_bytes());
        format::seal_page(page);
    };
    for (what, id, n) in [
        (
            "first access-point page one short",
            g.ap_first_page,
            per - 1,
        ),
        (
            "last access-point page one short",
            last_ap,
            count(&sidecar, last_ap) - 1,
        ),
        ("first blob page one short", last_ap + 1, payload - 1),
    ] {
        let mut b = sidecar.clone();
        set_count(&mut b, id, n);
        let e = open_and_read_all(b).expect_err(what);
        assert_eq!(class(&e), Class::Corrupt, "{what}: {e}");
    }
    // The last blob page may hold any count (the stream's length is not
    // recorded); one more byte than written is a zero the windows do not
    // reach.
    let mut b = sidecar.clone();
    let n = count(&sidecar, last_blob);
    if n < payload {
        set_count(&mut b, last_blob, n + 1);
        assert_eq!(open_and_read_all(b).unwrap(), text, "last blob page");
    }
}

/// §11.4, Table 22: resuming at a block boundary with `k` pending bits by
/// feeding an unprimed raw inflater (miniz_oxide, history preset) the
/// table's prefix, the merged byte and the rest of the file gives the
/// text, for every `k` from 1 to 7.
#[test]
fn empty_block_prefixes_resume_without_priming() {
    use miniz_oxide::inflate::TINFLStatus;
    use miniz_oxide::inflate::core::inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
    use miniz_oxide::inflate::core::{DecompressorOxide, decompress};
    let s = spec();
    let t = table(&s, "Empty-block prefixes");
    let (kc, bc, pc) = (t.col("k"), t.col("Bits"), t.col("Prefix bytes"));
    let mut prefixes = BTreeMap::new();
    for r in &t.rows {
        let k: u64 = r[kc].parse().unwrap();
        let bits: u64 = r[bc].parse().unwrap();
        let bytes = bytes_cell(&r[pc]);
        assert_eq!(bits % 8, (8 - k) % 8, "k = {k}: p ≡ 8 − k (mod 8)");
        assert_eq!(bytes.len() as u64, bits.div_ceil(8), "k = {k}");
        assert_eq!(
            bytes.last().unwrap() >> (bits % 8),
            0,
            "k = {k}: top bits unused"
        );
        prefixes.insert(k, bytes);
    }
    assert_eq!(
        prefixes.keys().copied().collect::<Vec<_>>(),
        (1..8).collect::<Vec<_>>()
    );
    let text = log_lines(60_000);
    let mut seen = BTreeSet::new();
    for level in [1, 6, 9] {
        let gz = {
            use std::io::Write;
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
            e.write_all(&text).unwrap();
            e.finish().unwrap()
        };
        let src = MemSource::new(gz.clone());
        let mut inf = lidx::gzip::Inflater::new(&src);
        while let Some(ev) = inf.next_event().unwrap() {
            let lidx::gzip::Event::Boundary {
                comp_bit, uncomp, ..
            } = ev
            else {
                continue;
            };
            let k = (8 - comp_bit % 8) % 8;
            if k == 0 {
                continue;
            }
            seen.insert(k);
            let window = inf.window();
            let n = comp_bit.div_ceil(8) as usize;
            let p = &prefixes[&k];
            let mut input = p[..p.len() - 1].to_vec();
            let last = p[p.len() - 1];
            input.push((last & (0xff >> k)) | (gz[n - 1] & (0xff << (8 - k))));
            input.extend_from_slice(&gz[n..gz.len() - 8]);
            let mut out = window.clone();
            out.resize(window.len() + text.len() - uncomp as usize, 0);
            let mut r = DecompressorOxide::new();
            let (status, _, produced) = decompress(
                &mut r,
                &input,
                &mut out,
                window.len(),
                TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF,
            );
            assert_eq!(
                status,
                TINFLStatus::Done,
                "level {level}, bit {comp_bit}, k = {k}"
            );
            assert!(
                out[window.len()..window.len() + produced] == text[uncomp as usize..],
                "level {level}, bit {comp_bit}, k = {k}: wrong text"
            );
        }
    }
    assert_eq!(
        seen.into_iter().collect::<Vec<_>>(),
        (1..8).collect::<Vec<_>>(),
        "every k"
    );
}

// ---------------------------------------------------------------------------
// §8.2, §9: the head-first layout of 1.2, and files of 1.0 and 1.1.

/// Every answer of an index that reads its whole text: the start of every
/// line and the line of every byte.
fn all_answers(source: &[u8], sidecar: Vec<u8>) -> Vec<u64> {
    let index = Index::from_parts(
        Box::new(MemSource::new(source.to_vec())),
        Box::new(MemSource::new(sidecar)),
        (0, 0),
        1 << 20,
    )
    .expect("open");
    index.verify(true).expect("verify --full");
    let mut out: Vec<u64> = (0..index.line_count())
        .map(|l| index.line_start(l).expect("line start"))
        .collect();
    out.extend((0..index.source_len()).map(|o| index.line_at(o).expect("line at")));
    out
}

/// Two sidecars of the same source are the same but for the mtime
/// (`OpenOptions` records the file's, R-40) and the superblock CRC.
fn assert_same_but_mtime(got: &[u8], want: &[u8], ctx: &str) {
    let mut a = Superblock::decode(&got[..256]).expect("superblock");
    let mut b = Superblock::decode(&want[..256]).expect("superblock");
    a.fingerprint.mtime_sec = 0;
    a.fingerprint.mtime_nsec = 0;
    b.fingerprint.mtime_sec = 0;
    b.fingerprint.mtime_nsec = 0;
    assert_eq!(a, b, "{ctx}: superblocks");
    assert_eq!(got.len(), want.len(), "{ctx}: lengths");
    assert!(got[256..] == want[256..], "{ctx}: pages differ");
}

/// `sidecar` (a gzip sidecar of `gz`) with every window whole, as a writer
/// before sparse windows stored them (R-93): the text before each access
/// point, recompressed at level 9 (R-96); the access-point and blob pages
/// and the superblock are rewritten to match.
fn whole_windows(sidecar: &[u8], gz: &[u8]) -> Vec<u8> {
    use lidx::format::gzip as fmt;
    let text = gunzip(gz);
    let (mut sb, mut recs, _) = stored_access_points(sidecar);
    let p = sb.page_size as usize;
    let mut stream = Vec::new();
    for r in &mut recs {
        let window = &text[(r.uncomp - u64::from(r.window_len)) as usize..r.uncomp as usize];
        let blob = if window.is_empty() {
            Vec::new()
        } else {
            deflate_best(window)
        };
        r.blob_offset = stream.len() as u64;
        r.blob_len = blob.len() as u32;
        stream.extend(blob);
    }
    let g = sb.gzip;
    let mut out = sidecar[..g.ap_first_page as usize * p].to_vec();
    let mut page = vec![0u8; p];
    let mut id = g.ap_first_page;
    for chunk in recs.chunks(fmt::records_per_page(sb.page_size)) {
        let mut body = vec![0u8; chunk.len() * fmt::AP_RECORD_LEN];
        for (r, b) in chunk.iter().zip(body.chunks_mut(fmt::AP_RECORD_LEN)) {
            r.encode(b);
        }
        fmt::encode_page(
            &mut page,
            PageKind::AccessPoints,
            id,
            chunk.len() as u16,
            &body,
        );
        out.extend_from_slice(&page);
        id += 1;
    }
    for chunk in stream.chunks(fmt::blob_payload(sb.page_size)) {
        fmt::encode_page(&mut page, PageKind::Blob, id, chunk.len() as u16, chunk);
        out.extend_from_slice(&page);
        id += 1;
    }
    sb.gzip.blob_pages = id - g.ap_first_page - g.ap_pages;
    sb.page_count = id;
    out[..format::SUPERBLOCK_LEN].copy_from_slice(&sb.encode());
    out
}

/// §9: sidecars written by 1.0 and 1.1 (the vectors of the spec before
/// 1.2, kept in `tests/data/vectors-1.1.md`) are read with the answers of
/// their 1.2 counterparts, pass a full verification, and, once their
/// source has grown, are extended into exactly the 1.2 sidecar a fresh
/// build writes (R-62, R-99). `tests/support/legacy.rs` rebuilds each of
/// them from the 1.2 sidecar, byte for byte, which vouches for the old-
/// layout sidecars the integration tests make with it.
#[test]
fn legacy_files_are_read_verified_and_extended() {
    let text = std::fs::read_to_string(root().join("tests/data/vectors-1.1.md")).unwrap();
    let old = vectors(&text);
    assert_eq!(
        old.keys().map(String::as_str).collect::<Vec<_>>(),
        ["V1", "V2", "V3", "V4", "V5"]
    );
    for (name, v) in &old {
        let sb = Superblock::decode(&v.sidecar[..256]).expect("a 1.x superblock");
        let gzip = sb.source_kind == format::SOURCE_KIND_GZIP;
        assert_eq!(sb.version_minor, u16::from(gzip), "{name}");
        assert!(!sb.head_first(), "{name}");
        assert_eq!(sb.head_pages, 0, "{name}");
        assert!(v.sidecar[113..128].iter().all(|&b| b == 0), "{name}");
        let new = build(&v.source, &v.opts);
        // The 1.1 writer stored whole windows; today's zeroes the bytes
        // the stream does not copy (R-93). With the windows made whole
        // again, the rest is byte for byte the old file.
        let whole = if gzip {
            whole_windows(&new, &v.source)
        } else {
            new.clone()
        };
        assert_eq!(legacy::to_legacy(&whole), v.sidecar, "{name}: legacy.rs");
        assert_eq!(
            all_answers(&v.source, v.sidecar.clone()),
            all_answers(&v.source, new.clone()),
            "{name}: answers"
        );
        // The source grows; opening extends the old sidecar.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("src");
        let mut grown = v.source.clone();
        if gzip {
            grown.extend(gz_member(&[b"five\nsix\n".repeat(40).as_slice()]));
        } else {
            grown.extend(b"more\n".repeat(100));
        }
        std::fs::write(&path, &grown).unwrap();
        let side = dir.path().join("src.lidx");
        std::fs::write(&side, &v.sidecar).unwrap();
        let o = lidx::OpenOptions::new()
            .open(&path)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(o.action, lidx::Action::Extended, "{name}");
        o.index.verify(true).expect("the extension verifies");
        drop(o);
        let extended = std::fs::read(&side).unwrap();
        let fresh = build(&grown, &v.opts);
        let mut want = fresh.clone();
        let mut sb = Superblock::decode(&fresh[..256]).unwrap();
        sb.source_name = b"src".to_vec();
        want[..256].copy_from_slice(&sb.encode());
        assert_same_but_mtime(&extended, &want, name);
        assert!(Superblock::decode(&extended[..256]).unwrap().head_first());
    }
}

/// R-19: what the superblock of a head-first sidecar must say, against
/// `Superblock::decode`; without the bit, `head_pages` means nothing.
#[test]
fn head_first_superblock_rules() {
    use format::SuperblockError as E;
    let s = spec();
    let defs = defined(&s);
    let r19 = defs[&19].split_whitespace().collect::<Vec<_>>().join(" ");
    for text in [
        "Bit 0 of `compat_features`, *HEAD_FIRST*",
        "(bytes `116..120`)",
        "`root_page = 1`",
        "`leaf_count = last_leaf − first_leaf + 1`",
        "`last_leaf + 1 = page_count` for a plain source",
        "`last_leaf + 1 = ap_first_page` for a gzip or zstd source",
        "`height = 1`, `first_leaf = last_leaf = 1` and `head_pages = 2`",
        "`height ≥ 2` and `head_pages = first_leaf ≥ 2`",
        "MUST ignore it",
    ] {
        assert!(r19.contains(text), "R-19 should say {text:?}");
    }
    let vs = vectors(&s);
    let sb_of = |name: &str| Superblock::decode(&vs[name].sidecar[..256]).unwrap();
    let check = |name: &str, sb: &Superblock, ok: bool| {
        let r = Superblock::decode(&sb.encode());
        if ok {
            assert_eq!(r.as_ref(), Ok(sb), "{name}");
        } else {
            match r {
                Err(E::Invalid(m)) => assert!(m.contains("head-first"), "{name}: {m}"),
                other => panic!("{name}: {other:?}"),
            }
        }
    };
    type Edit = fn(&mut Superblock);
    let cases: [(&str, &str, Edit, bool); 15] = [
        ("V2", "as built", |_| {}, true),
        ("V2", "root not page 1", |sb| sb.root_page = 2, false),
        ("V2", "head_pages 0", |sb| sb.head_pages = 0, false),
        ("V2", "head_pages 1", |sb| sb.head_pages = 1, false),
        ("V2", "head_pages 3", |sb| sb.head_pages = 3, false),
        (
            "V2",
            "leaves not at the end",
            |sb| sb.page_count += 1,
            false,
        ),
        (
            "V2",
            "a page between the leaves",
            |sb| {
                sb.last_leaf += 1;
                sb.page_count += 1;
            },
            false,
        ),
        (
            "V2",
            "an unknown compatible bit",
            |sb| sb.compat_features |= 2,
            true,
        ),
        (
            "V2",
            "bit clear: head_pages ignored",
            |sb| {
                sb.compat_features = 0;
                sb.head_pages = 0xdead_beef;
            },
            true,
        ),
        ("V1", "as built", |_| {}, true),
        (
            "V1",
            "height 1, head_pages 1",
            |sb| sb.head_pages = 1,
            false,
        ),
        (
            "V1",
            "height 1, two leaves",
            |sb| {
                sb.last_leaf = 2;
                sb.leaf_count = 2;
                sb.page_count = 3;
            },
            false,
        ),
        ("V4", "as built", |_| {}, true),
        ("V4", "gzip, head_pages 3", |sb| sb.head_pages = 3, false),
        (
            "V4",
            "gzip, leaves short of the access points",
            |sb| {
                sb.gzip.ap_first_page += 1;
                sb.page_count += 1;
            },
            false,
        ),
    ];
    for (vector, name, edit, ok) in cases {
        let mut sb = sb_of(vector);
        edit(&mut sb);
        check(&format!("{vector}: {name}"), &sb, ok);
    }
}

/// R-63: a full verification checks the breadth-first order that
/// HEAD_FIRST promises. A tree of height 3 whose two level-1 pages are
/// swapped (CRC-valid, the root's children rewritten) still answers
/// correctly, since pages are found by their numbers, but no longer has
/// the layout: with the bit set it fails `verify`; with the bit cleared it
/// is a valid file of another layout.
#[test]
fn head_first_order_is_verified() {
    let source = b"x\n".repeat(31 * 25 + 3);
    let opts = BuildOptions {
        spacing: 1,
        page_size: 512,
        ..BuildOptions::default()
    };
    let good = build(&source, &opts);
    let sb = Superblock::decode(&good[..256]).unwrap();
    assert_eq!((sb.height, sb.first_leaf, sb.head_pages), (3, 4, 4));
    let p = 512;
    let mut bad = good.clone();
    // Pages 2 and 3 are the level-1 nodes; swap them, renumbered.
    let (two, three) = (good[2 * p..3 * p].to_vec(), good[3 * p..4 * p].to_vec());
    bad[2 * p..3 * p].copy_from_slice(&three);
    bad[3 * p..4 * p].copy_from_slice(&two);
    for id in [2usize, 3] {
        let page = &mut bad[id * p..(id + 1) * p];
        page[8..12].copy_from_slice(&(id as u32).to_le_bytes());
        format::seal_page(page);
    }
    let root = &mut bad[p..2 * p];
    let n = u16::from_le_bytes([root[6], root[7]]) as usize;
    for i in 0..n {
        let at = 16 + 16 * n + 4 * i;
        let child = u32::from_le_bytes(root[at..at + 4].try_into().unwrap());
        root[at..at + 4].copy_from_slice(&(5 - child).to_le_bytes());
    }
    format::seal_page(root);
    let open = |b: Vec<u8>| {
        Index::from_parts(
            Box::new(MemSource::new(source.clone())),
            Box::new(MemSource::new(b)),
            (0, 0),
            1 << 20,
        )
        .unwrap()
    };
    let index = open(bad.clone());
    for l in (0..index.line_count()).step_by(7) {
        assert_eq!(index.line_start(l).unwrap(), 2 * l);
    }
    match index.verify(false) {
        Err(Error::Corrupt { what, .. }) => assert!(what.contains("head-first"), "{what}"),
        other => panic!("verify gave {other:?}"),
    }
    let mut sb = Superblock::decode(&bad[..256]).unwrap();
    sb.compat_features = 0;
    sb.head_pages = 0;
    bad[..256].copy_from_slice(&sb.encode());
    open(bad).verify(true).expect("another layout, valid");
    open(good).verify(true).expect("the layout as built");
}

// ---------------------------------------------------------------------------
// Requirement numbers.

/// Requirement numbers referenced in `text` (`R-8..R-11` counts 8 to 11).
fn referenced(text: &str) -> BTreeSet<u32> {
    cited(text, "R-")
}

/// Numbers of the requirements `PREFIXn` (`R-` or `F-`) referenced in
/// `text` (`F-2..F-5` counts 2 to 5).
fn cited(text: &str, prefix: &str) -> BTreeSet<u32> {
    let p = prefix.as_bytes();
    let mut out = BTreeSet::new();
    let b = text.as_bytes();
    let mut i = 0;
    let num = |i: &mut usize| -> Option<u32> {
        let s = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        std::str::from_utf8(&b[s..*i]).ok()?.parse().ok()
    };
    while i + 2 < b.len() {
        let boundary = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        if boundary && &b[i..i + 2] == p && b[i + 2].is_ascii_digit() {
            i += 2;
            let a = num(&mut i).expect("number");
            let rest = &text[i..];
            let hi = ["..", " … ", "..="]
                .iter()
                .map(|sep| format!("{sep}{prefix}"))
                .find_map(|sep| rest.strip_prefix(&sep).map(|r| (sep.len(), r)))
                .and_then(|(len, r)| {
                    let d: String = r.chars().take_while(char::is_ascii_digit).collect();
                    i += len + d.len();
                    d.parse::<u32>().ok()
                });
            out.extend(a..=hi.unwrap_or(a));
        } else {
            i += 1;
        }
    }
    out
}

fn defined(spec: &str) -> BTreeMap<u32, String> {
    definitions(spec, "R-")
}

/// The requirements `PREFIXn` a document defines, with their text.
fn definitions(spec: &str, prefix: &str) -> BTreeMap<u32, String> {
    // A definition starts a paragraph or a list item with `**R-n**` and
    // runs to the next blank line or list item.
    let lines: Vec<&str> = spec.lines().collect();
    let mut out = BTreeMap::new();
    let open = format!("**{prefix}");
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let t = t.strip_prefix("- ").unwrap_or(t);
        let Some(rest) = t.strip_prefix(open.as_str()) else {
            continue;
        };
        let n: String = rest.chars().take_while(char::is_ascii_digit).collect();
        assert!(rest[n.len()..].starts_with("**"), "bad definition {l:?}");
        let mut text = t.to_string();
        for next in &lines[i + 1..] {
            if next.trim().is_empty() || next.trim_start().starts_with("- ") {
                break;
            }
            text.push('\n');
            text.push_str(next);
        }
        let n: u32 = n.parse().unwrap();
        assert!(out.insert(n, text).is_none(), "{prefix}{n} defined twice");
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn requirement_numbers() {
    let s = spec();
    let defs = defined(&s);
    // Numbers the code relies on, and a word of what each one means.
    for (n, word) in [
        (1, "little-endian"),
        (2, "reserved"),
        (3, "magic"),
        (4, "version_major"),
        (6, "0..252"),
        (7, "incompat_features"),
        (8, "page_size"),
        (9, "key_kind"),
        (10, "height"),
        (11, "checkpoint_count"),
        (12, "65536"),
        (13, "page_count × page_size"),
        (14, "source_name_len"),
        (15, "order"),
        (20, "16-byte header"),
        (21, "4..page_size"),
        (30, "spacing"),
        (41, "fingerprint"),
        (52, "height"),
        (60, "in place"),
        (61, "internal_capacity(P)"),
        (62, "fresh build"),
        (63, "breadth-first"),
        (19, "head_pages"),
        (16, "incompat_features"),
        (17, "ap_first_page"),
        (90, "`1F 8B`"),
        (91, "compressed"),
        (92, "candidate"),
        (93, "32768"),
        (94, "blob_pages"),
        (95, "40 bytes"),
        (96, "raw deflate"),
        (97, "comp_bit"),
        (98, "page CRC"),
        (100, "span_crc"),
        (99, "fresh build"),
        (140, "first_piece"),
        (141, "PIECE_CRCS"),
        (142, "end of the piece"),
    ] {
        let text = defs
            .get(&n)
            .unwrap_or_else(|| panic!("spec does not define R-{n}"));
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(word), "R-{n} should mention {word:?}: {text}");
    }
    for n in referenced(&s) {
        assert!(defs.contains_key(&n), "spec cites undefined R-{n}");
    }
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for n in referenced(&text) {
            assert!(
                defs.contains_key(&n),
                "{} cites R-{n}, which the spec does not define",
                f.display()
            );
        }
    }
    assert_eq!(
        referenced("R-8..R-11 and R-3"),
        BTreeSet::from([3, 8, 9, 10, 11])
    );
}

// ---------------------------------------------------------------------------

/// Prints the vectors of §10 in the spec's notation (for regenerating it).
#[test]
#[ignore]
fn print_vectors() {
    for (name, v) in vectors(&spec()) {
        let source = gzip_recipe(&name).map_or(v.source.clone(), |(gz, _)| gz);
        let mut sidecar = build(&source, &v.opts);
        if v.of == name {
            println!("```hex source={name}\n{}```\n", dump(&source));
        }
        let of = if v.of == name {
            String::new()
        } else {
            format!(" source={}", v.of)
        };
        if v.legacy {
            sidecar = legacy::to_legacy(&sidecar);
        }
        let mut span = if v.opts.span == DEFAULT_SPAN {
            String::new()
        } else {
            format!(" span={}", v.opts.span)
        };
        if v.opts.plain {
            span += " plain=1";
        }
        if v.opts.piece_shift != 16 {
            span += &format!(" piece_shift={}", v.opts.piece_shift);
        }
        if v.legacy {
            span += " layout=1.1";
        }
        println!(
            "```hex sidecar={name}{of} spacing={} page_size={}{span}\n{}```\n",
            v.opts.spacing,
            v.opts.page_size,
            dump(&sidecar)
        );
    }
}

// ---------------------------------------------------------------------------
// §13: zstd seekable sources.

/// The text of a zstd archive, by the `zstd` crate's streaming decoder
/// (which skips the seek table's skippable frame): an oracle independent of
/// lidx's frame-by-frame reader.
fn unzstd(archive: &[u8]) -> Vec<u8> {
    zstd::stream::decode_all(archive).expect("a valid zstd archive")
}

/// Table 29 and Table 30 (frame records) and Table 28 (the seek table)
/// against the code's encodings, each field filled with a sentinel.
#[test]
fn zstd_tables_match_encoding() {
    let s = spec();
    let r = FrameRecord {
        uncomp: 0x0101_0101_0101_0101,
        comp: 0x0202_0202_0202_0202,
        comp_len: 0x0303_0303,
        text_len: 0x0404_0404,
        text_crc: 0x0505_0505,
        xxh: 0x0606_0606,
        flags: zfmt::FRAME_HAS_XXH | zfmt::FRAME_CONTENT_CHECKSUM,
    };
    let mut b = [0u8; zfmt::FRAME_RECORD_LEN];
    r.encode(&mut b);
    let t = table(&s, "Frame record");
    let mut at = 0usize;
    for row in &t.rows {
        let off = int(&row[0]).expect("offset") as usize;
        let size = int(&row[1]).expect("size") as usize;
        assert_eq!(off, at, "Table 29 row {row:?}: gap or overlap");
        let want: Vec<u8> = match strip_ticks(&row[3]) {
            "uncomp" => r.uncomp.to_le_bytes().to_vec(),
            "comp" => r.comp.to_le_bytes().to_vec(),
            "comp_len" => r.comp_len.to_le_bytes().to_vec(),
            "text_len" => r.text_len.to_le_bytes().to_vec(),
            "text_crc" => r.text_crc.to_le_bytes().to_vec(),
            "xxh" => r.xxh.to_le_bytes().to_vec(),
            "flags" => 3u32.to_le_bytes().to_vec(),
            "reserved" => vec![0; size],
            f => panic!("Table 29: unknown field {f}"),
        };
        assert_eq!(&b[off..off + size], &want[..], "Table 29 row {row:?}");
        at += size;
    }
    assert_eq!(at, zfmt::FRAME_RECORD_LEN);
    // Reserved bits and bytes are refused (R-133).
    let mut bad = b;
    bad[32] |= 4;
    assert_eq!(FrameRecord::decode(&bad), None);
    let mut bad = b;
    bad[39] = 1;
    assert_eq!(FrameRecord::decode(&bad), None);
    // Table 30: records at 16, 12 per 512-byte page, 102 per 4096 (§13.2).
    let bt = table(&s, "Frame-record page body");
    assert_eq!(eval(&bt.rows[0][0], 3, 512), 16);
    assert_eq!(zfmt::records_per_page(512), 12);
    assert_eq!(zfmt::records_per_page(4096), 102);
    assert!(s.contains("For P = 512: 12 records per page; for P = 4096: 102."));

    // Table 28, with and without checksums.
    for checksums in [true, false] {
        let w: i64 = if checksums { 12 } else { 8 };
        let table_bytes = SeekTable {
            entries: vec![
                zfmt::Entry {
                    comp: 0x1111_1111,
                    text: 0x2222_2222,
                    xxh: checksums.then_some(0x3333_3333),
                },
                zfmt::Entry {
                    comp: 0x4444_4444,
                    text: 0x5555_5555,
                    xxh: checksums.then_some(0x6666_6666),
                },
            ],
        }
        .encode();
        let n = 2i64;
        let t = table(&s, "The seek table");
        let mut at = 0i64;
        for row in &t.rows {
            let expr = |c: &str| c.replace("w·n", &format!("{w}n"));
            let off = eval(&expr(&row[0]), n, 0);
            let size = eval(&expr(&row[1]), n, 0);
            assert_eq!(off, at, "Table 28 row {row:?}");
            let got = &table_bytes[off as usize..(off + size) as usize];
            let u32_le = |v: u32| v.to_le_bytes().to_vec();
            let want: Vec<u8> = match strip_ticks(&row[3]) {
                "skippable_magic" => u32_le(zfmt::SKIPPABLE_MAGIC),
                "frame_size" => u32_le((w * n + 9) as u32),
                "entries" => {
                    let mut e = Vec::new();
                    for (c, t, x) in [
                        (0x1111_1111, 0x2222_2222, 0x3333_3333),
                        (0x4444_4444, 0x5555_5555, 0x6666_6666),
                    ] {
                        e.extend(u32_le(c));
                        e.extend(u32_le(t));
                        if checksums {
                            e.extend(u32_le(x));
                        }
                    }
                    e
                }
                "number_of_frames" => u32_le(2),
                "descriptor" => vec![if checksums { 0x80 } else { 0 }],
                "seekable_magic" => u32_le(zfmt::SEEKABLE_MAGIC),
                f => panic!("Table 28: unknown field {f}"),
            };
            assert_eq!(got, &want[..], "Table 28 row {row:?} checksums {checksums}");
            at += size;
        }
        assert_eq!(at as usize, table_bytes.len());
        assert_eq!(&table_bytes[..4], &[0x5e, 0x2a, 0x4d, 0x18]);
        assert_eq!(
            &table_bytes[table_bytes.len() - 4..],
            &[0xb1, 0xea, 0x92, 0x8f]
        );
    }
}

/// R-9, R-16 for bit 1, R-130, §9: the zstd superblock's rules, and the
/// feature bit that keeps a 1.2 reader away.
#[test]
fn zstd_superblock_rules() {
    let vs = vectors(&spec());
    let v8 = &vs["V8"];
    let sb = Superblock::decode(&v8.sidecar[..256]).unwrap();
    assert!(sb.is_zstd());
    assert_eq!(format::INCOMPAT_ZSTD, 2);
    assert_eq!(format::SOURCE_KIND_ZSTD, 2);
    assert_eq!(format::VERSION_MINOR_ZSTD, 3);
    // A reader that knows only bit 0 (1.1, 1.2) finds an unknown bit.
    assert_ne!(sb.incompat_features & !format::INCOMPAT_GZIP, 0);
    let corrupt = |f: &dyn Fn(&mut Superblock)| {
        let mut b = sb.clone();
        f(&mut b);
        match Superblock::decode(&b.encode()) {
            Err(format::SuperblockError::Invalid(_)) => {}
            other => panic!("expected corrupt, got {other:?}"),
        }
    };
    corrupt(&|b| b.incompat_features = 0);
    corrupt(&|b| b.incompat_features = format::INCOMPAT_GZIP);
    corrupt(&|b| b.source_kind = format::SOURCE_KIND_PLAIN);
    corrupt(&|b| b.source_kind = 3);
    corrupt(&|b| b.gzip.ap_count = 0);
    corrupt(&|b| b.gzip.span = 0);
    corrupt(&|b| b.gzip.ap_pages = 2);
    corrupt(&|b| {
        b.gzip.blob_pages = 1;
        b.page_count += 1;
    });
    corrupt(&|b| b.gzip.ap_first_page = 1);
    corrupt(&|b| b.line_count = b.gzip.text_len + 1);
    // An empty text may have no frame records (R-130).
    let mut b = sb.clone();
    b.gzip = GzipFields {
        text_len: 0,
        span: 1,
        ap_count: 0,
        ap_first_page: 2,
        ap_pages: 0,
        blob_pages: 0,
        ..GzipFields::default()
    };
    b.page_count = 2;
    b.line_count = 0;
    b.checkpoint_count = 1;
    assert!(Superblock::decode(&b.encode()).is_ok());
    // An unknown incompatible bit is refused before the fields (R-15).
    let mut b = sb.clone();
    b.incompat_features |= 4;
    assert!(matches!(
        Superblock::decode(&b.encode()),
        Err(format::SuperblockError::Features(4))
    ));
}

/// §13.5: vector V8 is what `zstd -d` (here the `zstd` crate) reads as the
/// text, its frames are as the annotation says, and the sniffing of R-120
/// tells it from a plain zstd stream.
#[test]
fn vector_v8_is_a_standard_archive() {
    use lidx::ingest::sniff::{Format, Sniffed, sniff};
    let vs = vectors(&spec());
    let v8 = &vs["V8"];
    assert_eq!(unzstd(&v8.source), b"one\ntwo\nthree\n");
    let frames = lidx::zstd::seek_table(&MemSource::new(v8.source.clone())).unwrap();
    let got: Vec<_> = frames
        .iter()
        .map(|f| (f.comp, f.comp_len, f.uncomp, f.text_len))
        .collect();
    assert_eq!(got, [(0, 21, 0, 8), (21, 19, 8, 6)]);
    assert_eq!(
        sniff(&MemSource::new(v8.source.clone())).unwrap(),
        Sniffed::ZstdSeekable
    );
    // The frames alone, without the seek table: a plain zstd stream.
    let plain = v8.source[..40].to_vec();
    assert_eq!(unzstd(&plain), b"one\ntwo\nthree\n");
    assert_eq!(
        sniff(&MemSource::new(plain)).unwrap(),
        Sniffed::Compressed(Format::Zstd)
    );
    // Two archives one after the other are one source (R-121).
    let mut two = v8.source.clone();
    two.extend_from_slice(&v8.source);
    let sidecar = lidx::build_to_vec(&MemSource::new(two.clone()), &v8.opts).unwrap();
    let index = open_parts(&two, sidecar).unwrap();
    assert_eq!(index.line_count(), 6);
    let mut text = vec![0u8; 28];
    assert_eq!(index.source().read_full_at(&mut text, 0).unwrap(), 28);
    assert_eq!(text, b"one\ntwo\nthree\none\ntwo\nthree\n");
    index.verify(true).unwrap();
}

/// R-121, R-122, R-134: any one bit flipped in vector V8's archive gives
/// an error or the right text, never other text: from a fresh build (which
/// refuses the archive, or indexes the same text) and through the intact
/// sidecar (whose reads fail or give the indexed text).
#[test]
fn zstd_damage_is_an_error_never_wrong_text() {
    let vs = vectors(&spec());
    let v8 = &vs["V8"];
    let text = b"one\ntwo\nthree\n";
    let read_all = |index: &Index| -> Result<Vec<u8>, Error> {
        let mut t = Vec::new();
        for line in 0..index.line_count() {
            let span = index.line_span(line)?;
            let mut b = vec![0u8; (span.end - span.start) as usize];
            index.source().read_full_at(&mut b, span.start)?;
            t.extend(b);
        }
        Ok(t)
    };
    let (mut built_same, mut refused, mut read_fails) = (0, 0, 0);
    let mut harmless = Vec::new();
    for i in 0..v8.source.len() {
        for bit in 0..8 {
            let mut src = v8.source.clone();
            src[i] ^= 1 << bit;
            match lidx::build_to_vec(&MemSource::new(src.clone()), &v8.opts) {
                Ok(sidecar) => {
                    let sb = Superblock::decode(&sidecar[..256]).unwrap();
                    if sb.is_zstd() {
                        let index = open_parts(&src, sidecar).unwrap();
                        assert_eq!(read_all(&index).unwrap(), text, "byte {i} bit {bit}");
                        built_same += 1;
                        harmless.push((i, bit));
                    } else {
                        // No longer starts with a frame magic or ends with
                        // the seek table's: the build indexes the bytes as
                        // plain (R-120), which `lidx` refuses for zstd data
                        // unless --plain.
                        assert!(i < 4 || i >= v8.source.len() - 4, "byte {i} bit {bit}");
                    }
                }
                Err(Error::CorruptSource { .. }) => refused += 1,
                Err(e) => panic!("byte {i} bit {bit}: unexpected {e}"),
            }
            let index = open_parts(&src, unnoticed(&src, v8.sidecar.clone())).unwrap();
            match read_all(&index) {
                Ok(t) => assert_eq!(t, text, "byte {i} bit {bit}"),
                Err(Error::SourceChanged { .. } | Error::CorruptSource { .. }) => read_fails += 1,
                Err(e) => panic!("byte {i} bit {bit}: unexpected {e}"),
            }
        }
    }
    // The only harmless flips: in each frame header's descriptor (bytes 4
    // and 25), the unused bit 4, and bit 5 (single segment), which turns
    // the 1-byte content size into a window descriptor of the same length;
    // in the seek table's descriptor (byte 76), the unused bits 0 and 1.
    // Each leaves the text as it was.
    assert_eq!(
        harmless,
        [(4usize, 4u32), (4, 5), (25, 4), (25, 5), (76, 0), (76, 1)],
        "{built_same}"
    );
    assert!(refused > 500 && read_fails > 300, "{refused} {read_fails}");
}

/// Table 26a (R-126): every zone abbreviation the spec lists is the
/// code's, with the offset the table gives, and words that are not zones
/// (log levels after a stamp) are not.
#[test]
fn zone_abbreviations_table() {
    let s = spec();
    let t = table(&s, "Zone abbreviations");
    let (ac, oc) = (t.col("Abbreviations"), t.col("Offset"));
    let mut n = 0;
    for r in &t.rows {
        let offset = match r[oc].trim() {
            o if o.starts_with("none") => None,
            o => {
                let o = o.replace('−', "-");
                let sign = if o.starts_with('-') { -1 } else { 1 };
                let (h, m) = o[1..].split_once(':').expect("±HH:MM");
                Some(sign * (h.parse::<i32>().unwrap() * 3600 + m.parse::<i32>().unwrap() * 60))
            }
        };
        for a in r[ac].split(',') {
            let a = strip_ticks(a.trim());
            assert_eq!(lidx::time::abbreviation_offset(a), Some(offset), "{a}");
            n += 1;
        }
    }
    assert_eq!(n, 52, "abbreviations in Table 26a");
    for word in ["INFO", "WARN", "ERR", "LOG", "DEBUG", "Z", "utc"] {
        assert_eq!(lidx::time::abbreviation_offset(word), None, "{word}");
    }
}

// ---------------------------------------------------------------------------
// format-spec/family-v1.md: the rotation family manifest.

fn family_spec() -> String {
    let path = root().join("format-spec/family-v1.md");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A vector of family-v1.md §12: its members' files (name now, text),
/// oldest first, and the manifest's bytes (`None` before they are pasted
/// in: `print_family_vectors` makes them).
struct FamilyVector {
    files: Vec<(String, Vec<u8>)>,
    manifest: Option<Vec<u8>>,
}

/// The ```` ```hex manifest=NAME ```` and ```` ```text manifest=NAME
/// file=FILE ```` blocks of family-v1.md (§12.1).
fn family_vectors(spec: &str) -> BTreeMap<String, FamilyVector> {
    let mut out: BTreeMap<String, FamilyVector> = BTreeMap::new();
    for (info, body) in fences(spec) {
        let mut words = info.split_whitespace();
        let kind = words.next().unwrap_or_default();
        if kind != "hex" && kind != "text" {
            continue;
        }
        let kv: BTreeMap<&str, &str> = words
            .map(|w| {
                w.split_once('=')
                    .unwrap_or_else(|| panic!("bad info word {w:?} in {info:?}"))
            })
            .collect();
        let Some(name) = kv.get("manifest") else {
            assert_ne!(kind, "hex", "{info:?}: a hex block names its manifest");
            continue;
        };
        let v = out.entry(name.to_string()).or_insert(FamilyVector {
            files: Vec::new(),
            manifest: None,
        });
        if kind == "hex" {
            assert_eq!(kv.len(), 1, "{info:?}: unexpected parameters");
            let bytes = parse_hex(&info, &body);
            assert!(v.manifest.replace(bytes).is_none(), "{info:?} twice");
        } else {
            let file = kv
                .get("file")
                .unwrap_or_else(|| panic!("{info:?}: no file="));
            assert_eq!(kv.len(), 2, "{info:?}: unexpected parameters");
            let mut text = body.join("\n").into_bytes();
            text.push(b'\n');
            v.files.push((file.to_string(), text));
        }
    }
    out
}

fn family_vector_bytes(v: &FamilyVector, name: &str) -> Vec<u8> {
    v.manifest
        .clone()
        .unwrap_or_else(|| panic!("vector {name}: no hex block"))
}

/// The line count of a text (family-v1.md §2, sidecar-v1.md §2).
fn line_count(text: &[u8]) -> u64 {
    let newlines = text.iter().filter(|&&b| b == b'\n').count() as u64;
    newlines + u64::from(text.last().is_some_and(|&b| b != b'\n'))
}

/// XXH64 as family-v1.md §5 writes it out, step by step: an oracle
/// independent of the `xxhash-rust` crate the code uses.
fn xxh64_per_spec(d: &[u8], seed: u64) -> u64 {
    const P1: u64 = 0x9E37_79B1_85EB_CA87;
    const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
    const P3: u64 = 0x1656_67B1_9E37_79F9;
    const P4: u64 = 0x85EB_CA77_C2B2_AE63;
    const P5: u64 = 0x27D4_EB2F_1656_67C5;
    let u64le = |i: usize| u64::from_le_bytes(d[i..i + 8].try_into().expect("8 bytes"));
    let u32le = |i: usize| u64::from(u32::from_le_bytes(d[i..i + 4].try_into().expect("4")));
    let round = |acc: u64, x: u64| {
        acc.wrapping_add(x.wrapping_mul(P2))
            .rotate_left(31)
            .wrapping_mul(P1)
    };
    let merge = |h: u64, v: u64| (h ^ round(0, v)).wrapping_mul(P1).wrapping_add(P4);
    let n = d.len();
    let mut i = 0;
    let mut h;
    if n >= 32 {
        let mut v1 = seed.wrapping_add(P1).wrapping_add(P2);
        let mut v2 = seed.wrapping_add(P2);
        let mut v3 = seed;
        let mut v4 = seed.wrapping_sub(P1);
        while i + 32 <= n {
            v1 = round(v1, u64le(i));
            v2 = round(v2, u64le(i + 8));
            v3 = round(v3, u64le(i + 16));
            v4 = round(v4, u64le(i + 24));
            i += 32;
        }
        h = v1
            .rotate_left(1)
            .wrapping_add(v2.rotate_left(7))
            .wrapping_add(v3.rotate_left(12))
            .wrapping_add(v4.rotate_left(18));
        h = merge(merge(merge(merge(h, v1), v2), v3), v4);
    } else {
        h = seed.wrapping_add(P5);
    }
    h = h.wrapping_add(n as u64);
    while i + 8 <= n {
        h = (h ^ round(0, u64le(i)))
            .rotate_left(27)
            .wrapping_mul(P1)
            .wrapping_add(P4);
        i += 8;
    }
    if i + 4 <= n {
        h = (h ^ u32le(i).wrapping_mul(P1))
            .rotate_left(23)
            .wrapping_mul(P2)
            .wrapping_add(P3);
        i += 4;
    }
    while i < n {
        h = (h ^ u64::from(d[i]).wrapping_mul(P5))
            .rotate_left(11)
            .wrapping_mul(P1);
        i += 1;
    }
    h = (h ^ (h >> 33)).wrapping_mul(P2);
    h = (h ^ (h >> 29)).wrapping_mul(P3);
    h ^ (h >> 32)
}

#[test]
fn family_xxh64_is_the_one_named() {
    let s = family_spec();
    let t = table(&s, "XXH64 check values");
    let (ic, lc, hc, sc) = (
        t.col("Input"),
        t.col("Length"),
        t.col("XXH64"),
        t.col("Stored as"),
    );
    assert!(t.rows.len() >= 2);
    for r in &t.rows {
        let input: Vec<u8> = if r[ic] == "the empty string" {
            Vec::new()
        } else {
            r[ic].split('`').nth(1).expect("input in backticks").into()
        };
        assert_eq!(input.len() as u64, int(&r[lc]).unwrap(), "{r:?}");
        let want = int(&strip_ticks(&r[hc]).to_lowercase()).expect("hex value");
        assert_eq!(
            xxhash_rust::xxh64::xxh64(&input, 0),
            want,
            "{r:?}: the crate"
        );
        assert_eq!(xxh64_per_spec(&input, 0), want, "{r:?}: §5's algorithm");
        let stored: Vec<u8> = strip_ticks(&r[sc])
            .split_whitespace()
            .map(|t| u8::from_str_radix(t, 16).expect("hex byte"))
            .collect();
        assert_eq!(stored, want.to_le_bytes(), "{r:?}: little-endian");
    }
    // The algorithm of §5 is the crate's for every length class (the tail
    // of 8-, 4- and 1-byte steps, one stripe and many) and for any seed.
    let data: Vec<u8> = (0..5000u32).map(|i| (i * 7919 % 251) as u8).collect();
    for len in (0..=100).chain([127, 128, 129, 4095, 4096, 5000]) {
        for seed in [0, 1, u64::MAX] {
            assert_eq!(
                xxh64_per_spec(&data[..len], seed),
                xxhash_rust::xxh64::xxh64(&data[..len], seed),
                "length {len}, seed {seed}"
            );
        }
    }
    // F-6 states the digest of no bytes; F-1 names the CRC as sidecar-v1 §2.
    let f6 = definitions(&s, "F-")[&6].clone();
    assert!(f6.contains("`0xEF46DB3751D8E999`"), "{f6}");
    assert!(f6.contains("seed 0") && f6.contains("XXH64"), "{f6}");
    for text in [
        "CRC-32/ISO-HDLC",
        "`0x04C11DB7`",
        "`0xEDB88320`",
        "**`0xCBF43926`**",
        "`26 39 F4 CB`",
    ] {
        assert!(s.contains(text), "family-v1.md §2 lacks {text:?}");
    }
    assert_eq!(fam::HEAD_WINDOW, 4096);
}

/// Evaluates a size or offset of Table 1 (`32 + 48n + N`).
fn family_expr(expr: &str, n: usize, names: usize) -> usize {
    expr.split('+')
        .map(|t| match t.trim() {
            "N" => names,
            "n" => n,
            t => match t.strip_suffix('n') {
                Some(c) => c.parse::<usize>().expect("coefficient") * n,
                None => t.parse().unwrap_or_else(|_| panic!("bad term {t:?}")),
            },
        })
        .sum()
}

/// A manifest with a distinct value in every field (it breaks F-5; the
/// encoder does not care): two records, and the second name 258 bytes.
fn sentinel_manifest() -> Manifest {
    let rec = |k: u8, name: Vec<u8>| {
        let v = |at: u8| u64::from_le_bytes(std::array::from_fn(|i| k + at + i as u8));
        MemberRecord {
            base_line: v(0),
            lines: v(8),
            base_byte: v(16),
            bytes: v(24),
            head_digest: v(32),
            head_len: v(40) as u32,
            name,
        }
    };
    Manifest {
        head_window: 0x1413_1211,
        members: vec![
            rec(0x21, b"app.log.2.gz".to_vec()),
            rec(0x81, (0..258u32).map(|i| (i % 26) as u8 + b'a').collect()),
        ],
    }
}

/// The bytes a record field encodes to, by its name in Table 3.
fn record_field(r: &MemberRecord, field: &str) -> Vec<u8> {
    match field {
        "base_line" => r.base_line.to_le_bytes().to_vec(),
        "lines" => r.lines.to_le_bytes().to_vec(),
        "base_byte" => r.base_byte.to_le_bytes().to_vec(),
        "bytes" => r.bytes.to_le_bytes().to_vec(),
        "head_digest" => r.head_digest.to_le_bytes().to_vec(),
        "head_len" => r.head_len.to_le_bytes().to_vec(),
        "name_len" => (r.name.len() as u16).to_le_bytes().to_vec(),
        f => panic!("Table 3: unknown field {f:?}"),
    }
}

/// The bytes a header field encodes to, by its name in Table 2.
fn header_field(m: &Manifest, field: &str) -> Vec<u8> {
    match field {
        "magic" => fam::MAGIC.to_vec(),
        "version_major" => fam::VERSION_MAJOR.to_le_bytes().to_vec(),
        "version_minor" => fam::VERSION_MINOR.to_le_bytes().to_vec(),
        "member_count" => (m.members.len() as u32).to_le_bytes().to_vec(),
        "head_window" => m.head_window.to_le_bytes().to_vec(),
        f => panic!("Table 2: unknown field {f:?}"),
    }
}

/// Checks a byte table (Table 2 or 3) against `bytes`, the structure it
/// describes encoded at offset `base`: every field at its offset, with its
/// size and type, reserved bytes zero, the table covering `0..len`.
fn check_family_table(
    t: &Table,
    bytes: &[u8],
    base: usize,
    len: usize,
    want: &dyn Fn(&str) -> Vec<u8>,
) {
    let (o, s, ty, f) = (
        t.col("Offset"),
        t.col("Size"),
        t.col("Type"),
        t.col("Field"),
    );
    let mut at = 0;
    let mut seen = BTreeSet::new();
    for r in &t.rows {
        let off: usize = r[o].parse().expect("decimal offset");
        let size: usize = r[s].parse().expect("decimal size");
        assert_eq!(off, at, "{}: row {r:?}: gap or overlap", t.caption);
        assert_eq!(type_size(&r[ty], 0), Some(size as i64), "{r:?}");
        at = off + size;
        let field = strip_ticks(&r[f]);
        let got = &bytes[base + off..base + off + size];
        if field == "reserved" {
            assert!(got.iter().all(|&b| b == 0), "reserved at {off}: {got:?}");
        } else {
            assert!(seen.insert(field.to_string()), "{field} twice");
            assert_eq!(got, &want(field)[..], "{}: {field} at {off}", t.caption);
        }
    }
    assert_eq!(at, len, "{} must cover 0..{len}", t.caption);
}

#[test]
fn family_tables_match_encoding() {
    let s = family_spec();
    let m = sentinel_manifest();
    let bytes = m.encode();
    let (hdr, rec) = (table(&s, "Manifest header"), table(&s, "Member record"));
    check_family_table(&hdr, &bytes, 0, fam::HEADER_LEN, &|f| header_field(&m, f));
    for (i, r) in m.members.iter().enumerate() {
        let at = fam::HEADER_LEN + fam::RECORD_LEN * i;
        check_family_table(&rec, &bytes, at, fam::RECORD_LEN, &|f| record_field(r, f));
    }
    assert_eq!((fam::HEADER_LEN, fam::RECORD_LEN), (32, 48));
    assert!(rec.caption.contains("48 bytes") && rec.caption.contains("32 + 48i"));

    // What the descriptions state: the magic, the versions, the bound, the
    // head window a writer writes.
    let desc = |t: &Table, field: &str| -> String {
        let (f, d) = (t.col("Field"), t.col("Description"));
        let r = t.rows.iter().find(|r| strip_ticks(&r[f]) == field);
        r.unwrap_or_else(|| panic!("{} lacks {field}", t.caption))[d].clone()
    };
    let magic = desc(&hdr, "magic");
    let stated = magic.split('`').nth(1).expect("magic bytes in description");
    assert_eq!(
        bytes_cell(&format!("`{}`", stated.to_lowercase())),
        fam::MAGIC
    );
    assert!(magic.contains("`\\x89LIDXFAM`"), "{magic}");
    assert!(desc(&hdr, "version_major").contains(": 1 "));
    assert!(desc(&hdr, "version_minor").contains(": 0 "));
    assert!(desc(&hdr, "member_count").contains("`1..=1048576`"));
    assert_eq!(fam::MAX_MEMBERS, 1_048_576);
    assert!(desc(&hdr, "head_window").contains("4096"));
    assert_eq!((fam::VERSION_MAJOR, fam::VERSION_MINOR), (1, 0));

    // Table 1: the file is the header, the records, the names and the CRC
    // of everything before it, and nothing else.
    let lay = table(&s, "Manifest file layout");
    let (o, sz, f, d) = (
        lay.col("Offset"),
        lay.col("Size"),
        lay.col("Field"),
        lay.col("Description"),
    );
    let vs = family_vectors(&s);
    let f1 = family_vector_bytes(&vs["F1"], "F1");
    for b in [bytes, f1] {
        let dm = Manifest::decode(&b).ok();
        let members = dm.as_ref().map_or(m.members.len(), |x| x.members.len());
        let names: usize = dm
            .as_ref()
            .map_or(&m.members, |x| &x.members)
            .iter()
            .map(|r| r.name.len())
            .sum();
        let mut at = 0;
        for r in &lay.rows {
            let off = family_expr(&r[o], members, names);
            let size = family_expr(&r[sz], members, names);
            assert_eq!(off, at, "Table 1 row {r:?}: gap or overlap");
            at = off + size;
            match strip_ticks(&r[f]) {
                "header" => assert_eq!(size, fam::HEADER_LEN),
                "records" => assert_eq!(size, fam::RECORD_LEN * members),
                "names" => {
                    let all: Vec<u8> = dm
                        .as_ref()
                        .map_or(&m.members, |x| &x.members)
                        .iter()
                        .flat_map(|r| r.name.clone())
                        .collect();
                    assert_eq!(&b[off..off + size], &all[..], "the names, in order");
                }
                "crc" => {
                    let range = r[d].split('`').nth(1).expect("a range");
                    let (a, e) = range.split_once("..").expect("a..b");
                    let (a, e) = (
                        family_expr(a, members, names),
                        family_expr(e, members, names),
                    );
                    assert_eq!((a, e), (0, off), "F-13: everything before the CRC");
                    assert_eq!(b[off..off + 4], format::crc32(&b[a..e]).to_le_bytes());
                }
                other => panic!("Table 1: unknown field {other:?}"),
            }
        }
        assert_eq!(at, b.len(), "Table 1 must cover the whole file");
        assert_eq!(b.len(), 36 + 48 * members + names, "§4.1: L = 36 + 48n + N");
    }
}

/// The members of `spec`'s vector `name` as MemberRecords would describe
/// them: (lines, bytes, head_len, head_digest) from their texts.
fn text_identity(text: &[u8], head_window: u32) -> (u64, u64, u32, u64) {
    let head_len = text.len().min(head_window as usize);
    (
        line_count(text),
        text.len() as u64,
        head_len as u32,
        xxh64_per_spec(&text[..head_len], 0),
    )
}

#[test]
fn family_vectors_decode_reencode_and_match_their_texts() {
    let vs = family_vectors(&family_spec());
    assert!(vs.len() >= 2, "vectors F1 and F2");
    for (name, v) in &vs {
        let bytes = family_vector_bytes(v, name);
        let m = Manifest::decode(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(m.encode(), bytes, "{name}: re-encoded byte for byte");
        assert_eq!(m.check(), Ok(()), "{name}: F-5");
        assert_eq!(m.head_window, fam::HEAD_WINDOW, "{name}: F-2");
        assert_eq!(
            m.members.len(),
            v.files.len(),
            "{name}: one text per member"
        );
        for (i, (r, (file, text))) in m.members.iter().zip(&v.files).enumerate() {
            let (lines, len, head_len, digest) = text_identity(text, m.head_window);
            assert_eq!(
                (r.lines, r.bytes, r.head_len, r.head_digest),
                (lines, len, head_len, digest),
                "{name}: member {i} ({file}) and its text"
            );
            assert_eq!(
                digest,
                xxhash_rust::xxh64::xxh64(&text[..head_len as usize], 0)
            );
        }
    }
    // F1 is numbered from the start, under the files' names; F2 lost F1's
    // oldest member (its first line is F1's record 1's), and keeps the name
    // that member was recorded under (§12.3).
    let f1 = Manifest::decode(&family_vector_bytes(&vs["F1"], "F1")).unwrap();
    let f2 = Manifest::decode(&family_vector_bytes(&vs["F2"], "F2")).unwrap();
    assert_eq!((f1.members[0].base_line, f1.members[0].base_byte), (0, 0));
    for (r, (file, _)) in f1.members.iter().zip(&vs["F1"].files) {
        assert_eq!(r.name, file.as_bytes());
    }
    assert_eq!(
        f2.members[0], f1.members[1],
        "F2 keeps F1's record 1 as it was"
    );
    assert_eq!(f2.members[0].base_line, 2);
    assert_eq!(f2.members[0].name, b"app.log.1");
    assert_eq!(vs["F2"].files[0].0, "app.log.2.gz");
    let (a, b) = (&f1.members[2], &f2.members[1]);
    assert_eq!((a.base_line, a.base_byte), (b.base_line, b.base_byte));
    assert_eq!(
        (a.lines + 1, b.name.as_slice()),
        (b.lines, &b"app.log.1"[..])
    );
}

/// Gives a file an old modification time, the same for every file (so
/// that F-9's quiet period has passed, and nothing depends on the clock).
fn age(path: &Path) {
    let t = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(t).unwrap();
}

/// Writes a member holding `text` (gzip when its name ends with `.gz`).
fn put_member(dir: &Path, name: &str, text: &[u8]) {
    let bytes = if name.ends_with(".gz") {
        gz_member(&[text])
    } else {
        text.to_vec()
    };
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    age(&p);
}

fn open_family(live: &Path, renumber: bool) -> lidx::Result<Family> {
    Family::open(live, &lidx::OpenOptions::new(), renumber)
}

/// The manifest's path for the live file `app.log` in `dir` (F-14).
fn manifest_at(dir: &Path) -> PathBuf {
    dir.join("app.log.family.lidx")
}

/// Builds the files of each vector in turn in one directory (those of the
/// one before removed, as a rotation would leave them) and opens the
/// family: what it did, and the manifest it left.
fn family_scenario(vs: &BTreeMap<String, FamilyVector>) -> Vec<(String, FamilyAction, Vec<u8>)> {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut out = Vec::new();
    let mut before: Vec<String> = Vec::new();
    for (name, v) in vs {
        for f in before.drain(..) {
            std::fs::remove_file(d.join(f)).unwrap();
        }
        for (file, text) in &v.files {
            put_member(d, file, text);
            before.push(file.clone());
        }
        let live = d.join(&v.files.last().expect("a live file").0);
        assert_eq!(live, d.join("app.log"));
        let f = open_family(&live, false).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(f.manifest_path(), manifest_at(d));
        let bytes = std::fs::read(f.manifest_path()).unwrap();
        out.push((name.clone(), f.action(), bytes));
    }
    out
}

#[test]
fn family_vectors_are_what_the_reference_implementation_writes() {
    let vs = family_vectors(&family_spec());
    let run = family_scenario(&vs);
    for (name, action, bytes) in run {
        assert_eq!(
            bytes,
            family_vector_bytes(&vs[&name], &name),
            "{name}: Family::open wrote\n{}",
            dump(&bytes)
        );
        let want = if name == "F1" {
            FamilyAction::Numbered
        } else {
            FamilyAction::Updated
        };
        assert_eq!(action, want, "{name}");
    }
}

/// Prints the manifests of family-v1.md §12 as `Family::open` writes them
/// from the members' texts, in the spec's hex notation, with a draft of
/// their annotation.
#[test]
#[ignore]
fn print_family_vectors() {
    for (name, _, bytes) in family_scenario(&family_vectors(&family_spec())) {
        println!("```hex manifest={name}\n{}```\n", dump(&bytes));
        let m = Manifest::decode(&bytes).unwrap();
        let hex = |b: &[u8]| {
            b.iter()
                .map(|x| format!("{x:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let row = |at: usize, len: usize, field: &str, value: String| {
            println!(
                "| 0x{at:03x} | `{}` | {field} | {value} |",
                hex(&bytes[at..at + len])
            );
        };
        row(0, 8, "magic", "`\\x89LIDXFAM`".into());
        row(8, 2, "version_major", "1".into());
        row(10, 2, "version_minor", "0".into());
        row(12, 4, "member_count", m.members.len().to_string());
        row(16, 4, "head_window", m.head_window.to_string());
        println!("| 0x014 | `00` × 12 | reserved | |");
        for (i, r) in m.members.iter().enumerate() {
            let at = 32 + 48 * i;
            row(
                at,
                8,
                &format!("record[{i}].base_line"),
                r.base_line.to_string(),
            );
            row(
                at + 8,
                8,
                &format!("record[{i}].lines"),
                r.lines.to_string(),
            );
            row(
                at + 16,
                8,
                &format!("record[{i}].base_byte"),
                r.base_byte.to_string(),
            );
            row(
                at + 24,
                8,
                &format!("record[{i}].bytes"),
                r.bytes.to_string(),
            );
            row(
                at + 32,
                8,
                &format!("record[{i}].head_digest"),
                format!("{:#018x}", r.head_digest),
            );
            row(
                at + 40,
                4,
                &format!("record[{i}].head_len"),
                r.head_len.to_string(),
            );
            row(
                at + 44,
                2,
                &format!("record[{i}].name_len"),
                r.name.len().to_string(),
            );
            println!("| 0x{:03x} | `00` × 2 | record[{i}].reserved | |", at + 46);
        }
        let mut at = 32 + 48 * m.members.len();
        for (i, r) in m.members.iter().enumerate() {
            row(
                at,
                r.name.len(),
                &format!("name[{i}]"),
                format!("`{}`", String::from_utf8_lossy(&r.name)),
            );
            at += r.name.len();
        }
        row(
            at,
            4,
            "crc",
            format!(
                "{:#010x}",
                u32::from_le_bytes(bytes[at..].try_into().unwrap())
            ),
        );
        println!();
    }
}

#[test]
fn family_annotations_match_the_vectors() {
    let s = family_spec();
    let vs = family_vectors(&s);
    let anns = tables(&s, "Annotation of manifest ");
    let mut annotated = BTreeSet::new();
    for t in &anns {
        let name = t
            .caption
            .split("Annotation of manifest ")
            .nth(1)
            .and_then(|r| r.split([',', ' ', '*']).next())
            .expect("vector name");
        let v = vs
            .get(name)
            .unwrap_or_else(|| panic!("{}: no vector {name}", t.caption));
        annotated.insert(name.to_string());
        let bytes = family_vector_bytes(v, name);
        let m = Manifest::decode(&bytes).unwrap();
        let (oc, bc, fc, vc) = (
            t.col("Offset"),
            t.col("Bytes"),
            t.col("Field"),
            t.col("Value"),
        );
        let mut at = 0;
        for r in &t.rows {
            let ctx = format!("{name}: row {r:?}");
            let off = int(&r[oc]).unwrap_or_else(|| panic!("{ctx}: offset"));
            let off = off as usize;
            assert_eq!(off, at, "{ctx}: gap or overlap");
            let want = bytes_cell(&r[bc]);
            assert_eq!(&bytes[off..off + want.len()], &want[..], "{ctx}: bytes");
            at = off + want.len();
            let field = strip_ticks(&r[fc]);
            let value = r[vc].trim();
            let number = || -> u64 {
                let first = value.split_whitespace().next().unwrap_or_default();
                int(first).unwrap_or_else(|| panic!("{ctx}: no number in Value"))
            };
            let le = |n: usize| -> u64 {
                let mut b = [0u8; 8];
                b[..n].copy_from_slice(&want[..n]);
                u64::from_le_bytes(b)
            };
            match field.split_once('.') {
                _ if field == "reserved" || field.ends_with(".reserved") => {
                    assert!(want.iter().all(|&b| b == 0), "{ctx}");
                    let within = if field == "reserved" {
                        off >= 20 && at <= 32
                    } else {
                        (off - 32) % 48 == 46 && want.len() == 2
                    };
                    assert!(within, "{ctx}: not the reserved bytes of F-2");
                }
                _ if field == "magic" => {
                    assert_eq!(want, fam::MAGIC, "{ctx}");
                    assert_eq!(value, "`\\x89LIDXFAM`", "{ctx}");
                }
                _ if field == "crc" => {
                    assert_eq!(at, bytes.len(), "{ctx}: the CRC ends the file");
                    assert_eq!(number(), u64::from(format::crc32(&bytes[..off])), "{ctx}");
                    assert_eq!(le(4), number(), "{ctx}");
                }
                _ if field.starts_with("name[") => {
                    let i: usize = field[5..field.len() - 1].parse().expect("index");
                    assert_eq!(want, m.members[i].name, "{ctx}");
                    let shown = value.split('`').nth(1).unwrap_or_default();
                    assert_eq!(shown.as_bytes(), &want[..], "{ctx}: Value");
                }
                Some((rec, f)) => {
                    let i: usize = rec
                        .strip_prefix("record[")
                        .and_then(|r| r.strip_suffix(']'))
                        .and_then(|r| r.parse().ok())
                        .unwrap_or_else(|| panic!("{ctx}: field"));
                    let r = &m.members[i];
                    assert_eq!(record_field(r, f), want, "{ctx}: Table 3 field");
                    assert_eq!(off, 32 + 48 * i + record_offset(&s, f), "{ctx}: offset");
                    assert_eq!(le(want.len()), number(), "{ctx}: Value");
                }
                None => {
                    assert_eq!(header_field(&m, field), want, "{ctx}: Table 2 field");
                    assert_eq!(le(want.len()), number(), "{ctx}: Value");
                }
            }
        }
        assert_eq!(at, bytes.len(), "{name}: the annotation covers the file");
    }
    assert_eq!(
        annotated,
        vs.keys().cloned().collect::<BTreeSet<_>>(),
        "every manifest vector is annotated"
    );
}

/// The offset of a field in Table 3.
fn record_offset(spec: &str, field: &str) -> usize {
    let t = table(spec, "Member record");
    let (o, f) = (t.col("Offset"), t.col("Field"));
    let r = t.rows.iter().find(|r| strip_ticks(&r[f]) == field);
    r.unwrap_or_else(|| panic!("Table 3 lacks {field}"))[o]
        .parse()
        .unwrap()
}

#[test]
fn family_names_and_order_follow_section_3() {
    let t = table(&family_spec(), "Family names and their order");
    let (fc, mc) = (t.col("File"), t.col("Member"));
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let mut members = Vec::new();
    for r in &t.rows {
        let file = strip_ticks(&r[fc]);
        std::fs::write(d.join(file), b"x\n").unwrap();
        match r[mc].as_str() {
            "yes" => members.push(file.to_string()),
            "no" => {}
            other => panic!("Member {other:?}"),
        }
    }
    let names = |d: &Path| -> Vec<String> {
        lidx::family::discover::family_files(&d.join("app.log"))
            .unwrap()
            .iter()
            .map(|n| n.path.file_name().unwrap().to_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(d), members, "F-10, F-11: the members, oldest first");
    // F-12: a member in a compression lidx does not read is an error that
    // names it, not a member left out.
    std::fs::write(d.join("app.log.4.xz"), b"x\n").unwrap();
    let e = lidx::family::discover::family_files(&d.join("app.log")).unwrap_err();
    assert!(e.to_string().contains("app.log.4.xz"), "{e}");
    std::fs::remove_file(d.join("app.log.4.xz")).unwrap();
    // F-11: while `app.log.1.gz` is being written next to `app.log.1`, the
    // plain file is the member; once it is gone, the archive is.
    for plain in ["app.log.1", "app.log.01"] {
        std::fs::remove_file(d.join(plain)).unwrap();
    }
    assert!(names(d).contains(&"app.log.1.gz".to_string()));
}

/// A file of a family as F-8 sees it: its name and its text.
struct FamilyFile {
    name: String,
    text: Vec<u8>,
}

/// The family's files now, in the order of F-11, with their texts (a gzip
/// file decompressed).
fn family_texts(dir: &Path) -> Vec<FamilyFile> {
    lidx::family::discover::family_files(&dir.join("app.log"))
        .unwrap()
        .into_iter()
        .map(|n| {
            let raw = std::fs::read(&n.path).unwrap();
            let text = if raw.starts_with(&[0x1f, 0x8b]) {
                gunzip(&raw)
            } else {
                raw
            };
            let name = n.path.file_name().unwrap().to_str().unwrap().to_string();
            FamilyFile { name, text }
        })
        .collect()
}

/// A record of `f` at the given bases (F-4, F-6).
fn record_of(f: &FamilyFile, base_line: u64, base_byte: u64) -> MemberRecord {
    let (lines, bytes, head_len, head_digest) = text_identity(&f.text, fam::HEAD_WINDOW);
    MemberRecord {
        base_line,
        lines,
        base_byte,
        bytes,
        head_digest,
        head_len,
        name: f.name.clone().into_bytes(),
    }
}

/// Numbers `files` contiguously from (`line`, `byte`) (F-8).
fn number_per_spec(files: &[FamilyFile], mut line: u64, mut byte: u64) -> Vec<MemberRecord> {
    files
        .iter()
        .map(|f| {
            let r = record_of(f, line, byte);
            (line, byte) = (r.end_line(), r.end_byte());
            r
        })
        .collect()
}

/// F-8 as family-v1.md §7 states it: `Err(step)` for a refusal at that
/// step, `Ok(None)` when the manifest is current, else the new records.
fn align_per_spec(r: &[MemberRecord], s: &[FamilyFile]) -> Result<Option<Vec<MemberRecord>>, u32> {
    let (n, m) = (r.len(), s.len());
    let is = |f: &FamilyFile, i: usize| {
        let rec = &r[i];
        let (lines, bytes) = (line_count(&f.text), f.text.len() as u64);
        let head = f.text.get(..rec.head_len as usize);
        let same_head = head.is_some_and(|h| xxh64_per_spec(h, 0) == rec.head_digest);
        same_head
            && if i < n - 1 {
                bytes == rec.bytes && lines == rec.lines
            } else {
                bytes >= rec.bytes && lines >= rec.lines
            }
    };
    let run = (0..m).find_map(|k| {
        (0..n)
            .find(|&j| (0..(m - k).min(n - j)).all(|t| is(&s[k + t], j + t)))
            .map(|j| (k, j))
    });
    let Some((k, j)) = run else { return Err(1) };
    if k > 0 {
        return Err(2);
    }
    if m - k < n - j {
        return Err(3);
    }
    let mut out: Vec<MemberRecord> = r[j..n - 1].to_vec();
    let last = &r[n - 1];
    out.push(record_of(&s[n - j - 1], last.base_line, last.base_byte));
    let tail = out.last().unwrap();
    out.extend(number_per_spec(
        &s[n - j..],
        tail.end_line(),
        tail.end_byte(),
    ));
    Ok((j > 0 || m > n - j).then_some(out))
}

/// A directory holding the files of vector F1, opened once (so that its
/// manifest is F1).
fn family_f1(vs: &BTreeMap<String, FamilyVector>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (file, text) in &vs["F1"].files {
        put_member(dir.path(), file, text);
    }
    let f = open_family(&dir.path().join("app.log"), false).unwrap();
    assert_eq!(f.action(), FamilyAction::Numbered);
    let bytes = std::fs::read(manifest_at(dir.path())).unwrap();
    assert_eq!(bytes, family_vector_bytes(&vs["F1"], "F1"));
    dir
}

/// The text of F1's member `file`.
fn f1_text(vs: &BTreeMap<String, FamilyVector>, file: &str) -> Vec<u8> {
    let f = vs["F1"].files.iter().find(|(n, _)| n == file);
    f.unwrap_or_else(|| panic!("F1 has no {file}")).1.clone()
}

/// Changes the files of F1 as Table 6's case `case` says; returns whether
/// the case asks for renumbering.
fn opening_case(case: &str, d: &Path, vs: &BTreeMap<String, FamilyVector>) -> bool {
    let line = b"2026-11-30T00:00:09Z app[812]: GET /health 200 1ms\n";
    let append = |file: &str| {
        let mut t = f1_text(vs, file);
        t.extend_from_slice(line);
        put_member(d, file, &t);
    };
    let rename = |a: &str, b: &str| std::fs::rename(d.join(a), d.join(b)).unwrap();
    let remove = |f: &str| std::fs::remove_file(d.join(f)).unwrap();
    match case {
        "O-1" => {}
        "O-2" => append("app.log"),
        "O-3" => {
            put_member(d, "app.log.1.gz", &f1_text(vs, "app.log.1"));
            remove("app.log.1");
        }
        "O-4" => {
            rename("app.log.2.gz", "app.log.3.gz");
            put_member(d, "app.log.2.gz", &f1_text(vs, "app.log.1"));
            remove("app.log.1");
            rename("app.log", "app.log.1");
            put_member(
                d,
                "app.log",
                b"2026-12-01T00:00:00Z app[812]: GET /health 200 2ms\n",
            );
        }
        "O-5" => remove("app.log.2.gz"),
        "O-6" => remove("app.log.1"),
        "O-7" => {
            let mut t = f1_text(vs, "app.log.1");
            t[0] = b'3';
            put_member(d, "app.log.1", &t);
        }
        "O-8" => append("app.log.1"),
        "O-9" => {
            for (file, text) in &vs["F1"].files {
                let other: Vec<u8> = text.iter().map(|&b| b.to_ascii_uppercase()).collect();
                put_member(d, file, &other);
            }
        }
        "O-10" => put_member(d, "app.log.3", b"2026-11-27T10:00:00Z app[812]: stopped\n"),
        "O-11" => remove("app.log"),
        "O-12" => {
            let t = f1_text(vs, "app.log");
            put_member(d, "app.log", &t[..t.len() / 2]);
        }
        "O-13" => return true,
        "O-14" => remove("app.log.family.lidx"),
        other => panic!("Table 6: no such case {other}"),
    }
    false
}

#[test]
fn family_opening_table() {
    let s = family_spec();
    let vs = family_vectors(&s);
    let t = table(&s, "What opening a family does");
    let (cc, sc, ac) = (t.col("Case"), t.col("Step"), t.col("Answer"));
    assert_eq!(t.rows.len(), 14);
    for r in &t.rows {
        let case = r[cc].as_str();
        let answer = r[ac].split([':', ' ']).next().unwrap();
        let dir = family_f1(&vs);
        let d = dir.path();
        let live = d.join("app.log");
        let renumber = opening_case(case, d, &vs);
        let before = std::fs::read(manifest_at(d)).ok();
        let files = family_texts(d);
        // What §7 says must happen, from the files and the manifest alone.
        let model = match (&before, renumber) {
            (Some(b), false) => {
                let m = Manifest::decode(b).unwrap();
                align_per_spec(&m.members, &files)
            }
            _ => Ok(Some(number_per_spec(&files, 0, 0))),
        };
        let step = match &model {
            Err(k) => k.to_string(),
            Ok(None) => "5".into(),
            Ok(Some(_)) if renumber || before.is_none() => "—".into(),
            Ok(Some(_)) => "4".into(),
        };
        assert_eq!(r[sc], step, "{case}: the step of F-8");
        let got = open_family(&live, renumber);
        let after = std::fs::read(manifest_at(d)).ok();
        match (&model, got) {
            (Err(_), Err(Error::Family { path, .. })) => {
                assert_eq!(answer, "refused", "{case}");
                assert_eq!(path, live, "{case}: the error names the family");
                assert_eq!(after, before, "{case}: a refusal leaves the manifest");
            }
            (Ok(None), Ok(f)) => {
                assert_eq!((answer, f.action()), ("opened", FamilyAction::Opened));
                assert_eq!(after, before, "{case}: not rewritten");
                let m = Manifest::decode(&after.unwrap()).unwrap();
                let bases: Vec<u64> = f.members().iter().map(|x| x.base_line).collect();
                let want: Vec<u64> = m.members.iter().map(|x| x.base_line).collect();
                assert_eq!(bases, want, "{case}");
            }
            (Ok(Some(recs)), Ok(f)) => {
                let want = match answer {
                    "updated" => FamilyAction::Updated,
                    "renumbered" => FamilyAction::Renumbered,
                    "numbered" => FamilyAction::Numbered,
                    other => panic!("{case}: answer {other:?}"),
                };
                assert_eq!(f.action(), want, "{case}");
                let written = Manifest {
                    head_window: fam::HEAD_WINDOW,
                    members: recs.clone(),
                };
                assert_eq!(after.as_deref(), Some(&written.encode()[..]), "{case}");
                assert_eq!(f.first_line(), recs[0].base_line, "{case}");
                if want == FamilyAction::Updated {
                    // No base of a member still present changed.
                    let old = Manifest::decode(before.as_ref().unwrap()).unwrap();
                    for n in recs.iter() {
                        if let Some(o) = old.members.iter().find(|o| o.head_digest == n.head_digest)
                        {
                            assert_eq!((o.base_line, o.base_byte), (n.base_line, n.base_byte));
                        }
                    }
                }
            }
            (model, got) => panic!("{case}: §7 says {model:?}, Family::open gave {got:?}"),
        }
    }
}

/// The error kinds of family-v1.md §6.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FamClass {
    NotAManifest,
    Version,
    Checksum,
    Corrupt,
}

fn fam_class(e: &ManifestError) -> FamClass {
    match e {
        ManifestError::NotAManifest => FamClass::NotAManifest,
        ManifestError::Version(..) => FamClass::Version,
        ManifestError::Checksum { .. } => FamClass::Checksum,
        ManifestError::Invalid(_) => FamClass::Corrupt,
    }
}

/// F-7 as family-v1.md §6 states it: the records, or the step that
/// refuses the bytes.
fn decode_per_spec(b: &[u8]) -> Result<Vec<MemberRecord>, u32> {
    let l = b.len();
    let u16_at = |i: usize| u64::from(u16::from_le_bytes([b[i], b[i + 1]]));
    let u32_at = |i: usize| u64::from(u32::from_le_bytes(b[i..i + 4].try_into().unwrap()));
    let u64_at = |i: usize| u64::from_le_bytes(b[i..i + 8].try_into().unwrap());
    if l < 36 || b[..8] != [0x89, 0x4C, 0x49, 0x44, 0x58, 0x46, 0x41, 0x4D] {
        return Err(1);
    }
    if u16_at(8) != 1 {
        return Err(2);
    }
    if u32_at(l - 4) != u64::from(crc_from_parameters(&b[..l - 4])) {
        return Err(3);
    }
    let (n, window) = (u32_at(12), u32_at(16));
    if n == 0 || n > 1_048_576 || window == 0 {
        return Err(4);
    }
    let n = n as usize;
    if l - 4 < 32 + 48 * n {
        return Err(5);
    }
    let mut a = 32 + 48 * n;
    let mut out = Vec::new();
    for i in 0..n {
        let r = 32 + 48 * i;
        let len = u16_at(r + 44) as usize;
        if a + len > l - 4 {
            return Err(6);
        }
        out.push(MemberRecord {
            base_line: u64_at(r),
            lines: u64_at(r + 8),
            base_byte: u64_at(r + 16),
            bytes: u64_at(r + 24),
            head_digest: u64_at(r + 32),
            head_len: u32_at(r + 40) as u32,
            name: b[a..a + len].to_vec(),
        });
        a += len;
    }
    if a != l - 4 {
        return Err(7);
    }
    for (i, r) in out.iter().enumerate() {
        let ends = r.base_line.checked_add(r.lines).is_some()
            && r.base_byte.checked_add(r.bytes).is_some();
        let follows = i == 0 || {
            let p = &out[i - 1];
            (r.base_line, r.base_byte) == (p.end_line(), p.end_byte())
        };
        if r.lines > r.bytes || u64::from(r.head_len) != r.bytes.min(window) || !ends || !follows {
            return Err(8);
        }
    }
    Ok(out)
}

/// The class F-7 gives a step.
fn step_class(step: u32) -> FamClass {
    match step {
        1 => FamClass::NotAManifest,
        2 => FamClass::Version,
        3 => FamClass::Checksum,
        _ => FamClass::Corrupt,
    }
}

/// `b` with its CRC written again to match (F-13).
fn recrc(mut b: Vec<u8>) -> Vec<u8> {
    let l = b.len();
    let crc = format::crc32(&b[..l - 4]);
    b[l - 4..].copy_from_slice(&crc.to_le_bytes());
    b
}

/// Vector F1 damaged as Table 7's case `case` says.
fn manifest_damage(case: &str, f1: &[u8]) -> Vec<u8> {
    let mut b = f1.to_vec();
    let l = b.len();
    let rec = |i: usize, off: usize| 32 + 48 * i + off;
    let put = |b: &mut Vec<u8>, at: usize, v: &[u8]| b[at..at + v.len()].copy_from_slice(v);
    let get64 = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let add16 = |b: &mut Vec<u8>, at: usize, d: i32| {
        let v = i32::from(u16::from_le_bytes([b[at], b[at + 1]])) + d;
        b[at..at + 2].copy_from_slice(&(v as u16).to_le_bytes());
    };
    match case {
        "FD-1" => return Vec::new(),
        "FD-2" => return b[..35].to_vec(),
        "FD-3" => b[7] = 0x4E,
        "FD-4" => put(&mut b, 8, &2u16.to_le_bytes()),
        "FD-5" => {
            put(&mut b, 10, &7u16.to_le_bytes());
            return recrc(b);
        }
        "FD-6" => {
            b[20] = 0xFF;
            return recrc(b);
        }
        "FD-7" => {
            put(&mut b, rec(1, 46), &[0xFF, 0xFF]);
            return recrc(b);
        }
        "FD-8" => b[rec(1, 0)] ^= 1,
        "FD-9" => b[32 + 48 * 3] ^= 1,
        "FD-10" => b[l - 1] ^= 1,
        "FD-11" => return b[..l - 1].to_vec(),
        "FD-12" => b.extend_from_slice(&[0; 4]),
        "FD-13" | "FD-14" | "FD-16" | "FD-20" => {
            let n: u32 = match case {
                "FD-13" => 0,
                "FD-14" => 1_048_577,
                "FD-16" => 5,
                _ => 2,
            };
            put(&mut b, 12, &n.to_le_bytes());
            return recrc(b);
        }
        "FD-15" | "FD-23" => {
            let w: u32 = if case == "FD-15" { 0 } else { 16 };
            put(&mut b, 16, &w.to_le_bytes());
            return recrc(b);
        }
        "FD-17" => {
            add16(&mut b, rec(0, 44), 1);
            return recrc(b);
        }
        "FD-18" => {
            add16(&mut b, rec(2, 44), -1);
            return recrc(b);
        }
        "FD-19" => {
            b.insert(l - 4, b'x');
            return recrc(b);
        }
        "FD-21" => {
            let bytes = get64(&b, rec(0, 24));
            put(&mut b, rec(0, 8), &(bytes + 1).to_le_bytes());
            return recrc(b);
        }
        "FD-22" => {
            let v = u32::from_le_bytes(b[rec(1, 40)..rec(1, 44)].try_into().unwrap()) - 1;
            put(&mut b, rec(1, 40), &v.to_le_bytes());
            return recrc(b);
        }
        "FD-24" => {
            put(&mut b, rec(0, 0), &u64::MAX.to_le_bytes());
            return recrc(b);
        }
        "FD-25" | "FD-26" => {
            let (at, v) = if case == "FD-25" {
                (rec(1, 0), get64(&b, rec(1, 0)) + 1)
            } else {
                (rec(2, 16), get64(&b, rec(2, 16)) - 1)
            };
            put(&mut b, at, &v.to_le_bytes());
            return recrc(b);
        }
        "FD-27" => {
            b[rec(1, 32)] ^= 1;
            return recrc(b);
        }
        "FD-28" => {
            for i in 0..3 {
                for off in [0, 16] {
                    let v = get64(&b, rec(i, off)) + 1000;
                    put(&mut b, rec(i, off), &v.to_le_bytes());
                }
            }
            return recrc(b);
        }
        other => panic!("Table 7: no such case {other}"),
    }
    b
}

#[test]
fn family_damage_table() {
    let s = family_spec();
    let vs = family_vectors(&s);
    let f1 = family_vector_bytes(&vs["F1"], "F1");
    let t = table(&s, "Manifest damage");
    let (cc, dc, ac) = (t.col("Case"), t.col("Detected by"), t.col("Answer"));
    assert_eq!(t.rows.len(), 28);
    // One family, F1's files, reopened with each damaged manifest.
    let dir = family_f1(&vs);
    let d = dir.path();
    let live = d.join("app.log");
    let path = manifest_at(d);
    for r in &t.rows {
        let case = r[cc].as_str();
        let answer = strip_ticks(r[ac].split(':').next().unwrap());
        let bytes = manifest_damage(case, &f1);
        let decoded = Manifest::decode(&bytes);
        let model = decode_per_spec(&bytes);
        // Where the table says it is detected, and what the model of §6
        // says, agree; and the code agrees with both.
        match (r[dc].as_str(), &model) {
            ("—", Ok(_)) => {}
            (by, Ok(_)) if by.starts_with("F-8 step ") => {}
            (by, Err(step)) => assert_eq!(by, format!("F-7 step {step}"), "{case}"),
            (by, Ok(_)) => panic!("{case}: detected by {by}, but F-7 passes"),
        }
        match (&decoded, &model) {
            (Ok(m), Ok(recs)) => assert_eq!(&m.members, recs, "{case}"),
            (Err(e), Err(step)) => assert_eq!(fam_class(e), step_class(*step), "{case}: {e}"),
            (got, want) => panic!("{case}: the code gave {got:?}, §6 says {want:?}"),
        }
        let want_class = match answer {
            "not-a-manifest" => Some(FamClass::NotAManifest),
            "unsupported-version" => Some(FamClass::Version),
            "checksum-mismatch" => Some(FamClass::Checksum),
            "corrupt" => Some(FamClass::Corrupt),
            "accepted" | "refused" => None,
            other => panic!("{case}: answer {other:?}"),
        };
        assert_eq!(decoded.as_ref().err().map(fam_class), want_class, "{case}");
        // Opening the family: refused, naming the manifest, and the
        // manifest left as it is; never renumbered (F-16).
        std::fs::write(&path, &bytes).unwrap();
        let opened = open_family(&live, false);
        assert_eq!(
            std::fs::read(&path).unwrap(),
            bytes,
            "{case}: manifest untouched"
        );
        match (answer, opened) {
            ("accepted", Ok(f)) => {
                assert_eq!(f.action(), FamilyAction::Opened, "{case}");
                let m = decoded.as_ref().unwrap();
                assert_eq!(f.first_line(), m.members[0].base_line, "{case}");
            }
            ("refused", Err(Error::Family { path: p, .. })) => {
                assert_eq!(p, live, "{case}: F-8 names the family");
                let files = family_texts(d);
                let step = align_per_spec(&decoded.unwrap().members, &files).unwrap_err();
                assert_eq!(r[dc], format!("F-8 step {step}"), "{case}");
            }
            (_, Err(Error::Family { path: p, what })) if want_class.is_some() => {
                assert_eq!(p, path, "{case}: the error names the manifest");
                let e = decoded.as_ref().unwrap_err().to_string();
                assert!(what.contains(&e), "{case}: {what}");
            }
            (_, got) => panic!("{case}: {answer}, but opening gave {got:?}"),
        }
    }
    // Beyond the table: every bit of F1 flipped, with and without the CRC
    // recomputed, and every cut, is decoded as §6 says.
    let mut tried = vec![f1.clone()];
    for i in 0..f1.len() * 8 {
        let mut b = f1.clone();
        b[i / 8] ^= 1 << (i % 8);
        tried.push(b.clone());
        if i / 8 < f1.len() - 4 {
            tried.push(recrc(b));
        }
    }
    tried.extend((0..f1.len()).map(|n| f1[..n].to_vec()));
    for b in tried {
        match (Manifest::decode(&b), decode_per_spec(&b)) {
            (Ok(m), Ok(recs)) => assert_eq!(m.members, recs),
            (Err(e), Err(step)) => assert_eq!(fam_class(&e), step_class(step), "{e}"),
            (got, want) => panic!("{}: the code gave {got:?}, §6 says {want:?}", dump(&b)),
        }
    }
}

#[test]
fn family_requirement_numbers() {
    let s = family_spec();
    let defs = definitions(&s, "F-");
    for (n, word) in [
        (1, "little-endian"),
        (1, "RFC 2119"),
        (2, "`89 4C 49 44 58 46 41 4D`"),
        (2, "1048576"),
        (2, "4096"),
        (2, "MUST NOT reject a manifest because they are not zero"),
        (3, "`version_major = 1`"),
        (3, "any `version_minor`"),
        (4, "48 bytes"),
        (4, "MUST NOT use it to recognise a member"),
        (5, "contiguous"),
        (5, "`lines ≤ bytes`"),
        (5, "`head_len = min(bytes, head_window)`"),
        (5, "overflow"),
        (5, "the last record is the live file's"),
        (6, "XXH64"),
        (6, "seed 0"),
        (6, "text"),
        (7, "in this order"),
        (8, "oldest first"),
        (8, "`R_i.head_digest`"),
        (9, "sealed"),
        (10, "UTF-8"),
        (11, "oldest first"),
        (12, "`.xz`"),
        (13, "all the bytes before it"),
        (14, "`DIR/NAME.family.lidx`"),
        (14, "FNV-1a"),
        (15, "in place"),
        (16, "Table 7"),
    ] {
        let text = defs
            .get(&n)
            .unwrap_or_else(|| panic!("family-v1.md does not define F-{n}"));
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(word), "F-{n} should mention {word:?}: {text}");
    }
    for n in cited(&s, "F-") {
        assert!(defs.contains_key(&n), "family-v1.md cites undefined F-{n}");
    }
    // F-8's steps, and its way out.
    for text in [
        "1. **The run.**",
        "2. **Nothing before the run.**",
        "3. **Nothing missing after it.**",
        "4. **The new records.**",
        "5. **Writing.**",
        "The only way out of a refusal is **renumbering**",
    ] {
        assert!(s.contains(text), "§7 lacks {text:?}");
    }
    // Every F-n the code cites is defined, and the R-n this spec cites are
    // sidecar-v1.md's.
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for n in cited(&text, "F-") {
            assert!(
                defs.contains_key(&n),
                "{} cites F-{n}, which family-v1.md does not define",
                f.display()
            );
        }
    }
    let sidecar = defined(&spec());
    for n in referenced(&s) {
        assert!(sidecar.contains_key(&n), "family-v1.md cites R-{n}");
    }
    assert!(
        spec().contains("family-v1.md"),
        "sidecar-v1.md points to it"
    );
    assert_eq!(
        cited("F-2..F-5, F-8", "F-"),
        BTreeSet::from([2, 3, 4, 5, 8])
    );
}

// ---------------------------------------------------------------------------
// format-spec/partitions-v1.md: partition plans.

/// §6's example: its table, and the plans the text states, equal what
/// `Index::partitions` gives.
#[test]
fn partitions_example_of_section_6() {
    let path = root().join("format-spec/partitions-v1.md");
    let spec = std::fs::read_to_string(&path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("eight.txt");
    let text: String = (0..8).map(|i| format!("L{i}\n")).collect();
    std::fs::write(&src, &text).unwrap();
    let index = lidx::OpenOptions::new()
        .spacing(6)
        .open(&src)
        .unwrap()
        .index;
    let cps: Vec<(u64, u64)> = index
        .seek_points()
        .unwrap()
        .into_iter()
        .map(|(t, _)| t)
        .map(|o| (index.line_at(o).unwrap(), o))
        .collect();
    assert_eq!(cps, [(0, 0), (2, 6), (4, 12), (6, 18)]);
    let range = |s: &str| -> std::ops::Range<u64> {
        let (a, b) = s.split_once("..").unwrap();
        a.parse().unwrap()..b.parse().unwrap()
    };
    let t = table(&spec, "Table P1");
    let plan = index.partitions(0..8, 7).unwrap();
    assert_eq!(plan.len(), t.rows.len());
    for (p, row) in plan.iter().zip(&t.rows) {
        assert_eq!(p.lines, range(&row[t.col("lines")]));
        assert_eq!(p.text, range(&row[t.col("text")]));
        assert_eq!(p.source, range(&row[t.col("source")]));
        assert_eq!(p.time, None);
    }
    let fine: Vec<_> = index
        .partitions(0..8, 1)
        .unwrap()
        .into_iter()
        .map(|p| p.lines)
        .collect();
    assert_eq!(fine, [0..2, 2..4, 4..6, 6..8]);
    assert!(spec.contains("(0..2, 2..4,\n4..6, 6..8)"));
    let inner: Vec<_> = index
        .partitions(3..7, 7)
        .unwrap()
        .into_iter()
        .map(|p| (p.lines, p.text))
        .collect();
    assert_eq!(inner, [(3..6, 9..18), (6..7, 18..21)]);
    assert!(spec.contains("lines 3..6 with text 9..18"));
    assert!(spec.contains("lines 6..7 with text 18..21"));
}

// ---------------------------------------------------------------------------
// §11.9: piece CRCs.

/// Log-like text of `lines` lines whose words vary enough that deflate
/// keeps literals (so that a flipped bit often still decodes).
fn varied_text(lines: usize) -> Vec<u8> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut out = Vec::new();
    for i in 0..lines {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        out.extend(format!("{i:06} req={:x} took={}ms\n", s >> 20, s % 997).into_bytes());
    }
    out
}

/// R-142: a goto decodes to the end of the piece that holds its line, not
/// to the end of its span; and what it reads is checked: a damaged
/// archive gives the right line or an error, never another line.
#[test]
fn pieces_let_a_goto_stop_at_its_line_and_never_answer_wrong() {
    let text = varied_text(150_000);
    let gz = gz_member(&[&text]);
    let span = 1 << 20;
    let opts = BuildOptions {
        spacing: 4096,
        page_size: 4096,
        span,
        piece_shift: 12,
        ..BuildOptions::default()
    };
    let sidecar = build(&gz, &opts);
    let sb = Superblock::decode(&sidecar[..256]).unwrap();
    assert_eq!(sb.piece_len(), Some(4096), "R-141: the bit is set");
    let (_, recs, _) = stored_access_points(&sidecar);
    assert!(recs.len() >= 4, "{} access points", recs.len());
    let starts: Vec<u64> = std::iter::once(0)
        .chain(
            text.iter()
                .enumerate()
                .filter(|&(_, &b)| b == b'\n')
                .map(|(k, _)| k as u64 + 1),
        )
        .collect();
    let line_of = |off: u64| starts.partition_point(|&s| s <= off) as u64 - 1;
    // A line 20 KB after the second access point (its checkpoint in the
    // same span): its decode reads a few pieces' compressed bytes (and
    // the inflater's read-ahead), far less than its span's.
    let ap = &recs[2];
    let line = line_of(ap.uncomp + 20_000);
    let whole = (recs[3].comp_bit - ap.comp_bit) / 8;
    let rec = Recording::new(gz.clone(), 4096);
    let index = Index::from_parts(
        Box::new(std::sync::Arc::clone(&rec)),
        Box::new(MemSource::new(sidecar.clone())),
        (0, 0),
        1 << 20,
    )
    .unwrap();
    rec.take_bytes();
    let span_of = |l: u64| starts[l as usize]..starts[l as usize + 1];
    assert_eq!(index.line_span(line).unwrap(), span_of(line));
    let read = rec.take_bytes();
    assert!(
        read < whole / 2,
        "a goto read {read} compressed bytes of a {whole}-byte span"
    );
    // Every line read through pieces and through whole spans is the text.
    let mut buf = vec![0u8; text.len()];
    assert_eq!(
        index.source().read_full_at(&mut buf, 0).unwrap(),
        text.len()
    );
    assert!(buf == text);

    // Damage: flip one bit at a time in the span's compressed bytes. The
    // line before the flip, the line after it and the last line of the
    // span are each answered right or refused.
    let from = ap.comp_bit / 8 + 16;
    let to = recs[3].comp_bit / 8;
    let probes = [
        line,
        line_of(ap.uncomp + (recs[3].uncomp - ap.uncomp) / 3),
        line_of(ap.uncomp + (recs[3].uncomp - ap.uncomp) * 2 / 3),
        line_of(recs[3].uncomp - 1),
    ];
    let (mut refused, mut answered) = (0, 0);
    for k in 0..80u64 {
        let at = from + (to - from) * k / 80;
        let mut bad = gz.clone();
        bad[at as usize] ^= 1 << (k % 8);
        let Ok(index) = open_parts(&bad, sidecar.clone()) else {
            refused += 1;
            continue;
        };
        for &l in &probes {
            let mut got = Vec::new();
            match index.write_lines(l..l + 1, false, &mut got) {
                Ok(_) => {
                    assert_eq!(
                        got,
                        text[span_of(l).start as usize..span_of(l).end as usize],
                        "flip at {at}: line {l}"
                    );
                    answered += 1;
                }
                Err(_) => refused += 1,
            }
        }
    }
    assert!(
        refused > 0 && answered > 0,
        "{refused} refused, {answered} answered"
    );

    // Stored blocks: a flipped byte changes one byte of text and nothing
    // else, so only a CRC can see it. A line in a piece before the flip is
    // answered (the decode stops before the damage, R-142); the line with
    // the flipped byte is refused, whether the decode stops at its piece
    // or reads the whole span.
    let stored = {
        use std::io::Write;
        let mut e = flate2::GzBuilder::new()
            .mtime(0)
            .write(Vec::new(), flate2::Compression::none());
        e.write_all(&text).unwrap();
        e.finish().unwrap()
    };
    let sidecar = build(&stored, &opts);
    let (_, recs, _) = stored_access_points(&sidecar);
    let ap = &recs[1];
    let target = ap.uncomp + (recs[2].uncomp - ap.uncomp) / 2;
    let damaged_line = line_of(target);
    let early = line_of(ap.uncomp + 10_000);
    // Where the text byte `target` lies in the stored archive: stored
    // blocks copy the text, 5 header bytes per block before it.
    let at = (0..stored.len() - 8)
        .filter(|&k| stored[k] == text[target as usize])
        .min_by_key(|&k| (k as i64 - target as i64).unsigned_abs())
        .unwrap();
    let mut bad = stored.clone();
    bad[at] ^= 0x01;
    assert!(
        gunzip_lenient(&bad)[..text.len()] != text[..],
        "the flip changes the text"
    );
    for whole_first in [false, true] {
        let index = open_parts(&bad, sidecar.clone()).unwrap();
        if whole_first {
            // A whole-span read of the damaged span is refused too.
            let mut buf = vec![0u8; (recs[2].uncomp - ap.uncomp) as usize];
            assert!(index.source().read_full_at(&mut buf, ap.uncomp).is_err());
        }
        let mut got = Vec::new();
        if !whole_first {
            index
                .write_lines(early..early + 1, false, &mut got)
                .unwrap();
            assert_eq!(
                got,
                text[span_of(early).start as usize..span_of(early).end as usize]
            );
        }
        let e = index
            .write_lines(damaged_line..damaged_line + 1, false, &mut Vec::new())
            .expect_err("a changed byte");
        assert!(e.to_string().contains("CRC-32"), "{e}");
    }
}

/// The text of a gzip file whose CRC-32 may not match (flate2 checks it
/// after the text is out).
fn gunzip_lenient(gz: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    let _ = flate2::read::GzDecoder::new(gz).read_to_end(&mut out);
    out
}
