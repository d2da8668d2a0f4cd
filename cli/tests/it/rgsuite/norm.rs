//! Making two outputs comparable where they differ for reasons that are not
//! differences: JSON timings, the path a way searched (`hay.gz`, ripgrep's
//! `<stdin>`), and, for the `--lines` way, ripgrep's line numbers and byte
//! offsets counted from the start of the extract instead of the file.
//!
//! Every function maps output line to output line (never adds or removes
//! one), so a JSON search's `bytes_printed` can be re-derived afterwards
//! ([`fix_bytes_printed`]).

/// Splits `out` into lines, each with its `\n` (the last may lack it).
fn lines(out: &[u8]) -> Vec<&[u8]> {
    out.split_inclusive(|&b| b == b'\n').collect()
}

/// Replaces the number after every `"key":` in `line` by `f(number)`.
fn map_number(line: &[u8], key: &str, f: &dyn Fn(u64) -> u64) -> Vec<u8> {
    let pat = format!("\"{key}\":");
    let pat = pat.as_bytes();
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        if line[i..].starts_with(pat) {
            out.extend_from_slice(pat);
            i += pat.len();
            let digits = line[i..].iter().take_while(|b| b.is_ascii_digit()).count();
            if digits > 0 {
                let n: u64 = std::str::from_utf8(&line[i..i + digits])
                    .unwrap()
                    .parse()
                    .unwrap_or(0);
                out.extend_from_slice(f(n).to_string().as_bytes());
                i += digits;
            }
            continue;
        }
        out.push(line[i]);
        i += 1;
    }
    out
}

/// The value of the first `"key":NUMBER` in `line`.
fn number(line: &[u8], key: &str) -> Option<u64> {
    let pat = format!("\"{key}\":");
    let at = line.windows(pat.len()).position(|w| w == pat.as_bytes())? + pat.len();
    let digits = line[at..].iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&line[at..at + digits])
        .ok()?
        .parse()
        .ok()
}

/// JSON timings (`elapsed`, `elapsed_total`) set to zero, keys and their
/// order kept.
pub fn json_elapsed(out: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(out.len());
    for line in lines(out) {
        if !line.starts_with(b"{") {
            v.extend_from_slice(line);
            continue;
        }
        let l = map_number(line, "secs", &|_| 0);
        let l = map_number(&l, "nanos", &|_| 0);
        v.extend(zero_human(&l));
    }
    v
}

/// `"human":"..."` set to `"human":"0s"`.
fn zero_human(line: &[u8]) -> Vec<u8> {
    let pat = b"\"human\":\"";
    let mut out = Vec::with_capacity(line.len());
    let mut i = 0;
    while i < line.len() {
        if line[i..].starts_with(pat) {
            out.extend_from_slice(pat);
            i += pat.len();
            while i < line.len() && line[i] != b'"' {
                i += 1;
            }
            out.extend_from_slice(b"0s");
            continue;
        }
        out.push(line[i]);
        i += 1;
    }
    out
}

/// A searched path `from` reported as `hay`: JSON `"path":{"text":FROM}`
/// and a whole output line `FROM` (`-l`; `\n` or, with `--crlf`, `\r\n`
/// after it).
pub fn path(out: &[u8], from: &str) -> Vec<u8> {
    let json_from = format!("\"path\":{{\"text\":\"{from}\"}}");
    let json_to = b"\"path\":{\"text\":\"hay\"}";
    let mut v = Vec::with_capacity(out.len());
    for line in lines(out) {
        let body = line.strip_suffix(b"\n").unwrap_or(line);
        let body = body.strip_suffix(b"\r").unwrap_or(body);
        if body == from.as_bytes() {
            v.extend_from_slice(b"hay");
            v.extend_from_slice(&line[body.len()..]);
            continue;
        }
        let mut i = 0;
        while i < line.len() {
            if line[i..].starts_with(json_from.as_bytes()) {
                v.extend_from_slice(json_to);
                i += json_from.len();
            } else {
                v.push(line[i]);
                i += 1;
            }
        }
    }
    v
}

/// After a line-for-line rewrite of JSON output `before` into `after`:
/// where a search's `end` message (or the `summary`) reported exactly the
/// bytes printed before it, report the rewritten count; a wrong count stays
/// as it was.
pub fn fix_bytes_printed(before: &[u8], after: &[u8]) -> Vec<u8> {
    let (b, a) = (lines(before), lines(after));
    if b.len() != a.len() {
        return after.to_vec();
    }
    let mut v = Vec::with_capacity(after.len());
    let (mut search_b, mut search_a, mut total_b, mut total_a) = (0u64, 0u64, 0u64, 0u64);
    for (lb, la) in b.iter().zip(&a) {
        let kind = |l: &[u8], t: &str| l.windows(t.len()).any(|w| w == t.as_bytes());
        if kind(la, "\"type\":\"begin\"") {
            search_b = 0;
            search_a = 0;
        }
        if kind(la, "\"type\":\"end\"") {
            let fixed = if number(lb, "bytes_printed") == Some(search_b) {
                map_number(la, "bytes_printed", &|_| search_a)
            } else {
                la.to_vec()
            };
            total_b += search_b;
            total_a += search_a;
            v.extend(fixed);
            continue;
        }
        if kind(la, "\"type\":\"summary\"") {
            let fixed = if number(lb, "bytes_printed") == Some(total_b) {
                map_number(la, "bytes_printed", &|_| total_a)
            } else {
                la.to_vec()
            };
            v.extend(fixed);
            continue;
        }
        search_b += lb.len() as u64;
        search_a += la.len() as u64;
        v.extend_from_slice(la);
    }
    v
}

/// The prefix fields of a printed line, in ripgrep's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    Line,
    Column,
    Offset,
}

/// Skips ANSI colour sequences (`ESC [ ... m`) at `i`.
fn skip_escapes(line: &[u8], mut i: usize) -> usize {
    while line[i..].starts_with(b"\x1b[") {
        match line[i..].iter().position(|&b| b == b'm') {
            Some(m) => i += m + 1,
            None => break,
        }
    }
    i
}

/// Text output of ripgrep run on an extract, with the line-number field
/// raised by `lines` and the byte-offset field by `bytes` (columns are
/// relative to the line and stay). A line whose prefix does not parse as
/// `fields` (a `--` separator) is left alone.
pub fn shift_text(out: &[u8], fields: &[Field], lines_by: u64, bytes_by: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(out.len());
    'line: for line in lines(out) {
        let mut edits: Vec<(usize, usize, u64)> = Vec::new();
        let mut i = 0;
        for f in fields {
            i = skip_escapes(line, i);
            let digits = line[i..].iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 && matches!(f, Field::Column) {
                // No column: the line had no match to point at (a line
                // selected by -v, say).
                continue;
            }
            if digits == 0 {
                v.extend_from_slice(line);
                continue 'line;
            }
            let n: u64 = std::str::from_utf8(&line[i..i + digits])
                .unwrap()
                .parse()
                .unwrap_or(0);
            let by = match f {
                Field::Line => lines_by,
                Field::Column => 0,
                Field::Offset => bytes_by,
            };
            edits.push((i, i + digits, n + by));
            i = skip_escapes(line, i + digits);
            if !matches!(line.get(i), Some(b':' | b'-')) {
                v.extend_from_slice(line);
                continue 'line;
            }
            i += 1;
        }
        let mut at = 0;
        for (s, e, n) in edits {
            v.extend_from_slice(&line[at..s]);
            v.extend_from_slice(n.to_string().as_bytes());
            at = e;
        }
        v.extend_from_slice(&line[at..]);
    }
    v
}

/// JSON output of ripgrep run on an extract, with `line_number` raised by
/// `lines` and `absolute_offset` by `bytes` in match and context messages.
pub fn shift_json(out: &[u8], lines_by: u64, bytes_by: u64) -> Vec<u8> {
    let mut v = Vec::with_capacity(out.len());
    for line in lines(out) {
        if !line.starts_with(b"{\"type\":\"match\"") && !line.starts_with(b"{\"type\":\"context\"")
        {
            v.extend_from_slice(line);
            continue;
        }
        let l = map_number(line, "line_number", &|n| n + lines_by);
        v.extend(map_number(&l, "absolute_offset", &|n| n + bytes_by));
    }
    v
}

#[test]
fn shifts_prefixes_and_json() {
    use Field::*;
    let out = b"1:0:abc\n2-4-de\n--\n\x1b[0m\x1b[32m3\x1b[0m:9:x 1:2:\n7";
    let got = shift_text(out, &[Line, Offset], 10, 100);
    assert_eq!(
        got,
        b"11:100:abc\n12-104-de\n--\n\x1b[0m\x1b[32m13\x1b[0m:109:x 1:2:\n7"
    );
    assert_eq!(shift_text(b"1:5:x\n", &[Line, Column], 1, 50), b"2:5:x\n");
    let j = b"{\"type\":\"begin\",\"data\":{\"path\":{\"text\":\"<stdin>\"}}}\n\
{\"type\":\"match\",\"data\":{\"path\":{\"text\":\"<stdin>\"},\"lines\":{\"text\":\"a\\n\"},\"line_number\":1,\"absolute_offset\":0,\"submatches\":[]}}\n";
    let end = format!(
        "{{\"type\":\"end\",\"data\":{{\"path\":{{\"text\":\"<stdin>\"}},\"stats\":{{\"bytes_printed\":{}}}}}}}\n",
        j.len()
    );
    let raw = [&j[..], end.as_bytes()].concat();
    let shifted = shift_json(&raw, 9, 1000);
    let renamed = path(&shifted, "<stdin>");
    let fixed = fix_bytes_printed(&raw, &renamed);
    let text = String::from_utf8(fixed).unwrap();
    assert!(text.contains("\"line_number\":10,\"absolute_offset\":1000"));
    let printed: usize = text.lines().take(2).map(|l| l.len() + 1).sum();
    assert!(
        text.contains(&format!("\"bytes_printed\":{printed}")),
        "{text}"
    );
    assert_eq!(path(b"hay.gz\nx\n", "hay.gz"), b"hay\nx\n");
    assert_eq!(path(b"hay.gz\r\n", "hay.gz"), b"hay\r\n");
    let e = json_elapsed(b"{\"elapsed\":{\"secs\":1,\"nanos\":5,\"human\":\"1.5s\"}}\n");
    assert_eq!(
        e,
        b"{\"elapsed\":{\"secs\":0,\"nanos\":0,\"human\":\"0s\"}}\n"
    );
}
